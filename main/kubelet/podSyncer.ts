// PodSyncer: one level-triggered sync of one pod, after upstream kuberuntime_manager.go
// (computePodActions + SyncPod), kuberuntime_container.go (startContainer, killContainer with
// preStop and grace), images/image_manager.go (pull policies, ErrImagePull/ImagePullBackOff) and
// kubelet.go (syncTerminatingPod, back-off via CrashLoopBackOff). Each call compares the pod's spec
// with what the runtime shows, takes the next steps (ephemeral containers once, init containers in
// order, app containers), and writes the resulting status.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { mergePatchIsNoop } from '../../shared/kubernetes/json';
import type { ApiClient } from '../client/apiClient';
import { resources } from '../client/resources';
import { isNotFound, isConflict } from '../client/errors';
import type { EventRecorder } from '../client/eventRecorder';
import type { ContainerRuntime, ContainerStatus, RegistryAuth } from './runtime/containerRuntime';
import { registryAuthFor } from './imagePullSecrets';
import { Backoff } from './backoff';
import { computePodStatus, instancesOf, type ObservedPod, type WaitingReason } from './podStatus';
import type { PodRuntimeCache } from './podRuntimeCache';
import { containerConfig, containerHash, containersOf, pullPolicy, sandboxConfig, verifyRunAsNonRoot, type ClusterDns, type ContainerKind, type ContainerSpec } from './containerConfig';
import { VolumeError, type PodVolumes, type VolumeManager } from './volumes/volumeManager';
import { ContainerConfigError, resolveEnv, serviceEnvironment } from './env/resolveEnv';
import { expandContainerCommandAndArgs } from './env/expansion';
import type { Container, Probe } from './env/podSpec';
import { ProbeManager } from './probes/probeWorker';
import { runProbe } from './probes/prober';

export interface PodSyncerOptions {
  client: ApiClient;
  runtime: ContainerRuntime;
  recorder: EventRecorder;
  cache: PodRuntimeCache;
  volumes: VolumeManager;
  nodeName: string;
  hostIP: () => string;
  kubernetesService: { host: string; port: number };
  clusterDns?: ClusterDns;
  requeue: (uid: string, delayMs: number) => void;
  listServices: (namespace: string) => Promise<KubeObject[]>;
}

const MAX_TERMINATION_MESSAGE = 4096;
const FALLBACK_LOG_LINES = 80;
const FALLBACK_LOG_BYTES = 2048;

interface PodState {
  volumes?: PodVolumes;
  waiting: Map<string, WaitingReason>;
  lastStatus?: Record<string, unknown>;
  /** containers the prober asked to restart (container id → message) */
  restartRequested: Map<string, string>;
  terminationMessages: Map<string, string>;
  volumesRefreshedAt: number;
}

export class PodSyncer {
  private readonly states = new Map<string, PodState>();
  private readonly restartBackoff = new Backoff();
  private readonly imageBackoff = new Backoff();
  readonly probes: ProbeManager;
  private readonly pods = new Map<string, KubeObject>();

  constructor(private readonly options: PodSyncerOptions) {
    this.probes = new ProbeManager({ runtime: options.runtime, runProbe });
    this.probes.onLivenessFailure((pod, containerName, kind, message) => {
      const uid = pod.metadata.uid ?? '';
      const state = this.states.get(uid);
      const observedId = state?.lastStatus ? containerIdOf(state.lastStatus, containerName) : undefined;
      if (state && observedId) state.restartRequested.set(observedId, `Container ${containerName} failed ${kind} probe, will be restarted`);
      void message;
      options.requeue(uid, 0);
    });
    this.probes.onReadinessChange((pod) => options.requeue(pod.metadata.uid ?? '', 0));
    this.probes.onProbeEvent((pod, containerName, _kind, message, reason) => {
      options.recorder.event(pod, 'Warning', reason, message, `spec.containers{${containerName}}`);
    });
  }

  dispose(): void {
    this.probes.dispose();
  }

  private state(uid: string): PodState {
    let state = this.states.get(uid);
    if (!state) {
      state = { waiting: new Map(), restartRequested: new Map(), terminationMessages: new Map(), volumesRefreshedAt: 0 };
      this.states.set(uid, state);
    }
    return state;
  }

  /** The pod object the syncer last worked from (for probes and streams). */
  lastKnown(uid: string): KubeObject | undefined {
    return this.pods.get(uid);
  }

