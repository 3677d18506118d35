// Tests of the palette's entries: kinds by short name, objects from the caches, namespaces, ranking.
import { describe, expect, it } from 'vitest';
import { builtinKinds } from '../kinds';
import { emptyCollection } from '../store/watchMerge';
import { rank } from './fuzzy';
import { GROUP_BOOST, kindEntries, namespaceEntries, navigationEntries, objectEntries, objectEntry, themeEntries, type PaletteEntry } from './paletteModel';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'default', resourceVersion: '1' } };
const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'kubedesk', resourceVersion: '1' } };
const collections = {
  pods: { ...emptyCollection, items: { 'default/web-1': pod } },
  nodes: { ...emptyCollection, items: { kubedesk: node } },
};

function search(entries: PaletteEntry[], query: string): string[] {
  return rank(entries, query, (entry) => entry.key, 5, (entry) => GROUP_BOOST[entry.group]).map((result) => result.item.id);
}

describe('palette entries', () => {
  const entries = [...navigationEntries(), ...kindEntries(builtinKinds), ...themeEntries('system'), ...namespaceEntries(['kube-system', 'default'], []), ...objectEntries(collections, builtinKinds)];

  it.each([
    { query: 'deploy', first: 'kind:deployments.apps' },
    { query: 'po', first: 'kind:pods' },
    { query: 'web', first: 'object:pods/default/web-1' },
    { query: 'ns: kube', first: 'ns:kube-system' },
    { query: 'dark', first: 'theme:dark' },
    { query: 'create', first: 'go:create' },
    { query: 'kubedesk node', first: 'object:nodes//kubedesk' },
  ])('puts $first first for "$query"', ({ query, first }) => {
    expect(search(entries, query)[0]).toBe(first);
  });

  it('routes an object to its detail page, without a namespace when cluster-scoped', () => {
    expect(objectEntry(builtinKinds[0], pod).command).toEqual({ type: 'navigate', route: { view: 'detail', kindKey: 'pods', namespace: 'default', name: 'web-1' } });
    const nodes = builtinKinds.find((kind) => kind.key === 'nodes');
    expect(nodes && objectEntry(nodes, node).command).toEqual({ type: 'navigate', route: { view: 'detail', kindKey: 'nodes', name: 'kubedesk' } });
  });

  it('leaves Events out of the objects', () => {
    const event = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'web-1.123', namespace: 'default' } };
    expect(objectEntries({ events: { ...emptyCollection, items: { 'default/web-1.123': event } } }, builtinKinds)).toEqual([]);
  });

  it('reuses the entry of an unchanged object', () => {
    expect(objectEntry(builtinKinds[0], pod)).toBe(objectEntry(builtinKinds[0], pod));
  });

  it('marks the current namespace and theme', () => {
    expect(namespaceEntries(['default'], ['default']).find((entry) => entry.id === 'ns:default')?.detail).toBe('current');
    expect(themeEntries('dark').find((entry) => entry.detail === 'current')?.id).toBe('theme:dark');
  });
});
