// Tests of the palette's entries: kinds by short name, objects from the caches, namespaces, ranking.
import { describe, expect, it } from 'vitest';
import { builtinKinds } from '../kinds';
import { emptyCollection } from '../store/watchMerge';
import { rank } from './fuzzy';
import { allKinds } from '../kinds';
import type { DiscoveredResource } from '../kinds/discovery';
import { actionEntries, clusterEntries, entryBoost, GROUP_BOOST, kindEntries, kindsToIndex, namespaceEntries, navigationEntries, objectEntries, objectEntry, themeEntries, type PaletteEntry } from './paletteModel';

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
  it('lists an action the object refuses with its reason, marked disabled, and others as runnable', () => {
    const run = async () => undefined;
    const entries = actionEntries(
      [
        { id: 'shell', title: 'Shell', run, disabled: 'container main is not running (waiting: CrashLoopBackOff)' },
        { id: 'logs', title: 'Logs', run },
      ],
      'crasher',
    );
    expect(entries[0]).toMatchObject({ title: 'Shell', detail: 'crasher — container main is not running (waiting: CrashLoopBackOff)', disabled: 'container main is not running (waiting: CrashLoopBackOff)' });
    expect(entries[1].disabled).toBeUndefined();
    expect(entries[1].detail).toBe('crasher');
  });

  const entries = [...navigationEntries(), ...kindEntries(builtinKinds), ...themeEntries('system'), ...namespaceEntries(['kube-system', 'default'], []), ...objectEntries(collections, builtinKinds)];

  it.each([
    { query: 'deploy', first: 'kind:deployments.apps' },
    { query: 'po', first: 'kind:pods' },
    { query: 'web', first: 'object:pods/default/web-1' },
    { query: 'ns: kube', first: 'ns:kube-system' },
    { query: 'dark', first: 'theme:dark' },
    { query: 'create', first: 'go:create' },
    { query: 'snapshot', first: 'go:snapshots' },
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

describe('palette search over every kind', () => {
  const discovered: DiscoveredResource[] = [
    { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true, verbs: ['list', 'watch'], shortNames: ['po'] },
    { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, verbs: ['list'], shortNames: [] },
    { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true, verbs: ['list'], shortNames: ['ev'] },
    { group: '', version: 'v1', plural: 'bindings', kind: 'Binding', namespaced: true, verbs: ['create'], shortNames: [] },
    { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', kind: 'Role', namespaced: true, verbs: ['list'], shortNames: [] },
    { group: 'metrics.k8s.io', version: 'v1beta1', plural: 'pods', kind: 'PodMetrics', namespaced: true, verbs: ['get', 'list'], shortNames: [] },
  ];
  const kinds = allKinds([], discovered);
  const search = (entries: PaletteEntry[], query: string) => rank(entries, query, (entry) => entry.key, 10, (entry) => entryBoost(entry, query)).map((result) => result.item.id);

  it('lists on demand every listable kind no watch holds, but not Events or metrics', () => {
    const keys = kindsToIndex(kinds, discovered, { pods: { ...emptyCollection, phase: 'ready' } }).map((kind) => kind.key);
    expect(keys).toContain('roles.rbac.authorization.k8s.io');
    expect(keys).toContain('secrets');
    expect(keys).not.toContain('pods');
    expect(keys).not.toContain('events');
    expect(keys).not.toContain('bindings');
    expect(keys).not.toContain('pods.metrics.k8s.io');
  });

  it('finds objects of kinds never opened, from what the index listed, and routes to them', () => {
    const role = { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'helm-reader', namespace: 'team' } };
    const entries = objectEntries({}, kinds, (key) => (key === 'roles.rbac.authorization.k8s.io' ? [role] : undefined));
    expect(entries.map((entry) => entry.id)).toEqual(['object:roles.rbac.authorization.k8s.io/team/helm-reader']);
    expect(entries[0].command).toEqual({ type: 'navigate', route: { view: 'detail', kindKey: 'roles.rbac.authorization.k8s.io', namespace: 'team', name: 'helm-reader' } });
  });

  it('does not match "helm" to the theme entries, and ranks helm objects by match quality', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sh.helm.release.v1.web.v1', namespace: 'default' } };
    const values = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'helm', namespace: 'default' } };
    const entries = [...themeEntries('system'), ...navigationEntries(), ...kindEntries(kinds), ...objectEntries({ secrets: { ...emptyCollection, phase: 'ready', items: { 'default/a': secret, 'default/b': values } } }, kinds)];
    const found = search(entries, 'helm');
    expect(found.some((id) => id.startsWith('theme:'))).toBe(false);
    expect(found).toEqual(['object:secrets/default/helm', 'object:secrets/default/sh.helm.release.v1.web.v1']);
  });

  it('puts the object whose name is exactly the query first', () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' } };
    const podObjects = Object.fromEntries(['web-7d9f-abcde', 'web-7d9f-fghij', 'webhook-0'].map((name) => [`default/${name}`, { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' } }]));
    const entries = objectEntries({ pods: { ...emptyCollection, phase: 'ready', items: podObjects }, 'deployments.apps': { ...emptyCollection, phase: 'ready', items: { 'default/web': deployment } } }, kinds);
    expect(search(entries, 'web')[0]).toBe('object:deployments.apps/default/web');
    expect(search(entries, 'web').at(-1)).toBe('object:pods/default/webhook-0');
  });
});

describe('clusterEntries', () => {
  const cluster = (name: string, self = false) => ({ name, cluster: name, user: name, server: `https://${name}.example:6443`, insecure: false, authKind: 'token' as const, current: false, self, basePath: self ? '' : `/ui/clusters/${name}`, readOnly: false });

  it('offers to switch to every other cluster in the picker’s order, the serving one as itself', () => {
    const entries = clusterEntries([cluster('prod'), cluster('kubedesk', true), cluster('kubedesk-b')], 'prod');
    expect(entries.map((entry) => entry.title)).toEqual(['Switch to cluster kubedesk (this cluster)', 'Switch to cluster kubedesk-b']);
    expect(entries.map((entry) => entry.command)).toEqual([
      { type: 'cluster', cluster: '' },
      { type: 'cluster', cluster: 'kubedesk-b' },
    ]);
    expect(entries[1].detail).toBe('Local kubedesk cluster — kubedesk-b.example:6443');
  });

  it('is found by the context name or the server', () => {
    const entries = clusterEntries([cluster('kubedesk', true), cluster('staging')], '');
    expect(entries).toHaveLength(1);
    expect(entries[0].key).toContain('staging.example');
    expect(entries[0].key).toContain('switch to cluster staging');
  });
});
