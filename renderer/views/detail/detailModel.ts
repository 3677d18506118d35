// The detail page's pure data: conditions (as `kubectl describe` lists them), owner and owned
// objects (ownerReferences, as the garbage collector links them), which kinds an object's children
// are, the pods a selector matches, events about the object newest first (by the timestamps
// `kubectl events` sorts on), and per-container state as `kubectl describe pod` prints it.
import { conditionsOf as objectConditions } from '../../../shared/kubernetes/conditions';
import { labelSetMatches } from '../../../shared/kubernetes/labelSelector';
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { kindOf } from '../../kinds';
import { compareEventsNewestFirst, eventLastSeen } from '../../kinds/eventTimes';
import { containerStateOf } from '../../kinds/podDetails';
import type { KindConfig, ObjectLink, Tone } from '../../kinds/kindConfig';

export interface ConditionRow {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
  tone: Tone;
}

/** Condition types where status "True" is bad (node pressure, failures). */
const NEGATIVE_CONDITIONS = /Pressure$|^NetworkUnavailable$|^Failed$|^ReplicaFailure$|^Stalled$|^Degraded$|^Terminating$/;

export function conditionTone(type: string, status: string): Tone {
  if (status !== 'True' && status !== 'False') return 'warn';
  const good = NEGATIVE_CONDITIONS.test(type) ? status === 'False' : status === 'True';
  return good ? 'ok' : NEGATIVE_CONDITIONS.test(type) ? 'error' : 'warn';
}

export function conditionsOf(object: KubeObject): ConditionRow[] {
  return objectConditions(object).map(({ type, status, reason, message, lastTransitionTime, lastUpdateTime, lastProbeTime }) => ({
    type,
    status,
    reason: text(reason),
    message: text(message),
    lastTransitionTime: text(lastTransitionTime) || text(lastUpdateTime) || text(lastProbeTime),
    tone: conditionTone(type, status),
  }));
}

export interface OwnerRow {
  kind: string;
  name: string;
  controller: boolean;
  /** undefined when the UI does not know the owner's kind */
  link?: ObjectLink;
}

/** The object's owners as links (owners live in the same namespace, or are cluster-scoped). */
export function ownersOf(object: KubeObject, kinds: KindConfig[]): OwnerRow[] {
  return (object.metadata.ownerReferences ?? []).map((reference) => {
    const config = kindOf(kinds, reference.apiVersion, reference.kind);
    return {
      kind: reference.kind,
      name: reference.name,
      controller: reference.controller === true,
      link: config ? { kindKey: config.key, namespace: config.namespaced ? object.metadata.namespace : undefined, name: reference.name } : undefined,
    };
  });
}

/** Store keys of the kinds whose objects this kind usually owns (its controller creates them). */
export function childKindKeys(kindKey: string): string[] {
  switch (kindKey) {
    case 'deployments.apps':
      return ['replicasets.apps'];
    case 'replicasets.apps':
    case 'replicationcontrollers':
    case 'statefulsets.apps':
    case 'daemonsets.apps':
    case 'jobs.batch':
      return ['pods'];
    case 'cronjobs.batch':
      return ['jobs.batch'];
    default:
      return [];
  }
}

/** Objects with an ownerReference to `uid`. */
export function ownedBy(items: Iterable<KubeObject>, uid: string | undefined): KubeObject[] {
  if (!uid) return [];
  const result: KubeObject[] = [];
  for (const item of items) if (item.metadata.ownerReferences?.some((reference) => reference.uid === uid)) result.push(item);
  return result.sort((left, right) => (left.metadata.name ?? '').localeCompare(right.metadata.name ?? ''));
}

/** Pods in `namespace` whose labels match every selector pair; an empty selector matches none (as a Service's). */
export function podsMatching(pods: Iterable<KubeObject>, namespace: string | undefined, selector: Record<string, string> | undefined): KubeObject[] {
  if (!selector || Object.keys(selector).length === 0) return [];
  const result: KubeObject[] = [];
  for (const pod of pods) if (pod.metadata.namespace === namespace && labelSetMatches(selector, pod.metadata.labels)) result.push(pod);
  return result.sort((left, right) => (left.metadata.name ?? '').localeCompare(right.metadata.name ?? ''));
}

