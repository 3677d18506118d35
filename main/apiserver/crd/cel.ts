// A small evaluator for the Common Expression Language subset that CustomResourceDefinition
// `x-kubernetes-validations` rules use most (apiextensions-apiserver pkg/apiserver/schema/cel).
// Supported:
// - literals: int, double, string ('…', "…", r'…'), bool, null, lists [a, b], maps {'k': v}
// - variables `self` and `oldSelf` (transition rules), field access `self.a.b`, index `self.a[0]`,
//   `self.m['key']`
// - operators: ! - * / % + (numbers, strings, lists) == != < <= > >= in && || and `c ? a : b`
// - macros: has(self.x), l.all(x, p), l.exists(x, p), l.exists_one(x, p), l.map(x, e), l.filter(x, p)
// - functions: size(x) / x.size(), s.matches(re) / matches(s, re), startsWith, endsWith, contains,
//   lowerAscii, upperAscii, trim, split, join, indexOf, int(), double(), string(), bool(),
//   isSorted(), min(), max()
// Anything else (optional fields `?.`, quantities, durations, timestamps, type(), messageExpression
// …) raises CelUnsupportedError, which the caller reports as such instead of guessing.
import { isRecord } from '../../../shared/kubernetes/types';

/** The rule failed to evaluate (e.g. `no such key: x`), as CEL runtime errors. */
export class CelEvaluationError extends Error {}

/** The rule uses CEL that this evaluator does not implement. */
export class CelUnsupportedError extends Error {}

type Token = { kind: 'number'; value: number; integer: boolean } | { kind: 'string'; value: string } | { kind: 'identifier'; value: string } | { kind: 'operator'; value: string };

type Node =
  | { kind: 'literal'; value: unknown }
  | { kind: 'identifier'; name: string }
  | { kind: 'select'; target: Node; field: string }
  | { kind: 'index'; target: Node; index: Node }
  | { kind: 'call'; target?: Node; name: string; args: Node[] }
  | { kind: 'unary'; operator: string; operand: Node }
  | { kind: 'binary'; operator: string; left: Node; right: Node }
  | { kind: 'conditional'; condition: Node; then: Node; otherwise: Node }
  | { kind: 'list'; items: Node[] }
  | { kind: 'map'; entries: [Node, Node][] };

const OPERATORS = ['&&', '||', '==', '!=', '<=', '>=', '<', '>', '!', '+', '-', '*', '/', '%', '?', ':', '.', ',', '(', ')', '[', ']', '{', '}'];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  while (position < source.length) {
    const character = source[position];
    if (/\s/.test(character)) {
      position++;
      continue;
    }
    const rest = source.slice(position);
    const number = /^(\d+\.\d+([eE][+-]?\d+)?|\d+[eE][+-]?\d+|0x[0-9a-fA-F]+|\d+)(u|U)?/.exec(rest);
    if (number) {
      const text = number[1];
      const integer = !/[.eE]/.test(text) || text.startsWith('0x');
      tokens.push({ kind: 'number', value: Number(text), integer });
      position += number[0].length;
      continue;
    }
    const raw = /^[rR]/.test(character) && (source[position + 1] === "'" || source[position + 1] === '"');
    if (character === "'" || character === '"' || raw) {
      const start = raw ? position + 1 : position;
      const quote = source[start];
      const triple = source.startsWith(quote.repeat(3), start);
      const delimiter = triple ? quote.repeat(3) : quote;
      let index = start + delimiter.length;
      let value = '';
      for (;;) {
        if (index >= source.length) throw new CelUnsupportedError('unterminated string literal');
        if (source.startsWith(delimiter, index)) break;
        const current = source[index];
        if (current === '\\' && !raw) {
          const next = source[index + 1];
          const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '`': '`', '?': '?', a: '\x07', b: '\b', f: '\f', v: '\v' };
          if (next in escapes) {
            value += escapes[next];
            index += 2;
            continue;
          }
          throw new CelUnsupportedError(`escape sequence \\${next}`);
        }
        value += current;
        index++;
      }
      tokens.push({ kind: 'string', value });
      position = index + delimiter.length;
      continue;
    }
    const identifier = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (identifier) {
      tokens.push({ kind: 'identifier', value: identifier[0] });
      position += identifier[0].length;
      continue;
    }
    const operator = OPERATORS.find((candidate) => rest.startsWith(candidate));
    if (!operator) throw new CelUnsupportedError(`unexpected character ${JSON.stringify(character)}`);
    tokens.push({ kind: 'operator', value: operator });
    position += operator.length;
  }
  return tokens;
}

