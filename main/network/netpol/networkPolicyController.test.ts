import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { ApiClient } from '../../client/apiClient';
import { FakeTransport } from '../../../test/doubles/fakeTransport';
import { SharedInformerFactory } from '../../client/informer';
import { resources } from '../../client/resources';
import { NetworkPolicyController, type PodNetworkRuntime } from './networkPolicyController';

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} not met in time`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Sandboxes (named by pod, as the seeded pods' uids are the API's), and every program run in one. */
class FakeNetworkRuntime implements PodNetworkRuntime {
  readonly sandboxes: Array<{ id: string; pod: string; state: 'ready' | 'notready'; attempt: number }> = [];
  uids = new Map<string, string>();
  readonly runs: Array<{ sandboxId: string; args: string[]; onlyIfUsedBefore: boolean }> = [];
  /** sandboxes a program ran in (onlyIfUsedBefore answers undefined for the others) */
  readonly used = new Set<string>();
  failWith: string | undefined;

  async listSandboxes() {
    return this.sandboxes.map(({ pod, ...sandbox }) => ({ ...sandbox, podUid: this.uids.get(pod) ?? '' }));
  }

  async runInSandboxNetwork(sandboxId: string, program: { executablePath: string; args: string[]; onlyIfUsedBefore?: boolean }) {
    if (program.onlyIfUsedBefore && !this.used.has(sandboxId)) return undefined;
    this.used.add(sandboxId);
    this.runs.push({ sandboxId, args: program.args, onlyIfUsedBefore: program.onlyIfUsedBefore ?? false });
    if (this.failWith) return { exitCode: 1, stdout: '', stderr: `kd-netpol: ${this.failWith}\n`, timedOut: false };
    return { exitCode: 0, stdout: '', stderr: '', timedOut: false };
  }

  rulesOf(sandboxId: string): string[] | undefined {
    const last = this.runs.filter((run) => run.sandboxId === sandboxId).at(-1);
    return last?.args.slice(1);
  }
}

function pod(ns: string, name: string, ip: string, labels: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: ns, name, uid: `uid-${name}`, labels },
    spec: { nodeName: 'kubedesk', containers: [{ name: 'main', image: 'busybox' }] },
    status: { phase: 'Running', podIP: ip },
  };
}

function namespace(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } };
}

const denyAll: KubeObject = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { namespace: 'prod', name: 'deny' }, spec: { podSelector: { matchLabels: { app: 'server' } }, policyTypes: ['Ingress'] } };
const isolated = ['policy input drop', 'accept input state established,related', 'accept input in lo', 'accept input src 10.9.0.1/32', 'accept input src 10.9.0.2/32'];

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function harness(seed: KubeObject[], runtime: FakeNetworkRuntime, errors: unknown[] = []) {
  const transport = new FakeTransport();
  for (const object of seed) {
    const gvr = object.kind === 'Pod' ? resources.pods : object.kind === 'Namespace' ? resources.namespaces : resources.networkpolicies;
    const stored = transport.seed(gvr, object);
    if (object.kind === 'Pod') runtime.uids.set(stored.metadata.name ?? '', stored.metadata.uid ?? '');
  }
  const client = new ApiClient(transport);
  const factory = new SharedInformerFactory(client);
  const controller = new NetworkPolicyController(factory, {
    nodes: () => [{ nodeName: 'kubedesk', runtime }],
    executablePath: () => '/dist/netd/kd-netpol-linux-amd64',
    nodeAddresses: ['10.9.0.1'],
    serviceRange: '10.9.128.0/17',
    proxyAddress: async () => '10.9.0.2',
    retryIntervalMs: 20,
    resyncIntervalMs: 60_000,
    onError: (error) => errors.push(error),
  });
  factory.start();
  await factory.waitForCacheSync();
  controller.start();
  cleanups.push(async () => {
    await controller.dispose();
    factory.dispose();
  });
  return { client, controller };
}

describe('NetworkPolicyController', () => {
  it('filters the pods a policy isolates, clears leftovers once, then follows the policy being deleted', async () => {
    const runtime = new FakeNetworkRuntime();
    runtime.sandboxes.push({ id: 'sb-server', pod: 'server', state: 'ready', attempt: 0 }, { id: 'sb-client', pod: 'client', state: 'ready', attempt: 0 });
    // the client's sandbox still has a filter from before a restart
    runtime.used.add('sb-client');
    const { client, controller } = await harness([namespace('prod'), pod('prod', 'server', '10.9.0.10', { app: 'server' }), pod('prod', 'client', '10.9.0.11', { app: 'client' }), denyAll], runtime);
    await until(() => runtime.runs.length >= 2, 'both pods set');
    await controller.idle();
    expect(runtime.rulesOf('sb-server')).toEqual(isolated);
    expect(runtime.runs.find((run) => run.sandboxId === 'sb-client')).toEqual({ sandboxId: 'sb-client', args: ['apply'], onlyIfUsedBefore: true });

    // an unchanged state sets nothing again
    const before = runtime.runs.length;
    await client.resource(resources.pods).patch('prod', 'client', { metadata: { annotations: { touched: 'yes' } } }, 'merge');
    await until(() => controller.model().pods.some((candidate) => candidate.name === 'client'), 'model');
    await controller.idle();
    expect(runtime.runs.length).toBe(before);

    await client.resource(resources.networkpolicies).delete('prod', 'deny');
    await until(() => runtime.rulesOf('sb-server')?.length === 0, 'the server opened again');
  });

  it('follows a pod to its new sandbox and a peer to its new address', async () => {
    const runtime = new FakeNetworkRuntime();
    runtime.sandboxes.push({ id: 'sb-server', pod: 'server', state: 'ready', attempt: 0 });
    const allowClient: KubeObject = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { namespace: 'prod', name: 'from-client' },
      spec: { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }] }] },
    };
    const { client } = await harness([namespace('prod'), pod('prod', 'server', '10.9.0.10', { app: 'server' }), pod('prod', 'client', '10.9.0.11', { app: 'client' }), allowClient], runtime);
    await until(() => runtime.rulesOf('sb-server')?.includes('accept input src 10.9.0.11/32') === true, 'the client allowed');
    // the client comes back with another address
    await client.resource(resources.pods).patch('prod', 'client', { status: { podIP: '10.9.0.55' } }, 'merge', { subresource: 'status' });
    await until(() => runtime.rulesOf('sb-server')?.includes('accept input src 10.9.0.55/32') === true, 'the new address allowed');
    expect(runtime.rulesOf('sb-server')).not.toContain('accept input src 10.9.0.11/32');
    // the server's sandbox is replaced: the new one gets the filter
    runtime.sandboxes.splice(0, 1, { id: 'sb-server-2', pod: 'server', state: 'ready', attempt: 1 });
    await client.resource(resources.pods).patch('prod', 'server', { status: { podIP: '10.9.0.12' } }, 'merge', { subresource: 'status' });
    await until(() => runtime.rulesOf('sb-server-2')?.includes('accept input src 10.9.0.55/32') === true, 'the new sandbox filtered');
  });

  it('reports a filter that could not be set once, and tries again', async () => {
    const runtime = new FakeNetworkRuntime();
    runtime.failWith = 'the kernel has no iptables filter table';
    runtime.sandboxes.push({ id: 'sb-server', pod: 'server', state: 'ready', attempt: 0 });
    const errors: unknown[] = [];
    await harness([namespace('prod'), pod('prod', 'server', '10.9.0.10', { app: 'server' }), denyAll], runtime, errors);
    await until(() => runtime.runs.length >= 3, 'retries');
    expect(errors.map((error) => (error instanceof Error ? error.message : String(error)))).toEqual([
      'network policies: 1 pod filter(s) not set: prod/server: kd-netpol: the kernel has no iptables filter table',
    ]);
    runtime.failWith = undefined;
    const runs = runtime.runs.length;
    await until(() => runtime.runs.length > runs, 'a retry that works');
    const settled = runtime.runs.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(runtime.runs.length).toBe(settled);
  });

  it('tells the service proxy which clients each backend may serve', async () => {
    const runtime = new FakeNetworkRuntime();
    const { client, controller } = await harness([namespace('prod'), pod('prod', 'server', '10.9.0.10', { app: 'server' }), pod('prod', 'client', '10.9.0.11', { app: 'client' }), denyAll], runtime);
    await until(() => controller.model().pods.length === 2, 'model');
    expect(controller.serviceBackendClients({ ip: '10.9.128.20', port: 80, protocol: 'TCP' }, [{ kind: 'address', ip: '10.9.0.10', port: 8080 }])).toEqual([['10.9.0.1']]);
    expect(controller.serviceBackendClients({ ip: '10.9.128.21', port: 80, protocol: 'TCP' }, [{ kind: 'address', ip: '10.9.0.11', port: 8080 }])).toBeUndefined();
    let changes = 0;
    controller.onDidChange(() => changes++);
    await client.resource(resources.networkpolicies).delete('prod', 'deny');
    await until(() => changes > 0, 'a change reported');
    expect(controller.serviceBackendClients({ ip: '10.9.128.20', port: 80, protocol: 'TCP' }, [{ kind: 'address', ip: '10.9.0.10', port: 8080 }])).toBeUndefined();
  });
});
