// Why a workload is not ready: its controller's own signals first — FailedCreate events and the
// ReplicaFailure condition when quota or a LimitRange refuses its pods (upstream
// replica_set.go/job_controller.go record "Error creating: …"), the Deployment's Progressing
// condition once the rollout passed progressDeadlineSeconds (ProgressDeadlineExceeded), a paused
// rollout, a Job's Failed condition — then its pods: the worst pod's reason (errors before waits,
// the most common reason among equals) with how many pods share it.
import type { KubeObject } from '../kubernetes/types';
import { selectorMatches } from '../kubernetes/labelSelector';
import { numberAt, stringAt, valueAt } from '../printers/fields';
import { parseTimestamp } from '../printers/duration';
import {
  condition,
  controlledBy,
  eventsAbout,
  fromFinding,
  healthy,
  inNamespace,
  nameOf,
  namespaceOf,
  plural,
  type Diagnosis,
  type DiagnosisContext,
  type Finding,
} from './diagnosis';
import { diagnosePod } from './pod';

/** The worst of some pods' diagnoses, and how many pods share its rule. */
export interface PodsVerdict {
  total: number;
  healthy: number;
  worst?: { pod: KubeObject; diagnosis: Diagnosis; count: number };
}

const RANK = { error: 2, warning: 1, ok: 0 } as const;

export function podsVerdict(pods: readonly KubeObject[], context: DiagnosisContext): PodsVerdict {
  const byCode = new Map<string, { pod: KubeObject; diagnosis: Diagnosis; count: number }>();
  let healthyCount = 0;
  // by name, so the pod named in the reason is the same on every run
  for (const pod of [...pods].sort((left, right) => nameOf(left).localeCompare(nameOf(right)))) {
    const diagnosis = diagnosePod(pod, context);
    if (diagnosis.healthy) {
      healthyCount++;
      continue;
    }
    const group = byCode.get(diagnosis.code);
    if (group) group.count++;
    else byCode.set(diagnosis.code, { pod, diagnosis, count: 1 });
  }
  let worst: PodsVerdict['worst'];
  for (const group of byCode.values()) {
    if (!worst || RANK[group.diagnosis.severity] > RANK[worst.diagnosis.severity] || (group.diagnosis.severity === worst.diagnosis.severity && group.count > worst.count)) worst = group;
  }
  return { total: pods.length, healthy: healthyCount, ...(worst ? { worst } : {}) };
}

/** `pod web-1: <reason>` or `3 pods (e.g. web-1): <reason>`. */
function podsFinding(verdict: PodsVerdict, prefix: string): Finding | undefined {
  const worst = verdict.worst;
  if (!worst) return undefined;
  const who = worst.count > 1 ? `${worst.count} pods, e.g. ${nameOf(worst.pod)}` : `pod ${nameOf(worst.pod)}`;
  return {
    severity: worst.diagnosis.severity === 'ok' ? 'warning' : worst.diagnosis.severity,
    code: worst.diagnosis.code,
    reason: `${prefix}${worst.diagnosis.reason} (${who})`,
    details: [`Pod ${namespaceOf(worst.pod)}/${nameOf(worst.pod)}: ${worst.diagnosis.reason}`, ...worst.diagnosis.details.map((line) => `  ${line}`)],
    hints: worst.diagnosis.hints,
    ...(worst.diagnosis.logRequest ? { logRequest: worst.diagnosis.logRequest } : {}),
    ...(worst.diagnosis.logLines ? { logLines: worst.diagnosis.logLines } : {}),
  };
}

/** "Error creating: pods "x" is forbidden: exceeded quota: …" → what refused the pods, in plain words. */
export function createFailureText(message: string): string {
  const text = message.replace(/^Error creating( job)?: /, '').replace(/^create Pod \S+ in StatefulSet \S+ failed error: /, '');
  const forbidden = /^(?:pods|jobs\.batch|persistentvolumeclaims) "[^"]*" is forbidden: (.*)$/s.exec(text);
  const inner = forbidden ? forbidden[1] : text;
  const quota = /^exceeded quota: ([^,]+), (.*)$/.exec(inner);
  if (quota) return `ResourceQuota "${quota[1]}" is exhausted (${quota[2]})`;
  const mustSpecify = /^failed quota: ([^:]+): (.*)$/.exec(inner);
  if (mustSpecify) return `ResourceQuota "${mustSpecify[1]}" refuses them: ${mustSpecify[2]}`;
  if (/^(maximum|minimum) .* per (Container|Pod)|LimitRange|limit to request ratio/.test(inner)) return `a LimitRange refuses them: ${inner}`;
  return inner;
}

