// Periodic probing of containers, after upstream pkg/kubelet/prober/worker.go and prober_manager.go:
// one worker per container and probe kind, ticking every periodSeconds. Per worker:
// - the result is kept per container instance (containerID); a new instance starts from the initial
//   value: readiness failure, liveness success, startup unknown;
// - nothing runs before initialDelaySeconds after the container started; liveness and readiness wait
//   until the startup probe has succeeded; the startup probe stops counting once it has;
// - a result changes only after successThreshold / failureThreshold consecutive equal outcomes;
// - a liveness or startup failure puts the worker on hold until a new container instance appears
//   (the kubelet restarts it: `Container x failed liveness probe, will be restarted`);
// - a container that is not running reads as failure; on pod deletion liveness/startup stop;
// - each failed attempt is reported (`Liveness probe failed: <output>`, reason Unhealthy), as upstream
//   records an event per failure; an attempt that could not run is retried up to 3 times, then dropped.
// ProbeManager answers isStarted/isReady as upstream's UpdatePodStatus computes Started and Ready.
import { realClock, type Clock, type Timer } from '../../client';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { podSpecOf, type Container, type Probe } from '../env/podSpec';
import type { ContainerRuntime } from '../runtime/containerRuntime';
import { runProbe, type ProbeContext, type ProbeOutcome, type ProbeResult } from './prober';

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

/** The kubelet's current view of one container (core/v1 ContainerStatus fields the prober reads). */
export interface ContainerStatusView {
  name: string;
  /** docker://<id>; empty or absent until the container exists */
  containerID?: string;
  state?: { running?: { startedAt?: string }; waiting?: unknown; terminated?: unknown };
}

/** The kubelet's current view of the pod (core/v1 PodStatus fields the prober reads). */
export interface PodStatusView {
  phase?: string;
  podIP?: string;
  containerStatuses?: ContainerStatusView[];
  initContainerStatuses?: ContainerStatusView[];
}

export type PodStatusGetter = () => PodStatusView | undefined;

export type ProbeRunner = (probe: Probe, context: ProbeContext) => Promise<ProbeOutcome>;

const kindTitles: Record<ProbeKind, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };
const initialValues: Record<ProbeKind, ProbeResult> = { liveness: 'success', readiness: 'failure', startup: 'unknown' };
const maxProbeRetries = 3;

export interface ProbeWorkerOptions {
  kind: ProbeKind;
  pod: KubeObject;
  container: Container;
  probe: Probe;
  status: PodStatusGetter;
  runtime: Pick<ContainerRuntime, 'execSync'>;
  clock: Clock;
  runProbe: ProbeRunner;
  /** Whether the container instance has started (startup probe passed, or none). */
  isStarted: (containerID: string) => boolean;
  /** The result for the current instance changed (only on changes). */
  onResult: (kind: ProbeKind, result: ProbeResult, output: string, containerID: string) => void;
  /** A probe attempt failed or warned: an event for the pod. */
  onEvent: (kind: ProbeKind, reason: 'Unhealthy' | 'ProbeWarning', message: string) => void;
}

function findStatus(status: PodStatusView, name: string): ContainerStatusView | undefined {
  const app = status.containerStatuses?.find((candidate) => candidate.name === name);
  if (app?.containerID) return app;
  const init = status.initContainerStatuses?.find((candidate) => candidate.name === name);
  return init?.containerID ? init : undefined;
}

function stripRuntimePrefix(containerID: string): string {
  const separator = containerID.indexOf('://');
  return separator < 0 ? containerID : containerID.slice(separator + 3);
}

export class ProbeWorker {
  /** Probe attempts made (for tests and metrics). */
  probes = 0;
  /** How many times the result changed. */
  changes = 0;
  private containerID = '';
  private current: ProbeResult;
  private lastResult: ProbeResult = 'unknown';
  private resultRun = 0;
  private onHold = false;
  private stopped = false;
  private running = false;
  private timer: Timer | undefined;
  private lastTickAt = 0;
  private pod: KubeObject;

