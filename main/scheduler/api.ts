// The parts of core/v1 Pod and Node the scheduler reads, typed after upstream k8s.io/api/core/v1
// (types.go). Objects come from informers as parsed JSON; every field is optional here and read
// defensively, so a malformed object degrades to "no constraint" rather than a crash.
import type { KubeObject } from '../../shared/kubernetes/types';
import type { NodeAffinity, Taint, Toleration } from '../componentHelpers/scheduling/corev1';

export type { NodeAffinity, NodeSelectorRequirement, NodeSelectorTerm, PreferredSchedulingTerm, Taint, Toleration } from '../componentHelpers/scheduling/corev1';
import type { Condition } from '../../shared/kubernetes/conditions';

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}





export interface PodAffinityTerm {
  labelSelector?: LabelSelector | null;
  namespaces?: string[];
  namespaceSelector?: LabelSelector | null;
  topologyKey: string;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

export interface WeightedPodAffinityTerm {
  weight: number;
  podAffinityTerm: PodAffinityTerm;
}

export interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
}

export interface Affinity {
  nodeAffinity?: NodeAffinity;
  podAffinity?: PodAffinity;
  podAntiAffinity?: PodAffinity;
}



export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: string;
  labelSelector?: LabelSelector | null;
  minDomains?: number;
  nodeAffinityPolicy?: string;
  nodeTaintsPolicy?: string;
  matchLabelKeys?: string[];
}

export interface ContainerPort {
  containerPort?: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: string;
}

export interface ResourceRequirements {
  requests?: Record<string, unknown>;
  limits?: Record<string, unknown>;
}

export interface Container {
  name?: string;
  image?: string;
  ports?: ContainerPort[];
  resources?: ResourceRequirements;
  restartPolicy?: string;
}

export interface PodSpec {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  tolerations?: Toleration[];
  schedulerName?: string;
  schedulingGates?: { name: string }[];
  containers?: Container[];
  initContainers?: Container[];
  overhead?: Record<string, unknown>;
  resources?: ResourceRequirements;
  topologySpreadConstraints?: TopologySpreadConstraint[];
  priority?: number;
  preemptionPolicy?: string;
}

export interface PodStatus {
  phase?: string;
  conditions?: Condition[];
  nominatedNodeName?: string;
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

export interface Node extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: { allocatable?: Record<string, unknown>; capacity?: Record<string, unknown>; conditions?: Condition[] };
}

/** `namespace/name`, the key the scheduler queue and cache use. */
export function podKey(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}

export function podPriority(pod: Pod): number {
  return typeof pod.spec?.priority === 'number' ? pod.spec.priority : 0;
}

export function labelsOf(object: KubeObject): Record<string, string> {
  return object.metadata.labels ?? {};
}

export function arrayOf<T>(value: T[] | undefined | null): T[] {
  return Array.isArray(value) ? value : [];
}

export const labelHostname = 'kubernetes.io/hostname';
export const labelZone = 'topology.kubernetes.io/zone';
