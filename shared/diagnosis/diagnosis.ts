// "Why isn't it ready?": the types of the diagnosis engine and the readers every rule shares.
// A diagnosis is a pure function of API objects — the object, the pods, events, owners, nodes,
// claims, Services and endpoints around it, and the last log lines when a caller fetched them —
// so the UI (from its watch caches), the `kubedesk why` command (from the API) and any other
// client reach the same answer. Each rule reads the signal upstream components leave behind: the
// scheduler's PodScheduled condition and FailedScheduling events, the kubelet's container states,
// Unhealthy/Failed/FailedMount events, the controllers' FailedCreate events and ReplicaFailure /
// Progressing conditions, the provisioner's ProvisioningFailed events.
import { isRecord, type KubeObject } from '../kubernetes/types';
import { arrayAt, numberAt, stringAt, valueAt } from '../printers/fields';
import { parseTimestamp } from '../printers/duration';

/** ok = healthy; warning = on its way or waiting (pending, rolling out); error = it will not get better by itself. */
export type Severity = 'ok' | 'warning' | 'error';

/** The rule that decided, a stable name for tests, grouping and styling. */
export type DiagnosisCode =
  | 'Healthy'
  | 'Completed'
  | 'Terminating'
  | 'Unschedulable'
  | 'SchedulingGated'
  | 'Scheduling'
  | 'ImageMissing'
  | 'ImageNotFound'
  | 'ImagePullFailed'
  | 'InvalidImage'
  | 'CrashLoop'
  | 'OOMKilled'
  | 'ContainerFailed'
  | 'ContainerStartFailed'
  | 'ContainerWaiting'
  | 'ContainerConfigError'
  | 'ConfigMissing'
  | 'ConfigKeyMissing'
  | 'ReadinessProbeFailing'
  | 'LivenessProbeFailing'
  | 'StartupProbeFailing'
  | 'NotReady'
  | 'Starting'
  | 'InitRunning'
  | 'VolumeNotReady'
  | 'SandboxFailed'
  | 'PodFailed'
  | 'FailedCreate'
  | 'ProgressDeadlineExceeded'
  | 'Paused'
  | 'RollingOut'
  | 'JobFailed'
  | 'PodsFailing'
  | 'Suspended'
  | 'NoEndpoints'
  | 'SelectorMatchesNothing'
  | 'TargetPortNotExposed'
  | 'BackendMissing'
  | 'BackendPortMissing'
  | 'BackendUnhealthy'
  | 'StorageClassMissing'
  | 'ClaimPending'
  | 'ClaimLost'
  | 'Unknown';

/** The container whose last log lines would explain the diagnosis. */
export interface LogRequest {
  namespace: string;
  pod: string;
  container: string;
  /** the previous instance (a crash-looping container's last run) */
  previous: boolean;
}

export interface Diagnosis {
  healthy: boolean;
  severity: Severity;
  code: DiagnosisCode;
  /** one line in plain words: what is wrong (or "healthy: …") */
  reason: string;
  /** the signals the reason rests on, one per line */
  details: string[];
  /** what to try */
  hints: string[];
  /** whose logs explain it; the caller may fetch them and diagnose again with `logs` */
  logRequest?: LogRequest;
  /** the last log lines of `logRequest`'s container, when the caller gave them */
  logLines?: string[];
}

/**
 * What the engine may read besides the object. A list left undefined is unknown (not fetched, not
 * watched, not allowed): rules that need it fall back to what the object itself says.
 */
export interface DiagnosisContext {
  now: Date;
  pods?: readonly KubeObject[];
  /** core/v1 Events (events.k8s.io/v1 Events are read too) */
  events?: readonly KubeObject[];
  replicaSets?: readonly KubeObject[];
  jobs?: readonly KubeObject[];
  nodes?: readonly KubeObject[];
  persistentVolumeClaims?: readonly KubeObject[];
  storageClasses?: readonly KubeObject[];
  services?: readonly KubeObject[];
  endpointSlices?: readonly KubeObject[];
  endpoints?: readonly KubeObject[];
  configMaps?: readonly KubeObject[];
  secrets?: readonly KubeObject[];
  /** last log lines by logKey(namespace, pod, container) */
  logs?: ReadonlyMap<string, readonly string[]>;
}

