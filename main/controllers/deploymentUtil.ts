// Pure helpers of the Deployment controller, after upstream pkg/controller/deployment/util/deployment_util.go,
// pkg/controller/controller_utils.go (ComputeHash, ReplicaSet orderings) and
// apimachinery's intstr.GetScaledValueFromIntOrPercent: template hashing with the safe-encoding
// alphabet, revision and replica annotations, maxSurge/maxUnavailable fenceposts, proportional
// scaling, status calculation and the Progressing/Available conditions.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import { findCondition, statusConditions, type Condition, type ConditionStatus } from '../../shared/kubernetes/conditions';
import { numberOr, specOf, statusOf } from './controllerUtils';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
export const ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
/** upstream MaxRevHistoryLengthInChars */
export const MAX_REVISION_HISTORY_CHARS = 2000;

// Condition reasons, as upstream deployment_util.go.
export const reasons = {
  replicaSetUpdated: 'ReplicaSetUpdated',
  failedReplicaSetCreate: 'ReplicaSetCreateError',
  newReplicaSet: 'NewReplicaSetCreated',
  foundNewReplicaSet: 'FoundNewReplicaSet',
  newReplicaSetAvailable: 'NewReplicaSetAvailable',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** Annotations of a Deployment that are not copied onto its ReplicaSets (upstream annotationsToSkip). */
const annotationsToSkip = new Set([LAST_APPLIED_ANNOTATION, REVISION_ANNOTATION, REVISION_HISTORY_ANNOTATION, DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, ROLLBACK_TO_ANNOTATION]);

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: Condition[];
  collisionCount?: number;
}

// ---- hashing ----

/** FNV-1a, 32 bit (Go's hash/fnv New32a). */
export function fnv32a(bytes: Uint8Array, initial = 0x811c9dc5): number {
  let hash = initial >>> 0;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

const safeAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** upstream rand.SafeEncodeString: each byte mapped into an alphabet without vowels or look-alikes. */
export function safeEncodeString(text: string): string {
  let encoded = '';
  for (let i = 0; i < text.length; i++) encoded += safeAlphabet[text.charCodeAt(i) % safeAlphabet.length];
  return encoded;
}

/** JSON with object keys sorted and undefined members dropped: a stable rendering to hash and compare. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * upstream controller.ComputeHash: fnv32a of the template, then of collisionCount as 8 little-endian
 * bytes, the decimal sum rendered with the safe alphabet. Upstream hashes Go's spew dump of the
 * struct; this hashes the canonical JSON instead, so values differ from a real cluster's but have the
 * same shape (digits mapped to `4-9bcdf`) and the same stability.
 */
export function computeHash(template: unknown, collisionCount?: number): string {
  let hash = fnv32a(new TextEncoder().encode(canonicalJson(template)));
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    hash = fnv32a(bytes, hash);
  }
  return safeEncodeString(String(hash));
}

function withoutHashLabel(template: unknown): unknown {
  if (!isRecord(template)) return template;
  const copy = structuredClone(template);
  const metadata = isRecord(copy.metadata) ? copy.metadata : undefined;
  if (metadata && isRecord(metadata.labels)) {
    delete metadata.labels[POD_TEMPLATE_HASH_LABEL];
    // Semantic equality treats an empty map like a missing one.
    if (Object.keys(metadata.labels).length === 0) delete metadata.labels;
  }
  return copy;
}

/** upstream EqualIgnoreHash: two pod templates are equal apart from the pod-template-hash label. */
export function equalIgnoreHash(a: unknown, b: unknown): boolean {
  return canonicalJson(withoutHashLabel(a)) === canonicalJson(withoutHashLabel(b));
}

// ---- spec accessors ----

export function replicasOf(obj: KubeObject | undefined): number {
  return obj ? numberOr(specOf(obj).replicas, 1) : 0;
}

