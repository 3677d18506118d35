// PortForwardController: keeps one listener on 127.0.0.1 per PortForward (kubedesk.dev/v1alpha1)
// and forwards each connection to the pod behind the forward's target, reached through the
// PodDialer. Unlike `kubectl port-forward` (which binds one pod for its lifetime, upstream
// staging/src/k8s.io/kubectl/pkg/cmd/portforward), every new connection resolves the target afresh
// (portForwardPlan.ts), so a forward outlives pod replacement; connections to a pod that is being
// deleted are closed, and the client's reconnect lands on the replacement. The listener is bound
// once and kept; a port that is taken leaves the forward Failed, retried every 10 s and on every
// change, like the NodePort listeners (../hostPorts). Status is written through /status with a merge
// patch, as upstream controllers write theirs.
import type { Socket } from 'node:net';
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { ApiClient } from '../../client/apiClient';
import { isNotFound } from '../../client/errors';
import type { Informer, SharedInformerFactory } from '../../client/informer';
import { resources } from '../../client/resources';
import { CoalescedSync } from '../coalescedSync';
import type { PodDialer } from '../dialer';
import { splice } from '../hostPorts/hostPortController';
import { ForwardListeners, forwardKey, type ForwardConnection, type ForwardingPort, type ForwardListener } from './forwardListeners';
import { desiredStatus, resolvePodTarget, resolveServiceTarget, rotate, statusPatch, type TargetState } from './portForwardPlan';
import { portForwardSpec, portForwardsResource, portForwardStatus, type PortForwardSpec } from './portForwardResource';

export const PORT_FORWARD_CONTROLLER_NAME = 'portforward-controller';

export interface PortForwardControllerOptions {
  dialer: PodDialer;
  /** the address listeners bind to; default 127.0.0.1 */
  host?: string;
  /** how often ports that could not be opened are tried again; default 10 s */
  retryIntervalMs?: number;
  /** who holds a port (for the Failed message); default reads /proc on Linux */
  describePortHolder?: (port: number) => Promise<string | undefined>;
  /** list/patch failures that are retried anyway; default console.warn */
  onError?: (error: unknown) => void;
}

export type { ForwardingPort };

export class PortForwardController {
  private readonly forwards: Informer;
  private readonly pods: Informer;
  private readonly services: Informer;
  private readonly slices: Informer;
  private readonly host: string;
  private readonly listeners: ForwardListeners;
  private readonly syncs: CoalescedSync;
  private started = false;

  constructor(
    private readonly client: ApiClient,
    factory: SharedInformerFactory,
    private readonly options: PortForwardControllerOptions,
  ) {
    this.host = options.host ?? '127.0.0.1';
    this.forwards = factory.informerFor(portForwardsResource);
    this.pods = factory.informerFor(resources.pods);
    this.services = factory.informerFor(resources.services);
    this.slices = factory.informerFor(resources.endpointslices);
    this.syncs = new CoalescedSync({ sync: () => this.sync(), name: 'port forwards', retryIntervalMs: options.retryIntervalMs, onError: options.onError });
    this.listeners = new ForwardListeners({
      host: this.host,
      accept: (listener, socket) => this.accept(listener, socket),
      report: (error) => this.syncs.report(error),
      disposed: () => this.disposed,
      describePortHolder: options.describePortHolder,
    });
  }

  private get disposed(): boolean {
    return this.syncs.disposed;
  }

