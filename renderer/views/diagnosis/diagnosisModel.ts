// The UI's side of "why isn't it ready?": the shared diagnosis engine (shared/diagnosis, the same
// code `kubedesk why` runs) fed from the watch caches. Which caches a kind's diagnosis reads (the
// detail page watches them all), which a list needs for its rows' one-line reasons (a workload's
// pods; not the events a detail page reads, which would cost a list too much), the context built
// from the caches that are filled (a cache still loading is unknown to the rules, not empty), and
// a per-object cache so a row re-renders without diagnosing again.
import { DIAGNOSED_KINDS, diagnose, diagnosisInputs, type Diagnosis, type DiagnosisContext, type DiagnosisInput } from '../../../shared/diagnosis';
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { Collection } from '../../store/watchMerge';

/** The store key of each list the engine reads; undefined: the UI keeps no cache of it (the rules fall back). */
export const INPUT_KEYS: Readonly<Record<DiagnosisInput, string | undefined>> = {
  pods: 'pods',
  events: 'events',
  replicaSets: 'replicasets.apps',
  jobs: 'jobs.batch',
  nodes: 'nodes',
  persistentVolumeClaims: 'persistentvolumeclaims',
  storageClasses: 'storageclasses.storage.k8s.io',
  services: 'services',
  // the UI watches Endpoints, not EndpointSlices: the Service rules read either
  endpointSlices: undefined,
  endpoints: 'endpoints',
  configMaps: 'configmaps',
  secrets: 'secrets',
};

const INPUT_BY_KEY = new Map(Object.entries(INPUT_KEYS).flatMap(([input, key]) => (key ? [[key, input as DiagnosisInput]] : [])));

/** Whether the engine diagnoses a kind of this group (a custom resource may share a built-in kind's name). */
export function isDiagnosed(kind: string, group: string): boolean {
  return Object.prototype.hasOwnProperty.call(DIAGNOSED_KINDS, kind) && DIAGNOSED_KINDS[kind].group === group;
}

/** Store keys of everything a kind's diagnosis reads (the detail page's banner watches these). */
export function diagnosisKeys(kind: string): string[] {
  const inputs: DiagnosisInput[] = [...diagnosisInputs(kind)];
  // what the UI has instead of EndpointSlices
  if (inputs.includes('endpointSlices')) inputs.push('endpoints');
  return [...new Set(inputs.map((input) => INPUT_KEYS[input]).filter((key): key is string => key !== undefined))];
}

/**
 * Store keys a list watches for its rows' reasons: what a workload's reason cannot do without (its
 * pods, its ReplicaSets or Jobs, an Ingress's Services). Events, nodes and claims are read when some
 * other view keeps them cached. A pod's one-line reason rests on the pod itself.
 */
export function listDiagnosisKeys(kind: string): string[] {
  switch (kind) {
    case 'Deployment':
      return ['pods', 'replicasets.apps'];
    case 'ReplicaSet':
    case 'ReplicationController':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'Job':
    case 'Service':
      return ['pods'];
    case 'CronJob':
      return ['jobs.batch', 'pods'];
    case 'Ingress':
      return ['services', 'pods'];
    case 'PersistentVolumeClaim':
      return ['storageclasses.storage.k8s.io'];
    default:
      return [];
  }
}

const itemLists = new WeakMap<Record<string, KubeObject>, KubeObject[]>();

/** The objects of a filled cache, as one array per cache version (the engine indexes by array). */
function itemsOf(collection: Collection | undefined): KubeObject[] | undefined {
  if (!collection || collection.phase !== 'ready') return undefined;
  let items = itemLists.get(collection.items);
  if (!items) itemLists.set(collection.items, (items = Object.values(collection.items)));
  return items;
}

/**
 * The engine's context from the caches by store key: only filled caches count. `leaveOut` drops
 * inputs a caller does not want to depend on (a pods list's rows do not need every other pod).
 */
export function diagnosisContextOf(kind: string, collections: Readonly<Record<string, Collection | undefined>>, now: Date, leaveOut: readonly DiagnosisInput[] = []): DiagnosisContext {
  const context: { -readonly [K in keyof DiagnosisContext]: DiagnosisContext[K] } = { now };
  for (const key of diagnosisKeys(kind)) {
    const input = INPUT_BY_KEY.get(key);
    if (!input || leaveOut.includes(input)) continue;
    const items = itemsOf(collections[key]);
    if (items) context[input] = items;
  }
  return context;
}

const cache = new WeakMap<KubeObject, { context: DiagnosisContext; diagnosis: Diagnosis | undefined }>();

/** The diagnosis of an object of a diagnosed kind, computed once per object version and context. */
export function diagnosisOf(kind: string, object: KubeObject, context: DiagnosisContext): Diagnosis | undefined {
  const cached = cache.get(object);
  if (cached && cached.context === context) return cached.diagnosis;
  const diagnosis = diagnose(kind, object, context);
  cache.set(object, { context, diagnosis });
  return diagnosis;
}

/** The tone a diagnosis is drawn in. */
export function diagnosisTone(diagnosis: Diagnosis): 'ok' | 'warn' | 'error' {
  return diagnosis.severity === 'error' ? 'error' : diagnosis.severity === 'warning' ? 'warn' : 'ok';
}

/** The reason without a workload's leading `ready/desired ready: `, where the view shows the count beside it (lists, the overview). */
export function reasonBesideCount(diagnosis: Diagnosis): string {
  return diagnosis.reason.replace(/^\d+\/\d+ ready: /, '');
}
