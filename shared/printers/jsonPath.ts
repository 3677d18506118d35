// A small evaluator for the JSONPath subset CustomResourceDefinition additionalPrinterColumns use
// (`.spec.replicas`, `.status.conditions[0].type`, `.items[*].name`,
// `.status.conditions[?(@.type=="Ready")].status`), returning every match like
// k8s.io/client-go/util/jsonpath FindResults. Unsupported syntax yields undefined.
import { isRecord } from '../kubernetes/types';

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }
  | { kind: 'filter'; path: string[]; operator: '==' | '!='; value: string | number | boolean };

function parseLiteral(text: string): string | number | boolean | undefined {
  const trimmed = text.trim();
  const quoted = /^'(.*)'$|^"(.*)"$/.exec(trimmed);
  if (quoted) return quoted[1] ?? quoted[2] ?? '';
  if (trimmed === 'true') return true;
  if (trimmed === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  return undefined;
}

/** Parses a path such as `.status.conditions[?(@.type=="Ready")].status`, with or without `{}` and `$`. */
export function parseJsonPath(expression: string): Step[] | undefined {
  let text = expression.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  if (text.startsWith('$')) text = text.slice(1);
  const steps: Step[] = [];
  let position = 0;
  while (position < text.length) {
    const character = text[position];
    if (character === '.') {
      const match = /^[A-Za-z0-9_\-/]+|^\*/.exec(text.slice(position + 1));
      if (!match) return undefined;
      steps.push(match[0] === '*' ? { kind: 'wildcard' } : { kind: 'field', name: match[0] });
      position += 1 + match[0].length;
      continue;
    }
    if (character === '[') {
      const end = text.indexOf(']', position);
      if (end < 0) return undefined;
      const inner = text.slice(position + 1, end).trim();
      position = end + 1;
      if (inner === '*') {
        steps.push({ kind: 'wildcard' });
      } else if (/^-?\d+$/.test(inner)) {
        steps.push({ kind: 'index', index: Number(inner) });
      } else if (/^'.*'$|^".*"$/.test(inner)) {
        steps.push({ kind: 'field', name: inner.slice(1, -1) });
      } else {
        const filter = /^\?\(@((?:\.[A-Za-z0-9_\-/]+)+)\s*(==|!=)\s*(.+)\)$/.exec(inner);
        if (!filter) return undefined;
        const value = parseLiteral(filter[3]);
        if (value === undefined) return undefined;
        const operator = filter[2] === '!=' ? '!=' : '==';
        steps.push({ kind: 'filter', path: filter[1].slice(1).split('.'), operator, value });
      }
      continue;
    }
    return undefined;
  }
  return steps;
}

function fieldOf(value: unknown, path: string[]): unknown {
  let current = value;
  for (const name of path) {
    if (!isRecord(current)) return undefined;
    current = current[name];
  }
  return current;
}

function applyStep(values: unknown[], step: Step): unknown[] {
  const next: unknown[] = [];
  for (const value of values) {
    switch (step.kind) {
      case 'field':
        if (isRecord(value) && value[step.name] !== undefined) next.push(value[step.name]);
        break;
      case 'index':
        if (Array.isArray(value)) {
          const index = step.index < 0 ? value.length + step.index : step.index;
          if (index >= 0 && index < value.length) next.push(value[index]);
        }
        break;
      case 'wildcard':
        if (Array.isArray(value)) next.push(...value);
        else if (isRecord(value)) next.push(...Object.values(value));
        break;
      case 'filter':
        if (Array.isArray(value)) {
          for (const item of value) {
            const actual = fieldOf(item, step.path);
            if (actual === undefined) continue;
            if ((actual === step.value) === (step.operator === '==')) next.push(item);
          }
        }
        break;
    }
  }
  return next;
}

/** Every value the path selects in `root`; undefined when the path is not supported. */
export function findJsonPathResults(root: unknown, expression: string): unknown[] | undefined {
  const steps = parseJsonPath(expression);
  if (steps === undefined) return undefined;
  let values: unknown[] = [root];
  for (const step of steps) values = applyStep(values, step);
  return values;
}