class Parser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Node {
    const node = this.expression();
    if (this.position < this.tokens.length) throw new CelUnsupportedError(`unexpected ${this.describe(this.tokens[this.position])}`);
    return node;
  }

  private describe(token: Token | undefined): string {
    if (!token) return 'end of expression';
    return `'${String(token.value)}'`;
  }

  private peekOperator(value: string): boolean {
    const token = this.tokens[this.position];
    return token !== undefined && token.kind === 'operator' && token.value === value;
  }

  private peekKeyword(value: string): boolean {
    const token = this.tokens[this.position];
    return token !== undefined && token.kind === 'identifier' && token.value === value;
  }

  private expect(value: string): void {
    if (!this.peekOperator(value)) throw new CelUnsupportedError(`expected '${value}' but found ${this.describe(this.tokens[this.position])}`);
    this.position++;
  }

  private expression(): Node {
    const condition = this.binary(0);
    if (this.peekOperator('?')) {
      this.position++;
      const then = this.expression();
      this.expect(':');
      const otherwise = this.expression();
      return { kind: 'conditional', condition, then, otherwise };
    }
    return condition;
  }

  private static readonly levels: string[][] = [['||'], ['&&'], ['==', '!=', '<', '<=', '>', '>=', 'in'], ['+', '-'], ['*', '/', '%']];

  private binary(level: number): Node {
    if (level >= Parser.levels.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const operator = Parser.levels[level].find((candidate) => (candidate === 'in' ? this.peekKeyword('in') : this.peekOperator(candidate)));
      if (!operator) return left;
      this.position++;
      const right = this.binary(level + 1);
      left = { kind: 'binary', operator, left, right };
    }
  }

  private unary(): Node {
    if (this.peekOperator('!') || this.peekOperator('-')) {
      const operator = String(this.tokens[this.position++].value);
      return { kind: 'unary', operator, operand: this.unary() };
    }
    return this.member();
  }

  private member(): Node {
    let node = this.primary();
    for (;;) {
      if (this.peekOperator('.')) {
        this.position++;
        if (this.peekOperator('?')) throw new CelUnsupportedError('optional field selection (.?)');
        const token = this.tokens[this.position++];
        if (!token || token.kind !== 'identifier') throw new CelUnsupportedError(`expected a field name but found ${this.describe(token)}`);
        if (this.peekOperator('(')) {
          this.position++;
          node = { kind: 'call', target: node, name: token.value, args: this.arguments(')') };
        } else {
          node = { kind: 'select', target: node, field: token.value };
        }
        continue;
      }
      if (this.peekOperator('[')) {
        this.position++;
        if (this.peekOperator('?')) throw new CelUnsupportedError('optional index ([?])');
        const index = this.expression();
        this.expect(']');
        node = { kind: 'index', target: node, index };
        continue;
      }
      return node;
    }
  }

  private arguments(close: string): Node[] {
    const args: Node[] = [];
    if (this.peekOperator(close)) {
      this.position++;
      return args;
    }
    for (;;) {
      args.push(this.expression());
      if (this.peekOperator(',')) {
        this.position++;
        if (this.peekOperator(close)) {
          this.position++;
          return args;
        }
        continue;
      }
      this.expect(close);
      return args;
    }
  }

  private primary(): Node {
    const token = this.tokens[this.position++];
    if (!token) throw new CelUnsupportedError('unexpected end of expression');
    if (token.kind === 'number') return { kind: 'literal', value: token.value };
    if (token.kind === 'string') return { kind: 'literal', value: token.value };
    if (token.kind === 'identifier') {
      if (token.value === 'true') return { kind: 'literal', value: true };
      if (token.value === 'false') return { kind: 'literal', value: false };
      if (token.value === 'null') return { kind: 'literal', value: null };
      if (this.peekOperator('(')) {
        this.position++;
        return { kind: 'call', name: token.value, args: this.arguments(')') };
      }
      return { kind: 'identifier', name: token.value };
    }
    if (token.value === '(') {
      const inner = this.expression();
      this.expect(')');
      return inner;
    }
    if (token.value === '[') return { kind: 'list', items: this.arguments(']') };
    if (token.value === '{') {
      const entries: [Node, Node][] = [];
      if (this.peekOperator('}')) {
        this.position++;
        return { kind: 'map', entries };
      }
      for (;;) {
        const key = this.expression();
        this.expect(':');
        entries.push([key, this.expression()]);
        if (this.peekOperator(',')) {
          this.position++;
          if (this.peekOperator('}')) break;
          continue;
        }
        break;
      }
      this.expect('}');
      return { kind: 'map', entries };
    }
    throw new CelUnsupportedError(`unexpected ${this.describe(token)}`);
  }
}