  constructor(private readonly options: ProbeWorkerOptions) {
    this.current = initialValues[options.kind];
    this.pod = options.pod;
  }

  get kind(): ProbeKind {
    return this.options.kind;
  }

  /** The result for `containerID`, undefined when this worker has not seen that instance yet. */
  resultFor(containerID: string): ProbeResult | undefined {
    return containerID !== '' && containerID === this.containerID ? this.current : undefined;
  }

  updatePod(pod: KubeObject): void {
    this.pod = pod;
  }

  start(): void {
    void this.tick();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Probes now instead of at the next tick (upstream manualTriggerCh). */
  trigger(): void {
    if (this.stopped || this.running) return;
    this.timer?.cancel();
    void this.tick();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    this.running = true;
    this.lastTickAt = this.options.clock.now();
    let keepGoing = true;
    try {
      keepGoing = await this.doProbe();
    } catch {
      keepGoing = true;
    }
    this.running = false;
    if (!keepGoing) this.stopped = true;
    if (this.stopped) return;
    const period = (this.options.probe.periodSeconds ?? 10) * 1000;
    const delay = Math.max(0, this.lastTickAt + period - this.options.clock.now());
    this.timer = this.options.clock.setTimeout(() => void this.tick(), delay);
  }

  private setResult(result: ProbeResult, output: string): void {
    if (result === this.current) return;
    this.current = result;
    this.changes++;
    this.options.onResult(this.options.kind, result, output, this.containerID);
  }

  /** One iteration of upstream worker.doProbe; false stops the worker. */
  async doProbe(): Promise<boolean> {
    const { kind, container, probe } = this.options;
    const status = this.options.status();
    if (!status) return true;
    if (status.phase === 'Failed' || status.phase === 'Succeeded') return false;
    const containerStatus = findStatus(status, container.name);
    if (!containerStatus?.containerID) return true;

    if (containerStatus.containerID !== this.containerID) {
      this.containerID = containerStatus.containerID;
      // A new instance: its result starts over, reported if it differs from the last instance's.
      this.lastResult = 'unknown';
      this.resultRun = 0;
      this.onHold = false;
      this.setResult(initialValues[kind], '');
    }
    if (this.onHold) return true;

    const running = containerStatus.state?.running;
    if (!running) {
      this.setResult('failure', 'container is not running');
      return !containerStatus.state?.terminated || podSpecOf(this.pod).restartPolicy !== 'Never';
    }
    if (this.pod.metadata.deletionTimestamp && (kind === 'liveness' || kind === 'startup')) {
      this.setResult('success', '');
      return false;
    }
    const startedAt = running.startedAt ? Date.parse(running.startedAt) : NaN;
    if (Number.isFinite(startedAt) && Math.trunc((this.options.clock.now() - startedAt) / 1000) < (probe.initialDelaySeconds ?? 0)) return true;
    const started = this.options.isStarted(this.containerID);
    if (kind === 'startup' ? started : !started) return true;

    const context: ProbeContext = {
      podIP: status.podIP ?? '',
      containerId: stripRuntimePrefix(this.containerID),
      runtime: this.options.runtime,
      timeoutSeconds: probe.timeoutSeconds ?? 1,
      container,
    };
    let outcome: ProbeOutcome = { result: 'unknown', output: '' };
    for (let attempt = 0; attempt < maxProbeRetries; attempt++) {
      this.probes++;
      outcome = await this.options.runProbe(probe, context);
      if (outcome.result !== 'unknown') break;
    }
    if (this.stopped) return false;
    const title = kindTitles[kind];
    if (outcome.result === 'unknown') {
      this.options.onEvent(kind, 'Unhealthy', `${title} probe errored: ${outcome.output}`);
      return true;
    }
    if (outcome.result === 'failure') this.options.onEvent(kind, 'Unhealthy', `${title} probe failed: ${outcome.output}`);
    else if (outcome.warning) this.options.onEvent(kind, 'ProbeWarning', `${title} probe warning: ${outcome.output}`);

    if (this.lastResult === outcome.result) this.resultRun++;
    else {
      this.lastResult = outcome.result;
      this.resultRun = 1;
    }
    const threshold = outcome.result === 'failure' ? (probe.failureThreshold ?? 3) : (probe.successThreshold ?? 1);
    if (this.resultRun < threshold) return true;
    this.setResult(outcome.result, outcome.output);
    if ((kind === 'liveness' || kind === 'startup') && outcome.result === 'failure') {
      // Wait for the restarted instance; probing a dying container can confuse the runtime.
      this.onHold = true;
      this.resultRun = 0;
    }
    return true;
  }
}

export interface ProbeManagerOptions {
  runtime: Pick<ContainerRuntime, 'execSync'>;
  clock?: Clock;
  /** replaces the network/exec prober (tests) */
  runProbe?: ProbeRunner;
}

export type LivenessFailureListener = (pod: KubeObject, containerName: string, kind: 'liveness' | 'startup', message: string) => void;
export type ReadinessChangeListener = (pod: KubeObject, containerName: string, ready: boolean) => void;
export type ProbeEventListener = (pod: KubeObject, containerName: string, kind: ProbeKind, message: string, reason: 'Unhealthy' | 'ProbeWarning') => void;

interface PodEntry {
  pod: KubeObject;
  status: PodStatusGetter;
  workers: Map<string, ProbeWorker>;
}

function workerKey(containerName: string, kind: ProbeKind): string {
  return `${containerName}/${kind}`;
}

export class ProbeManager {
  private readonly pods = new Map<string, PodEntry>();
  private readonly clock: Clock;
  private readonly runner: ProbeRunner;
  private readonly livenessListeners = new Set<LivenessFailureListener>();
  private readonly readinessListeners = new Set<ReadinessChangeListener>();
  private readonly eventListeners = new Set<ProbeEventListener>();

