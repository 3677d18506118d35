// The parts of core/v1 Pod that the kubelet's env, volume and probe code reads, named as upstream
// (staging/src/k8s.io/api/core/v1/types.go). Pods reach the kubelet from the API server, which has
// validated and defaulted them, so these readers only guard against absent sections.
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';

export interface KeySelector {
  name?: string;
  key: string;
  optional?: boolean;
}

export interface ObjectFieldSelector {
  apiVersion?: string;
  fieldPath: string;
}

export interface ResourceFieldSelector {
  containerName?: string;
  resource: string;
  divisor?: string | number;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: ObjectFieldSelector;
    resourceFieldRef?: ResourceFieldSelector;
    configMapKeyRef?: KeySelector;
    secretKeyRef?: KeySelector;
  };
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name?: string; optional?: boolean };
  secretRef?: { name?: string; optional?: boolean };
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
  subPathExpr?: string;
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface HttpHeader {
  name: string;
  value: string;
}

export interface Probe {
  exec?: { command?: string[] };
  httpGet?: { path?: string; port: number | string; host?: string; scheme?: string; httpHeaders?: HttpHeader[] };
  tcpSocket?: { port: number | string; host?: string };
  grpc?: { port: number; service?: string };
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

export interface ResourceRequirements {
  limits?: Record<string, string | number>;
  requests?: Record<string, string | number>;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  ports?: ContainerPort[];
  resources?: ResourceRequirements;
  volumeMounts?: VolumeMount[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  terminationMessagePath?: string;
  /** `Always` marks a restartable init container (a sidecar). */
  restartPolicy?: string;
}

export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

export interface DownwardAPIVolumeFile {
  path: string;
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  mode?: number;
}

export interface VolumeProjection {
  configMap?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  secret?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[] };
  serviceAccountToken?: { audience?: string; expirationSeconds?: number; path: string };
  clusterTrustBundle?: unknown;
}

export interface Volume {
  name: string;
  emptyDir?: { medium?: string; sizeLimit?: string | number };
  hostPath?: { path: string; type?: string };
  configMap?: { name?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  secret?: { secretName?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[]; defaultMode?: number };
  projected?: { sources?: VolumeProjection[]; defaultMode?: number };
  [plugin: string]: unknown;
}

export interface PodSpec {
  nodeName?: string;
  serviceAccountName?: string;
  restartPolicy?: string;
  enableServiceLinks?: boolean;
  containers?: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
}

export interface PodStatus {
  phase?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
}

export function podSpecOf(pod: KubeObject): PodSpec {
  return isRecord(pod.spec) ? (pod.spec as PodSpec) : {};
}

export function podStatusOf(pod: KubeObject): PodStatus {
  return isRecord(pod.status) ? (pod.status as PodStatus) : {};
}

/** Init containers first, then app containers, as upstream podutil.VisitContainers walks them. */
export function allContainers(pod: KubeObject): Container[] {
  const spec = podSpecOf(pod);
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
}

export function podDescription(pod: KubeObject): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}
