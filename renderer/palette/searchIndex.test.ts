// Tests of the palette's on-demand listing of kinds no view watches.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import type { KubeClient, ListPage } from '../api/kubeClient';
import { discoveredKindConfig } from '../kinds/discovery';
import { PARTIAL_METADATA_LIST, PaletteSearchIndex } from './searchIndex';

const roles = discoveredKindConfig({ group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', kind: 'Role', namespaced: true, verbs: ['list'], shortNames: [] });
const leases = discoveredKindConfig({ group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true, verbs: ['list'], shortNames: [] });
const widgets = discoveredKindConfig({ group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: false, verbs: ['list'], shortNames: [] });

function fakeClient(pages: Record<string, ListPage | Error>) {
  const calls: { path: string; limit?: number; accept?: string }[] = [];
  let active = 0;
  let peak = 0;
  const client = {
    async list(path: string, options: { limit?: number; accept?: string }) {
      calls.push({ path, limit: options.limit, accept: options.accept });
      active++;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, 1));
      active--;
      const page = pages[path];
      if (page instanceof Error) throw page;
      return page ?? { items: [], resourceVersion: '1' };
    },
  } as unknown as KubeClient;
  return { client, calls, peak: () => peak };
}

const object = (name: string): KubeObject => ({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name, namespace: 'default' } });

async function settled(index: PaletteSearchIndex): Promise<void> {
  const deadline = Date.now() + 2000;
  while (index.pending > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
}

describe('PaletteSearchIndex', () => {
  it('lists names only, a bounded page per kind, a few kinds at a time', async () => {
    const { client, calls, peak } = fakeClient({ '/apis/rbac.authorization.k8s.io/v1/roles': { items: [object('helm-reader')], resourceVersion: '5', continueToken: 'more' } });
    const index = new PaletteSearchIndex(client, { maxPerKind: 100, concurrency: 2 });
    let notified = 0;
    index.subscribe(() => notified++);
    index.refresh([roles, leases, widgets]);
    expect(index.pending).toBe(3);
    await settled(index);
    expect(calls.map((call) => call.path).sort()).toEqual(['/apis/coordination.k8s.io/v1/leases', '/apis/example.com/v1/widgets', '/apis/rbac.authorization.k8s.io/v1/roles']);
    expect(calls.every((call) => call.limit === 100 && call.accept === PARTIAL_METADATA_LIST)).toBe(true);
    expect(peak()).toBeLessThanOrEqual(2);
    expect(index.get(roles.key)).toMatchObject({ items: [object('helm-reader')], truncated: true });
    expect(notified).toBeGreaterThanOrEqual(4);
  });

  it('does not list a kind again while its listing is fresh, and keeps going past a refused kind', async () => {
    let now = 0;
    const { client, calls } = fakeClient({ '/apis/coordination.k8s.io/v1/leases': new Error('forbidden') });
    const index = new PaletteSearchIndex(client, { freshMs: 1000, now: () => now });
    index.refresh([roles, leases]);
    await settled(index);
    index.refresh([roles, leases]);
    await settled(index);
    expect(calls).toHaveLength(2);
    expect(index.get(leases.key)).toMatchObject({ items: [], truncated: false });
    now = 5000;
    index.refresh([roles]);
    await settled(index);
    expect(calls).toHaveLength(3);
  });
});
