// The real kubectl 1.35 `top` against a real `kubedesk serve` with pods on real Docker: the
// metrics API as kubectl uses it. kubectl discovers metrics.k8s.io/v1beta1, lists PodMetrics/NodeMetrics
// and prints them as upstream does (`NAME CPU(cores) MEMORY(bytes)`, node percentages of the Node's
// allocatable), answers `No resources found in <ns> namespace.` when nothing is there and
// `error: metrics not available yet` while pods have no figures (kubectl/pkg/cmd/top).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk, until as poll } from '../support/wait';

let cluster: TestCluster;

// Created up front: metrics need two samples of a running container, so the pods warm up while the
// first tests run.
const manifest = `
apiVersion: v1
kind: Pod
metadata: { name: burner, labels: { app: burner } }
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: burner
      image: ${busyboxImage}
      command: ['sh', '-c', 'while :; do :; done']
      resources:
        limits: { cpu: 200m, memory: 64Mi }
---
apiVersion: v1
kind: Pod
metadata: { name: idler, labels: { app: idler } }
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: first
      image: ${busyboxImage}
      command: ['sleep', '3600']
    - name: second
      image: ${busyboxImage}
      command: ['sleep', '3600']
---
apiVersion: v1
kind: Pod
metadata: { name: never-runs, labels: { app: never-runs } }
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: kubedesk-test/absent:1
`;

beforeAll(async () => {
  cluster = await startCluster();
  await ok(['apply', '-f', '-'], manifest);
});

afterAll(async () => {
  await cluster?.destroy();
});

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);

// A timed-out wait also prints the end of the server log.
function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return poll(what, probe, timeoutMs, 500, () => cluster.logs().slice(-3000));
}

/** `250m` → 250, `1` → 1000 (kubectl prints cores as millicores, or whole cores when large). */
function millicores(text: string): number {
  return text.endsWith('m') ? Number(text.slice(0, -1)) : Number(text) * 1000;
}

/** `12Mi` → 12 (kubectl prints memory in Mi). */
function mebibytes(text: string): number {
  expect(text).toMatch(/^\d+Mi$/);
  return Number(text.slice(0, -2));
}

/** The rows of `kubectl top` output, split on whitespace, header first. */
function rows(output: string): string[][] {
  return output
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/));
}

/** Waits until `kubectl top pod <name>` prints figures (metrics need two samples of the container). */
async function topPod(...args: string[]): Promise<string> {
  return until(`kubectl top pod ${args.join(' ')} to print figures`, async () => {
    const result = await cluster.kubectl(['top', 'pod', ...args]);
    return result.code === 0 && result.stdout.trim() !== '' ? result.stdout : undefined;
  });
}