export function statusNumber(obj: KubeObject | undefined, field: string): number {
  return obj ? numberOr(statusOf(obj)[field], 0) : 0;
}

function annotationsOf(obj: KubeObject): Record<string, string> {
  return obj.metadata.annotations ?? {};
}

export function strategyOf(deployment: KubeObject): { type: string; maxSurge: unknown; maxUnavailable: unknown } {
  const strategy = isRecord(specOf(deployment).strategy) ? (specOf(deployment).strategy as Record<string, unknown>) : {};
  const type = typeof strategy.type === 'string' && strategy.type !== '' ? strategy.type : 'RollingUpdate';
  const rolling = isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  return { type, maxSurge: rolling.maxSurge ?? '25%', maxUnavailable: rolling.maxUnavailable ?? '25%' };
}

export function isRollingUpdate(deployment: KubeObject): boolean {
  return strategyOf(deployment).type === 'RollingUpdate';
}

/** upstream HasProgressDeadline: set and not MaxInt32. */
export function progressDeadlineSeconds(deployment: KubeObject): number | undefined {
  const value = specOf(deployment).progressDeadlineSeconds;
  return typeof value === 'number' && value !== 2147483647 ? value : undefined;
}

export function revisionHistoryLimit(deployment: KubeObject): number | undefined {
  const value = specOf(deployment).revisionHistoryLimit;
  return typeof value === 'number' ? value : undefined;
}

// ---- fenceposts ----

/** intstr.GetScaledValueFromIntOrPercent: an int as is, `N%` of total rounded up or down. */
export function scaledValue(value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const match = /^(-?\d+)%$/.exec(value);
    if (!match) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
    const scaled = (Number(match[1]) * total) / 100;
    return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
  }
  return 0;
}

