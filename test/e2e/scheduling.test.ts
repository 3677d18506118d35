// Scheduling on a three-node cluster with the real kubectl: the nodes each kubelet registers (labels,
// capacity, node info, leases), and placement by nodeSelector, node affinity, taints, topology
// spread, pod anti-affinity, resource fit and cordoning, with kube-scheduler's FailedScheduling
// messages ("0/3 nodes are available: …", framework/types.go FitError) for pods that fit nowhere.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCommand, startCluster, type TestCluster } from '../support/cluster';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;

const nodeNames = ['kubedesk', 'kubedesk-m02', 'kubedesk-m03'];
const zones: Record<string, string> = { kubedesk: 'zone-a', 'kubedesk-m02': 'zone-b', 'kubedesk-m03': 'zone-c' };
const image = 'kubedesk-test/busybox:4';

beforeAll(async () => {
  cluster = await startCluster({ nodes: 3 });
  // Every scenario needs all three nodes registered and Ready.
  await until('three Ready nodes', async () => {
    const nodes = await listNodes();
    return nodes.length === 3 && nodes.every((node) => conditionOf(node.status?.conditions, 'Ready')?.status === 'True') ? true : undefined;
  }, 60_000, 200);
});

afterAll(async () => {
  await cluster?.destroy();
});

const ok = (...args: string[]) => kubectlOk(cluster, args);

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface NodeObject {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { unschedulable?: boolean; taints?: unknown[] };
  status?: {
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    conditions?: Condition[];
    nodeInfo?: Record<string, string>;
  };
}

interface PodObject {
  metadata: { name: string };
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: Condition[] };
}

function conditionOf(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

// Polling goes through raw HTTPS: a kubectl process per probe would load the shared machine.
async function listNodes(): Promise<NodeObject[]> {
  const reply = await cluster.request('GET', '/api/v1/nodes');
  if (reply.status !== 200) return [];
  return (JSON.parse(reply.body) as { items: NodeObject[] }).items;
}

async function readPod(name: string): Promise<PodObject | undefined> {
  const reply = await cluster.request('GET', `/api/v1/namespaces/default/pods/${name}`);
  return reply.status === 200 ? (JSON.parse(reply.body) as PodObject) : undefined;
}

/** Waits until the scheduler has bound the pod and returns its node. */
async function nodeOf(name: string, timeoutMs = 20_000): Promise<string> {
  return until(`pod ${name} to be scheduled`, async () => (await readPod(name))?.spec?.nodeName || undefined, timeoutMs, 200);
}

/** Waits until the pod carries PodScheduled=False/Unschedulable and returns that condition's message. */
async function unschedulableMessage(name: string): Promise<string> {
  return until(`pod ${name} to be marked unschedulable`, async () => {
    const condition = conditionOf((await readPod(name))?.status?.conditions, 'PodScheduled');
    return condition?.status === 'False' && condition.reason === 'Unschedulable' && condition.message ? condition.message : undefined;
  }, 20_000, 200);
}

interface PodOptions {
  labels?: Record<string, string>;
  cpu?: string;
  spec?: Record<string, unknown>;
}

function podManifest(name: string, options: PodOptions = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: options.labels ?? {} },
    spec: {
      // busybox sleep as PID 1 ignores SIGTERM; a short grace keeps cleanup quick.
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image, command: ['sleep', '3600'], resources: { requests: { cpu: options.cpu ?? '10m', memory: '16Mi' } } }],
      ...options.spec,
    },
  };
}

/** Creates the pods with one `kubectl create -f -` of a multi-document stream, so the scheduler sees them together. */
async function createPods(...pods: Record<string, unknown>[]): Promise<void> {
  const input = pods.map((pod) => JSON.stringify(pod)).join('\n---\n');
  const result = await cluster.kubectl(['create', '-f', '-'], { input });
  if (result.code !== 0) throw new Error(`kubectl create failed (${result.code}): ${result.stderr}${result.stdout}`);
}

async function deletePods(selector: string): Promise<void> {
  await ok('delete', 'pods', '-l', selector, '--wait=false');
}

function hostnameSelector(node: string): Record<string, unknown> {
  return { nodeSelector: { 'kubernetes.io/hostname': node } };
}

