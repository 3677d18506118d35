// Pod status from what the runtime shows, after upstream pkg/kubelet/kubelet_pods.go
// (generateAPIPodStatus, getPhase, convertToAPIContainerStatuses — for regular, init and
// ephemeral containers) and pkg/kubelet/status
// (generate.go: GeneratePodReadyCondition, GenerateContainersReadyCondition,
// GeneratePodInitializedCondition). Pure: the pod worker passes the runtime's containers, the
// waiting reasons it decided (ContainerCreating, CrashLoopBackOff, ErrImagePull, …) and the probe
// results, and gets the status to write.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import { findCondition, statusConditions, transitionTime, type Condition } from '../../shared/kubernetes/conditions';
import type { ContainerStatus, SandboxStatus } from './runtime/containerRuntime';

export interface WaitingReason {
  reason: string;
  message?: string;
}

export interface ProbeView {
  /** readiness: true when the container has no readiness probe or it succeeded */
  ready(containerName: string): boolean;
  /** startup: true when the container has no startup probe or it succeeded */
  started(containerName: string): boolean;
}

export interface ObservedPod {
  /** the newest sandbox */
  sandbox?: SandboxStatus;
  /** every sandbox of the pod, newest first */
  sandboxes?: SandboxStatus[];
  /** every runtime container of the pod, any restart count */
  containers: ContainerStatus[];
  /** termination messages read from exited containers, by container id */
  terminationMessages?: Map<string, string>;
}

export interface StatusInput {
  pod: KubeObject;
  observed: ObservedPod;
  waiting: Map<string, WaitingReason>;
  probes: ProbeView;
  hostIP: string;
  now: Date;
  /** the pod is being terminated: containers report as stopping, Ready is False */
  terminating?: boolean;
}


interface SpecContainer {
  name: string;
  image: string;
  readinessProbe?: unknown;
  startupProbe?: unknown;
  restartPolicy?: string;
}

function specContainers(spec: Record<string, unknown>, key: 'containers' | 'initContainers' | 'ephemeralContainers'): SpecContainer[] {
  const list = Array.isArray(spec[key]) ? spec[key] : [];
  return list.filter(isRecord).map((container) => ({
    name: String(container.name ?? ''),
    image: String(container.image ?? ''),
    readinessProbe: container.readinessProbe,
    startupProbe: container.startupProbe,
    restartPolicy: typeof container.restartPolicy === 'string' ? container.restartPolicy : undefined,
  }));
}

/** The runtime instances of one container, newest (highest restart count, then creation) first. */
export function instancesOf(observed: ObservedPod, name: string, init: boolean): ContainerStatus[] {
  return observed.containers
    .filter((container) => container.name === name && container.init === init)
    .sort((a, b) => b.restartCount - a.restartCount || b.createdAt.getTime() - a.createdAt.getTime());
}

function terminatedState(container: ContainerStatus, messages: Map<string, string> | undefined): Record<string, unknown> {
  const exitCode = container.exitCode ?? 0;
  const state: Record<string, unknown> = {
    exitCode,
    reason: container.reason === 'OOMKilled' ? 'OOMKilled' : exitCode === 0 ? 'Completed' : 'Error',
    startedAt: container.startedAt ? formatTime(container.startedAt) : null,
    finishedAt: container.finishedAt ? formatTime(container.finishedAt) : null,
    containerID: `docker://${container.id}`,
  };
  const message = messages?.get(container.id);
  if (message) state.message = message;
  return state;
}

function containerStatusFor(spec: SpecContainer, input: StatusInput, init: boolean, defaultWaiting: string): Record<string, unknown> {
  const instances = instancesOf(input.observed, spec.name, init);
  const latest = instances[0];
  const previous = instances[1];
  const messages = input.observed.terminationMessages;
  const waiting = input.waiting.get(spec.name);
  const status: Record<string, unknown> = { name: spec.name, image: spec.image, imageID: latest?.imageId ?? '', ready: false, restartCount: latest?.restartCount ?? 0, started: false };
  if (latest) status.containerID = `docker://${latest.id}`;
  let lastState: Record<string, unknown> = {};
  if (latest && latest.state === 'running' && !waiting) {
    status.state = { running: { startedAt: latest.startedAt ? formatTime(latest.startedAt) : formatTime(input.now) } };
    const started = spec.startupProbe === undefined || input.probes.started(spec.name);
    status.started = started;
    status.ready = !input.terminating && started && (spec.readinessProbe === undefined ? true : input.probes.ready(spec.name));
    if (init && spec.restartPolicy !== 'Always') status.ready = false;
    if (previous && previous.state === 'exited') lastState = { terminated: terminatedState(previous, messages) };
  } else if (latest && latest.state === 'exited' && !waiting) {
    status.state = { terminated: terminatedState(latest, messages) };
    if (init) status.ready = (latest.exitCode ?? 1) === 0;
    if (previous && previous.state === 'exited') lastState = { terminated: terminatedState(previous, messages) };
  } else {
    const reason = waiting ?? { reason: defaultWaiting };
    status.state = { waiting: reason.message ? { reason: reason.reason, message: reason.message } : { reason: reason.reason } };
    if (latest && latest.state === 'exited') lastState = { terminated: terminatedState(latest, messages) };
  }
  status.lastState = lastState;
  return status;
}