export interface EventRow {
  uid: string;
  type: string;
  reason: string;
  message: string;
  count: number;
  source: string;
  /** the newest of lastTimestamp, eventTime, series.lastObservedTime, creationTimestamp */
  time: string;
}

/** When an event last happened (series, lastTimestamp, eventTime, firstTimestamp, creation: see kinds/eventTimes). */
export function eventTime(event: KubeObject): string {
  return eventLastSeen(event);
}

/**
 * Events whose involvedObject (or regarding) is the object, newest first; events of the same
 * second in the order they were written, newest first (kinds/eventTimes compareEventsNewestFirst).
 */
export function eventsAbout(events: Iterable<KubeObject>, uid: string | undefined): EventRow[] {
  if (!uid) return [];
  const about: KubeObject[] = [];
  for (const event of events) {
    const record = event as KubeObject & Record<string, unknown>;
    const involved = isRecord(record.involvedObject) ? record.involvedObject : isRecord(record.regarding) ? record.regarding : undefined;
    if (involved && involved.uid === uid) about.push(event);
  }
  return about.sort(compareEventsNewestFirst).map((event) => {
    const record = event as KubeObject & Record<string, unknown>;
    const source = isRecord(record.source) ? text(record.source.component) : text(record.reportingController);
    const series = isRecord(record.series) && typeof record.series.count === 'number' ? record.series.count : undefined;
    const count = series ?? (typeof record.count === 'number' ? record.count : typeof record.deprecatedCount === 'number' ? record.deprecatedCount : 1);
    return { uid: event.metadata.uid ?? event.metadata.name ?? '', type: text(record.type) || 'Normal', reason: text(record.reason), message: text(record.message) || text(record.note), count, source, time: eventTime(event) };
  });
}

export interface ContainerRow {
  name: string;
  image: string;
  init: boolean;
  ready: boolean;
  restarts: number;
  /** Running / Waiting (reason) / Terminated (reason, exit code) */
  state: string;
  tone: Tone;
}

/** Each container of a pod with its status, init containers first. */
export function containerRows(pod: KubeObject): ContainerRow[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const status = isRecord(pod.status) ? pod.status : {};
  const statuses = new Map<string, Record<string, unknown>>();
  for (const field of ['initContainerStatuses', 'containerStatuses']) {
    const list = status[field];
    if (Array.isArray(list)) for (const item of list) if (isRecord(item)) statuses.set(text(item.name), item);
  }
  const rows: ContainerRow[] = [];
  for (const [field, init] of [['initContainers', true], ['containers', false]] as const) {
    const list = spec[field];
    if (!Array.isArray(list)) continue;
    for (const container of list) {
      if (!isRecord(container)) continue;
      const name = text(container.name);
      const containerStatus = statuses.get(name);
      const { state, tone: stateTone } = containerStateOf(containerStatus?.state);
      // a running container that is not ready (its readiness probe fails) is not green
      const tone = stateTone === 'ok' && containerStatus?.ready !== true ? 'warn' : stateTone;
      rows.push({ name, image: text(container.image), init, ready: containerStatus?.ready === true, restarts: typeof containerStatus?.restartCount === 'number' ? containerStatus.restartCount : 0, state, tone });
    }
  }
  return rows;
}

/** `key=value` chips of labels or annotations, sorted by key. */
export function chipsOf(record: Record<string, string> | undefined): { key: string; value: string }[] {
  return Object.entries(record ?? {})
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([key, value]) => ({ key, value }));
}

/** Kinds that run pods, whose detail page offers a merged "Logs" of all of them. */
export function isWorkload(kindKey: string): boolean {
  return ['deployments.apps', 'statefulsets.apps', 'daemonsets.apps', 'replicasets.apps', 'replicationcontrollers', 'jobs.batch'].includes(kindKey);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