const cache = new Map<string, Node>();

/** Parses a rule; throws CelUnsupportedError for syntax outside the subset. */
export function parseRule(rule: string): Node {
  const cached = cache.get(rule);
  if (cached) return cached;
  const node = new Parser(tokenize(rule)).parse();
  if (cache.size > 2000) cache.clear();
  cache.set(rule, node);
  return node;
}

/** Whether a rule refers to `oldSelf` (a transition rule, evaluated on updates only). */
export function isTransitionRule(rule: string): boolean {
  return /\boldSelf\b/.test(rule);
}

type Variables = Map<string, unknown>;

/** Evaluates a rule; throws CelEvaluationError or CelUnsupportedError. */
export function evaluateRule(rule: string, variables: Record<string, unknown>): unknown {
  return evaluate(parseRule(rule), new Map(Object.entries(variables)));
}

function typeName(value: unknown): string {
  if (value === null) return 'null_type';
  if (Array.isArray(value)) return 'list';
  if (isRecord(value)) return 'map';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function noOverload(name: string, ...values: unknown[]): CelEvaluationError {
  return new CelEvaluationError(`no such overload: ${name}(${values.map(typeName).join(', ')})`);
}

function equal(left: unknown, right: unknown): boolean {
  if (Array.isArray(left) && Array.isArray(right)) return left.length === right.length && left.every((item, index) => equal(item, right[index]));
  if (isRecord(left) && isRecord(right)) {
    const keys = Object.keys(left);
    return keys.length === Object.keys(right).length && keys.every((key) => Object.prototype.hasOwnProperty.call(right, key) && equal(left[key], right[key]));
  }
  return left === right;
}

function truthy(value: unknown, context: string): boolean {
  if (typeof value !== 'boolean') throw new CelEvaluationError(`no matching overload for '${context}' applied to '(${typeName(value)})'`);
  return value;
}

function select(target: unknown, field: string): unknown {
  if (isRecord(target)) {
    if (!Object.prototype.hasOwnProperty.call(target, field)) throw new CelEvaluationError(`no such key: ${field}`);
    return target[field];
  }
  throw new CelEvaluationError(`no such key: ${field}`);
}

function evaluate(node: Node, variables: Variables): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'identifier':
      if (!variables.has(node.name)) throw new CelUnsupportedError(`undeclared reference to '${node.name}'`);
      return variables.get(node.name);
    case 'select':
      return select(evaluate(node.target, variables), node.field);
    case 'index': {
      const target = evaluate(node.target, variables);
      const index = evaluate(node.index, variables);
      if (Array.isArray(target) && typeof index === 'number') {
        if (index < 0 || index >= target.length || !Number.isInteger(index)) throw new CelEvaluationError(`index out of bounds: ${index}`);
        return target[index];
      }
      if (isRecord(target) && typeof index === 'string') return select(target, index);
      throw noOverload('_[_]', target, index);
    }
    case 'list':
      return node.items.map((item) => evaluate(item, variables));
    case 'map': {
      const map: Record<string, unknown> = {};
      for (const [key, value] of node.entries) {
        const evaluatedKey = evaluate(key, variables);
        if (typeof evaluatedKey !== 'string') throw new CelUnsupportedError('map literals with non-string keys');
        map[evaluatedKey] = evaluate(value, variables);
      }
      return map;
    }
    case 'conditional':
      return truthy(evaluate(node.condition, variables), '_?_:_') ? evaluate(node.then, variables) : evaluate(node.otherwise, variables);
    case 'unary': {
      const operand = evaluate(node.operand, variables);
      if (node.operator === '!') return !truthy(operand, '!_');
      if (typeof operand !== 'number') throw noOverload('-_', operand);
      return -operand;
    }
    case 'binary':
      return binary(node, variables);
    case 'call':
      return call(node, variables);
  }
}