/** The lists of a context (what a caller may fetch or watch). */
export type DiagnosisInput = Exclude<keyof DiagnosisContext, 'now' | 'logs'>;

export function logKey(namespace: string, pod: string, container: string): string {
  return `${namespace}/${pod}/${container}`;
}

/** A finding of one rule, before the caller decides whether the object is healthy. */
export interface Finding {
  severity: Exclude<Severity, 'ok'>;
  code: DiagnosisCode;
  reason: string;
  details?: string[];
  hints?: string[];
  logRequest?: LogRequest;
  logLines?: string[];
}

export function healthy(code: 'Healthy' | 'Completed' | 'Suspended', reason: string, details: string[] = [], hints: string[] = []): Diagnosis {
  return { healthy: true, severity: 'ok', code, reason, details, hints };
}

/** A finding as the diagnosis; `leading` details (the object's own state) come before the finding's, `trailing` ones (other findings) after. */
export function fromFinding(finding: Finding, leading: string[] = [], trailing: string[] = []): Diagnosis {
  return {
    healthy: false,
    severity: finding.severity,
    code: finding.code,
    reason: finding.reason,
    details: [...leading, ...(finding.details ?? []), ...trailing],
    hints: finding.hints ?? [],
    ...(finding.logRequest ? { logRequest: finding.logRequest } : {}),
    ...(finding.logLines ? { logLines: finding.logLines } : {}),
  };
}

/** Orders findings worst first: errors before warnings, then the order the rules were listed in. */
export function worstFinding<T extends { severity: Severity }>(findings: readonly T[]): T | undefined {
  const rank = (severity: Severity) => (severity === 'error' ? 2 : severity === 'warning' ? 1 : 0);
  let worst: T | undefined;
  for (const finding of findings) if (!worst || rank(finding.severity) > rank(worst.severity)) worst = finding;
  return worst;
}

export function nameOf(object: KubeObject): string {
  return object.metadata.name ?? '';
}

export function namespaceOf(object: KubeObject): string {
  return object.metadata.namespace ?? '';
}

/** Items of a list in one namespace. */
export function inNamespace(items: readonly KubeObject[] | undefined, namespace: string): KubeObject[] {
  return (items ?? []).filter((item) => (item.metadata.namespace ?? '') === namespace);
}

export function findNamed(items: readonly KubeObject[] | undefined, namespace: string, name: string): KubeObject | undefined {
  return items?.find((item) => item.metadata.name === name && (item.metadata.namespace ?? '') === namespace);
}

/** Objects whose controller owner reference names `uid`. */
export function controlledBy(items: readonly KubeObject[] | undefined, uid: string | undefined): KubeObject[] {
  if (!uid || !items) return [];
  return ownerIndex(items).get(uid) ?? [];
}

const ownerIndexes = new WeakMap<readonly KubeObject[], Map<string, KubeObject[]>>();

function ownerIndex(items: readonly KubeObject[]): Map<string, KubeObject[]> {
  let index = ownerIndexes.get(items);
  if (index) return index;
  index = new Map();
  for (const item of items) {
    const owner = item.metadata.ownerReferences?.find((reference) => reference.controller === true);
    if (!owner) continue;
    const list = index.get(owner.uid);
    if (list) list.push(item);
    else index.set(owner.uid, [item]);
  }
  ownerIndexes.set(items, index);
  return index;
}

/** An event as the rules read it (core/v1 and events.k8s.io/v1 alike). */
export interface EventRecord {
  type: string;
  reason: string;
  message: string;
  count: number;
  /** when it last happened (ms since the epoch; 0 when unknown) */
  time: number;
  /** involvedObject.fieldPath, e.g. `spec.containers{app}` */
  fieldPath: string;
}

