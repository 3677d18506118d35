// Scheduling helpers the scheduler and the controllers share, after upstream
// staging/src/k8s.io/component-helpers/scheduling/corev1 (helpers.go, nodeaffinity/) and the
// core/v1 taint helpers (toleration.go ToleratesTaint, well_known_taints.go):
// - node affinity: nodeSelector AND required node-affinity terms; terms OR-ed, expressions AND-ed,
//   Gt/Lt on integers, matchFields on metadata.name;
// - taints and tolerations: effect, key and Equal/Exists operators; the well-known taint keys.
// Objects are read defensively: every field is optional, a malformed one means "no constraint".

export const taintNodeNotReady = 'node.kubernetes.io/not-ready';
export const taintNodeUnreachable = 'node.kubernetes.io/unreachable';
export const taintNodeUnschedulable = 'node.kubernetes.io/unschedulable';
export const taintNodeMemoryPressure = 'node.kubernetes.io/memory-pressure';
export const taintNodeDiskPressure = 'node.kubernetes.io/disk-pressure';
export const taintNodePIDPressure = 'node.kubernetes.io/pid-pressure';
export const taintNodeNetworkUnavailable = 'node.kubernetes.io/network-unavailable';

export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface PreferredSchedulingTerm {
  weight: number;
  preference: NodeSelectorTerm;
}

export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] };
  preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[];
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  /** set for NoExecute taints: when the taint was added */
  timeAdded?: string;
}

/** The parts of a Node the helpers read. */
export interface SchedulingNode {
  metadata: { name?: string; labels?: Record<string, string> };
}

/** The parts of a Pod the helpers read. */
export interface SchedulingPod {
  spec?: { nodeSelector?: Record<string, string>; affinity?: { nodeAffinity?: NodeAffinity } };
}

function arrayOf<T>(value: T[] | undefined | null): T[] {
  return Array.isArray(value) ? value : [];
}

function requirementMatches(labels: Record<string, string>, key: string, operator: string, values: string[] | undefined): boolean {
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

function fieldRequirementMatches(node: SchedulingNode, requirement: NodeSelectorRequirement): boolean {
  // metadata.name is the only node field upstream supports in matchFields.
  if (requirement.key !== 'metadata.name') return false;
  if (requirement.operator !== 'In' && requirement.operator !== 'NotIn') return false;
  return requirementMatches({ 'metadata.name': node.metadata.name ?? '' }, requirement.key, requirement.operator, requirement.values);
}

/** One node selector term: every expression and field requirement holds; an empty term matches nothing. */
export function nodeSelectorTermMatches(term: NodeSelectorTerm | undefined, node: SchedulingNode): boolean {
  if (!term) return false;
  const expressions = arrayOf(term.matchExpressions);
  const fields = arrayOf(term.matchFields);
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return expressions.every((requirement) => requirementMatches(labels, requirement.key, requirement.operator, requirement.values)) && fields.every((requirement) => fieldRequirementMatches(node, requirement));
}

/** spec.nodeSelector and required node affinity (upstream GetRequiredNodeAffinity(pod).Match(node)). */
export function podMatchesNodeSelectorAndAffinity(pod: SchedulingPod, node: SchedulingNode): boolean {
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