  constructor(private readonly options: ProbeManagerOptions) {
    this.clock = options.clock ?? realClock;
    this.runner = options.runProbe ?? runProbe;
  }

  /**
   * Starts workers for every probe of the pod's containers (and of restartable init containers).
   * `status` returns the kubelet's latest view of the pod; it is read at every tick. Adding a pod
   * that is already known only updates its object.
   */
  addPod(pod: KubeObject, status: PodStatusGetter): void {
    const uid = pod.metadata.uid ?? '';
    const existing = this.pods.get(uid);
    if (existing) {
      this.updatePod(pod);
      return;
    }
    const entry: PodEntry = { pod, status, workers: new Map() };
    this.pods.set(uid, entry);
    const spec = podSpecOf(pod);
    const containers = [...(spec.initContainers ?? []).filter((container) => container.restartPolicy === 'Always'), ...(spec.containers ?? [])];
    for (const container of containers) {
      const probes: [ProbeKind, Probe | undefined][] = [
        ['startup', container.startupProbe],
        ['liveness', container.livenessProbe],
        ['readiness', container.readinessProbe],
      ];
      for (const [kind, probe] of probes) {
        if (!probe) continue;
        const worker = new ProbeWorker({
          kind,
          pod,
          container,
          probe,
          status,
          runtime: this.options.runtime,
          clock: this.clock,
          runProbe: this.runner,
          isStarted: (containerID) => this.startedFor(entry, container.name, containerID),
          onResult: (resultKind, result, _output, containerID) => this.handleResult(entry, container.name, resultKind, result, containerID),
          onEvent: (eventKind, reason, message) => {
            for (const listener of this.eventListeners) listener(entry.pod, container.name, eventKind, message, reason);
          },
        });
        entry.workers.set(workerKey(container.name, kind), worker);
      }
    }
    for (const worker of entry.workers.values()) worker.start();
  }

  /** A newer pod object (e.g. with deletionTimestamp) for the workers of a known pod. */
  updatePod(pod: KubeObject): void {
    const entry = this.pods.get(pod.metadata.uid ?? '');
    if (!entry) return;
    entry.pod = pod;
    for (const worker of entry.workers.values()) worker.updatePod(pod);
  }