/**
 * An ephemeral container's status: as any container's, never ready and without `started` (no
 * prober looks at it). One the runtime no longer shows keeps what was reported last — terminated
 * stays terminated, running becomes terminated with ContainerStatusUnknown — since the kubelet
 * never starts it again.
 */
function ephemeralContainerStatusFor(spec: SpecContainer, input: StatusInput, defaultWaiting: string): Record<string, unknown> {
  const status = containerStatusFor(spec, input, false, defaultWaiting);
  delete status.started;
  status.ready = false;
  if (instancesOf(input.observed, spec.name, false).length > 0) return status;
  const oldStatus = isRecord(input.pod.status) ? input.pod.status : {};
  const reported = (Array.isArray(oldStatus.ephemeralContainerStatuses) ? oldStatus.ephemeralContainerStatuses : []).find((entry): entry is Record<string, unknown> => isRecord(entry) && entry.name === spec.name);
  if (!reported || typeof reported.containerID !== 'string') return status;
  const state = isRecord(reported.state) ? reported.state : {};
  if (isRecord(state.terminated)) return reported;
  return {
    ...reported,
    ready: false,
    state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt: null } },
  };
}

function condition(type: string, ok: boolean, previous: Condition[], now: Date, reason?: string, message?: string): Condition {
  const status = ok ? 'True' : 'False';
  const result: Condition = { type, status, lastProbeTime: null, lastTransitionTime: transitionTime(findCondition(previous, type), status, formatTime(now)) };
  if (!ok && reason) result.reason = reason;
  if (!ok && message) result.message = message;
  return result;
}

