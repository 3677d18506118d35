// Defaults for core/v1 kinds as upstream pkg/apis/core/v1/defaults.go (SetDefaults_Service,
// SetDefaults_Secret, SetDefaults_Namespace(Status), SetDefaults_NodeStatus, SetDefaults_Endpoints,
// SetDefaults_LimitRangeItem, SetDefaults_PersistentVolumeClaim, SetDefaults_ReplicationController), plus the conversion of
// Secret.stringData into data and the Service strategy's clusterIP/clusterIPs/ipFamilies filling.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { child, entries, existing, isAbsent, isRecord, setDefault, setDefaultString, type FieldRecord } from './fields';
import { defaultPersistentVolumeClaimSpec, defaultPod as defaultPodFields, defaultPodTemplateSpec } from './podSpec';

export function defaultPod(obj: KubeObject): void {
  defaultPodFields(obj);
}

export function defaultPodTemplate(obj: KubeObject): void {
  if (isAbsent(obj.template)) obj.template = {};
  defaultPodTemplateSpec(obj.template);
}

export function defaultService(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  if (!spec) return;
  setDefaultString(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const config = child(spec, 'sessionAffinityConfig');
    const clientIP = config ? child(config, 'clientIP') : undefined;
    if (clientIP) setDefault(clientIP, 'timeoutSeconds', 10800);
  }
  setDefaultString(spec, 'type', 'ClusterIP');
  for (const port of entries(spec, 'ports')) {
    setDefaultString(port, 'protocol', 'TCP');
    if (isAbsent(port.targetPort) || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port;
  }
  const type = spec.type;
  const externalIPs = Array.isArray(spec.externalIPs) ? spec.externalIPs : [];
  const externallyAccessible = type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && externalIPs.length > 0);
  if (externallyAccessible) setDefaultString(spec, 'externalTrafficPolicy', 'Cluster');
  if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  if (type === 'LoadBalancer') setDefault(spec, 'allocateLoadBalancerNodePorts', true);

  if (type === 'ExternalName') return;
  // Strategy normalizeClusterIPs: keep clusterIP and clusterIPs[0] in step.
  const clusterIP = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
  const clusterIPs = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  if (clusterIP !== '' && clusterIPs.length === 0) spec.clusterIPs = [clusterIP];
  if (clusterIP === '' && clusterIPs.length > 0 && typeof clusterIPs[0] === 'string') spec.clusterIP = clusterIPs[0];
  // The IP allocator's family defaults on a single-stack IPv4 cluster.
  const headless = spec.clusterIP === 'None';
  const selector = isRecord(spec.selector) ? spec.selector : {};
  setDefault(spec, 'ipFamilyPolicy', headless && Object.keys(selector).length === 0 ? 'RequireDualStack' : 'SingleStack');
  if (isAbsent(spec.ipFamilies) || (Array.isArray(spec.ipFamilies) && spec.ipFamilies.length === 0)) {
    const primary = typeof spec.clusterIP === 'string' && spec.clusterIP.includes(':') ? 'IPv6' : 'IPv4';
    spec.ipFamilies = [primary];
  }
}

/** Go's base64.StdEncoding of UTF-8 text. */
function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

export function defaultSecret(obj: KubeObject): void {
  setDefaultString(obj, 'type', 'Opaque');
  // Convert_v1_Secret_To_core_Secret: stringData overwrites data and is never stored.
  if (isRecord(obj.stringData)) {
    const data = child(obj, 'data');
    if (data) {
      for (const [key, value] of Object.entries(obj.stringData)) if (typeof value === 'string') data[key] = base64(value);
      delete obj.stringData;
    }
  }
}

export function defaultNamespace(obj: KubeObject): void {
  // SetDefaults_Namespace: the immutable name label the NamespaceDefaultLabelName feature adds.
  if (typeof obj.metadata?.name === 'string' && obj.metadata.name !== '') {
    const labels = child(obj.metadata as FieldRecord, 'labels');
    if (labels) labels['kubernetes.io/metadata.name'] = obj.metadata.name;
  }
  const status = child(obj, 'status');
  if (status) setDefaultString(status, 'phase', 'Active');
}

/**
 * Namespace strategy PrepareForCreate: status Active and the `kubernetes` finalizer. Create-only,
 * because the namespace controller removes the finalizer later and it must not come back.
 */
export function prepareNamespaceForCreate(obj: KubeObject): void {
  obj.status = { phase: 'Active' };
  const spec = child(obj, 'spec');
  if (!spec) return;
  const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
  if (!finalizers.includes('kubernetes')) spec.finalizers = [...finalizers, 'kubernetes'];
}

export function defaultNode(obj: KubeObject): void {
  const status = existing(obj, 'status');
  if (status && isRecord(status.capacity) && isAbsent(status.allocatable)) status.allocatable = { ...status.capacity };
}

export function defaultEndpoints(obj: KubeObject): void {
  for (const subset of entries(obj, 'subsets')) {
    for (const port of entries(subset, 'ports')) setDefaultString(port, 'protocol', 'TCP');
  }
}

export function defaultLimitRange(obj: KubeObject): void {
  const spec = existing(obj, 'spec');
  if (!spec) return;
  for (const item of entries(spec, 'limits')) {
    if (item.type !== 'Container') continue;
    const defaults = child(item, 'default');
    const defaultRequests = child(item, 'defaultRequest');
    if (!defaults || !defaultRequests) continue;
    const maximum = existing(item, 'max') ?? {};
    const minimum = existing(item, 'min') ?? {};
    for (const [name, value] of Object.entries(maximum)) if (!(name in defaults)) defaults[name] = value;
    for (const [name, value] of Object.entries(defaults)) {
      if (!(name in defaultRequests)) defaultRequests[name] = name in minimum ? minimum[name] : value;
    }
  }
}

export function defaultPersistentVolumeClaim(obj: KubeObject): void {
  defaultPersistentVolumeClaimSpec(child(obj, 'spec'));
  const status = child(obj, 'status');
  if (status) setDefaultString(status, 'phase', 'Pending');
}

/**
 * SetDefaults_ReplicationController: a template with labels gives an empty selector and empty
 * object labels its labels; one replica. The template is a pointer upstream: an absent one stays
 * absent (validation requires it).
 */
export function defaultReplicationController(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  if (!spec) return;
  const template = existing(spec, 'template');
  const metadata = template ? existing(template, 'metadata') : undefined;
  const labels = metadata && isRecord(metadata.labels) ? metadata.labels : undefined;
  if (labels) {
    if (!isRecord(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
    if (!isRecord(obj.metadata.labels) || Object.keys(obj.metadata.labels).length === 0) obj.metadata.labels = { ...labels } as Record<string, string>;
  }
  setDefault(spec, 'replicas', 1);
  defaultPodTemplateSpec(template);
}

/** Kinds with no upstream defaults. */
export function defaultNothing(_obj: KubeObject): void {
  // ConfigMaps, ServiceAccounts, Events, ResourceQuotas and Leases have no v1 defaults.
}