const eventIndexes = new WeakMap<readonly KubeObject[], Map<string, EventRecord[]>>();

function eventTarget(event: KubeObject): Record<string, unknown> | undefined {
  const record: Record<string, unknown> = event;
  return isRecord(record.involvedObject) ? record.involvedObject : isRecord(record.regarding) ? record.regarding : undefined;
}

function eventTime(event: KubeObject): number {
  const record: Record<string, unknown> = event;
  for (const candidate of [record.lastTimestamp, valueAt(record, 'series', 'lastObservedTime'), record.eventTime, record.firstTimestamp, event.metadata.creationTimestamp]) {
    const parsed = parseTimestamp(candidate);
    if (parsed !== undefined) return parsed;
  }
  return 0;
}

function toRecord(event: KubeObject, target: Record<string, unknown>): EventRecord {
  const record: Record<string, unknown> = event;
  const series = numberAt(record, 'series', 'count');
  return {
    type: stringAt(record, 'type'),
    reason: stringAt(record, 'reason'),
    message: stringAt(record, 'message') || stringAt(record, 'note'),
    count: numberAt(record, 'count') || series || 1,
    time: eventTime(event),
    fieldPath: typeof target.fieldPath === 'string' ? target.fieldPath : '',
  };
}

function targetKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/**
 * Events about an object, newest first: by the involved object's uid, or — for events recorded
 * without one — by kind, namespace and name.
 */
export function eventsAbout(context: DiagnosisContext, object: KubeObject, kind: string): EventRecord[] {
  const events = context.events;
  if (!events) return [];
  let index = eventIndexes.get(events);
  if (!index) {
    index = new Map();
    for (const event of events) {
      const target = eventTarget(event);
      if (!target) continue;
      const key = typeof target.uid === 'string' && target.uid ? target.uid : targetKey(String(target.kind ?? ''), String(target.namespace ?? event.metadata.namespace ?? ''), String(target.name ?? ''));
      const list = index.get(key);
      const record = toRecord(event, target);
      if (list) list.push(record);
      else index.set(key, [record]);
    }
    for (const list of index.values()) list.sort((left, right) => right.time - left.time);
    eventIndexes.set(events, index);
  }
  const byUid = object.metadata.uid ? (index.get(object.metadata.uid) ?? []) : [];
  const byName = index.get(targetKey(kind, namespaceOf(object), nameOf(object))) ?? [];
  if (byName.length === 0) return byUid;
  return [...byUid, ...byName].sort((left, right) => right.time - left.time);
}

/** The container name in an event's fieldPath (`spec.containers{app}` → app). */
export function containerOfFieldPath(fieldPath: string): string | undefined {
  const match = /^spec\.(?:initContainers|containers|ephemeralContainers)\{(.+)\}$/.exec(fieldPath);
  return match ? match[1] : undefined;
}

/** metadata.generation etc. as numbers; conditions by type. */
export function condition(object: unknown, type: string): { status: string; reason: string; message: string; lastTransitionTime: string } | undefined {
  for (const entry of arrayAt(object, 'status', 'conditions')) {
    if (isRecord(entry) && entry.type === type) {
      return { status: stringAt(entry, 'status'), reason: stringAt(entry, 'reason'), message: stringAt(entry, 'message'), lastTransitionTime: stringAt(entry, 'lastTransitionTime') };
    }
  }
  return undefined;
}

/** `n thing` / `n things`. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** A label map as `key=value,key=value` (kubectl's selector text). */
export function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/** A string map from a record field (non-string values left out). */
export function stringMap(value: unknown): Record<string, string> {
  const result: Record<string, string> = {};
  if (isRecord(value)) for (const [key, entry] of Object.entries(value)) if (typeof entry === 'string') result[key] = entry;
  return result;
}