function binary(node: Extract<Node, { kind: 'binary' }>, variables: Variables): unknown {
  if (node.operator === '&&' || node.operator === '||') {
    // CEL's commutative logic: an error on one side is absorbed when the other side decides.
    let leftValue: boolean | undefined;
    let leftError: unknown;
    try {
      leftValue = truthy(evaluate(node.left, variables), `_${node.operator}_`);
    } catch (error) {
      if (error instanceof CelUnsupportedError) throw error;
      leftError = error;
    }
    const decisive = node.operator === '||';
    if (leftValue === decisive) return decisive;
    const rightValue = truthy(evaluate(node.right, variables), `_${node.operator}_`);
    if (rightValue === decisive) return decisive;
    if (leftError) throw leftError;
    return !decisive;
  }
  const left = evaluate(node.left, variables);
  const right = evaluate(node.right, variables);
  switch (node.operator) {
    case '==':
      return equal(left, right);
    case '!=':
      return !equal(left, right);
    case 'in':
      if (Array.isArray(right)) return right.some((item) => equal(item, left));
      if (isRecord(right) && typeof left === 'string') return Object.prototype.hasOwnProperty.call(right, left);
      throw noOverload('@in', left, right);
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const comparable = (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string') || (typeof left === 'boolean' && typeof right === 'boolean');
      if (!comparable) throw noOverload(`_${node.operator}_`, left, right);
      const l = left as number | string | boolean;
      const r = right as number | string | boolean;
      if (node.operator === '<') return l < r;
      if (node.operator === '<=') return l <= r;
      if (node.operator === '>') return l > r;
      return l >= r;
    }
    case '+':
      if (typeof left === 'number' && typeof right === 'number') return left + right;
      if (typeof left === 'string' && typeof right === 'string') return left + right;
      if (Array.isArray(left) && Array.isArray(right)) return [...left, ...right];
      throw noOverload('_+_', left, right);
    case '-':
    case '*':
    case '/':
    case '%': {
      if (typeof left !== 'number' || typeof right !== 'number') throw noOverload(`_${node.operator}_`, left, right);
      const integers = Number.isInteger(left) && Number.isInteger(right);
      if (node.operator === '-') return left - right;
      if (node.operator === '*') return left * right;
      if ((node.operator === '/' || node.operator === '%') && right === 0 && integers) throw new CelEvaluationError(node.operator === '/' ? 'division by zero' : 'modulus by zero');
      if (node.operator === '/') return integers ? Math.trunc(left / right) : left / right;
      return left % right;
    }
  }
  throw new CelUnsupportedError(`operator ${node.operator}`);
}

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

