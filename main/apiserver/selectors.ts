// Label and field selectors, parsed from query strings and matched against objects.
// Label syntax follows staging/src/k8s.io/apimachinery/pkg/labels/selector.go (=, ==, !=, in, notin,
// exists, !exists); field syntax follows pkg/fields/selector.go (=, ==, != on a fixed set of fields).
import { ApiError } from './apiError';

export type LabelRequirement =
  | { key: string; operator: 'In' | 'NotIn'; values: string[] }
  | { key: string; operator: 'Exists' | 'DoesNotExist' };

export interface FieldRequirement {
  field: string;
  operator: 'Equals' | 'NotEquals';
  value: string;
}

/** Parses a label selector string. Throws ApiError 400 with upstream-like messages on syntax errors. */
export function parseLabelSelector(text: string): LabelRequirement[] {
  const requirements: LabelRequirement[] = [];
  const input = text.trim();
  if (input === '') return requirements;
  let position = 0;
  const fail = (why: string): never => {
    throw ApiError.badRequest(`unable to parse requirement: ${why}`);
  };
  const skipSpaces = () => {
    while (position < input.length && input[position] === ' ') position++;
  };
  const readToken = (): string => {
    skipSpaces();
    const start = position;
    while (position < input.length && !' ,()=!'.includes(input[position])) position++;
    return input.slice(start, position);
  };
  while (position < input.length) {
    skipSpaces();
    let negated = false;
    if (input[position] === '!') {
      negated = true;
      position++;
    }
    const key = readToken();
    if (!key) fail(`found '${input[position] ?? ''}', expected: identifier`);
    validateLabelKey(key);
    skipSpaces();
    if (negated) {
      requirements.push({ key, operator: 'DoesNotExist' });
    } else if (position >= input.length || input[position] === ',') {
      requirements.push({ key, operator: 'Exists' });
    } else if (input.startsWith('==', position) || input.startsWith('!=', position) || input[position] === '=') {
      const operator = input.startsWith('!=', position) ? 'NotIn' : 'In';
      position += input.startsWith('==', position) || input.startsWith('!=', position) ? 2 : 1;
      const value = readToken();
      validateLabelValue(value);
      requirements.push({ key, operator, values: [value] });
    } else {
      const word = readToken();
      if (word !== 'in' && word !== 'notin') fail(`found '${word}', expected: in, notin, =, ==, !=, gt, lt`);
      skipSpaces();
      if (input[position] !== '(') fail(`found '${input[position] ?? ''}', expected: '('`);
      position++;
      const values: string[] = [];
      for (;;) {
        const value = readToken();
        validateLabelValue(value);
        values.push(value);
        skipSpaces();
        if (input[position] === ',') {
          position++;
          continue;
        }
        if (input[position] === ')') {
          position++;
          break;
        }
        fail(`found '${input[position] ?? ''}', expected: ',' or ')'`);
      }
      requirements.push({ key, operator: word === 'in' ? 'In' : 'NotIn', values });
    }
    skipSpaces();
    if (position < input.length) {
      if (input[position] !== ',') fail(`found '${input[position]}', expected: ','`);
      position++;
    }
  }
  return requirements;
}

const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validateLabelKey(key: string): void {
  const slash = key.indexOf('/');
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const prefix = slash >= 0 ? key.slice(0, slash) : '';
  if (!qualifiedNamePart.test(name) || name.length > 63 || (slash >= 0 && (!dns1123Subdomain.test(prefix) || prefix.length > 253))) {
    throw ApiError.badRequest(
      `unable to parse requirement: values[0][${key}]: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
  }
}

function validateLabelValue(value: string): void {
  if (value === '') return;
  if (value.length > 63 || !qualifiedNamePart.test(value)) {
    throw ApiError.badRequest(
      `unable to parse requirement: values[0][${value}]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
  }
}

export function matchesLabels(requirements: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  for (const requirement of requirements) {
    const present = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, requirement.key);
    switch (requirement.operator) {
      case 'Exists':
        if (!present) return false;
        break;
      case 'DoesNotExist':
        if (present) return false;
        break;
      case 'In':
        if (!present || !requirement.values.includes(labels[requirement.key])) return false;
        break;
      case 'NotIn':
        if (present && requirement.values.includes(labels[requirement.key])) return false;
        break;
    }
  }
  return true;
}

/** Parses `a=b,c!=d`; backslash escapes as upstream fields.EscapeValue. */
export function parseFieldSelector(text: string): FieldRequirement[] {
  const requirements: FieldRequirement[] = [];
  if (text.trim() === '') return requirements;
  for (const part of splitUnescaped(text, ',')) {
    const term = part.trim();
    if (term === '') continue;
    let operator: FieldRequirement['operator'];
    let index: number;
    let length: number;
    if ((index = term.indexOf('!=')) >= 0) {
      operator = 'NotEquals';
      length = 2;
    } else if ((index = term.indexOf('==')) >= 0) {
      operator = 'Equals';
      length = 2;
    } else if ((index = term.indexOf('=')) >= 0) {
      operator = 'Equals';
      length = 1;
    } else {
      throw ApiError.badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    }
    requirements.push({ field: term.slice(0, index).trim(), operator, value: unescapeFieldValue(term.slice(index + length)) });
  }
  return requirements;
}

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && i + 1 < text.length) {
      current += text[i] + text[i + 1];
      i++;
    } else if (text[i] === separator) {
      parts.push(current);
      current = '';
    } else {
      current += text[i];
    }
  }
  parts.push(current);
  return parts;
}

function unescapeFieldValue(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/** Checks that every field is selectable for the kind; unknown fields are a 400 as upstream. */
export function validateFieldSelector(requirements: FieldRequirement[], allowed: Set<string>, kind: string): void {
  for (const requirement of requirements) {
    if (!allowed.has(requirement.field)) {
      throw ApiError.badRequest(`field label not supported: ${requirement.field}`);
    }
  }
  void kind;
}

export function matchesFields(requirements: FieldRequirement[], fields: Record<string, string>): boolean {
  for (const requirement of requirements) {
    const value = fields[requirement.field] ?? '';
    if (requirement.operator === 'Equals' ? value !== requirement.value : value === requirement.value) return false;
  }
  return true;
}