function createFailureHints(message: string, namespace: string): string[] {
  const quota = /exceeded quota: ([^,]+)|failed quota: ([^:]+)/.exec(message);
  if (quota) return [`see what the quota allows: kubectl describe resourcequota ${quota[1] ?? quota[2]} -n ${namespace}`, 'raise the quota, or lower replicas or the pods’ requests'];
  if (/per (Container|Pod)|LimitRange/.test(message)) return [`see the limits: kubectl describe limitrange -n ${namespace}`, "fit the pod template's requests and limits inside them"];
  return [];
}

/** A controller's pod creation failures: its ReplicaFailure condition or its newest FailedCreate event. */
function failedCreateFinding(owners: readonly KubeObject[], kind: string, context: DiagnosisContext): Finding | undefined {
  for (const owner of owners) {
    const ownerKind = owner.kind ?? kind;
    const failure = condition(owner, 'ReplicaFailure');
    const events = eventsAbout(context, owner, ownerKind);
    const created = events.find((event) => event.reason === 'SuccessfulCreate');
    const event = events.find((candidate) => candidate.reason === 'FailedCreate');
    // a FailedCreate older than the last successful creation may be history; the condition is current
    const message = failure?.status === 'True' ? failure.message : event && (!created || event.time >= created.time) ? event.message : undefined;
    if (!message) continue;
    const namespace = namespaceOf(owner);
    const count = events.filter((candidate) => candidate.reason === 'FailedCreate').reduce((sum, candidate) => sum + candidate.count, 0);
    return {
      severity: 'error',
      code: 'FailedCreate',
      reason: `cannot create pods: ${createFailureText(message)}`,
      details: [`${ownerKind} ${nameOf(owner)}: ${message}`, ...(count > 0 ? [`FailedCreate ${plural(count, 'time')}`] : [])],
      hints: createFailureHints(message, namespace),
    };
  }
  return undefined;
}

function withPrefix(finding: Finding, prefix: string): Finding {
  return { ...finding, reason: `${prefix}${finding.reason}` };
}

function deleting(object: KubeObject): Diagnosis | undefined {
  return object.metadata.deletionTimestamp ? fromFinding({ severity: 'warning', code: 'Terminating', reason: 'being deleted' }) : undefined;
}

/** Pods of a ReplicaSet-like owner: controlled by it, or — when owners are not known — matching its selector. */
function ownedPods(owner: KubeObject, context: DiagnosisContext): KubeObject[] {
  const owned = controlledBy(context.pods, owner.metadata.uid);
  if (owned.length > 0) return owned;
  const selector = valueAt(owner, 'spec', 'selector');
  return inNamespace(context.pods, namespaceOf(owner)).filter((pod) => selectorMatches(selector, pod.metadata.labels) && !pod.metadata.ownerReferences?.some((reference) => reference.controller && reference.uid !== owner.metadata.uid && reference.kind === 'ReplicaSet'));
}

/** A replica count line: `2/3 ready`. */
function readyPrefix(ready: number, desired: number): string {
  return `${ready}/${desired} ready: `;
}