  async sync(uid: string, pod: KubeObject | undefined): Promise<void> {
    const observed = await this.options.cache.get(uid);
    if (!pod) {
      await this.removeOrphan(uid, observed);
      return;
    }
    this.pods.set(uid, pod);
    if (pod.metadata.deletionTimestamp) {
      await this.terminate(pod, observed, true);
      return;
    }
    const status = isRecord(pod.status) ? pod.status : {};
    if (status.phase === 'Succeeded' || status.phase === 'Failed') {
      await this.stopRunning(pod, observed, 'terminal');
      return;
    }
    await this.syncRunning(pod, observed);
  }

  // ---- running pods ---------------------------------------------------------------------------

  private async syncRunning(pod: KubeObject, initialObserved: ObservedPod): Promise<void> {
    const uid = pod.metadata.uid ?? '';
    const state = this.state(uid);
    let observed = initialObserved;
    state.waiting.clear();
    // every change to the pod's containers below invalidates the cache
    const generation = this.options.cache.generationNow;

    if (!state.volumes) {
      try {
        state.volumes = await this.options.volumes.setUp(pod);
        state.volumesRefreshedAt = Date.now();
      } catch (error) {
        if (error instanceof VolumeError) {
          for (const failure of error.failures) this.options.recorder.event(pod, 'Warning', 'FailedMount', failure.message);
          await this.writeStatus(pod, observed, state);
          this.options.requeue(uid, 2000);
          return;
        }
        throw error;
      }
    } else if (Date.now() - state.volumesRefreshedAt > 10_000) {
      state.volumesRefreshedAt = Date.now();
      await this.options.volumes.refresh(pod).catch(() => undefined);
    }

    // Sandbox: (re)create when there is none or it died; a dead sandbox takes its containers with it.
    const sandbox = observed.sandbox;
    if (!sandbox || sandbox.state !== 'ready') {
      const attempt = sandbox ? sandbox.attempt + 1 : 0;
      for (const container of observed.containers.filter((c) => c.state === 'running')) {
        await this.options.runtime.stopContainer(container.id, 0).catch(() => undefined);
      }
      if (sandbox) {
        this.options.recorder.event(pod, 'Normal', 'SandboxChanged', 'Pod sandbox changed, it will be killed and re-created.');
        for (const old of observed.sandboxes ?? []) await this.options.runtime.removeSandbox(old.id).catch(() => undefined);
      }
      try {
        await this.options.runtime.runSandbox(sandboxConfig(pod, attempt, this.options.clusterDns));
      } catch (error) {
        const message = errorText(error);
        this.options.recorder.event(pod, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${message}`);
        this.options.cache.invalidate();
        await this.writeStatus(pod, await this.options.cache.get(uid), state);
        this.options.requeue(uid, 5000);
        return;
      }
      this.options.cache.invalidate();
      observed = await this.options.cache.get(uid);
    }
    const restartPolicy = stringField(pod.spec, 'restartPolicy') ?? 'Always';

    // Ephemeral containers first (they may debug a pod stuck initializing), and only once: one that
    // ran — the runtime shows it, or the pod's status reported it — is never started again.
    for (const container of containersOf(pod, 'ephemeralContainers')) {
      if (instancesOf(observed, container.name, false).length > 0 || reportedContainer(pod, container.name, 'ephemeral')?.containerID) continue;
      await this.startContainer(pod, container, 'ephemeral', 0, state, observed);
    }

    // Init containers, in order: each must succeed before the next starts.
    let initsDone = true;
    for (const container of containersOf(pod, 'initContainers')) {
      const sidecar = container.restartPolicy === 'Always';
      const instances = instancesOf(observed, container.name, true);
      const latest = instances[0];
      if (latest && latest.state === 'running') {
        if (sidecar) continue;
        initsDone = false;
        break;
      }
      if (latest && latest.state === 'exited' && latest.exitCode === 0 && !sidecar) continue;
      if (latest && latest.state === 'exited' && restartPolicy === 'Never' && !sidecar) {
        initsDone = false;
        break;
      }
      await this.startOrBackOff(pod, container, 'init', latest, state);
      initsDone = false;
      break;
    }

    if (initsDone) {
      for (const container of containersOf(pod, 'containers')) {
        const instances = instancesOf(observed, container.name, false);
        const latest = instances[0];
        if (latest && latest.state === 'running') {
          const restartReason = state.restartRequested.get(latest.id);
          const changed = latest.specHash && latest.specHash !== containerHash(container);
          if (restartReason || changed) {
            state.restartRequested.delete(latest.id);
            const message = restartReason ?? `Container ${container.name} definition changed, will be restarted`;
            await this.killContainer(pod, container, latest, message);
            this.options.requeue(uid, 0);
          }
          continue;
        }
        if (latest && (latest.state === 'exited' || latest.state === 'created')) {
          if (latest.state === 'exited') await this.recordTerminationMessage(container, latest, state);
          const failed = (latest.exitCode ?? 0) !== 0 || latest.state === 'created';
          const restart = restartPolicy === 'Always' || (restartPolicy === 'OnFailure' && failed) || latest.state === 'created';
          if (!restart) continue;
          if (latest.state === 'exited' && reportedContainer(pod, container.name, 'regular')?.running) {
            // Report the exit before acting on it, as upstream's kubelet writes the status it observed
            // before starting anything: Ready goes False, so the restarted container's Ready has a new
            // transition time and a crash loop never counts as available through minReadySeconds.
            await this.writeStatus(pod, observed, state);
            if (state.lastStatus) pod = { ...pod, status: state.lastStatus };
          }
        }
        await this.startOrBackOff(pod, container, 'regular', latest, state);
      }
    }

    // Relist after a change; a sync that changed nothing (the periodic resync of a running pod)
    // reads the shared snapshot, at most a second old, as upstream's pod workers read the PLEG cache.
    if (this.options.cache.generationNow !== generation) this.options.cache.invalidate();
    const fresh = await this.options.cache.get(uid);
    await this.pruneDeadContainers(fresh);
    this.probes.addPod(pod, () => this.states.get(uid)?.lastStatus);
    this.probes.updatePod(pod);
    await this.writeStatus(pod, fresh, state);
    // Containers that change state on their own (exits) are noticed by the kubelet's relist.
  }

  /** Starts a new instance of the container unless it is backing off after a crash. */
  private async startOrBackOff(pod: KubeObject, container: ContainerSpec, kind: ContainerKind, latest: ContainerStatus | undefined, state: PodState): Promise<void> {
    const uid = pod.metadata.uid ?? '';
    const key = `${uid}/${container.name}`;
    const podRef = `${pod.metadata.name}_${pod.metadata.namespace}(${uid})`;
    if (latest && latest.state === 'exited') {
      const finished = latest.finishedAt?.getTime() ?? Date.now();
      if (this.restartBackoff.isInBackoffSince(key, finished)) {
        const delay = this.restartBackoff.delay(key);
        state.waiting.set(container.name, { reason: 'CrashLoopBackOff', message: `back-off ${formatDelay(delay)} restarting failed container=${container.name} pod=${podRef}` });
        this.options.recorder.event(pod, 'Warning', 'BackOff', `Back-off restarting failed container ${container.name} in pod ${podRef}`, fieldPathOf(container, kind));
        this.options.requeue(uid, this.restartBackoff.remaining(key, finished) + 50);
        return;
      }
      this.restartBackoff.next(key, finished);
    }
    if (latest && latest.state === 'created') await this.options.runtime.removeContainer(latest.id).catch(() => undefined);
    // Without a runtime record (Docker lost or removed the old containers, e.g. across a daemon
    // restart) the count continues from the pod's last reported status, as upstream's kubelet does.
    const reported = reportedContainer(pod, container.name, kind);
    const restartCount = latest ? latest.restartCount + (latest.state === 'created' ? 0 : 1) : reported?.containerID ? reported.restartCount + 1 : 0;
    await this.startContainer(pod, container, kind, restartCount, state);
  }

  /**
   * The pod's resolv.conf as the kubelet writes it (pkg/kubelet/network/dns) for ClusterFirst and
   * None: Docker would otherwise list its embedded resolver (127.0.0.11) on user-defined networks
   * instead of the cluster DNS. Default keeps Docker's file (the node's resolvers). Returns the
   * file to mount at /etc/resolv.conf, or undefined.
   */
  private writeResolvConf(pod: KubeObject): string | undefined {
    const dns = sandboxConfig(pod, 0, this.options.clusterDns).dns;
    if (!dns || (dns.servers.length === 0 && dns.searches.length === 0 && dns.options.length === 0)) return undefined;
    if (isRecord(pod.spec) && pod.spec.hostNetwork === true) return undefined;
    const lines = [...dns.servers.map((server) => `nameserver ${server}`)];
    if (dns.searches.length > 0) lines.push(`search ${dns.searches.join(' ')}`);
    if (dns.options.length > 0) lines.push(`options ${dns.options.join(' ')}`);
    const path = join(this.options.volumes.podDir(pod.metadata.uid ?? ''), 'resolv.conf');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${lines.join('\n')}\n`, { mode: 0o644 });
    return path;
  }

  private async startContainer(pod: KubeObject, container: ContainerSpec, kind: ContainerKind, restartCount: number, state: PodState, observedBefore?: ObservedPod): Promise<void> {
    const uid = pod.metadata.uid ?? '';
    const fieldPath = fieldPathOf(container, kind);
    if (!(await this.ensureImage(pod, container, fieldPath, state))) return;
    const configError = (message: string): void => {
      state.waiting.set(container.name, { reason: 'CreateContainerConfigError', message });
      this.options.recorder.event(pod, 'Warning', 'Failed', `Error: ${message}`, fieldPath);
      this.options.requeue(uid, 2000);
    };
    // An ephemeral container's targetContainerName: it shares that container's processes (getTargetID).
    let targetId: string | undefined;
    const target = kind === 'ephemeral' && typeof container.targetContainerName === 'string' ? container.targetContainerName : '';
    if (target !== '') {
      const observedNow = observedBefore ?? (await this.options.cache.get(uid));
      targetId = observedNow.containers.filter((candidate) => candidate.name === target).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0]?.id;
      if (!targetId) {
        configError(`unable to find target container ${target}`);
        return;
      }
    }
    const imageUser = (await this.options.runtime.imageStatus(container.image).catch(() => undefined))?.user ?? '';
    const nonRootError = verifyRunAsNonRoot(pod, container, imageUser);
    if (nonRootError) {
      configError(nonRootError);
      return;
    }
    let env: string[];
    let mounts;
    let tmpfs;
    try {
      const serviceEnv = await this.serviceEnv(pod);
      const specContainer = container as unknown as Container;
      env = await resolveEnv(pod, specContainer, {
        client: this.options.client,
        serviceEnv,
        hostIPs: [this.options.hostIP()],
        podIPs: (await this.options.cache.get(uid)).sandbox?.ip ? [(await this.options.cache.get(uid)).sandbox?.ip ?? ''] : undefined,
        onWarning: (reason, message) => this.options.recorder.event(pod, 'Warning', reason, message),
      });
      mounts = await this.options.volumes.mountsFor(pod, specContainer, state.volumes ?? {}, { env, restartCount });
      const resolvConf = this.writeResolvConf(pod);
      if (resolvConf) mounts = [...mounts, { hostPath: resolvConf, containerPath: '/etc/resolv.conf', readOnly: false }];
      tmpfs = this.options.volumes.tmpfsFor(specContainer, state.volumes ?? {});
    } catch (error) {
      if (error instanceof ContainerConfigError || error instanceof VolumeError) {
        configError(error.message);
        return;
      }
      throw error;
    }
    const expanded = expandContainerCommandAndArgs({ command: stringArray(container.command), args: stringArray(container.args) }, env);
    const observed = await this.options.cache.get(uid);
    const sandbox = observed.sandbox;
    if (!sandbox) return;
    let id: string;
    try {
      id = await this.options.runtime.createContainer(sandbox.id, containerConfig({ pod, container, init: kind === 'init', targetId, restartCount, env, mounts, tmpfs, command: expanded.command, args: expanded.args }));
    } catch (error) {
      state.waiting.set(container.name, { reason: 'CreateContainerError', message: errorText(error) });
      this.options.recorder.event(pod, 'Warning', 'Failed', `Error: ${errorText(error)}`, fieldPath);
      this.options.requeue(uid, 5000);
      return;
    }
    this.options.recorder.event(pod, 'Normal', 'Created', `Created container: ${container.name}`, fieldPath);
    try {
      await this.options.runtime.startContainer(id);
    } catch (error) {
      state.waiting.set(container.name, { reason: 'RunContainerError', message: errorText(error) });
      this.options.recorder.event(pod, 'Warning', 'Failed', `Error: ${errorText(error)}`, fieldPath);
      this.options.cache.invalidate();
      return;
    }
    this.options.recorder.event(pod, 'Normal', 'Started', `Started container ${container.name}`, fieldPath);
    this.options.cache.invalidate();
    await this.runPostStart(pod, container, id, fieldPath);
  }

  private async runPostStart(pod: KubeObject, container: ContainerSpec, id: string, fieldPath: string): Promise<void> {
    const lifecycle = isRecord(container.lifecycle) ? container.lifecycle : {};
    const handler = isRecord(lifecycle.postStart) ? lifecycle.postStart : undefined;
    if (!handler) return;
    const failure = await this.runHandler(pod, container, id, handler, 30);
    if (failure) {
      this.options.recorder.event(pod, 'Warning', 'FailedPostStartHook', failure, fieldPath);
      await this.options.runtime.stopContainer(id, 0).catch(() => undefined);
      this.options.cache.invalidate();
    }
  }

  /** Runs a lifecycle handler (exec, httpGet, sleep); returns an error text, or undefined on success. */
  private async runHandler(pod: KubeObject, container: ContainerSpec, id: string, handler: Record<string, unknown>, timeoutSeconds: number): Promise<string | undefined> {
    if (isRecord(handler.sleep) && typeof handler.sleep.seconds === 'number') {
      await new Promise((resolve) => setTimeout(resolve, Math.min(handler.sleep && isRecord(handler.sleep) ? Number(handler.sleep.seconds) : 0, timeoutSeconds) * 1000));
      return undefined;
    }
    // A lifecycle handler has the shape of a probe's handler, so the prober runs it.
    const probe: Probe | undefined = isRecord(handler.exec)
      ? { exec: { command: stringArray(handler.exec.command) }, timeoutSeconds }
      : isRecord(handler.httpGet)
        ? { httpGet: handler.httpGet as Probe['httpGet'], timeoutSeconds }
        : isRecord(handler.tcpSocket)
          ? { tcpSocket: handler.tcpSocket as Probe['tcpSocket'], timeoutSeconds }
          : undefined;
    if (!probe) return undefined;
    const podIP = (await this.options.cache.get(pod.metadata.uid ?? '')).sandbox?.ip ?? '';
    const outcome = await runProbe(probe, { podIP, containerId: id, runtime: this.options.runtime, timeoutSeconds, container: container as unknown as Container }).catch((error: unknown) => ({ result: 'failure' as const, output: errorText(error) }));
    if (outcome.result === 'success') return undefined;
    const kind = probe.exec ? 'Exec' : 'HTTP';
    return `${kind} lifecycle hook (${describeHandler(handler)}) for Container "${container.name}" in Pod "${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})" failed - error: ${outcome.output}`;
  }

  /** Pull policies as upstream image_manager.go; locally built images are used when the registry is unreachable. */
  private async ensureImage(pod: KubeObject, container: ContainerSpec, fieldPath: string, state: PodState): Promise<boolean> {
    const uid = pod.metadata.uid ?? '';
    const image = container.image;
    const policy = pullPolicy(container);
    const present = await this.options.runtime.imageStatus(image).catch(() => undefined);
    if (policy === 'Never') {
      if (present) return true;
      const message = `Container image "${image}" is not present with pull policy of Never`;
      state.waiting.set(container.name, { reason: 'ErrImageNeverPull', message });
      this.options.recorder.event(pod, 'Warning', 'ErrImageNeverPull', message, fieldPath);
      this.options.requeue(uid, 10_000);
      return false;
    }
    if (policy === 'IfNotPresent' && present) {
      this.options.recorder.event(pod, 'Normal', 'Pulled', `Container image "${image}" already present on machine and can be accessed by the pod`, fieldPath);
      return true;
    }
    const key = `${image}`;
    const backoffKey = `${uid}/${image}`;
    const lastFailure = state.waiting.get(container.name);
    void lastFailure;
    if (this.imageBackoff.isInBackoffSince(backoffKey, this.imageFailures.get(backoffKey) ?? 0)) {
      const message = `Back-off pulling image "${image}"`;
      state.waiting.set(container.name, { reason: 'ImagePullBackOff', message });
      this.options.recorder.event(pod, 'Normal', 'BackOff', message, fieldPath);
      this.options.requeue(uid, this.imageBackoff.remaining(backoffKey, this.imageFailures.get(backoffKey) ?? 0) + 50);
      return false;
    }
    this.options.recorder.event(pod, 'Normal', 'Pulling', `Pulling image "${image}"`, fieldPath);
    const started = Date.now();
    try {
      const info = await this.options.runtime.pullImage(key, await this.pullAuth(pod, image), () => undefined);
      const seconds = ((Date.now() - started) / 1000).toFixed(3);
      this.options.recorder.event(pod, 'Normal', 'Pulled', `Successfully pulled image "${image}" in ${seconds}s (${seconds}s including waiting). Image size: ${info.sizeBytes} bytes.`, fieldPath);
      this.imageBackoff.reset(backoffKey);
      return true;
    } catch (error) {
      const text = errorText(error);
      if (present) {
        // The image is in the local store (e.g. `docker build`): use it, as a local cluster should.
        this.options.recorder.event(pod, 'Normal', 'Pulled', `Container image "${image}" already present on machine; pulling failed, using the local image: ${text}`, fieldPath);
        return true;
      }
      this.imageFailures.set(backoffKey, Date.now());
      this.imageBackoff.next(backoffKey);
      const message = `Failed to pull image "${image}": ${text}`;
      state.waiting.set(container.name, { reason: 'ErrImagePull', message });
      this.options.recorder.event(pod, 'Warning', 'Failed', message, fieldPath);
      this.options.recorder.event(pod, 'Warning', 'Failed', 'Error: ErrImagePull', fieldPath);
      this.options.requeue(uid, this.imageBackoff.delay(backoffKey) + 50);
      return false;
    }
  }

  private readonly imageFailures = new Map<string, number>();

  /** Credentials from the pod's imagePullSecrets and its service account's. */
  private async pullAuth(pod: KubeObject, image: string): Promise<RegistryAuth | undefined> {
    const spec = isRecord(pod.spec) ? pod.spec : {};
    const namespace = pod.metadata.namespace ?? 'default';
    const names = new Set<string>();
    for (const ref of Array.isArray(spec.imagePullSecrets) ? spec.imagePullSecrets : []) if (isRecord(ref) && typeof ref.name === 'string') names.add(ref.name);
    const accountName = typeof spec.serviceAccountName === 'string' && spec.serviceAccountName ? spec.serviceAccountName : 'default';
    try {
      const account = await this.options.client.resource(resources.serviceaccounts).get(namespace, accountName);
      for (const ref of Array.isArray(account.imagePullSecrets) ? account.imagePullSecrets : []) if (isRecord(ref) && typeof ref.name === 'string') names.add(ref.name);
    } catch {
      // no service account: only the pod's own secrets
    }
    const secrets: KubeObject[] = [];
    for (const name of names) {
      try {
        secrets.push(await this.options.client.resource(resources.secrets).get(namespace, name));
      } catch {
        // a missing pull secret is skipped, as upstream does (with a warning event)
        this.options.recorder.event(pod, 'Warning', 'FailedToRetrieveImagePullSecret', `Unable to retrieve some image pull secrets (${name}); attempting to pull the image may not succeed.`);
      }
    }
    return registryAuthFor(image, secrets);
  }

  private async serviceEnv(pod: KubeObject): Promise<Record<string, string>> {
    const spec = isRecord(pod.spec) ? pod.spec : {};
    const namespace = pod.metadata.namespace ?? 'default';
    const services = spec.enableServiceLinks === false ? [] : await this.options.listServices(namespace).catch(() => []);
    const env = serviceEnvironment(services, namespace, spec.enableServiceLinks !== false);
    const { host, port } = this.options.kubernetesService;
    return {
      ...env,
      KUBERNETES_SERVICE_HOST: host,
      KUBERNETES_SERVICE_PORT: String(port),
      KUBERNETES_SERVICE_PORT_HTTPS: String(port),
      KUBERNETES_PORT: `tcp://${host}:${port}`,
      KUBERNETES_PORT_443_TCP: `tcp://${host}:${port}`,
      KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_443_TCP_PORT: String(port),
      KUBERNETES_PORT_443_TCP_ADDR: host,
    };
  }

  private async recordTerminationMessage(container: ContainerSpec, instance: ContainerStatus, state: PodState): Promise<void> {
    if (state.terminationMessages.has(instance.id)) return;
    const path = typeof container.terminationMessagePath === 'string' ? container.terminationMessagePath : '/dev/termination-log';
    let message = (await this.options.runtime.readFile(instance.id, path, MAX_TERMINATION_MESSAGE).catch(() => undefined)) ?? '';
    if (!message && container.terminationMessagePolicy === 'FallbackToLogsOnError' && (instance.exitCode ?? 0) !== 0) {
      message = await this.tailLogs(instance.id);
    }
    state.terminationMessages.set(instance.id, message);
  }

  private async tailLogs(id: string): Promise<string> {
    try {
      const stream = await this.options.runtime.logs(id, { follow: false, tailLines: FALLBACK_LOG_LINES, timestamps: false, limitBytes: 1024 * 1024 });
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
      const text = Buffer.concat(chunks).toString('utf8');
      return text.length > FALLBACK_LOG_BYTES ? text.slice(text.length - FALLBACK_LOG_BYTES) : text;
    } catch {
      return '';
    }
  }

  /** Keeps the latest two instances of each container (the previous one serves `logs --previous`). */
  private async pruneDeadContainers(observed: ObservedPod): Promise<void> {
    const byName = new Map<string, ContainerStatus[]>();
    for (const container of observed.containers) {
      const key = `${container.init ? 'init' : 'app'}/${container.name}`;
      byName.set(key, [...(byName.get(key) ?? []), container]);
    }
    for (const list of byName.values()) {
      const sorted = list.sort((a, b) => b.restartCount - a.restartCount || b.createdAt.getTime() - a.createdAt.getTime());
      for (const old of sorted.slice(2)) {
        if (old.state !== 'running') await this.options.runtime.removeContainer(old.id).catch(() => undefined);
      }
    }
  }

  // ---- termination ------------------------------------------------------------------------------

  private async killContainer(pod: KubeObject, container: ContainerSpec | undefined, instance: ContainerStatus, message: string, graceSeconds?: number): Promise<void> {
    const fieldPath = container ? fieldPathOf(container, instance.init ? 'init' : kindOf(pod, container.name)) : undefined;
    this.options.recorder.event(pod, 'Normal', 'Killing', message, fieldPath);
    const spec = isRecord(pod.spec) ? pod.spec : {};
    let grace = graceSeconds ?? (typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30);
    const lifecycle = container && isRecord(container.lifecycle) ? container.lifecycle : {};
    if (container && isRecord(lifecycle.preStop) && grace > 0) {
      const started = Date.now();
      const failure = await this.runHandler(pod, container, instance.id, lifecycle.preStop, grace);
      if (failure) this.options.recorder.event(pod, 'Warning', 'FailedPreStopHook', failure, fieldPath);
      grace = Math.max(2, grace - Math.round((Date.now() - started) / 1000));
    }
    await this.options.runtime.stopContainer(instance.id, grace).catch(() => undefined);
    this.options.cache.invalidate();
  }

  /** Stops everything of a pod; for deleted pods also removes it all and finishes the API deletion. */
  private async terminate(pod: KubeObject, observed: ObservedPod, deleted: boolean): Promise<void> {
    const uid = pod.metadata.uid ?? '';
    const grace = typeof pod.metadata.deletionGracePeriodSeconds === 'number' ? pod.metadata.deletionGracePeriodSeconds : undefined;
    const specs = [...containersOf(pod, 'initContainers'), ...containersOf(pod, 'containers'), ...containersOf(pod, 'ephemeralContainers')];
    const running = observed.containers.filter((container) => container.state === 'running');
    await Promise.all(running.map((instance) => this.killContainer(pod, specs.find((spec) => spec.name === instance.name), instance, `Stopping container ${instance.name}`, grace)));
    for (const sandbox of observed.sandboxes ?? []) await this.options.runtime.stopSandbox(sandbox.id, 0).catch(() => undefined);
    this.probes.removePod(uid);
    if (!deleted) return;
    this.options.cache.invalidate();
    const after = await this.options.cache.get(uid);
    for (const container of after.containers) await this.options.runtime.removeContainer(container.id).catch(() => undefined);
    for (const sandbox of after.sandboxes ?? []) await this.options.runtime.removeSandbox(sandbox.id).catch(() => undefined);
    await this.options.volumes.tearDown(uid).catch(() => undefined);
    this.options.cache.invalidate();
    this.forget(uid);
    try {
      await this.options.client.resource(resources.pods).delete(pod.metadata.namespace, pod.metadata.name ?? '', { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }

  /** Succeeded or Failed pods: nothing may keep running (e.g. a sidecar); containers stay for logs. */
  private async stopRunning(pod: KubeObject, observed: ObservedPod, _why: 'terminal'): Promise<void> {
    if (observed.containers.some((container) => container.state === 'running')) await this.terminate(pod, observed, false);
    this.probes.removePod(pod.metadata.uid ?? '');
  }

  private async removeOrphan(uid: string, observed: ObservedPod): Promise<void> {
    for (const container of observed.containers) {
      if (container.state === 'running') await this.options.runtime.stopContainer(container.id, 2).catch(() => undefined);
      await this.options.runtime.removeContainer(container.id).catch(() => undefined);
    }
    for (const sandbox of observed.sandboxes ?? []) {
      await this.options.runtime.stopSandbox(sandbox.id, 0).catch(() => undefined);
      await this.options.runtime.removeSandbox(sandbox.id).catch(() => undefined);
    }
    if (observed.containers.length || observed.sandboxes?.length) this.options.cache.invalidate();
    await this.options.volumes.tearDown(uid).catch(() => undefined);
    this.forget(uid);
  }

  private forget(uid: string): void {
    this.states.delete(uid);
    this.pods.delete(uid);
    this.probes.removePod(uid);
    this.restartBackoff.resetPrefix(`${uid}/`);
    this.imageBackoff.resetPrefix(`${uid}/`);
  }

  // ---- status -------------------------------------------------------------------------------------

  private async writeStatus(pod: KubeObject, observed: ObservedPod, state: PodState): Promise<void> {
    const uid = pod.metadata.uid ?? '';
    const status = computePodStatus({
      pod,
      observed: { ...observed, terminationMessages: state.terminationMessages },
      waiting: state.waiting,
      probes: {
        // the prober keys results by the status's containerID (docker://…)
        ready: (name) => this.probes.isReady(uid, name, statusContainerId(state.lastStatus, name)),
        started: (name) => this.probes.isStarted(uid, name, statusContainerId(state.lastStatus, name)),
      },
      hostIP: this.options.hostIP(),
      now: new Date(),
    });
    state.lastStatus = status;
    const current = isRecord(pod.status) ? pod.status : {};
    // the patch below would change nothing (the API server does not keep null members, such as the
    // conditions' lastProbeTime): no write, or every sync of every pod would patch its status
    if (mergePatchIsNoop(current, JSON.parse(JSON.stringify(status)))) return;
    try {
      await this.options.client.resource(resources.pods).patchStatus(pod.metadata.namespace, pod.metadata.name ?? '', { metadata: { uid }, status }, 'merge');
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }
}

/** The containerID a status reports for the container, as written (`docker://<id>`). */
export function statusContainerId(status: Record<string, unknown> | undefined, name: string): string | undefined {
  if (!status) return undefined;
  for (const key of ['containerStatuses', 'initContainerStatuses']) {
    const list = Array.isArray(status[key]) ? (status[key] as unknown[]) : [];
    for (const entry of list) {
      if (isRecord(entry) && entry.name === name && typeof entry.containerID === 'string') return entry.containerID;
    }
  }
  return undefined;
}

/** The runtime's id of the container the status reports (without `docker://`). */
export function containerIdOf(status: Record<string, unknown> | undefined, name: string): string | undefined {
  return statusContainerId(status, name)?.replace(/^docker:\/\//, '');
}

function fieldPathOf(container: ContainerSpec, kind: ContainerKind): string {
  return `spec.${listOf[kind]}{${container.name}}`;
}

const listOf: Record<ContainerKind, string> = { init: 'initContainers', regular: 'containers', ephemeral: 'ephemeralContainers' };
const statusListOf: Record<ContainerKind, string> = { init: 'initContainerStatuses', regular: 'containerStatuses', ephemeral: 'ephemeralContainerStatuses' };

/** Whether a (non-init) runtime container is a regular or an ephemeral one of the pod. */
function kindOf(pod: KubeObject, name: string): ContainerKind {
  return containersOf(pod, 'ephemeralContainers').some((container) => container.name === name) ? 'ephemeral' : 'regular';
}

function stringField(value: unknown, key: string): string | undefined {
  return isRecord(value) && typeof value[key] === 'string' ? value[key] : undefined;
}

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.map(String) : undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Go's time.Duration String for whole seconds, e.g. 10s, 1m20s, 5m0s. */
function formatDelay(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}

function describeHandler(handler: Record<string, unknown>): string {
  if (isRecord(handler.exec) && Array.isArray(handler.exec.command)) return `[${handler.exec.command.map(String).join(' ')}]`;
  if (isRecord(handler.httpGet)) return `${String(handler.httpGet.path ?? '/')}`;
  return '';
}

/** The container's entry in the pod's reported status, if it has one. */
function reportedContainer(pod: KubeObject, name: string, kind: ContainerKind): { containerID?: string; restartCount: number; running: boolean } | undefined {
  const status = isRecord(pod.status) ? pod.status : {};
  const list = status[statusListOf[kind]];
  if (!Array.isArray(list)) return undefined;
  for (const entry of list) {
    if (!isRecord(entry) || entry.name !== name) continue;
    return {
      containerID: typeof entry.containerID === 'string' && entry.containerID ? entry.containerID : undefined,
      restartCount: typeof entry.restartCount === 'number' ? entry.restartCount : 0,
      running: isRecord(entry.state) && isRecord(entry.state.running),
    };
  }
  return undefined;
}