  removePod(uid: string): void {
    const entry = this.pods.get(uid);
    if (!entry) return;
    for (const worker of entry.workers.values()) worker.stop();
    this.pods.delete(uid);
  }

  /**
   * Started as upstream's status shows it: the startup probe passed for this instance (or there is
   * none). `containerID` (docker://…) names the running instance; without it the status getter's
   * view is used, and a container that is not running there is not started. A pod never added has
   * no probes: started.
   */
  isStarted(uid: string, containerName: string, containerID?: string): boolean {
    const entry = this.pods.get(uid);
    if (!entry) return true;
    const id = containerID ?? this.runningStatus(entry, containerName)?.containerID;
    if (!id) return false;
    return this.startedFor(entry, containerName, id);
  }

  /**
   * Ready as upstream's status shows it: started, and readiness passed for this instance (or there is
   * no readiness probe). `containerID` as for isStarted. A pod never added has no probes: ready.
   */
  isReady(uid: string, containerName: string, containerID?: string): boolean {
    const entry = this.pods.get(uid);
    if (!entry) return true;
    const id = containerID ?? this.runningStatus(entry, containerName)?.containerID;
    if (!id) return false;
    if (!this.startedFor(entry, containerName, id)) return false;
    const worker = entry.workers.get(workerKey(containerName, 'readiness'));
    if (!worker) return true;
    const result = worker.resultFor(id);
    // No result for this instance yet: probe now rather than at the next tick, as upstream does.
    if (result === undefined) worker.trigger();
    return result === 'success';
  }

  /** The worker of a container's probe, if any (tests, diagnostics). */
  worker(uid: string, containerName: string, kind: ProbeKind): ProbeWorker | undefined {
    return this.pods.get(uid)?.workers.get(workerKey(containerName, kind));
  }

  onLivenessFailure(listener: LivenessFailureListener): { dispose(): void } {
    this.livenessListeners.add(listener);
    return { dispose: () => this.livenessListeners.delete(listener) };
  }

  onReadinessChange(listener: ReadinessChangeListener): { dispose(): void } {
    this.readinessListeners.add(listener);
    return { dispose: () => this.readinessListeners.delete(listener) };
  }

  onProbeEvent(listener: ProbeEventListener): { dispose(): void } {
    this.eventListeners.add(listener);
    return { dispose: () => this.eventListeners.delete(listener) };
  }

  dispose(): void {
    for (const uid of [...this.pods.keys()]) this.removePod(uid);
    this.livenessListeners.clear();
    this.readinessListeners.clear();
    this.eventListeners.clear();
  }

  private runningStatus(entry: PodEntry, containerName: string): ContainerStatusView | undefined {
    const status = entry.status();
    const container = status ? findStatus(status, containerName) : undefined;
    return container?.state?.running ? container : undefined;
  }

  private startedFor(entry: PodEntry, containerName: string, containerID: string): boolean {
    const worker = entry.workers.get(workerKey(containerName, 'startup'));
    if (!worker) return true;
    return worker.resultFor(containerID) === 'success';
  }

  private handleResult(entry: PodEntry, containerName: string, kind: ProbeKind, result: ProbeResult, containerID: string): void {
    if (kind === 'readiness') {
      for (const listener of this.readinessListeners) listener(entry.pod, containerName, result === 'success');
      return;
    }
    if (kind === 'startup' && result === 'success') {
      // Started: readiness need not wait for its next tick.
      entry.workers.get(workerKey(containerName, 'readiness'))?.trigger();
      return;
    }
    if (result !== 'failure') return;
    // Only a running instance is restarted for a failed probe; a stopped one is already handled.
    const current = this.runningStatus(entry, containerName);
    if (current?.containerID !== containerID) return;
    const probeKind = kind === 'liveness' ? 'liveness' : 'startup';
    const message = `Container ${containerName} failed ${probeKind} probe, will be restarted`;
    for (const listener of this.livenessListeners) listener(entry.pod, containerName, probeKind, message);
  }
}
