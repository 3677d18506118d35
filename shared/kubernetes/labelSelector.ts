// metav1.LabelSelector matching and formatting, the one copy for the API server, the controllers,
// the scheduler, the printers and the UI, after staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/
// helpers.go (LabelSelectorAsSelector, FormatLabelSelector) and pkg/labels/selector.go
// (Requirement.String, Selector.String: requirements sorted by key).
// Matching: a missing selector matches nothing and an empty one everything; an operator other than
// In, NotIn, Exists and DoesNotExist makes the selector invalid, and an invalid selector matches
// nothing (upstream callers turn the conversion error into "no match").
import { isRecord } from './types';

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** metav1.LabelSelectorAsSelector + Matches: an empty selector matches everything, a missing one nothing. */
export function selectorMatches(selector: unknown, labels: Record<string, string> | undefined): boolean {
  if (!isRecord(selector)) return false;
  const own = labels ?? {};
  if (isRecord(selector.matchLabels)) {
    for (const [key, value] of Object.entries(selector.matchLabels)) if (own[key] !== value) return false;
  }
  if (Array.isArray(selector.matchExpressions)) {
    for (const expression of selector.matchExpressions) {
      if (!isRecord(expression) || typeof expression.key !== 'string') return false;
      const key = expression.key;
      const values = Array.isArray(expression.values) ? expression.values.map(String) : [];
      const has = Object.prototype.hasOwnProperty.call(own, key);
      switch (expression.operator) {
        case 'In':
          if (!has || !values.includes(own[key])) return false;
          break;
        case 'NotIn':
          if (has && values.includes(own[key])) return false;
          break;
        case 'Exists':
          if (!has) return false;
          break;
        case 'DoesNotExist':
          if (has) return false;
          break;
        default:
          return false;
      }
    }
  }
  return true;
}

/**
 * labels.SelectorFromSet(set).Matches(labels): every pair of a plain label map (a Service's or
 * ReplicationController's selector, a template's labels) is among the labels; an empty set matches
 * everything.
 */
export function labelSetMatches(set: Record<string, unknown>, labels: Record<string, string> | undefined): boolean {
  const own = labels ?? {};
  return Object.entries(set).every(([key, value]) => Object.prototype.hasOwnProperty.call(own, key) && own[key] === String(value));
}

/** True for a present selector with no requirement at all (it matches everything); false for a missing one. */
export function selectorIsEmpty(selector: unknown): boolean {
  if (!isRecord(selector)) return false;
  const labels = isRecord(selector.matchLabels) ? Object.keys(selector.matchLabels).length : 0;
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions.length : 0;
  return labels + expressions === 0;
}

/** Byte-wise string order, as Go's sort.Strings. */
function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** labels.Requirement.String(); undefined for a requirement LabelSelectorAsSelector rejects. */
function requirementText(key: string, operator: unknown, values: string[]): string | undefined {
  const sorted = [...values].sort(compareStrings);
  switch (operator) {
    case 'In':
      return values.length === 0 ? undefined : `${key} in (${sorted.join(',')})`;
    case 'NotIn':
      return values.length === 0 ? undefined : `${key} notin (${sorted.join(',')})`;
    case 'Exists':
      return values.length === 0 ? key : undefined;
    case 'DoesNotExist':
      return values.length === 0 ? `!${key}` : undefined;
    default:
      return undefined;
  }
}

/**
 * metav1.LabelSelectorAsSelector(selector).String(): requirements sorted by key and joined by `,`
 * (`app=web,tier in (a,b)`), the text a list call's labelSelector takes; an absent or empty
 * selector is ``. Undefined for an invalid selector.
 */
export function labelSelectorString(selector: unknown): string | undefined {
  return requirementsText(selector, true);
}

function requirementsText(selector: unknown, strict: boolean): string | undefined {
  if (!isRecord(selector)) return '';
  const requirements: { key: string; text: string }[] = [];
  if (isRecord(selector.matchLabels)) {
    for (const [key, value] of Object.entries(selector.matchLabels)) if (typeof value === 'string') requirements.push({ key, text: `${key}=${value}` });
  }
  for (const expression of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    const key = isRecord(expression) && typeof expression.key === 'string' ? expression.key : '';
    const values = isRecord(expression) && Array.isArray(expression.values) ? expression.values.filter((value): value is string => typeof value === 'string') : [];
    const text = requirementText(key, isRecord(expression) ? expression.operator : undefined, values);
    if (text === undefined) {
      if (strict) return undefined;
      continue;
    }
    requirements.push({ key, text });
  }
  // Array.prototype.sort is stable, so equal keys keep matchLabels before matchExpressions.
  requirements.sort((left, right) => compareStrings(left.key, right.key));
  return requirements.map((requirement) => requirement.text).join(',');
}

/** metav1.FormatLabelSelector: the selector string, `<none>` when empty, `<error>` when invalid. */
export function formatLabelSelector(selector: unknown): string {
  const text = labelSelectorString(selector);
  if (text === undefined) return '<error>';
  return text === '' ? '<none>' : text;
}

/** The selector as a list call's labelSelector, leaving out requirements that are not valid; '' for an absent selector. */
export function selectorToString(selector: unknown): string {
  return requirementsText(selector, false) ?? '';
}