describe('the nodes of a three-node cluster', () => {
  it('lists three Ready nodes, the first with the control-plane role', async () => {
    const lines = (await ok('get', 'nodes')).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION$/);
    expect(lines.slice(1)).toHaveLength(3);
    expect(lines[1]).toMatch(/^kubedesk\s+Ready\s+control-plane\s+\S+\s+v1\.35\.\d+$/);
    expect(lines[2]).toMatch(/^kubedesk-m02\s+Ready\s+<none>\s+\S+\s+v1\.35\.\d+$/);
    expect(lines[3]).toMatch(/^kubedesk-m03\s+Ready\s+<none>\s+\S+\s+v1\.35\.\d+$/);
  });

  it('labels each node with its hostname and its own zone', async () => {
    const nodes = (JSON.parse(await ok('get', 'nodes', '-o', 'json')) as { items: NodeObject[] }).items;
    expect(nodes.map((node) => node.metadata.name)).toEqual(nodeNames);
    for (const node of nodes) {
      expect(node.metadata.labels?.['kubernetes.io/hostname']).toBe(node.metadata.name);
      expect(node.metadata.labels?.['topology.kubernetes.io/zone']).toBe(zones[node.metadata.name]);
    }
    expect(await ok('get', 'nodes', '-l', 'topology.kubernetes.io/zone=zone-b', '-o', 'name')).toBe('node/kubedesk-m02\n');
  });

  it('reports capacity and allocatable from the host, with 110 pods', async () => {
    const host = await runCommand('docker', ['info', '--format', '{{.NCPU}} {{.MemTotal}}']);
    const [cpus, memoryBytes] = host.stdout.trim().split(' ').map(Number);
    for (const node of await listNodes()) {
      for (const resources of [node.status?.capacity, node.status?.allocatable]) {
        expect(resources?.cpu).toBe(String(cpus));
        expect(resources?.pods).toBe('110');
        const memory = /^(\d+)Ki$/.exec(resources?.memory ?? '');
        expect(memory, `memory ${resources?.memory ?? '(none)'} on ${node.metadata.name}`).not.toBeNull();
        expect(Math.abs(Number(memory?.[1]) * 1024 - memoryBytes)).toBeLessThan(memoryBytes * 0.1);
      }
    }
  });

  it('reports node info with the docker runtime and kubelet v1.35', async () => {
    const dockerVersion = inject('dockerVersion');
    for (const node of await listNodes()) {
      const info = node.status?.nodeInfo ?? {};
      expect(info.containerRuntimeVersion).toMatch(/^docker:\/\/\S+$/);
      if (dockerVersion) expect(info.containerRuntimeVersion).toContain(dockerVersion);
      expect(info.kubeletVersion).toMatch(/^v1\.35\.\d+$/);
      expect(info.operatingSystem).toBe('linux');
      expect(info.osImage).not.toBe('');
      expect(info.kernelVersion).not.toBe('');
    }
  });

  it('keeps a lease per node in kube-node-lease and renews it', async () => {
    interface Lease {
      metadata: { name: string };
      spec: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
    }
    async function leases(): Promise<Lease[]> {
      return (JSON.parse(await ok('get', 'leases', '-n', 'kube-node-lease', '-o', 'json')) as { items: Lease[] }).items;
    }
    const first = await leases();
    expect(first.map((lease) => lease.metadata.name).sort()).toEqual(nodeNames);
    for (const lease of first) {
      expect(lease.spec.holderIdentity).toBe(lease.metadata.name);
      expect(lease.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    }
    const renewedAt = new Map(first.map((lease) => [lease.metadata.name, Date.parse(lease.spec.renewTime ?? '')]));
    // The kubelet renews every 10 s (a quarter of the 40 s lease duration), so each renewTime moves within ~12 s.
    await until('every node lease to be renewed', async () => {
      const later = await leases();
      return later.every((lease) => Date.parse(lease.spec.renewTime ?? '') > (renewedAt.get(lease.metadata.name) ?? Infinity)) ? true : undefined;
    }, 25_000, 200);
  });
});