export function diagnoseDeployment(deployment: KubeObject, context: DiagnosisContext): Diagnosis {
  const gone = deleting(deployment);
  if (gone) return gone;
  const desired = typeof valueAt(deployment, 'spec', 'replicas') === 'number' ? numberAt(deployment, 'spec', 'replicas') : 1;
  const ready = numberAt(deployment, 'status', 'readyReplicas');
  const updated = numberAt(deployment, 'status', 'updatedReplicas');
  const available = numberAt(deployment, 'status', 'availableReplicas');
  const replicas = numberAt(deployment, 'status', 'replicas');
  const generation = deployment.metadata.generation ?? 0;
  const observed = numberAt(deployment, 'status', 'observedGeneration');
  const replicaSets = controlledBy(context.replicaSets, deployment.metadata.uid).sort((left, right) => (parseTimestamp(right.metadata.creationTimestamp) ?? 0) - (parseTimestamp(left.metadata.creationTimestamp) ?? 0));
  const pods = context.replicaSets ? replicaSets.flatMap((replicaSet) => controlledBy(context.pods, replicaSet.metadata.uid)) : inNamespace(context.pods, namespaceOf(deployment)).filter((pod) => selectorMatches(valueAt(deployment, 'spec', 'selector'), pod.metadata.labels));
  const details = [`Replicas: ${desired} desired, ${updated} updated, ${ready} ready, ${available} available${replicas > updated ? `, ${replicas - updated} old` : ''}`];
  const progressing = condition(deployment, 'Progressing');
  const deadlineExceeded = progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded';
  const upToDate = observed >= generation && updated >= desired && ready >= desired && available >= desired && replicas <= desired;
  if (upToDate && !deadlineExceeded) {
    if (desired === 0) return healthy('Healthy', 'healthy: scaled to 0 replicas', details);
    return healthy('Healthy', `healthy: ${ready}/${desired} replicas ready and up to date`, details);
  }
  const verdict = podsVerdict(pods, context);
  const failedCreate = failedCreateFinding([...replicaSets, { ...deployment, kind: 'Deployment' }], 'ReplicaSet', context);
  const fromPods = podsFinding(verdict, '');
  const inner = failedCreate ?? fromPods;
  if (deadlineExceeded) {
    const seconds = numberAt(deployment, 'spec', 'progressDeadlineSeconds') || 600;
    details.push(`Progressing: ${progressing.message}`);
    const cause = inner ? inner.reason : `${ready}/${desired} ready`;
    return fromFinding(
      {
        severity: 'error',
        code: 'ProgressDeadlineExceeded',
        reason: `rollout stuck past its progress deadline (${seconds}s): ${cause}`,
        details: inner?.details,
        hints: [...(inner?.hints ?? []), `after fixing it: kubectl rollout restart deployment/${nameOf(deployment)} -n ${namespaceOf(deployment)} (or roll back: kubectl rollout undo)`],
        ...(inner?.logRequest ? { logRequest: inner.logRequest } : {}),
        ...(inner?.logLines ? { logLines: inner.logLines } : {}),
      },
      details,
    );
  }
  if (inner) return fromFinding(withPrefix(inner, readyPrefix(ready, desired)), details);
  if (valueAt(deployment, 'spec', 'paused') === true) {
    return fromFinding({ severity: 'warning', code: 'Paused', reason: `rollout paused at ${updated}/${desired} updated`, hints: [`kubectl rollout resume deployment/${nameOf(deployment)} -n ${namespaceOf(deployment)}`] }, details);
  }
  return fromFinding({ severity: 'warning', code: 'RollingOut', reason: `rollout in progress: ${updated}/${desired} updated, ${available} available`, details: [] }, details);
}

/** ReplicaSets and ReplicationControllers. */
export function diagnoseReplicaSet(replicaSet: KubeObject, context: DiagnosisContext, kind = 'ReplicaSet'): Diagnosis {
  const gone = deleting(replicaSet);
  if (gone) return gone;
  const desired = typeof valueAt(replicaSet, 'spec', 'replicas') === 'number' ? numberAt(replicaSet, 'spec', 'replicas') : 1;
  const ready = numberAt(replicaSet, 'status', 'readyReplicas');
  const replicas = numberAt(replicaSet, 'status', 'replicas');
  const details = [`Replicas: ${desired} desired, ${replicas} current, ${ready} ready`];
  const failedCreate = failedCreateFinding([replicaSet], kind, context);
  if (ready >= desired && replicas === desired && !failedCreate) return healthy('Healthy', desired === 0 ? 'healthy: scaled to 0 replicas' : `healthy: ${ready}/${desired} replicas ready`, details);
  const inner = failedCreate ?? podsFinding(podsVerdict(ownedPods(replicaSet, context), context), '');
  if (inner) return fromFinding(withPrefix(inner, readyPrefix(ready, desired)), details);
  return fromFinding({ severity: 'warning', code: 'RollingOut', reason: `${replicas}/${desired} pods created, ${ready} ready` }, details);
}

