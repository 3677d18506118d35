// Pod and pod template defaults as upstream pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec,
// SetDefaults_Container, SetDefaults_Probe, SetDefaults_HTTPGetAction, SetDefaults_Volume,
// volume source modes, SetDefaults_Pod) plus what the default admission chain adds to Pods
// (ServiceAccount, Priority, DefaultTolerationSeconds) and the pod strategy's grace-period clamp.
import { child, entries, existing, isAbsent, isRecord, setDefault, setDefaultString, type FieldRecord } from './fields';

export const defaultTerminationGracePeriodSeconds = 30;
export const defaultTolerationSeconds = 300;

/** The tag parsers.ParseImageName finds: `latest` when neither tag nor digest is given. */
export function imageTag(image: string): string {
  if (image.includes('@')) {
    const name = image.slice(0, image.indexOf('@'));
    const lastSlash = name.lastIndexOf('/');
    const colon = name.lastIndexOf(':');
    return colon > lastSlash ? name.slice(colon + 1) : '';
  }
  const lastSlash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > lastSlash ? image.slice(colon + 1) : 'latest';
}

/** imagePullPolicy: Always for `:latest` (or no tag), IfNotPresent otherwise. */
export function defaultImagePullPolicy(image: unknown): string {
  if (typeof image !== 'string' || image.length === 0) return 'IfNotPresent';
  return imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultHandler(handler: FieldRecord | undefined): void {
  if (!handler) return;
  const httpGet = existing(handler, 'httpGet');
  if (httpGet) {
    setDefaultString(httpGet, 'path', '/');
    setDefaultString(httpGet, 'scheme', 'HTTP');
  }
}

function defaultProbe(probe: FieldRecord | undefined): void {
  if (!probe) return;
  // Go zero values are "unset" here: upstream tests `== 0`.
  for (const [key, value] of [['timeoutSeconds', 1], ['periodSeconds', 10], ['successThreshold', 1], ['failureThreshold', 3]] as const) {
    if (isAbsent(probe[key]) || probe[key] === 0) probe[key] = value;
  }
  defaultHandler(probe);
}

function defaultEnv(container: FieldRecord): void {
  for (const variable of entries(container, 'env')) {
    const from = existing(variable, 'valueFrom');
    if (!from) continue;
    const fieldRef = existing(from, 'fieldRef');
    if (fieldRef) setDefaultString(fieldRef, 'apiVersion', 'v1');
    const resourceFieldRef = existing(from, 'resourceFieldRef');
    if (resourceFieldRef) setDefault(resourceFieldRef, 'divisor', '0');
  }
}

/** SetDefaults_Container and the defaults of its nested types. */
export function defaultContainer(container: FieldRecord): void {
  setDefaultString(container, 'imagePullPolicy', defaultImagePullPolicy(container.image));
  setDefaultString(container, 'terminationMessagePath', '/dev/termination-log');
  setDefaultString(container, 'terminationMessagePolicy', 'File');
  for (const port of entries(container, 'ports')) setDefaultString(port, 'protocol', 'TCP');
  defaultEnv(container);
  defaultProbe(existing(container, 'livenessProbe'));
  defaultProbe(existing(container, 'readinessProbe'));
  defaultProbe(existing(container, 'startupProbe'));
  const lifecycle = existing(container, 'lifecycle');
  if (lifecycle) {
    defaultHandler(existing(lifecycle, 'postStart'));
    defaultHandler(existing(lifecycle, 'preStop'));
  }
}

const volumeSourceKeys = [
  'emptyDir', 'hostPath', 'gitRepo', 'gcePersistentDisk', 'awsElasticBlockStore', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'flocker', 'persistentVolumeClaim', 'rbd', 'cinder', 'cephfs', 'quobyte', 'downwardAPI', 'fc', 'flexVolume', 'configMap',
  'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'storageos', 'projected', 'scaleIO',
  'csi', 'ephemeral', 'image',
];

/** SetDefaults_PersistentVolumeClaimSpec */
export function defaultPersistentVolumeClaimSpec(spec: FieldRecord | undefined): void {
  if (spec) setDefaultString(spec, 'volumeMode', 'Filesystem');
}

function defaultVolume(volume: FieldRecord): void {
  // SetDefaults_Volume: a volume with no source is an emptyDir.
  if (volumeSourceKeys.every((key) => isAbsent(volume[key]))) volume.emptyDir = {};
  for (const key of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const source = existing(volume, key);
    if (source) setDefault(source, 'defaultMode', 0o644);
  }
  const hostPath = existing(volume, 'hostPath');
  if (hostPath) setDefault(hostPath, 'type', '');
  const downwardAPI = existing(volume, 'downwardAPI');
  if (downwardAPI) {
    for (const item of entries(downwardAPI, 'items')) {
      const fieldRef = existing(item, 'fieldRef');
      if (fieldRef) setDefaultString(fieldRef, 'apiVersion', 'v1');
    }
  }
  const projected = existing(volume, 'projected');
  if (projected) {
    for (const source of entries(projected, 'sources')) {
      const token = existing(source, 'serviceAccountToken');
      if (token) setDefault(token, 'expirationSeconds', 3600);
      const downward = existing(source, 'downwardAPI');
      if (downward) {
        for (const item of entries(downward, 'items')) {
          const fieldRef = existing(item, 'fieldRef');
          if (fieldRef) setDefaultString(fieldRef, 'apiVersion', 'v1');
        }
      }
    }
  }
  const ephemeral = existing(volume, 'ephemeral');
  const claimTemplate = ephemeral ? existing(ephemeral, 'volumeClaimTemplate') : undefined;
  if (claimTemplate) defaultPersistentVolumeClaimSpec(existing(claimTemplate, 'spec'));
}

/** defaultHostNetworkPorts: with hostNetwork, hostPort mirrors containerPort. */
function defaultHostNetworkPorts(containers: FieldRecord[]): void {
  for (const container of containers) {
    for (const port of entries(container, 'ports')) {
      if (isAbsent(port.hostPort) || port.hostPort === 0) port.hostPort = port.containerPort;
    }
  }
}

/** SetDefaults_PodSpec and nested defaults; applies to pods and to pod templates. */
export function defaultPodSpec(spec: FieldRecord): void {
  setDefaultString(spec, 'dnsPolicy', 'ClusterFirst');
  setDefaultString(spec, 'restartPolicy', 'Always');
  if (spec.hostNetwork === true) {
    defaultHostNetworkPorts(entries(spec, 'containers'));
    defaultHostNetworkPorts(entries(spec, 'initContainers'));
  }
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'terminationGracePeriodSeconds', defaultTerminationGracePeriodSeconds);
  setDefaultString(spec, 'schedulerName', 'default-scheduler');
  for (const container of [...entries(spec, 'containers'), ...entries(spec, 'initContainers'), ...entries(spec, 'ephemeralContainers')]) {
    defaultContainer(container);
  }
  for (const volume of entries(spec, 'volumes')) defaultVolume(volume);
}

