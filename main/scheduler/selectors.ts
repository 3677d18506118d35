// Selector helpers of the scheduler's own plugins (label selectors themselves are
// shared/kubernetes/labelSelector; node affinity and tolerations are main/componentHelpers).
import type { LabelSelector } from './api';
import { arrayOf } from './api';

export type Labels = Record<string, string>;

/** A selector that also requires `key=value` for each listed key the pod carries (matchLabelKeys). */
export function withMatchLabelKeys(selector: LabelSelector | null | undefined, keys: string[] | undefined, podLabels: Labels): LabelSelector | null | undefined {
  const list = arrayOf(keys).filter((key) => Object.prototype.hasOwnProperty.call(podLabels, key));
  if (!selector || list.length === 0) return selector;
  return {
    matchLabels: selector.matchLabels,
    matchExpressions: [...arrayOf(selector.matchExpressions), ...list.map((key) => ({ key, operator: 'In', values: [podLabels[key]] }))],
  };
}
