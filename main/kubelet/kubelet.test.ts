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

async function startKubelet() {
  const transport = new FakeTransport();
  transport.seed(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const client = new ApiClient(transport);
  const factory = new SharedInformerFactory(client);
  const runtime = new FakeRuntime();
  runtime.addImage('busybox:1');
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
  return { transport, runtime, kubelet, pod, current, containerStatus };
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
    const client = new ApiClient(first.transport);
    const factory = new SharedInformerFactory(client);
    const dataDir = mkdtempSync(join(tmpdir(), 'kubelet-'));
    const again = new Kubelet({ client, factory, runtime: first.runtime, recorder: new EventRecorder(client, { component: 'kubelet' }), identity: { nodeName: 'node-a', zone: 'zone-a', controlPlane: true, internalIP: '10.0.0.1', dataDir }, podsDir: join(dataDir, 'pods'), caCertPem: 'PEM', kubernetesService: { host: '10.96.0.1', port: 443 }, heartbeatMs: 100, relistMs: 50, resyncMs: 1000 });
    factory.start();
    await again.start();
    cleanups.push(() => again.dispose(), () => factory.dispose());
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([...first.runtime.containers.keys()]).toEqual(before);
    expect(first.containerStatus('steady')?.restartCount).toBe(0);
  });
});