  /** Follows PortForwards from now on; call after the factory has started (or before: it waits for sync). */
  start(): void {
    if (this.started || this.disposed) return;
    this.started = true;
    const changed = () => this.syncs.request();
    const podGone = (pod: KubeObject) => {
      this.listeners.closeConnectionsTo(forwardKey(pod));
      this.syncs.request();
    };
    this.syncs.follow(this.forwards);
    this.syncs.own(
      this.pods.addEventHandler({
        onAdd: changed,
        onUpdate: (_old, pod) => (pod.metadata.deletionTimestamp ? podGone(pod) : changed()),
        onDelete: podGone,
      }),
    );
    this.syncs.follow(this.services);
    this.syncs.follow(this.slices);
    void Promise.all([this.forwards.waitForSync(), this.pods.waitForSync()]).then(([forwards, pods]) => {
      if (forwards && pods) this.syncs.request();
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    await this.syncs.dispose();
    await this.listeners.closeAll();
  }

  /** The forwards listening now. */
  listening(): ForwardingPort[] {
    return this.listeners.listening();
  }

  /** Resolves when every change seen so far has been applied (for tests). */
  idle(): Promise<void> {
    return this.syncs.idle();
  }

  // ---------------------------------------------------------------- reconciling

  private async sync(): Promise<void> {
    const forwards = this.forwards.list().filter((forward) => !forward.metadata.deletionTimestamp);
    await this.listeners.prune(new Map(forwards.map((forward) => [forwardKey(forward), forward])), (forward) => portForwardSpec(forward) !== undefined);
    let failed = false;
    for (const forward of forwards) {
      if (this.disposed) return;
      const spec = portForwardSpec(forward);
      if (!spec) continue;
      const listener = await this.listeners.ensure(forward, spec);
      if (listener.failure !== undefined) failed = true;
      await this.writeStatus(forward, listener, this.resolve(forward, spec));
    }
    if (failed) this.syncs.retryLater();
  }

  // ---------------------------------------------------------------- status

  private resolve(forward: KubeObject, spec: PortForwardSpec): TargetState {
    const namespace = forward.metadata.namespace ?? '';
    if (spec.target.kind === 'Pod') {
      const resolution = resolvePodTarget(spec, portForwardStatus(forward), this.pods.listByNamespace(namespace));
      if (resolution.found) return { found: true, pod: resolution.choice.pod.metadata.name, selector: resolution.selector };
      return { found: false, message: resolution.message, selector: resolution.selector };
    }
    const resolution = resolveServiceTarget(spec, this.services.get(namespace, spec.target.name), this.slices.listByNamespace(namespace));
    return resolution.found ? { found: true } : { found: false, message: resolution.message };
  }

  private async writeStatus(forward: KubeObject, listener: ForwardListener, target: TargetState): Promise<void> {
    const current = portForwardStatus(forward);
    // the pod last used stays in status while nothing is ready, so the replacement search keeps its place
    if (!target.found && target.pod === undefined && current.pod !== undefined) target = { ...target, pod: current.pod };
    const desired = desiredStatus({ localPort: listener.port, failure: listener.failure, wantedPort: listener.wantedPort }, target, this.host === '0.0.0.0' ? '127.0.0.1' : this.host);
    const patch = statusPatch(current, desired);
    if (!patch) return;
    try {
      await this.client.resource(portForwardsResource).patchStatus(listener.namespace, listener.name, { status: patch }, 'merge');
    } catch (error) {
      if (isNotFound(error)) return;
      this.syncs.retryAfter(error);
    }
  }

  // ---------------------------------------------------------------- connections

  private accept(listener: ForwardListener, client: Socket): void {
    void this.connect(listener, this.listeners.track(listener, client));
  }

  private async connect(listener: ForwardListener, connection: ForwardConnection): Promise<void> {
    const { client } = connection;
    const forward = this.forwards.get(listener.namespace, listener.name);
    const spec = forward ? portForwardSpec(forward) : undefined;
    const candidates: { ip: string; port: number; pod?: string }[] = [];
    if (forward && spec?.target.kind === 'Pod') {
      const resolution = resolvePodTarget(spec, portForwardStatus(forward), this.pods.listByNamespace(listener.namespace));
      if (resolution.found) candidates.push({ ip: resolution.choice.ip, port: resolution.choice.port, pod: `${listener.namespace}/${resolution.choice.pod.metadata.name ?? ''}` });
      if (resolution.found && resolution.choice.pod.metadata.name !== portForwardStatus(forward).pod) this.syncs.request();
    } else if (forward && spec) {
      const resolution = resolveServiceTarget(spec, this.services.get(listener.namespace, spec.target.name), this.slices.listByNamespace(listener.namespace));
      if (resolution.found) {
        for (const backend of rotate(resolution.backends, listener.turn++)) {
          candidates.push({ ip: backend.ip, port: backend.port, pod: backend.podName ? `${backend.podNamespace ?? listener.namespace}/${backend.podName}` : undefined });
        }
      }
    }
    for (const candidate of candidates) {
      if (client.destroyed || listener.closed) return;
      let upstream: Socket;
      try {
        upstream = await this.options.dialer.dial(candidate.ip, candidate.port);
      } catch {
        continue;
      }
      if (client.destroyed || listener.closed || this.disposed) {
        upstream.destroy();
        return;
      }
      connection.upstream = upstream;
      connection.pod = candidate.pod;
      splice(client, upstream);
      return;
    }
    // nothing ready behind the target: the client learns at once instead of hanging
    client.destroy();
  }
}
