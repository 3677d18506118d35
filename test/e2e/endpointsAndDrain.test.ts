// Endpoints, EndpointSlices, PodDisruptionBudgets and `kubectl drain`, driven by the real kubectl
// 1.35 against a real three-node `kubedesk serve` on Docker: service endpoints
// (ready and not-ready addresses, ports by name) and on cordon + drain honouring a budget. Texts
// asserted are upstream's (the eviction API's 429 message, kubectl's printers and drain output).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;
const namespace = 'drain-e2e';
const drainedNode = 'kubedesk-m02';

const ok = (...args: string[]) => kubectlOk(cluster, args);

/** A busybox httpd on the named port `http`, ready once it listens (or never, with `probe: 'fail'`). */
function podManifest(name: string, role: string, probe: 'tcp' | 'fail'): object {
  const readinessProbe = probe === 'tcp' ? { tcpSocket: { port: 'http' }, periodSeconds: 1 } : { exec: { command: ['false'] }, periodSeconds: 1 };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app: 'web', role } },
    spec: {
      nodeSelector: { 'kubernetes.io/hostname': drainedNode },
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'web', image: busyboxImage, command: ['sh', '-c', 'exec httpd -f -p 8080'], ports: [{ name: 'http', containerPort: 8080 }], readinessProbe }],
    },
  };
}

const podIP = async (name: string) => (await ok('get', 'pod', name, '-n', namespace, '-o', 'jsonpath={.status.podIP}')).trim();

beforeAll(async () => {
  cluster = await startCluster({ nodes: 3 });
  await ok('create', 'namespace', namespace);
  const manifests = {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      podManifest('web-1', 'serve', 'tcp'),
      podManifest('web-2', 'serve', 'tcp'),
      podManifest('web-unready', 'probe', 'fail'),
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
    ],
  };
  const applied = await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifests) });
  if (applied.code !== 0) throw new Error(`apply failed: ${applied.stderr}`);
}, 180_000);

afterAll(async () => {
  await cluster?.destroy();
}, 120_000);