export function diagnoseStatefulSet(statefulSet: KubeObject, context: DiagnosisContext): Diagnosis {
  const gone = deleting(statefulSet);
  if (gone) return gone;
  const desired = typeof valueAt(statefulSet, 'spec', 'replicas') === 'number' ? numberAt(statefulSet, 'spec', 'replicas') : 1;
  const ready = numberAt(statefulSet, 'status', 'readyReplicas');
  const updated = numberAt(statefulSet, 'status', 'updatedReplicas');
  const updateRevision = stringAt(statefulSet, 'status', 'updateRevision');
  const current = updateRevision !== '' && stringAt(statefulSet, 'status', 'currentRevision') === updateRevision;
  const details = [`Replicas: ${desired} desired, ${ready} ready, ${updated} updated`];
  const failedCreate = failedCreateFinding([statefulSet], 'StatefulSet', context);
  if (ready >= desired && (current || updated >= desired) && !failedCreate) return healthy('Healthy', desired === 0 ? 'healthy: scaled to 0 replicas' : `healthy: ${ready}/${desired} replicas ready`, details);
  const pods = ownedPods(statefulSet, context);
  const inner = failedCreate ?? podsFinding(podsVerdict(pods, context), '');
  if (inner) {
    if (stringAt(statefulSet, 'spec', 'podManagementPolicy') !== 'Parallel' && pods.length < desired) details.push(`Pods start one at a time (OrderedReady): the next one waits for ${nameOf(statefulSet)}-${pods.length - 1} to be ready`);
    return fromFinding(withPrefix(inner, readyPrefix(ready, desired)), details);
  }
  return fromFinding({ severity: 'warning', code: 'RollingOut', reason: `${ready}/${desired} ready: pods are starting one at a time` }, details);
}

export function diagnoseDaemonSet(daemonSet: KubeObject, context: DiagnosisContext): Diagnosis {
  const gone = deleting(daemonSet);
  if (gone) return gone;
  const desired = numberAt(daemonSet, 'status', 'desiredNumberScheduled');
  const ready = numberAt(daemonSet, 'status', 'numberReady');
  const updated = numberAt(daemonSet, 'status', 'updatedNumberScheduled');
  const misscheduled = numberAt(daemonSet, 'status', 'numberMisscheduled');
  const details = [`Nodes: ${desired} should run it, ${ready} ready, ${updated} updated${misscheduled ? `, ${misscheduled} running it where it should not` : ''}`];
  const failedCreate = failedCreateFinding([daemonSet], 'DaemonSet', context);
  if (desired === 0 && !failedCreate) {
    const nodes = context.nodes ? ` of ${plural(context.nodes.length, 'node')}` : '';
    return healthy('Healthy', `healthy: no node${nodes} matches its node selector and tolerations, so it runs nowhere`, details, ['check spec.template.spec.nodeSelector, affinity and tolerations if it should run somewhere']);
  }
  if (ready >= desired && updated >= desired && !failedCreate) return healthy('Healthy', `healthy: ready on ${ready}/${desired} nodes`, details);
  const inner = failedCreate ?? podsFinding(podsVerdict(ownedPods(daemonSet, context), context), '');
  if (inner) return fromFinding(withPrefix(inner, readyPrefix(ready, desired)), details);
  return fromFinding({ severity: 'warning', code: 'RollingOut', reason: `${ready}/${desired} ready: pods are starting` }, details);
}

