import { describe, expect, it } from 'vitest';
import { currentCluster, parseClusters, setClusters, setReadOnly, settingsPath } from './clusters';

const answer = {
  self: 'kubedesk',
  kubeconfigFiles: ['/root/.kube/config'],
  clusters: [
    { name: 'kubedesk', cluster: 'kubedesk', user: 'kubedesk', server: 'https://127.0.0.1:6443', insecure: false, authKind: 'token', current: true, self: true, basePath: '', readOnly: false },
    { name: 'prod/eu', cluster: 'prod', user: 'alice', server: 'https://prod.example:6443', insecure: false, authKind: 'exec', current: false, self: false, basePath: '/ui/clusters/prod%2Feu', readOnly: true },
  ],
};

function fakeFetch(reply: (url: string, init?: RequestInit) => { status: number; body: unknown }) {
  const calls: Array<{ url: string; init?: RequestInit }> = [];
  const fetchImpl = (async (url: string, init?: RequestInit) => {
    calls.push({ url, init });
    const { status, body } = reply(url, init);
    return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  }) as unknown as typeof fetch;
  return { fetchImpl, calls };
}

describe('the clusters and their read-only switch', () => {
  it('reads GET /ui/clusters\'s answer, and the window shows the serving cluster until a picker chooses', () => {
    expect(parseClusters(answer).clusters.map((cluster) => [cluster.name, cluster.basePath, cluster.readOnly])).toEqual([
      ['kubedesk', '', false],
      ['prod/eu', '/ui/clusters/prod%2Feu', true],
    ]);
    expect(parseClusters('nope')).toEqual({ self: '', clusters: [] });
    // the cluster picker reads GET /ui/clusters into the store; the page hands the answer on (main.tsx)
    setClusters(parseClusters(answer));
    expect(currentCluster()).toEqual({ name: 'kubedesk', basePath: '', readOnly: false });
  });

  it('stores the switch with PUT …/-/settings and follows the stored answer', async () => {
    setClusters(parseClusters(answer));
    const { fetchImpl, calls } = fakeFetch((_url, init) => ({ status: 200, body: { ...answer.clusters[0], readOnly: (JSON.parse(String(init?.body)) as { readOnly: boolean }).readOnly } }));
    await setReadOnly('kubedesk', true, fetchImpl);
    expect(calls[0].url).toBe('/ui/clusters/kubedesk/-/settings');
    expect(calls[0].init?.method).toBe('PUT');
    expect(currentCluster().readOnly).toBe(true);
    expect(settingsPath('prod/eu')).toBe('/ui/clusters/prod%2Feu/-/settings');
  });

  it('throws the server’s message when the switch is refused, and leaves it as it was', async () => {
    setClusters(parseClusters(answer));
    const { fetchImpl } = fakeFetch(() => ({ status: 403, body: { kind: 'Status', code: 403, reason: 'Forbidden', message: 'the request has no Origin of this server' } }));
    await expect(setReadOnly('kubedesk', true, fetchImpl)).rejects.toThrow('the request has no Origin of this server');
    expect(currentCluster().readOnly).toBe(false);
  });
});