describe('endpoints and drain', () => {
  it('lists the ready pods of a service in its Endpoints, and the unready one as not ready', async () => {
    const [ip1, ip2] = await until('pod IPs', async () => {
      const ips = [await podIP('web-1'), await podIP('web-2')];
      return ips.every((ip) => ip !== '') ? ips : undefined;
    });
    const expected = [`${ip1}:8080`, `${ip2}:8080`].sort();
    const line = await until('both pods in the endpoints', async () => {
      const out = await ok('get', 'endpoints', 'web', '-n', namespace, '--no-headers');
      return expected.every((entry) => out.includes(entry)) ? out : undefined;
    });
    expect(line).toMatch(/^web\s+\S+:8080,\S+:8080/);
    const notReady = await until('the unready pod listed as not ready', async () => {
      const names = await ok('get', 'endpoints', 'web', '-n', namespace, '-o', 'jsonpath={.subsets[*].notReadyAddresses[*].targetRef.name}');
      return names.trim() === 'web-unready' ? names : undefined;
    });
    expect(notReady.trim()).toBe('web-unready');
    const ready = await ok('get', 'endpoints', 'web', '-n', namespace, '-o', 'jsonpath={.subsets[*].addresses[*].targetRef.name}');
    expect(ready.trim().split(' ').sort()).toEqual(['web-1', 'web-2']);
    const labels = JSON.parse(await ok('get', 'endpoints', 'web', '-n', namespace, '-o', 'jsonpath={.metadata.labels}')) as Record<string, string>;
    expect(labels['endpoints.kubernetes.io/managed-by']).toBe('endpoint-controller');
  }, 120_000);

  it('shows the pods in the service EndpointSlice with their conditions and zone', async () => {
    const row = await until('a slice with three endpoints', async () => {
      const out = await ok('get', 'endpointslices', '-n', namespace, '-l', 'kubernetes.io/service-name=web', '--no-headers');
      const lines = out.trim().split('\n').filter(Boolean);
      return lines.length === 1 && /\bIPv4\s+8080\s+\S+/.test(lines[0]) ? lines[0] : undefined;
    });
    expect(row).toMatch(/^web-\S+\s+IPv4\s+8080\s+/);
    const slice = JSON.parse(await ok('get', 'endpointslices', '-n', namespace, '-l', 'kubernetes.io/service-name=web', '-o', 'json')) as {
      items: { metadata: { labels: Record<string, string>; ownerReferences: { kind: string; name: string }[] }; endpoints: { conditions: { ready: boolean }; targetRef: { name: string }; zone?: string; nodeName?: string }[] }[];
    };
    const [item] = slice.items;
    expect(item.metadata.labels['endpointslice.kubernetes.io/managed-by']).toBe('endpointslice-controller.k8s.io');
    expect(item.metadata.ownerReferences[0]).toMatchObject({ kind: 'Service', name: 'web' });
    const byName = Object.fromEntries(item.endpoints.map((endpoint) => [endpoint.targetRef.name, endpoint]));
    expect(byName['web-1'].conditions.ready).toBe(true);
    expect(byName['web-unready'].conditions.ready).toBe(false);
    expect(byName['web-1'].nodeName).toBe(drainedNode);
    expect(byName['web-1'].zone).toBe('zone-b');
  }, 120_000);

  it('drains a cordoned node one pod at a time without breaking the disruption budget', async () => {
    await ok('create', 'pdb', 'web-pdb', '-n', namespace, '--selector=app=web,role=serve', '--min-available=1');
    await until('one disruption allowed', async () => {
      const allowed = await ok('get', 'pdb', 'web-pdb', '-n', namespace, '-o', 'jsonpath={.status.disruptionsAllowed}');
      return allowed.trim() === '1' ? allowed : undefined;
    });
    expect(await ok('get', 'pdb', 'web-pdb', '-n', namespace, '--no-headers')).toMatch(/^web-pdb\s+1\s+N\/A\s+1\s+/);

    expect(await ok('cordon', drainedNode)).toContain(`node/${drainedNode} cordoned`);
    await until('the unschedulable taint', async () => {
      const taints = await ok('get', 'node', drainedNode, '-o', 'jsonpath={.spec.taints[*].key}');
      return taints.includes('node.kubernetes.io/unschedulable') ? taints : undefined;
    });

    const drain = await cluster.kubectl(['drain', drainedNode, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--pod-selector=app=web,role=serve', '--timeout=15s'], { timeoutMs: 60_000 });
    const output = `${drain.stdout}${drain.stderr}`;
    expect(drain.code, output).not.toBe(0);
    expect(output).toContain("Cannot evict pod as it would violate the pod's disruption budget.");
    expect(output).toMatch(/pod\/web-[12] evicted/);
    const remaining = (await ok('get', 'pods', '-n', namespace, '-l', 'role=serve', '-o', 'jsonpath={.items[*].metadata.name}')).trim().split(' ').filter(Boolean);
    expect(remaining).toHaveLength(1);
    const status = JSON.parse(await ok('get', 'pdb', 'web-pdb', '-n', namespace, '-o', 'jsonpath={.status}')) as Record<string, unknown>;
    expect(status).toMatchObject({ currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: 1 });

    expect(await ok('uncordon', drainedNode)).toContain(`node/${drainedNode} uncordoned`);
    await until('the unschedulable taint gone', async () => {
      const taints = await ok('get', 'node', drainedNode, '-o', 'jsonpath={.spec.taints[*].key}');
      return taints.includes('node.kubernetes.io/unschedulable') ? undefined : taints;
    });
  }, 180_000);

  it('moves a Deployment\'s pods off a drained node without ever breaking its budget', async () => {
    const target = 'kubedesk-m03';
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'movers', namespace },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'movers' } },
        template: {
          metadata: { labels: { app: 'movers' } },
          spec: {
            terminationGracePeriodSeconds: 1,
            // start on the node that will be drained, so every replica has to move
            affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [target] }] } }] } },
            containers: [{ name: 'web', image: busyboxImage, command: ['sleep', '3600'], readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 } }],
          },
        },
      },
    };
    await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(deployment) });
    await ok('rollout', 'status', 'deployment/movers', '-n', namespace, '--timeout=90s');
    await ok('create', 'pdb', 'movers-pdb', '-n', namespace, '--selector=app=movers', '--min-available=2');
    await until('the budget allows one disruption', async () => ((await ok('get', 'pdb', 'movers-pdb', '-n', namespace, '-o', 'jsonpath={.status.disruptionsAllowed}')).trim() === '1' ? true : undefined));
    const nodesOf = async () => (await ok('get', 'pods', '-n', namespace, '-l', 'app=movers', '-o', 'jsonpath={range .items[*]}{.spec.nodeName} {.status.phase}{"\\n"}{end}')).trim().split('\n').filter(Boolean);
    expect((await nodesOf()).some((line) => line.startsWith(target))).toBe(true);

    // Watch readiness while the drain runs: never fewer than minAvailable ready replicas.
    let lowest = 3;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const ready = Number((await ok('get', 'deployment', 'movers', '-n', namespace, '-o', 'jsonpath={.status.readyReplicas}')).trim() || '0');
        lowest = Math.min(lowest, ready);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const drain = await cluster.kubectl(['drain', target, '--ignore-daemonsets', '--delete-emptydir-data', '--pod-selector=app=movers', '--timeout=120s'], { timeoutMs: 150_000 });
    watching = false;
    await watcher;
    expect(drain.code, `${drain.stdout}${drain.stderr}`).toBe(0);
    expect(drain.stdout).toContain(`node/${target} drained`);
    await ok('rollout', 'status', 'deployment/movers', '-n', namespace, '--timeout=90s');
    const placed = await nodesOf();
    expect(placed).toHaveLength(3);
    expect(placed.every((line) => !line.startsWith(target))).toBe(true);
    expect(lowest).toBeGreaterThanOrEqual(2);
    await ok('uncordon', target);
  }, 300_000);
});