/** upstream ResolveFenceposts: surge rounds up, unavailable down, and both 0 means unavailable 1. */
export function resolveFenceposts(maxSurge: unknown, maxUnavailable: unknown, desired: number): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge, desired, true);
  let unavailable = scaledValue(maxUnavailable, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(deployment: KubeObject): number {
  if (!isRollingUpdate(deployment)) return 0;
  const strategy = strategyOf(deployment);
  return resolveFenceposts(strategy.maxSurge, strategy.maxUnavailable, replicasOf(deployment)).surge;
}

export function maxUnavailable(deployment: KubeObject): number {
  const replicas = replicasOf(deployment);
  if (!isRollingUpdate(deployment) || replicas === 0) return 0;
  const strategy = strategyOf(deployment);
  return Math.min(replicas, resolveFenceposts(strategy.maxSurge, strategy.maxUnavailable, replicas).unavailable);
}

// ---- ReplicaSet collections ----

function creationTime(obj: KubeObject): number {
  const parsed = Date.parse(obj.metadata.creationTimestamp ?? '');
  return Number.isFinite(parsed) ? parsed : 0;
}

/** controller.ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export function byCreationTimestamp(a: KubeObject, b: KubeObject): number {
  return creationTime(a) - creationTime(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
}

/** controller.ReplicaSetsBySizeNewer: larger first, newer first among equals. */
export function bySizeNewer(a: KubeObject, b: KubeObject): number {
  return replicasOf(b) - replicasOf(a) || byCreationTimestamp(b, a);
}

/** controller.ReplicaSetsBySizeOlder: larger first, older first among equals. */
export function bySizeOlder(a: KubeObject, b: KubeObject): number {
  return replicasOf(b) - replicasOf(a) || byCreationTimestamp(a, b);
}

/** upstream ReplicaSetsByRevision: lowest revision first, then oldest. */
export function byRevision(a: KubeObject, b: KubeObject): number {
  const left = revisionOf(a) ?? 0;
  const right = revisionOf(b) ?? 0;
  return left === right ? byCreationTimestamp(a, b) : left - right;
}

export function activeReplicaSets(replicaSets: (KubeObject | undefined)[]): KubeObject[] {
  return replicaSets.filter((rs): rs is KubeObject => rs !== undefined && replicasOf(rs) > 0);
}

export function totalReplicas(replicaSets: (KubeObject | undefined)[]): number {
  return replicaSets.reduce((sum, rs) => sum + (rs ? replicasOf(rs) : 0), 0);
}

export function totalStatus(replicaSets: (KubeObject | undefined)[], field: 'replicas' | 'readyReplicas' | 'availableReplicas'): number {
  return replicaSets.reduce((sum, rs) => sum + statusNumber(rs, field), 0);
}

/** upstream FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's. */
export function findNewReplicaSet(deployment: KubeObject, replicaSets: KubeObject[]): KubeObject | undefined {
  return [...replicaSets].sort(byCreationTimestamp).find((rs) => equalIgnoreHash(specOf(rs).template, specOf(deployment).template));
}

/** upstream FindOldReplicaSets: every other ReplicaSet. */
export function findOldReplicaSets(newReplicaSet: KubeObject | undefined, replicaSets: KubeObject[]): KubeObject[] {
  return replicaSets.filter((rs) => !newReplicaSet || rs.metadata.uid !== newReplicaSet.metadata.uid);
}

/** upstream FindActiveOrLatest: the single active ReplicaSet, or the newest if none is active. */
export function findActiveOrLatest(newReplicaSet: KubeObject | undefined, oldReplicaSets: KubeObject[]): KubeObject | undefined {
  if (!newReplicaSet && oldReplicaSets.length === 0) return undefined;
  const newestFirst = [...oldReplicaSets].sort((a, b) => byCreationTimestamp(b, a));
  const active = activeReplicaSets([...newestFirst, newReplicaSet]);
  if (active.length === 0) return newReplicaSet ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

// ---- annotations ----

export function revisionOf(obj: KubeObject): number | undefined {
  const value = annotationsOf(obj)[REVISION_ANNOTATION];
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

export function maxRevision(replicaSets: KubeObject[]): number {
  return replicaSets.reduce((max, rs) => Math.max(max, revisionOf(rs) ?? 0), 0);
}

function intAnnotation(obj: KubeObject, key: string): number | undefined {
  const value = annotationsOf(obj)[key];
  return value !== undefined && /^-?\d+$/.test(value) ? Number(value) : undefined;
}

export function desiredReplicasAnnotation(rs: KubeObject): number | undefined {
  return intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
}

export function replicasAnnotationsNeedUpdate(rs: KubeObject, desired: number, max: number): boolean {
  const annotations = annotationsOf(rs);
  return annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) || annotations[MAX_REPLICAS_ANNOTATION] !== String(max);
}

/** Sets desired-replicas and max-replicas on a (cloned) ReplicaSet; true when something changed. */
export function setReplicasAnnotations(rs: KubeObject, desired: number, max: number): boolean {
  if (!replicasAnnotationsNeedUpdate(rs, desired, max)) return false;
  rs.metadata.annotations = { ...annotationsOf(rs), [DESIRED_REPLICAS_ANNOTATION]: String(desired), [MAX_REPLICAS_ANNOTATION]: String(max) };
  return true;
}

/**
 * upstream SetNewReplicaSetAnnotations on a cloned ReplicaSet: copies the Deployment's annotations
 * (kubernetes.io/change-cause among them), raises the revision, keeps earlier revisions of a
 * rolled-back ReplicaSet in revision-history, and gives a ReplicaSet about to be created its
 * replica annotations. True when something changed.
 */
export function setNewReplicaSetAnnotations(deployment: KubeObject, rs: KubeObject, newRevision: number, exists: boolean): boolean {
  const annotations = { ...annotationsOf(rs) };
  let changed = false;
  for (const [key, value] of Object.entries(annotationsOf(deployment))) {
    if (annotationsToSkip.has(key) || annotations[key] === value) continue;
    annotations[key] = value;
    changed = true;
  }
  const oldRevisionText = annotations[REVISION_ANNOTATION];
  let oldRevision = 0;
  if (oldRevisionText !== undefined) {
    if (!/^\d+$/.test(oldRevisionText)) {
      rs.metadata.annotations = annotations;
      return false;
    }
    oldRevision = Number(oldRevisionText);
  }
  if (oldRevision < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (oldRevisionText !== undefined) {
      const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
      if (history === '') {
        annotations[REVISION_HISTORY_ANNOTATION] = oldRevisionText;
      } else {
        const revisions = history.split(',');
        let length = history.length + oldRevisionText.length + 1;
        let start = 0;
        while (length > MAX_REVISION_HISTORY_CHARS && start < revisions.length) length -= revisions[start++].length + 1;
        if (length <= MAX_REVISION_HISTORY_CHARS) annotations[REVISION_HISTORY_ANNOTATION] = [...revisions.slice(start), oldRevisionText].join(',');
      }
    }
  }
  rs.metadata.annotations = annotations;
  if (!exists && setReplicasAnnotations(rs, replicasOf(deployment), replicasOf(deployment) + maxSurge(deployment))) changed = true;
  return changed;
}

/** upstream SetDeploymentRevision on a cloned Deployment; true when it changed. */
export function setDeploymentRevision(deployment: KubeObject, revision: string): boolean {
  if (annotationsOf(deployment)[REVISION_ANNOTATION] === revision) return false;
  deployment.metadata.annotations = { ...annotationsOf(deployment), [REVISION_ANNOTATION]: revision };
  return true;
}

// ---- replica arithmetic ----

/** upstream NewRSNewReplicas: how far the new ReplicaSet may grow now. */
export function newReplicaSetReplicas(deployment: KubeObject, allReplicaSets: (KubeObject | undefined)[], newReplicaSet: KubeObject): number {
  if (!isRollingUpdate(deployment)) return replicasOf(deployment);
  const desired = replicasOf(deployment);
  const current = totalReplicas(allReplicaSets);
  const maxTotal = desired + maxSurge(deployment);
  if (current >= maxTotal) return replicasOf(newReplicaSet);
  const scaleUp = Math.min(maxTotal - current, desired - replicasOf(newReplicaSet));
  return replicasOf(newReplicaSet) + scaleUp;
}

/** upstream IsSaturated: the ReplicaSet has, and was annotated for, every replica, all available. */
export function isSaturated(deployment: KubeObject, rs: KubeObject | undefined): boolean {
  if (!rs) return false;
  const desired = replicasOf(deployment);
  return desiredReplicasAnnotation(rs) === desired && replicasOf(rs) === desired && statusNumber(rs, 'availableReplicas') === desired;
}

/** Go's math.Round: halves away from zero. */
function roundHalfAwayFromZero(value: number): number {
  return value < 0 ? -Math.round(-value) : Math.round(value);
}

/** upstream getReplicaSetFraction: the ReplicaSet's share of a resize, from its max-replicas annotation. */
function replicaSetFraction(rs: KubeObject, deployment: KubeObject): number {
  if (replicasOf(deployment) === 0) return -replicasOf(rs);
  const deploymentMaxReplicas = replicasOf(deployment) + maxSurge(deployment);
  let annotated = intAnnotation(rs, MAX_REPLICAS_ANNOTATION);
  // Someone edited the ReplicaSet by hand: fall back to the Deployment's current size.
  if (annotated === undefined || annotated === 0) annotated = statusNumber(deployment, 'replicas');
  if (annotated === 0) return 0;
  return roundHalfAwayFromZero((replicasOf(rs) * deploymentMaxReplicas) / annotated) - replicasOf(rs);
}

/** upstream GetProportion: the ReplicaSet's share, never beyond what is left to add or remove. */
export function proportionFor(rs: KubeObject | undefined, deployment: KubeObject, toAdd: number, added: number): number {
  if (!rs || replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, deployment);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

// ---- conditions and status ----

export { statusConditions as conditionsOf };

export function getCondition(status: DeploymentStatus | unknown, type: string): Condition | undefined {
  return findCondition(statusConditions(status), type);
}

export function newCondition(type: string, status: ConditionStatus, reason: string, message: string, now: Date): Condition {
  const time = formatTime(now);
  return { type, status, lastUpdateTime: time, lastTransitionTime: time, reason, message };
}

/** upstream SetDeploymentCondition: same status and reason keeps the old one; same status keeps its transition time. */
export function setCondition(status: DeploymentStatus, condition: Condition): void {
  const current = getCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current && current.status === condition.status) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
}

/** upstream calculateStatus (sync.go): counts from the ReplicaSets plus the Available condition. */
export function calculateStatus(allReplicaSets: (KubeObject | undefined)[], newReplicaSet: KubeObject | undefined, deployment: KubeObject, now: Date): DeploymentStatus {
  const available = totalStatus(allReplicaSets, 'availableReplicas');
  const unavailable = Math.max(0, totalReplicas(allReplicaSets) - available);
  const previous = statusOf(deployment);
  const status: DeploymentStatus = {
    observedGeneration: deployment.metadata.generation ?? 0,
    replicas: totalStatus(allReplicaSets, 'replicas'),
    updatedReplicas: totalStatus([newReplicaSet], 'replicas'),
    readyReplicas: totalStatus(allReplicaSets, 'readyReplicas'),
    availableReplicas: available,
    unavailableReplicas: unavailable,
    conditions: statusConditions(previous),
  };
  if (typeof previous.collisionCount === 'number') status.collisionCount = previous.collisionCount;
  if (available >= replicasOf(deployment) - maxUnavailable(deployment)) {
    setCondition(status, newCondition('Available', 'True', reasons.minimumReplicasAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition('Available', 'False', reasons.minimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** upstream DeploymentComplete */
export function deploymentComplete(deployment: KubeObject, status: DeploymentStatus): boolean {
  const desired = replicasOf(deployment);
  return (status.updatedReplicas ?? 0) === desired && (status.replicas ?? 0) === desired && (status.availableReplicas ?? 0) === desired && (status.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0);
}

/** upstream DeploymentProgressing: more updated, ready or available replicas, or fewer old ones. */
export function deploymentProgressing(deployment: KubeObject, status: DeploymentStatus): boolean {
  const old = statusOf(deployment);
  const oldUpdated = numberOr(old.updatedReplicas, 0);
  const oldOld = numberOr(old.replicas, 0) - oldUpdated;
  const newOld = (status.replicas ?? 0) - (status.updatedReplicas ?? 0);
  return (status.updatedReplicas ?? 0) > oldUpdated || newOld < oldOld || (status.readyReplicas ?? 0) > numberOr(old.readyReplicas, 0) || (status.availableReplicas ?? 0) > numberOr(old.availableReplicas, 0);
}

/** upstream DeploymentTimedOut: the Progressing condition was last updated longer ago than the deadline. */
export function deploymentTimedOut(deployment: KubeObject, status: DeploymentStatus, now: Date): boolean {
  const deadline = progressDeadlineSeconds(deployment);
  if (deadline === undefined) return false;
  const condition = getCondition(status, 'Progressing');
  if (!condition) return false;
  if (condition.reason === reasons.newReplicaSetAvailable) return false;
  if (condition.reason === reasons.timedOut) return true;
  const from = Date.parse(condition.lastUpdateTime ?? '');
  return Number.isFinite(from) && from + deadline * 1000 < now.getTime();
}

/** The status as upstream serializes it: zero counts are omitted (omitempty). */
export function serializeStatus(status: DeploymentStatus): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(status)) {
    if (value === undefined || (value === 0 && key !== 'collisionCount') || (Array.isArray(value) && value.length === 0)) continue;
    out[key] = value;
  }
  return out;
}
