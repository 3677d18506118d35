import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { ApiClient } from '../client/apiClient';
import { SharedInformerFactory } from '../client/informer';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { resources } from '../client/resources';
import { EventRecorder } from '../client/eventRecorder';
import { Kubelet } from './kubelet';
import { FakeRuntime } from '../../test/doubles/fakeRuntime';

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function until<T>(probe: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A kubelet for node-a on a fake API and runtime; given the `transport` and `runtime` of an earlier
 * one, a kubelet after a restart of the process (the API and Docker kept their state).
 */
async function startKubelet(earlier?: { transport: FakeTransport; runtime: FakeRuntime }) {
  const transport = earlier?.transport ?? new FakeTransport();
  if (!earlier) transport.seed(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const client = new ApiClient(transport);
  const factory = new SharedInformerFactory(client);
  const runtime = earlier?.runtime ?? new FakeRuntime();
  if (!earlier) runtime.addImage('busybox:1');
  const dataDir = mkdtempSync(join(tmpdir(), 'kubelet-'));
  const kubelet = new Kubelet({
    client,
    factory,
    runtime,
    recorder: new EventRecorder(client, { component: 'kubelet', host: 'node-a' }),
    identity: { nodeName: 'node-a', zone: 'zone-a', controlPlane: true, internalIP: '10.0.0.1', dataDir },
    podsDir: join(dataDir, 'pods'),
    caCertPem: 'PEM',
    kubernetesService: { host: '10.96.0.1', port: 443 },
    heartbeatMs: 100,
    relistMs: 50,
    resyncMs: 1000,
  });
  factory.start();
  await kubelet.start();
  cleanups.push(() => kubelet.dispose(), () => factory.dispose());
  const pod = (name: string, spec: Record<string, unknown> = {}): KubeObject =>
    transport.seed(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { nodeName: 'node-a', restartPolicy: 'Always', containers: [{ name: 'app', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' }], ...spec }, status: { phase: 'Pending' } });
  const current = (name: string) => transport.objectsOf(resources.pods).find((p) => p.metadata.name === name);
  const containerStatus = (name: string) => {
    const status = current(name)?.status as { containerStatuses?: Record<string, unknown>[] } | undefined;
    return status?.containerStatuses?.[0];
  };
  const ephemeralStatus = (name: string, container: string) => {
    const status = current(name)?.status as { ephemeralContainerStatuses?: Array<Record<string, unknown>> } | undefined;
    return status?.ephemeralContainerStatuses?.find((entry) => entry.name === container);
  };
  /** Adds ephemeral containers as the API server's pods/ephemeralcontainers would store them (the fake does not serve it). */
  const addEphemeral = (name: string, ...containers: Record<string, unknown>[]) => {
    const existing = ((current(name)?.spec as { ephemeralContainers?: unknown[] }).ephemeralContainers ?? []);
    return new ApiClient(transport).resource(resources.pods).patch('default', name, { spec: { ephemeralContainers: [...existing, ...containers.map((container) => ({ image: 'busybox:1', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File', ...container }))] } }, 'merge');
  };
  return { transport, runtime, kubelet, pod, current, containerStatus, ephemeralStatus, addEphemeral };
}

describe('Kubelet', () => {
  it('registers its node Ready with capacity, labels and a lease', async () => {
    const { transport } = await startKubelet();
    const node = transport.objectsOf(resources.nodes)[0];
    expect(node.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': 'node-a', 'topology.kubernetes.io/zone': 'zone-a', 'node-role.kubernetes.io/control-plane': '' });
    const status = node.status as { capacity: Record<string, string>; conditions: { type: string; status: string }[] };
    expect(status.capacity.pods).toBe('110');
    expect(status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(transport.objectsOf(resources.leases)[0].metadata.name).toBe('node-a');
  });

  it('renews its lease every heartbeat without reading it, and writes an unchanged node status only once per report period', async () => {
    const { transport } = await startKubelet();
    const count = (method: string, suffix: string) => transport.requests.filter((request) => request.method === method && request.path.endsWith(suffix)).length;
    await until(() => count('PUT', '/leases/node-a') >= 5, 'five lease renewals');
    expect(count('GET', '/leases/node-a')).toBeLessThanOrEqual(1);
    // the first heartbeat reports the status once; later ones find it unchanged (heartbeat times aside)
    expect(count('PUT', '/nodes/node-a/status')).toBe(1);
  });

  it('writes a changed node status at the next heartbeat', async () => {
    const { transport, runtime } = await startKubelet();
    const ready = () => (transport.objectsOf(resources.nodes)[0].status as { conditions: { type: string; status: string }[] }).conditions.find((c) => c.type === 'Ready')?.status;
    const statusWrites = () => transport.requests.filter((request) => request.method === 'PUT' && request.path.endsWith('/nodes/node-a/status')).length;
    await until(() => statusWrites() >= 1, 'the first status report');
    runtime.available = false;
    await until(() => ready() === 'False', 'Ready False');
    runtime.available = true;
    await until(() => ready() === 'True', 'Ready True again');
  });

  it('runs a pod: sandbox, container, Running status with the pod IP', async () => {
    const { pod, current, runtime } = await startKubelet();
    pod('web');
    const running = await until(() => (current('web')?.status as { phase?: string })?.phase === 'Running' && current('web'), 'Running');
    expect((running.status as { podIP: string }).podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect([...runtime.sandboxes.values()]).toHaveLength(1);
    expect([...runtime.containers.values()].filter((c) => c.status.state === 'running')).toHaveLength(1);
  });

  it('restarts a crashed container at once, then backs off with CrashLoopBackOff', async () => {
    const { pod, runtime, containerStatus } = await startKubelet();
    const uid = pod('crashy').metadata.uid ?? '';
    const first = await until(() => runtime.containerByName(uid, 'app'), 'first container');
    runtime.exitContainer(first.status.id, 1);
    await until(() => containerStatus('crashy')?.restartCount === 1 && (containerStatus('crashy')?.state as { running?: unknown })?.running, 'restart 1');
    const second = await until(() => [...runtime.containers.values()].find((c) => c.status.restartCount === 1 && c.status.state === 'running'), 'second container');
    runtime.exitContainer(second.status.id, 1);
    const waiting = await until(() => (containerStatus('crashy')?.state as { waiting?: { reason: string; message: string } })?.waiting, 'CrashLoopBackOff');
    expect(waiting.reason).toBe('CrashLoopBackOff');
    expect(waiting.message).toBe(`back-off 10s restarting failed container=app pod=crashy_default(${uid})`);
    expect(containerStatus('crashy')?.lastState).toMatchObject({ terminated: { exitCode: 1, reason: 'Error' } });
  });

  it('shows a crashed container as not ready before restarting it, so Ready gets a new transition time', async () => {
    const { pod, runtime, current } = await startKubelet();
    const uid = pod('flappy').metadata.uid ?? '';
    const readyOf = () => ((current('flappy')?.status as { conditions?: { type: string; status: string; lastTransitionTime: string }[] })?.conditions ?? []).find((c) => c.type === 'Ready');
    const first = await until(() => runtime.containerByName(uid, 'app'), 'first container');
    await until(() => readyOf()?.status === 'True', 'Ready');
    const firstReadySince = readyOf()?.lastTransitionTime;
    // Ready's transition time has one-second resolution: let a second pass before the crash.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    runtime.exitContainer(first.status.id, 1);
    await until(() => [...runtime.containers.values()].find((c) => c.status.restartCount === 1 && c.status.state === 'running'), 'restarted container');
    await until(() => readyOf()?.status === 'True' && readyOf()?.lastTransitionTime !== firstReadySince && readyOf(), 'Ready again with a new transition time', 3000);
  });

  it('turns a pod Ready once its readiness probe passes, and unready when it fails', async () => {
    const { pod, runtime, current } = await startKubelet();
    let healthy = true;
    runtime.execHandler = () => ({ exitCode: healthy ? 0 : 1, stdout: healthy ? '' : 'not ready' });
    pod('probed', { containers: [{ name: 'app', image: 'busybox:1', imagePullPolicy: 'IfNotPresent', readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1, failureThreshold: 1 } }] });
    const ready = (name: string) => ((current(name)?.status as { conditions?: { type: string; status: string }[] })?.conditions ?? []).find((c) => c.type === 'Ready')?.status;
    await until(() => ready('probed') === 'True', 'Ready True');
    healthy = false;
    await until(() => ready('probed') === 'False', 'Ready False', 8000);
  });

  it('completes a Never pod as Succeeded and does not restart it', async () => {
    const { pod, runtime, current } = await startKubelet();
    const uid = pod('job', { restartPolicy: 'Never' }).metadata.uid ?? '';
    const instance = await until(() => runtime.containerByName(uid, 'app'), 'container');
    runtime.exitContainer(instance.status.id, 0);
    await until(() => (current('job')?.status as { phase?: string })?.phase === 'Succeeded', 'Succeeded');
    expect([...runtime.containers.values()]).toHaveLength(1);
  });

  it('reports ErrImagePull for an image that cannot be pulled', async () => {
    const { pod, runtime, containerStatus, transport } = await startKubelet();
    runtime.failPull('missing:1');
    pod('nopull', { containers: [{ name: 'app', image: 'missing:1' }] });
    // ErrImagePull, then ImagePullBackOff while the next pull waits
    const seen = new Set<string>();
    await until(() => {
      const waiting = (containerStatus('nopull')?.state as { waiting?: { reason: string; message: string } })?.waiting;
      if (waiting) seen.add(`${waiting.reason}: ${waiting.message}`);
      return [...seen].some((entry) => entry.startsWith('ImagePullBackOff: Back-off pulling image "missing:1"'));
    }, 'ImagePullBackOff');
    await until(() => transport.objectsOf(resources.events).some((event) => String(event.message).startsWith('Failed to pull image "missing:1": ')), 'Failed event');
  });

  it('terminates a deleted pod, removes its containers and deletes the object', async () => {
    const { runtime, transport, current } = await startKubelet();
    // a finalizer makes the fake API server keep the object with a deletionTimestamp, as the real
    // one does for a pod bound to a node during its grace period
    transport.seed(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'gone', namespace: 'default', finalizers: ['test/hold'] }, spec: { nodeName: 'node-a', containers: [{ name: 'app', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' }] } });
    await until(() => (current('gone')?.status as { phase?: string })?.phase === 'Running', 'Running');
    const client = new ApiClient(transport);
    await client.resource(resources.pods).delete('default', 'gone');
    await until(() => runtime.containers.size === 0 && runtime.sandboxes.size === 0, 'containers removed');
    await client.resource(resources.pods).patch('default', 'gone', { metadata: { finalizers: null } }, 'merge');
    await until(() => !current('gone'), 'pod object deleted');
  });

  it('adopts running containers after a restart instead of duplicating them', async () => {
    const first = await startKubelet();
    first.pod('steady');
    await until(() => (first.current('steady')?.status as { phase?: string })?.phase === 'Running', 'Running');
    const before = [...first.runtime.containers.keys()];
    await first.kubelet.dispose();
    // a second kubelet on the same runtime (the process restarted, Docker kept the containers)
    await startKubelet(first);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([...first.runtime.containers.keys()]).toEqual(before);
    expect(first.containerStatus('steady')?.restartCount).toBe(0);
  });

  describe('ephemeral containers', () => {
    it('starts one added to a running pod in the target container\'s processes and reports it, never ready', async () => {
      const { pod, runtime, current, addEphemeral, ephemeralStatus } = await startKubelet();
      const uid = pod('web').metadata.uid ?? '';
      await until(() => (current('web')?.status as { phase?: string })?.phase === 'Running', 'Running');
      const app = runtime.containerByName(uid, 'app');
      await addEphemeral('web', { name: 'debugger', targetContainerName: 'app', stdin: true, tty: true });
      const debug = await until(() => runtime.containerByName(uid, 'debugger'), 'debugger container');
      expect(debug.config.namespaces).toEqual({ pid: 'target', targetId: app?.status.id, ipc: 'pod' });
      expect(debug.config).toMatchObject({ stdin: true, tty: true, init: false, restartCount: 0 });
      expect(debug.status.sandboxId).toBe(app?.status.sandboxId);
      const status = await until(() => (ephemeralStatus('web', 'debugger')?.state as { running?: unknown })?.running && ephemeralStatus('web', 'debugger'), 'debugger Running');
      expect(status).toMatchObject({ name: 'debugger', ready: false, restartCount: 0, image: 'busybox:1', containerID: `docker://${debug.status.id}`, lastState: {} });
      expect(status).not.toHaveProperty('started');
      const conditions = (current('web')?.status as { conditions: { type: string; status: string }[] }).conditions;
      expect(conditions.find((condition) => condition.type === 'Ready')?.status).toBe('True');
    });

    it('never restarts one that exited, and lists them by name', async () => {
      const { pod, runtime, current, addEphemeral, ephemeralStatus } = await startKubelet();
      const uid = pod('web').metadata.uid ?? '';
      await until(() => (current('web')?.status as { phase?: string })?.phase === 'Running', 'Running');
      await addEphemeral('web', { name: 'second' });
      const second = await until(() => runtime.containerByName(uid, 'second'), 'second container');
      runtime.exitContainer(second.status.id, 3);
      await until(() => (ephemeralStatus('web', 'second')?.state as { terminated?: unknown })?.terminated, 'second terminated');
      // a later write of the pod makes the kubelet sync it again: the new container starts, the old one stays down
      await addEphemeral('web', { name: 'first' });
      await until(() => (ephemeralStatus('web', 'first')?.state as { running?: unknown })?.running, 'first Running');
      expect([...runtime.containers.values()].filter((container) => container.status.name === 'second')).toHaveLength(1);
      expect(ephemeralStatus('web', 'second')).toMatchObject({ restartCount: 0, state: { terminated: { exitCode: 3, reason: 'Error' } } });
      const names = (current('web')?.status as { ephemeralContainerStatuses: { name: string }[] }).ephemeralContainerStatuses.map((entry) => entry.name);
      expect(names).toEqual(['first', 'second']);
      expect((current('web')?.status as { phase: string }).phase).toBe('Running');
    });

    it('keeps a terminated status when the runtime no longer has the container, instead of starting it again', async () => {
      const { pod, runtime, current, addEphemeral, ephemeralStatus } = await startKubelet();
      const uid = pod('web').metadata.uid ?? '';
      await until(() => (current('web')?.status as { phase?: string })?.phase === 'Running', 'Running');
      await addEphemeral('web', { name: 'once' });
      const once = await until(() => runtime.containerByName(uid, 'once'), 'container');
      runtime.exitContainer(once.status.id, 0);
      await until(() => (ephemeralStatus('web', 'once')?.state as { terminated?: unknown })?.terminated, 'terminated');
      await runtime.removeContainer(once.status.id);
      await addEphemeral('web', { name: 'later' });
      await until(() => (ephemeralStatus('web', 'later')?.state as { running?: unknown })?.running, 'later Running');
      expect(runtime.containerByName(uid, 'once')).toBeUndefined();
      expect(ephemeralStatus('web', 'once')).toMatchObject({ containerID: `docker://${once.status.id}`, state: { terminated: { exitCode: 0, reason: 'Completed' } } });
    });

    it('runs while init containers have not finished, and waits with a config error for a target that never started', async () => {
      const { pod, runtime, current, addEphemeral, ephemeralStatus } = await startKubelet();
      const uid = pod('stuck', { initContainers: [{ name: 'setup', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' }] }).metadata.uid ?? '';
      await until(() => runtime.containerByName(uid, 'setup')?.status.state === 'running', 'init container running');
      await addEphemeral('stuck', { name: 'look' }, { name: 'aim', targetContainerName: 'app' });
      const status = await until(() => (ephemeralStatus('stuck', 'look')?.state as { running?: unknown })?.running && ephemeralStatus('stuck', 'look'), 'look Running');
      expect(status).toMatchObject({ ready: false });
      const waiting = await until(() => (ephemeralStatus('stuck', 'aim')?.state as { waiting?: { reason: string; message: string } })?.waiting, 'aim waiting');
      expect(waiting).toEqual({ reason: 'CreateContainerConfigError', message: 'unable to find target container app' });
      expect((current('stuck')?.status as { phase: string }).phase).toBe('Pending');
    });

    it('refuses runAsNonRoot for an image that runs as root, with the kubelet\'s message', async () => {
      const { pod, current, addEphemeral, ephemeralStatus } = await startKubelet();
      const uid = pod('web').metadata.uid ?? '';
      await until(() => (current('web')?.status as { phase?: string })?.phase === 'Running', 'Running');
      await addEphemeral('web', { name: 'strict', securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } } });
      const waiting = await until(() => (ephemeralStatus('web', 'strict')?.state as { waiting?: { reason: string; message: string } })?.waiting?.message && (ephemeralStatus('web', 'strict')?.state as { waiting: { reason: string; message: string } }).waiting, 'strict waiting');
      expect(waiting).toEqual({ reason: 'CreateContainerConfigError', message: `container has runAsNonRoot and image will run as root (pod: "web_default(${uid})", container: strict)` });
    });

    it('adopts a running ephemeral container after a restart instead of starting another', async () => {
      const first = await startKubelet();
      const uid = first.pod('web').metadata.uid ?? '';
      await until(() => (first.current('web')?.status as { phase?: string })?.phase === 'Running', 'Running');
      await first.addEphemeral('web', { name: 'debugger' });
      const debug = await until(() => first.runtime.containerByName(uid, 'debugger'), 'debugger');
      await until(() => (first.ephemeralStatus('web', 'debugger')?.state as { running?: unknown })?.running, 'debugger Running');
      await first.kubelet.dispose();
      const { kubelet: again } = await startKubelet(first);
      // the adopted kubelet answers streams for it, and a new ephemeral container proves it synced the pod
      await first.addEphemeral('web', { name: 'after' });
      await until(() => (first.ephemeralStatus('web', 'after')?.state as { running?: unknown })?.running, 'after Running');
      expect([...first.runtime.containers.values()].filter((container) => container.status.name === 'debugger').map((container) => container.status.id)).toEqual([debug.status.id]);
      const pod = first.current('web');
      if (!pod) throw new Error('pod gone');
      const session = await again.exec(pod, 'debugger', ['true'], { stdin: false, stdout: true, stderr: true, tty: false });
      expect(await session.exitCode).toBe(0);
    });

    it('stops them with the pod', async () => {
      const { pod, runtime, current, addEphemeral, transport } = await startKubelet();
      const uid = pod('web').metadata.uid ?? '';
      await until(() => (current('web')?.status as { phase?: string })?.phase === 'Running', 'Running');
      await addEphemeral('web', { name: 'debugger' });
      await until(() => runtime.containerByName(uid, 'debugger')?.status.state === 'running', 'debugger running');
      await new ApiClient(transport).resource(resources.pods).delete('default', 'web');
      await until(() => runtime.containers.size === 0, 'containers removed');
    });
  });
});