export function diagnoseJob(job: KubeObject, context: DiagnosisContext): Diagnosis {
  const gone = deleting(job);
  if (gone) return gone;
  const succeeded = numberAt(job, 'status', 'succeeded');
  const failed = numberAt(job, 'status', 'failed');
  const active = numberAt(job, 'status', 'active');
  const completions = typeof valueAt(job, 'spec', 'completions') === 'number' ? numberAt(job, 'spec', 'completions') : 1;
  const backoffLimit = typeof valueAt(job, 'spec', 'backoffLimit') === 'number' ? numberAt(job, 'spec', 'backoffLimit') : 6;
  const details = [`Pods: ${active} active, ${succeeded} succeeded, ${failed} failed (completions ${completions}, backoffLimit ${backoffLimit})`];
  const pods = controlledBy(context.pods, job.metadata.uid);
  const failedPods = pods.filter((pod) => stringAt(pod, 'status', 'phase') === 'Failed');
  const failedPod = podsFinding(podsVerdict(failedPods, context), '');
  const complete = condition(job, 'Complete');
  if (complete?.status === 'True') return healthy('Completed', `healthy: completed (${succeeded}/${completions} succeeded)`, details);
  const failure = condition(job, 'Failed');
  if (failure?.status === 'True') {
    return fromFinding(
      {
        severity: 'error',
        code: 'JobFailed',
        reason: `failed: ${failure.reason}${failure.message ? ` (${failure.message.replace(/\.$/, '')})` : ''}${failedPod ? `; last failure: ${failedPod.reason}` : ''}`,
        details: failedPod?.details,
        hints: failedPod?.hints,
        ...(failedPod?.logRequest ? { logRequest: failedPod.logRequest } : {}),
        ...(failedPod?.logLines ? { logLines: failedPod.logLines } : {}),
      },
      details,
    );
  }
  if (valueAt(job, 'spec', 'suspend') === true) return healthy('Suspended', 'healthy: suspended (no pods run until it is resumed)', details);
  const failedCreate = failedCreateFinding([job], 'Job', context);
  if (failedCreate) return fromFinding(failedCreate, details);
  const running = pods.filter((pod) => stringAt(pod, 'status', 'phase') !== 'Failed' && stringAt(pod, 'status', 'phase') !== 'Succeeded');
  const activeFinding = podsFinding(podsVerdict(running, context), '');
  if (activeFinding && activeFinding.severity === 'error') return fromFinding(activeFinding, details);
  if (failedPod) return fromFinding({ ...failedPod, severity: 'error', code: 'PodsFailing', reason: `${plural(failed, 'pod')} failed, retrying (backoff limit ${backoffLimit}): ${failedPod.reason}` }, details);
  if (activeFinding) return fromFinding(activeFinding, details);
  return healthy('Healthy', `healthy: running (${active} active, ${succeeded}/${completions} succeeded)`, details);
}

export function diagnoseCronJob(cronJob: KubeObject, context: DiagnosisContext): Diagnosis {
  const gone = deleting(cronJob);
  if (gone) return gone;
  const schedule = stringAt(cronJob, 'spec', 'schedule');
  const details = [`Schedule: ${schedule}${stringAt(cronJob, 'status', 'lastScheduleTime') ? `, last scheduled ${stringAt(cronJob, 'status', 'lastScheduleTime')}` : ''}`];
  if (valueAt(cronJob, 'spec', 'suspend') === true) return healthy('Suspended', 'healthy: suspended (no new Jobs start until it is resumed)', details);
  const events = eventsAbout(context, cronJob, 'CronJob');
  const failedCreate = events.find((event) => event.reason === 'FailedCreate');
  const created = events.find((event) => event.reason === 'SuccessfulCreate');
  if (failedCreate && (!created || failedCreate.time >= created.time)) {
    return fromFinding({ severity: 'error', code: 'FailedCreate', reason: `cannot create Jobs: ${createFailureText(failedCreate.message)}`, details: [`CronJob: ${failedCreate.message}`], hints: createFailureHints(failedCreate.message, namespaceOf(cronJob)) }, details);
  }
  const jobs = controlledBy(context.jobs, cronJob.metadata.uid).sort((left, right) => (parseTimestamp(right.metadata.creationTimestamp) ?? 0) - (parseTimestamp(left.metadata.creationTimestamp) ?? 0));
  const last = jobs[0];
  if (!last) return healthy('Healthy', `healthy: no Job has run yet (schedule "${schedule}")`, details);
  const job = diagnoseJob(last, context);
  if (job.healthy) return healthy('Healthy', `healthy: last Job ${nameOf(last)} ${job.code === 'Completed' ? 'completed' : 'is running'}`, details);
  return { ...job, reason: `last Job ${nameOf(last)}: ${job.reason}`, details: [...details, ...job.details] };
}
