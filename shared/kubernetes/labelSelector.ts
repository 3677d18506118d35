// metav1.LabelSelector matching and formatting, shared by the API server (eviction, scale) and the
// controllers: an empty selector matches everything, a missing one nothing, as
// staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go LabelSelectorAsSelector.
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

/** The selector as a label-selector query string (for list calls), e.g. `app=web,tier in (a,b)`. */
export function selectorToString(selector: unknown): string {
  if (!isRecord(selector)) return '';
  const parts: string[] = [];
  if (isRecord(selector.matchLabels)) for (const [key, value] of Object.entries(selector.matchLabels)) parts.push(`${key}=${String(value)}`);
  if (Array.isArray(selector.matchExpressions)) {
    for (const expression of selector.matchExpressions) {
      if (!isRecord(expression)) continue;
      const values = Array.isArray(expression.values) ? expression.values.map(String) : [];
      if (expression.operator === 'In') parts.push(`${String(expression.key)} in (${values.join(',')})`);
      else if (expression.operator === 'NotIn') parts.push(`${String(expression.key)} notin (${values.join(',')})`);
      else if (expression.operator === 'Exists') parts.push(String(expression.key));
      else if (expression.operator === 'DoesNotExist') parts.push(`!${String(expression.key)}`);
    }
  }
  return parts.join(',');
}