describe('kubectl top', () => {
  it('finds metrics.k8s.io/v1beta1 in discovery', async () => {
    const out = await ok(['api-resources', '--api-group=metrics.k8s.io']);
    expect(out).toMatch(/^nodes\s+metrics\.k8s\.io\/v1beta1\s+false\s+NodeMetrics$/m);
    expect(out).toMatch(/^pods\s+metrics\.k8s\.io\/v1beta1\s+true\s+PodMetrics$/m);
  });

  it('says there is nothing in a namespace without pods', async () => {
    await ok(['create', 'namespace', 'quiet']);
    const result = await cluster.kubectl(['top', 'pod', '-n', 'quiet']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe('No resources found in quiet namespace.');
  });

  it('says metrics are not available yet for a pod that exists but has no figures', async () => {
    const result = await cluster.kubectl(['top', 'pod', '-l', 'app=never-runs']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('error: metrics not available yet');
  });

  it('prints the CPU and memory of a pod burning CPU under a 200m limit', async () => {
    // The first figures may cover the container's start; wait for a window where it burns fully.
    const out = await until('the burner to show its CPU load', async () => {
      const output = await topPod('burner');
      const [, row] = rows(output);
      return millicores(row[1]) > 50 ? output : undefined;
    });
    const [header, row, ...rest] = rows(out);
    expect(header).toEqual(['NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    expect(rest).toEqual([]);
    expect(row[0]).toBe('burner');
    // The limit caps it at 200m; the window's edges may add a little.
    expect(millicores(row[1])).toBeGreaterThan(50);
    expect(millicores(row[1])).toBeLessThanOrEqual(260);
    expect(mebibytes(row[2])).toBeLessThan(64);
  });

  it('lists the pods of the namespace, filters by label and shows containers', async () => {
    await topPod('idler');
    const all = rows(await ok(['top', 'pod']));
    expect(all[0]).toEqual(['NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    expect(all.slice(1).map((row) => row[0])).toEqual(['burner', 'idler']);

    const selected = rows(await ok(['top', 'pod', '-l', 'app=idler']));
    expect(selected.slice(1).map((row) => row[0])).toEqual(['idler']);
    expect(millicores(selected[1][1])).toBeLessThan(50);

    const containers = rows(await ok(['top', 'pod', 'idler', '--containers']));
    expect(containers[0]).toEqual(['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    expect(containers.slice(1).map((row) => `${row[0]}/${row[1]}`)).toEqual(['idler/first', 'idler/second']);

    const sorted = rows(await ok(['top', 'pod', '--sort-by=cpu', '--no-headers']));
    expect(sorted[0][0]).toBe('burner');
  });

  it('lists pods of every namespace', async () => {
    const all = rows(await ok(['top', 'pod', '-A']));
    expect(all[0]).toEqual(['NAMESPACE', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    expect(all.slice(1).map((row) => `${row[0]}/${row[1]}`)).toEqual(expect.arrayContaining(['default/burner', 'default/idler']));
  });

  it('answers NotFound for a pod without metrics, as metrics-server', async () => {
    const result = await cluster.kubectl(['top', 'pod', 'missing']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('Error from server (NotFound): pods.metrics.k8s.io "default/missing" not found');
  });

  it('prints the node with usage and percentages of its allocatable', async () => {
    const out = await until('kubectl top node to print the node', async () => {
      const result = await cluster.kubectl(['top', 'node']);
      return result.code === 0 ? result.stdout : undefined;
    });
    const [header, row, ...rest] = rows(out);
    expect(header).toEqual(['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']);
    expect(rest).toEqual([]);
    expect(row[0]).toBe('kubedesk');
    // The node's usage is the sum of its pods' containers, so it carries the burner's load.
    expect(millicores(row[1])).toBeGreaterThan(50);
    expect(row[2]).toMatch(/^\d+%$/);
    expect(mebibytes(row[3])).toBeGreaterThan(0);
    expect(row[4]).toMatch(/^\d+%$/);

    const single = rows(await ok(['top', 'node', 'kubedesk', '--no-headers']));
    expect(single.map((line) => line[0])).toEqual(['kubedesk']);
  });

  it('serves PodMetrics and NodeMetrics objects in the upstream shape', async () => {
    const pod = JSON.parse(await ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/burner']));
    expect(pod).toMatchObject({ kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { name: 'burner', namespace: 'default', labels: { app: 'burner' } } });
    expect(pod.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(pod.window).toMatch(/^\d+(\.\d+)?s$/);
    expect(pod.containers).toEqual([{ name: 'burner', usage: { cpu: expect.stringMatching(/^\d+(n|u|m)?$/), memory: expect.stringMatching(/^\d+(Ki|Mi)?$/) } }]);
    const nodes = JSON.parse(await ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/nodes']));
    expect(nodes.kind).toBe('NodeMetricsList');
    expect(nodes.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['kubedesk']);
  });

  it('prints metrics through kubectl get as a Table', async () => {
    const out = rows(await ok(['get', 'pods.metrics.k8s.io', 'burner']));
    expect(out[0]).toEqual(['NAME', 'CPU', 'MEMORY', 'WINDOW']);
    expect(out[1][0]).toBe('burner');
  });
});