/** Defaults for a PodTemplateSpec ({metadata, spec}). */
export function defaultPodTemplateSpec(template: unknown): void {
  if (!isRecord(template)) return;
  const spec = child(template, 'spec');
  if (spec) defaultPodSpec(spec);
}

/** SetDefaults_Pod: requests default to limits; service links on. Only for Pods, not templates. */
function defaultPodOnly(spec: FieldRecord): void {
  for (const container of [...entries(spec, 'containers'), ...entries(spec, 'initContainers')]) {
    const resources = existing(container, 'resources');
    const limits = resources ? existing(resources, 'limits') : undefined;
    if (!resources || !limits || Object.keys(limits).length === 0) continue;
    const requests = child(resources, 'requests');
    if (!requests) continue;
    for (const [name, value] of Object.entries(limits)) if (!(name in requests)) requests[name] = value;
  }
  setDefault(spec, 'enableServiceLinks', true);
}

function tolerates(tolerations: FieldRecord[], key: string): boolean {
  return tolerations.some((toleration) => {
    const matchesKey = toleration.key === key || ((toleration.key === undefined || toleration.key === '') && toleration.operator === 'Exists');
    const matchesEffect = toleration.effect === undefined || toleration.effect === '' || toleration.effect === 'NoExecute';
    return matchesKey && matchesEffect;
  });
}

/** What the default admission plugins add to a Pod on create. */
function admitPod(spec: FieldRecord): void {
  // ServiceAccount admission: the namespace's `default` account; `serviceAccount` is the deprecated mirror.
  if (isAbsent(spec.serviceAccountName) || spec.serviceAccountName === '') {
    spec.serviceAccountName = typeof spec.serviceAccount === 'string' && spec.serviceAccount !== '' ? spec.serviceAccount : 'default';
  }
  setDefaultString(spec, 'serviceAccount', typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : 'default');
  // priority and preemptionPolicy are the Priority admission plugin's (apiserver/admission/priorityAdmission.ts)
  // DefaultTolerationSeconds admission.
  if (!isAbsent(spec.tolerations) && !Array.isArray(spec.tolerations)) return;
  const tolerations = entries(spec, 'tolerations');
  const added: FieldRecord[] = [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    if (!tolerates(tolerations, key)) added.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: defaultTolerationSeconds });
  }
  if (added.length > 0) spec.tolerations = [...(Array.isArray(spec.tolerations) ? spec.tolerations : []), ...added];
}

/** All defaults a Pod gets on its way into storage. Mutates `pod`. */
export function defaultPod(pod: FieldRecord): void {
  const spec = child(pod, 'spec');
  if (!spec) return;
  defaultPodSpec(spec);
  defaultPodOnly(spec);
  admitPod(spec);
  // The pod strategy turns a negative grace period into 1 (the smallest the kubelet honours).
  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) spec.terminationGracePeriodSeconds = 1;
}
