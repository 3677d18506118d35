// Matching helpers shared by the plugins, after upstream (label selectors themselves are
// shared/kubernetes/labelSelector):
// - component-helpers/scheduling/corev1/nodeaffinity: nodeSelector AND required node-affinity
//   terms, terms OR-ed, expressions AND-ed, Gt/Lt on integers, matchFields on metadata.name;
// - core/v1 helper ToleratesTaint: effect, key and Equal/Exists operators.
import type { LabelSelector, Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, Taint, Toleration } from './api';
import { arrayOf } from './api';

export type Labels = Record<string, string>;

function requirementMatches(labels: Labels, key: string, operator: string, values: string[] | undefined): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, key);
  const value = labels[key];
  switch (operator) {
    case 'In':
      return has && arrayOf(values).includes(value);
    case 'NotIn':
      return !has || !arrayOf(values).includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has) return false;
      const list = arrayOf(values);
      if (list.length !== 1 || !/^-?\d+$/.test(list[0]) || !/^-?\d+$/.test(value)) return false;
      const left = BigInt(value);
      const right = BigInt(list[0]);
      return operator === 'Gt' ? left > right : left < right;
    }
    default:
      return false;
  }
}

/** A selector that also requires `key=value` for each listed key the pod carries (matchLabelKeys). */
export function withMatchLabelKeys(selector: LabelSelector | null | undefined, keys: string[] | undefined, podLabels: Labels): LabelSelector | null | undefined {
  const list = arrayOf(keys).filter((key) => Object.prototype.hasOwnProperty.call(podLabels, key));
  if (!selector || list.length === 0) return selector;
  return {
    matchLabels: selector.matchLabels,
    matchExpressions: [...arrayOf(selector.matchExpressions), ...list.map((key) => ({ key, operator: 'In', values: [podLabels[key]] }))],
  };
}

function fieldRequirementMatches(node: Node, requirement: NodeSelectorRequirement): boolean {
  // metadata.name is the only node field upstream supports in matchFields.
  if (requirement.key !== 'metadata.name') return false;
  if (requirement.operator !== 'In' && requirement.operator !== 'NotIn') return false;
  return requirementMatches({ 'metadata.name': node.metadata.name ?? '' }, requirement.key, requirement.operator, requirement.values);
}

/** One node selector term: every expression and field requirement holds; an empty term matches nothing. */
export function nodeSelectorTermMatches(term: NodeSelectorTerm | undefined, node: Node): boolean {
  if (!term) return false;
  const expressions = arrayOf(term.matchExpressions);
  const fields = arrayOf(term.matchFields);
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return expressions.every((requirement) => requirementMatches(labels, requirement.key, requirement.operator, requirement.values)) && fields.every((requirement) => fieldRequirementMatches(node, requirement));
}

/** spec.nodeSelector and required node affinity (upstream GetRequiredNodeAffinity(pod).Match(node)). */
export function podMatchesNodeSelectorAndAffinity(pod: Pod, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [key, value] of Object.entries(pod.spec?.nodeSelector ?? {})) {
    if (labels[key] !== value) return false;
  }
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required) return arrayOf(required.nodeSelectorTerms).some((term) => nodeSelectorTermMatches(term, node));
  return true;
}

export function tolerationToleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tolerations: Toleration[] | undefined, taint: Taint): boolean {
  return arrayOf(tolerations).some((toleration) => tolerationToleratesTaint(toleration, taint));
}

/** The first NoSchedule/NoExecute taint the tolerations don't tolerate (upstream FindMatchingUntoleratedTaint). */
export function findUntoleratedTaint(taints: Taint[], tolerations: Toleration[] | undefined): Taint | undefined {
  return taints.find((taint) => (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !tolerationsTolerateTaint(tolerations, taint));
}