function call(node: Extract<Node, { kind: 'call' }>, variables: Variables): unknown {
  if (!node.target && node.name === 'has') {
    const [argument] = node.args;
    if (node.args.length !== 1 || argument.kind !== 'select') throw new CelUnsupportedError('has() needs a field selection argument');
    const target = evaluate(argument.target, variables);
    return isRecord(target) && Object.prototype.hasOwnProperty.call(target, argument.field);
  }
  if (node.target && MACROS.has(node.name)) return macro(node, variables);
  const target = node.target ? evaluate(node.target, variables) : undefined;
  const args = node.args.map((argument) => evaluate(argument, variables));
  const receiver = node.target ? [target, ...args] : args;
  const [first, second] = receiver;
  switch (node.name) {
    case 'size':
      if (typeof first === 'string') return [...first].length;
      if (Array.isArray(first)) return first.length;
      if (isRecord(first)) return Object.keys(first).length;
      throw noOverload('size', first);
    case 'matches':
      if (typeof first !== 'string' || typeof second !== 'string') throw noOverload('matches', first, second);
      try {
        return new RegExp(second, 'u').test(first);
      } catch {
        throw new CelUnsupportedError(`regular expression ${JSON.stringify(second)}`);
      }
    case 'startsWith':
    case 'endsWith':
    case 'contains':
      if (typeof first !== 'string' || typeof second !== 'string') throw noOverload(node.name, first, second);
      return node.name === 'startsWith' ? first.startsWith(second) : node.name === 'endsWith' ? first.endsWith(second) : first.includes(second);
    case 'lowerAscii':
    case 'upperAscii':
    case 'trim':
      if (typeof first !== 'string') throw noOverload(node.name, first);
      return node.name === 'lowerAscii' ? first.replace(/[A-Z]/g, (c) => c.toLowerCase()) : node.name === 'upperAscii' ? first.replace(/[a-z]/g, (c) => c.toUpperCase()) : first.trim();
    case 'split':
      if (typeof first !== 'string' || typeof second !== 'string') throw noOverload('split', first, second);
      return first.split(second);
    case 'join':
      if (!Array.isArray(first)) throw noOverload('join', first);
      return first.map(String).join(typeof second === 'string' ? second : '');
    case 'indexOf':
      if (typeof first !== 'string' || typeof second !== 'string') throw noOverload('indexOf', first, second);
      return first.indexOf(second);
    case 'isSorted':
      if (!Array.isArray(first)) throw noOverload('isSorted', first);
      return first.every((item, index) => index === 0 || (first[index - 1] as number | string) <= (item as number | string));
    case 'min':
    case 'max': {
      const list = Array.isArray(first) ? first : receiver;
      if (list.length === 0 || !list.every((item) => typeof item === 'number')) throw noOverload(node.name, ...receiver);
      return node.name === 'min' ? Math.min(...(list as number[])) : Math.max(...(list as number[]));
    }
    case 'int':
      if (typeof first === 'number') return Math.trunc(first);
      if (typeof first === 'string' && /^-?\d+$/.test(first)) return Number(first);
      throw noOverload('int', first);
    case 'double':
      if (typeof first === 'number') return first;
      if (typeof first === 'string' && first.trim() !== '' && !Number.isNaN(Number(first))) return Number(first);
      throw noOverload('double', first);
    case 'string':
      if (typeof first === 'string' || typeof first === 'number' || typeof first === 'boolean') return String(first);
      throw noOverload('string', first);
    case 'bool':
      if (typeof first === 'boolean') return first;
      if (first === 'true' || first === 'false') return first === 'true';
      throw noOverload('bool', first);
    default:
      throw new CelUnsupportedError(`function ${node.name}()`);
  }
}

function macro(node: Extract<Node, { kind: 'call' }>, variables: Variables): unknown {
  const [variable, body] = node.args;
  if (node.args.length !== 2 || variable.kind !== 'identifier' || !node.target) throw new CelUnsupportedError(`${node.name}() with ${node.args.length} arguments`);
  const target = evaluate(node.target, variables);
  const elements = Array.isArray(target) ? target : isRecord(target) ? Object.keys(target) : undefined;
  if (!elements) throw noOverload(node.name, target);
  const run = (element: unknown): unknown => {
    const scope = new Map(variables);
    scope.set(variable.name, element);
    return evaluate(body, scope);
  };
  switch (node.name) {
    case 'all':
      return elements.every((element) => truthy(run(element), 'all'));
    case 'exists':
      return elements.some((element) => truthy(run(element), 'exists'));
    case 'exists_one':
      return elements.filter((element) => truthy(run(element), 'exists_one')).length === 1;
    case 'map':
      return elements.map(run);
    default:
      return elements.filter((element) => truthy(run(element), 'filter'));
  }
}