describe('scheduling on three nodes', () => {
  it('creates pods from a kind: List document as kubectl does against upstream', async () => {
    // kubectl's query-param verifier never trusts server-side fieldValidation for a v1 List, so it
    // validates the items client-side against the server's /openapi/v2 document (skipping unknown kinds).
    const list = { apiVersion: 'v1', kind: 'List', items: [podManifest('listed-1', { labels: { scenario: 'list' } }), podManifest('listed-2', { labels: { scenario: 'list' } })] };
    const result = await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(list) });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('pod/listed-1 created\npod/listed-2 created\n');
    await deletePods('scenario=list');
  });

  it('places a pod with a nodeSelector on the named node', async () => {
    await createPods(podManifest('selected', { labels: { scenario: 'selector' }, spec: hostnameSelector('kubedesk-m02') }));
    expect(await nodeOf('selected')).toBe('kubedesk-m02');
    expect(await ok('get', 'pod', 'selected', '-o', 'jsonpath={.spec.nodeName}')).toBe('kubedesk-m02');
    expect(await ok('get', 'pod', 'selected', '-o', 'wide', '--no-headers')).toMatch(/^selected\s+\S+\s+\S+\s+\d+\s+\S+\s+\S+\s+kubedesk-m02\s+<none>\s+<none>\n$/);
    const conditions = (await readPod('selected'))?.status?.conditions;
    expect(conditionOf(conditions, 'PodScheduled')?.status).toBe('True');
    const described = await until('the Scheduled event in describe', async () => {
      const out = await ok('describe', 'pod', 'selected');
      return /\bScheduled\b.*Successfully assigned/.test(out) ? out : undefined;
    }, 20_000, 200);
    expect(described).toMatch(/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/selected to kubedesk-m02/);
    await deletePods('scenario=selector');
  });

  it('places a pod with required node affinity on the node of that zone', async () => {
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-b'] }] }],
        },
      },
    };
    await createPods(podManifest('zone-b-only', { labels: { scenario: 'required-affinity' }, spec: { affinity } }));
    expect(await nodeOf('zone-b-only')).toBe('kubedesk-m02');
    await deletePods('scenario=required-affinity');
  });

  it.each([
    { name: 'prefers-a', weights: { 'zone-a': 80, 'zone-c': 20 }, expected: 'kubedesk' },
    { name: 'prefers-b', weights: { 'zone-a': 10, 'zone-b': 90 }, expected: 'kubedesk-m02' },
    { name: 'prefers-c', weights: { 'zone-b': 30, 'zone-c': 70 }, expected: 'kubedesk-m03' },
  ])('places $name by the heaviest preferred node affinity term on $expected', async ({ name, weights, expected }) => {
    const affinity = {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: Object.entries(weights).map(([zone, weight]) => ({
          weight,
          preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] },
        })),
      },
    };
    await createPods(podManifest(name, { labels: { scenario: 'preferred-affinity' }, spec: { affinity } }));
    expect(await nodeOf(name)).toBe(expected);
    await deletePods('scenario=preferred-affinity');
  });

  it('keeps pods that do not tolerate a taint off the tainted node and lets a tolerating pod on', async () => {
    expect(await ok('taint', 'node', 'kubedesk-m03', 'dedicated=x:NoSchedule')).toBe('node/kubedesk-m03 tainted\n');
    try {
      // Without the taint, least-allocated scoring would spread these over all three nodes.
      await createPods(...[1, 2, 3, 4].map((index) => podManifest(`plain-${index}`, { labels: { scenario: 'taint' } })));
      await createPods(
        podManifest('tolerating', {
          labels: { scenario: 'taint' },
          spec: { ...hostnameSelector('kubedesk-m03'), tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'x', effect: 'NoSchedule' }] },
        }),
        podManifest('intolerant', { labels: { scenario: 'taint' }, spec: hostnameSelector('kubedesk-m03') }),
      );
      for (const index of [1, 2, 3, 4]) expect(await nodeOf(`plain-${index}`)).not.toBe('kubedesk-m03');
      expect(await nodeOf('tolerating')).toBe('kubedesk-m03');
      const message = await unschedulableMessage('intolerant');
      expect(message).toContain("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's node affinity/selector.");
      expect(message).toContain('preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.');
    } finally {
      await ok('taint', 'node', 'kubedesk-m03', 'dedicated=x:NoSchedule-');
    }
    // Removing the taint is a cluster change: the waiting pod is retried and lands.
    expect(await nodeOf('intolerant', 30_000)).toBe('kubedesk-m03');
    await deletePods('scenario=taint');
  });

  it('spreads three pods one per node with a topology spread constraint of maxSkew 1', async () => {
    const spec = {
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'spread' } } }],
    };
    await createPods(...[1, 2, 3].map((index) => podManifest(`spread-${index}`, { labels: { app: 'spread' }, spec })));
    const placed = await Promise.all([1, 2, 3].map((index) => nodeOf(`spread-${index}`)));
    expect([...placed].sort()).toEqual(nodeNames);
    await deletePods('app=spread');
  });

  it('puts required anti-affinity pods on distinct nodes and leaves a fourth Pending until one goes', async () => {
    const spec = {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'anti' } } }],
        },
      },
    };
    await createPods(...[1, 2, 3].map((index) => podManifest(`anti-${index}`, { labels: { app: 'anti' }, spec })));
    const placed = await Promise.all([1, 2, 3].map((index) => nodeOf(`anti-${index}`)));
    expect([...placed].sort()).toEqual(nodeNames);

    await createPods(podManifest('anti-4', { labels: { app: 'anti' }, spec }));
    const message = await unschedulableMessage('anti-4');
    expect(message).toContain("0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.");
    expect(message).toContain('preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.');
    expect(await ok('get', 'pod', 'anti-4', '-o', 'jsonpath={.status.phase}')).toBe('Pending');

    await ok('delete', 'pod', 'anti-2', '--wait=false');
    expect(await nodeOf('anti-4', 40_000)).toBe(placed[1]);
    await deletePods('app=anti');
  });

  it('co-locates a pod with required pod affinity and leaves one whose affinity matches nothing Pending', async () => {
    await createPods(podManifest('anchor', { labels: { scenario: 'pod-affinity', role: 'anchor' }, spec: hostnameSelector('kubedesk-m03') }));
    expect(await nodeOf('anchor')).toBe('kubedesk-m03');
    const affinityTo = (role: string) => ({
      affinity: {
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: { role } } }] },
      },
    });
    await createPods(
      podManifest('follower', { labels: { scenario: 'pod-affinity' }, spec: affinityTo('anchor') }),
      podManifest('lonely-follower', { labels: { scenario: 'pod-affinity' }, spec: affinityTo('missing') }),
    );
    expect(await nodeOf('follower')).toBe('kubedesk-m03');
    const message = await unschedulableMessage('lonely-follower');
    expect(message).toContain("0/3 nodes are available: 3 node(s) didn't match pod affinity rules.");
    expect(message).toContain('preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.');
    await deletePods('scenario=pod-affinity');
  });

  it('counts the requests of pods already on a node when fitting a new one', async () => {
    const allocatable = (await listNodes()).find((node) => node.metadata.name === 'kubedesk')?.status?.allocatable?.cpu ?? '';
    expect(allocatable).toMatch(/^\d+$/);
    // Leave 300m free on the first two nodes, so a 500m pod only fits the third.
    const hog = `${Number(allocatable) * 1000 - 300}m`;
    await createPods(
      podManifest('hog-a', { labels: { scenario: 'usage' }, cpu: hog, spec: hostnameSelector('kubedesk') }),
      podManifest('hog-b', { labels: { scenario: 'usage' }, cpu: hog, spec: hostnameSelector('kubedesk-m02') }),
    );
    expect(await nodeOf('hog-a')).toBe('kubedesk');
    expect(await nodeOf('hog-b')).toBe('kubedesk-m02');
    await createPods(podManifest('half-core', { labels: { scenario: 'usage' }, cpu: '500m' }));
    expect(await nodeOf('half-core')).toBe('kubedesk-m03');
    await deletePods('scenario=usage');
  });

  it('leaves a pod that needs more cpu than any node has Pending with upstream message and event', async () => {
    await createPods(podManifest('too-big', { labels: { scenario: 'fit' }, cpu: '1000' }));
    const message = await unschedulableMessage('too-big');
    expect(message).toContain('0/3 nodes are available: 3 Insufficient cpu.');
    expect(message).toContain('preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.');

    const row = await ok('get', 'pod', 'too-big', '--no-headers');
    expect(row).toMatch(/^too-big\s+0\/1\s+Pending\s+0\s+\S+\n$/);
    expect(await ok('get', 'pod', 'too-big', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].status}/{.status.conditions[?(@.type=="PodScheduled")].reason}')).toBe('False/Unschedulable');
    const described = await until('the FailedScheduling event in describe', async () => {
      const out = await ok('describe', 'pod', 'too-big');
      return /FailedScheduling/.test(out) ? out : undefined;
    }, 20_000, 200);
    expect(described).toMatch(/^Status:\s+Pending$/m);
    expect(described).toMatch(/^Node:\s+<none>$/m);
    expect(described).toMatch(/Warning\s+FailedScheduling\s+.+?\s+default-scheduler\s+0\/3 nodes are available: 3 Insufficient cpu\./);
    expect(described).toMatch(/^\s+PodScheduled\s+False\s*$/m);
    await deletePods('scenario=fit');
  });

  it('holds a pod while every node is cordoned and schedules it after uncordon', async () => {
    for (const node of nodeNames) expect(await ok('cordon', node)).toBe(`node/${node} cordoned\n`);
    try {
      expect(await ok('get', 'node', 'kubedesk-m02', '--no-headers')).toMatch(/^kubedesk-m02\s+Ready,SchedulingDisabled\s/);
      await createPods(podManifest('waiting', { labels: { scenario: 'cordon' } }));
      const message = await unschedulableMessage('waiting');
      expect(message).toContain('0/3 nodes are available: 3 node(s) were unschedulable.');
      expect((await readPod('waiting'))?.spec?.nodeName).toBeUndefined();
    } finally {
      for (const node of nodeNames) await ok('uncordon', node);
    }
    expect(nodeNames).toContain(await nodeOf('waiting', 30_000));
    await deletePods('scenario=cordon');
  });
});