/** upstream getPhase: counts app containers by state; init containers hold the pod in Pending. */
export function podPhase(spec: Record<string, unknown>, initStatuses: Record<string, unknown>[], statuses: Record<string, unknown>[], previousPhase: string | undefined): string {
  const restartPolicy = typeof spec.restartPolicy === 'string' ? spec.restartPolicy : 'Always';
  let pendingInitialization = 0;
  let failedInitialization = 0;
  for (const status of initStatuses) {
    const state = isRecord(status.state) ? status.state : {};
    if (isRecord(state.terminated)) {
      if (state.terminated.exitCode !== 0) failedInitialization++;
    } else if (isRecord(state.running)) {
      // a sidecar (restartPolicy Always) that started counts as initialized
      if (status.started !== true) pendingInitialization++;
    } else if (isRecord(state.waiting)) {
      const last = isRecord(status.lastState) ? status.lastState : {};
      if (isRecord(last.terminated)) {
        if (last.terminated.exitCode !== 0) failedInitialization++;
      } else pendingInitialization++;
    } else pendingInitialization++;
  }
  let waiting = 0;
  let running = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const status of statuses) {
    const state = isRecord(status.state) ? status.state : {};
    const last = isRecord(status.lastState) ? status.lastState : {};
    if (isRecord(state.running)) running++;
    else if (isRecord(state.terminated)) {
      stopped++;
      if (state.terminated.exitCode === 0) succeeded++;
    } else if (isRecord(state.waiting)) {
      if (isRecord(last.terminated)) {
        stopped++;
        if (last.terminated.exitCode === 0) succeeded++;
      } else waiting++;
    }
  }
  if (failedInitialization > 0 && restartPolicy === 'Never') return 'Failed';
  if (pendingInitialization > 0 || failedInitialization > 0) return 'Pending';
  if (waiting > 0) return previousPhase === 'Running' && running > 0 ? 'Running' : 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0 && stopped === statuses.length) {
    if (restartPolicy === 'Always') return 'Running';
    if (succeeded === stopped) return 'Succeeded';
    if (restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

/** The full pod status the kubelet writes (merged over the scheduler's PodScheduled condition). */
export function computePodStatus(input: StatusInput): Record<string, unknown> {
  const { pod, observed, now } = input;
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const oldStatus = isRecord(pod.status) ? pod.status : {};
  const previousConditions = statusConditions(oldStatus);
  const inits = specContainers(spec, 'initContainers');
  const apps = specContainers(spec, 'containers');
  const initStatuses = inits.map((container) => containerStatusFor(container, input, true, 'PodInitializing'));
  const initsDone = initStatuses.every((status) => {
    const state = isRecord(status.state) ? status.state : {};
    const sidecar = inits.find((container) => container.name === status.name)?.restartPolicy === 'Always';
    if (sidecar) return isRecord(state.running) && status.started === true;
    return isRecord(state.terminated) && state.terminated.exitCode === 0;
  });
  const appStatuses = apps.map((container) => containerStatusFor(container, input, false, initsDone ? 'ContainerCreating' : 'PodInitializing'));
  const previousPhase = typeof oldStatus.phase === 'string' ? oldStatus.phase : undefined;
  let phase = podPhase(spec, initStatuses, appStatuses, previousPhase);
  // A terminal phase never goes back (upstream: pods do not leave Succeeded/Failed).
  if (previousPhase === 'Succeeded' || previousPhase === 'Failed') phase = previousPhase;
  const terminal = phase === 'Succeeded' || phase === 'Failed';

  const notReady = appStatuses.filter((status) => status.ready !== true).map((status) => String(status.name));
  const incompleteInits = initStatuses
    .filter((status) => {
      const state = isRecord(status.state) ? status.state : {};
      return !(isRecord(state.terminated) && state.terminated.exitCode === 0) && !(isRecord(state.running) && status.started === true && inits.find((c) => c.name === status.name)?.restartPolicy === 'Always');
    })
    .map((status) => String(status.name));
  const sandboxReady = observed.sandbox?.state === 'ready';
  const conditions: Condition[] = [
    condition('PodReadyToStartContainers', sandboxReady && !terminal ? true : sandboxReady, previousConditions, now),
    condition('Initialized', initsDone || incompleteInits.length === 0, previousConditions, now, 'ContainersNotInitialized', `containers with incomplete status: [${incompleteInits.join(' ')}]`),
  ];
  const containersReady = notReady.length === 0 && !input.terminating;
  const readyReason = terminal ? 'PodCompleted' : 'ContainersNotReady';
  const readyMessage = terminal ? undefined : `containers with unready status: [${notReady.join(' ')}]`;
  conditions.push(condition('ContainersReady', containersReady && !terminal, previousConditions, now, readyReason, readyMessage));
  conditions.push(condition('Ready', containersReady && !terminal, previousConditions, now, readyReason, readyMessage));
  const scheduled = findCondition(previousConditions, 'PodScheduled');
  if (scheduled) conditions.push(scheduled);
  else conditions.push(condition('PodScheduled', true, previousConditions, now));

  const status: Record<string, unknown> = {
    phase,
    conditions,
    hostIP: input.hostIP,
    hostIPs: [{ ip: input.hostIP }],
    startTime: typeof oldStatus.startTime === 'string' ? oldStatus.startTime : formatTime(now),
    containerStatuses: appStatuses,
    qosClass: oldStatus.qosClass,
  };
  if (inits.length) status.initContainerStatuses = initStatuses;
  // Ephemeral containers count for neither the phase nor readiness; listed by name, as upstream sorts them.
  const ephemeral = specContainers(spec, 'ephemeralContainers');
  if (ephemeral.length) {
    status.ephemeralContainerStatuses = ephemeral
      .map((container) => ephemeralContainerStatusFor(container, input, inits.length ? 'PodInitializing' : 'ContainerCreating'))
      .sort((a, b) => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0));
  }
  const ip = observed.sandbox?.ip ?? (typeof oldStatus.podIP === 'string' ? oldStatus.podIP : '');
  if (ip) {
    status.podIP = ip;
    status.podIPs = [{ ip }];
  }
  if (pod.metadata.generation !== undefined) status.observedGeneration = pod.metadata.generation;
  if (status.qosClass === undefined) delete status.qosClass;
  return status;
}
