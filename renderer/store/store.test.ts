import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { CLUSTER_KEY, createAppStore, DEFAULT_SETTINGS, readSettings, type Preferences } from './store';

function memoryPreferences(initial: Record<string, string> = {}): Preferences & { values: Map<string, string> } {
  const values = new Map(Object.entries(initial));
  return { values, get: (key) => values.get(key) ?? null, set: (key, value) => void values.set(key, value) };
}

const pod = (name: string, resourceVersion: string): KubeObject => ({ metadata: { name, namespace: 'default', resourceVersion } });

describe('the app store', () => {
  it('fills a collection from list pages and applies watch events to it', () => {
    const store = createAppStore({ preferences: memoryPreferences() });
    store.getState().listPage('pods', [pod('a', '1')], '1', true, true);
    store.getState().applyEvents('pods', [{ type: 'ADDED', object: pod('b', '2') }]);
    expect(Object.keys(store.getState().collections.pods.items).sort()).toEqual(['default/a', 'default/b']);
  });

  it('ignores events for a kind that was never listed', () => {
    const store = createAppStore({ preferences: memoryPreferences() });
    store.getState().applyEvents('pods', [{ type: 'ADDED', object: pod('b', '2') }]);
    expect(store.getState().collections.pods).toBeUndefined();
  });

  it('does not notify subscribers when events change nothing', () => {
    const store = createAppStore({ preferences: memoryPreferences() });
    store.getState().listPage('pods', [pod('a', '1')], '1', true, true);
    let notified = 0;
    store.subscribe(() => notified++);
    store.getState().applyEvents('pods', [{ type: 'ADDED', object: pod('a', '1') }]);
    expect(notified).toBe(0);
  });

  it('marks a failed collection with the error and keeps its items', () => {
    const store = createAppStore({ preferences: memoryPreferences() });
    store.getState().listPage('pods', [pod('a', '1')], '1', true, true);
    store.getState().collectionFailed('pods', 'forbidden');
    expect(store.getState().collections.pods).toMatchObject({ phase: 'error', error: 'forbidden' });
    expect(Object.keys(store.getState().collections.pods.items)).toEqual(['default/a']);
  });

  it('remembers the namespace selection, sorted and without duplicates', () => {
    const preferences = memoryPreferences();
    const store = createAppStore({ preferences });
    store.getState().setNamespaces(['web', 'default', 'web']);
    expect(store.getState().selectedNamespaces).toEqual(['default', 'web']);
    expect(createAppStore({ preferences }).getState().selectedNamespaces).toEqual(['default', 'web']);
  });

  it('survives a garbled remembered selection', () => {
    expect(createAppStore({ preferences: memoryPreferences({ 'kubedesk.namespaces': '{nope' }) }).getState().selectedNamespaces).toEqual([]);
  });

  it('navigates and reports the new hash, and follows hash changes from the browser', () => {
    const hashes: string[] = [];
    const store = createAppStore({ preferences: memoryPreferences(), initialHash: '#/pods', onNavigate: (hash) => hashes.push(hash) });
    expect(store.getState().route).toEqual({ view: 'list', kindKey: 'pods' });
    store.getState().navigate({ view: 'detail', kindKey: 'pods', namespace: 'default', name: 'a' });
    expect(hashes).toEqual(['#/pods/default/a']);
    store.getState().routeChanged('#/overview');
    expect(store.getState().route).toEqual({ view: 'overview' });
  });

  it('opens dock tabs once, activates them, and picks a neighbour when the active tab closes', () => {
    const store = createAppStore({ preferences: memoryPreferences() });
    const shell = { id: 'shell:a', type: 'shell' as const, namespace: 'default', pod: 'a', title: 'a' };
    const logs = { id: 'logs:a', type: 'logs' as const, namespace: 'default', pods: ['a'], title: 'a logs' };
    store.getState().openDockTab(shell);
    store.getState().openDockTab(logs);
    store.getState().openDockTab(shell);
    expect(store.getState().dockTabs.map((tab) => tab.id)).toEqual(['shell:a', 'logs:a']);
    expect(store.getState().activeDockTab).toBe('shell:a');
    store.getState().closeDockTab('shell:a');
    expect(store.getState().activeDockTab).toBe('logs:a');
    store.getState().closeDockTab('logs:a');
    expect(store.getState()).toMatchObject({ dockTabs: [], activeDockTab: undefined, dockOpen: false });
  });

  it('remembers the theme and tracks tasks and notices', () => {
    const preferences = memoryPreferences();
    const store = createAppStore({ preferences });
    store.getState().setTheme('dark');
    expect(createAppStore({ preferences }).getState().theme).toBe('dark');
    const task = store.getState().startTask('Draining node');
    store.getState().updateTask(task, 0.5);
    expect(store.getState().tasks).toEqual([{ id: task, title: 'Draining node', progress: 0.5 }]);
    store.getState().finishTask(task);
    expect(store.getState().tasks).toEqual([]);
    for (let index = 0; index < 7; index++) store.getState().notify('info', `n${index}`);
    expect(store.getState().notices.map((notice) => notice.text)).toEqual(['n2', 'n3', 'n4', 'n5', 'n6']);
  });

  it('remembers the dock’s tabs, the active one, whether it is open and its height across a reload', () => {
    const preferences = memoryPreferences();
    const store = createAppStore({ preferences });
    store.getState().openDockTab({ id: 'shell:a', type: 'shell', namespace: 'default', pod: 'a', container: 'app', title: 'sh a' });
    store.getState().openDockTab({ id: 'logs:a', type: 'logs', namespace: 'default', pods: ['a', 'b'], title: 'logs a' });
    store.getState().setActiveDockTab('shell:a');
    store.getState().setDockOpen(false);
    store.getState().setDockHeight(333.4);
    const reloaded = createAppStore({ preferences }).getState();
    expect(reloaded.dockTabs.map((tab) => tab.id)).toEqual(['shell:a', 'logs:a']);
    expect(reloaded.dockTabs[1]).toEqual({ id: 'logs:a', type: 'logs', namespace: 'default', pods: ['a', 'b'], title: 'logs a' });
    expect(reloaded).toMatchObject({ activeDockTab: 'shell:a', dockOpen: false, dockHeight: 333 });
  });

  it('keeps the dock’s tabs per browser tab: another window does not reopen them', () => {
    const preferences = memoryPreferences();
    const firstTab = memoryPreferences();
    createAppStore({ preferences, tabState: firstTab }).getState().openDockTab({ id: 'shell:a', type: 'shell', namespace: 'default', pod: 'a', title: 'sh a' });
    expect(createAppStore({ preferences, tabState: firstTab }).getState().dockTabs.map((tab) => tab.id)).toEqual(['shell:a']);
    expect(createAppStore({ preferences, tabState: memoryPreferences() }).getState().dockTabs).toEqual([]);
  });

  it('restores no dock when the settings say so, and survives a garbled one', () => {
    const preferences = memoryPreferences({ 'kubedesk.dock': '{"tabs":[{"id":"x","type":"rocket"},{"id":"s","type":"shell","namespace":"n","pod":"p","title":"t"}],"active":"gone","open":true}' });
    const restored = createAppStore({ preferences }).getState();
    expect(restored.dockTabs.map((tab) => tab.id)).toEqual(['s']);
    expect(restored).toMatchObject({ activeDockTab: 's', dockOpen: true, dockHeight: 260 });
    restored.updateSettings({ restoreDock: false });
    expect(createAppStore({ preferences }).getState().dockTabs).toEqual([]);
    expect(createAppStore({ preferences: memoryPreferences({ 'kubedesk.dock': '{oops', 'kubedesk.dockHeight': '12' }) }).getState()).toMatchObject({ dockTabs: [], dockHeight: 260 });
  });

  it('adds a tab without expanding the dock when the settings ask so', () => {
    const store = createAppStore({ preferences: memoryPreferences() });
    store.getState().updateSettings({ expandDockOnOpen: false });
    store.getState().openDockTab({ id: 'logs:a', type: 'logs', namespace: 'default', pods: ['a'], title: 'logs a' });
    expect(store.getState()).toMatchObject({ activeDockTab: 'logs:a', dockOpen: false });
  });

  it('starts in the default namespace the settings name, else all, else the last selection', () => {
    const preferences = memoryPreferences({ 'kubedesk.namespaces': '["web"]' });
    expect(createAppStore({ preferences }).getState().selectedNamespaces).toEqual(['web']);
    createAppStore({ preferences }).getState().updateSettings({ defaultNamespace: 'kube-system' });
    expect(createAppStore({ preferences }).getState().selectedNamespaces).toEqual(['kube-system']);
    createAppStore({ preferences }).getState().updateSettings({ defaultNamespace: '*' });
    expect(createAppStore({ preferences }).getState().selectedNamespaces).toEqual([]);
    expect(readSettings(memoryPreferences({ 'kubedesk.settings': '{"restoreDock":"yes","defaultNamespace":7}' }))).toEqual(DEFAULT_SETTINGS);
  });
});

describe('the window’s cluster', () => {
  it('starts on the serving cluster, or on the cluster this tab chose, or on the one the hash names', () => {
    expect(createAppStore({ preferences: memoryPreferences() }).getState().cluster).toBe('');
    expect(createAppStore({ preferences: memoryPreferences(), tabState: memoryPreferences({ [CLUSTER_KEY]: 'prod' }) }).getState().cluster).toBe('prod');
    const tabState = memoryPreferences({ [CLUSTER_KEY]: 'prod' });
    const store = createAppStore({ preferences: memoryPreferences(), tabState, initialHash: '#/c/lab/pods' });
    expect(store.getState().cluster).toBe('lab');
    expect(store.getState().route).toEqual({ view: 'list', kindKey: 'pods' });
    expect(tabState.values.get(CLUSTER_KEY)).toBe('lab');
  });

  it('drops the caches, discovery, filters and dock tabs of the previous cluster when switching, and says so in the hash', () => {
    const hashes: string[] = [];
    const tabState = memoryPreferences();
    const store = createAppStore({ preferences: memoryPreferences(), tabState, initialHash: '#/pods/default/a', onNavigate: (hash) => hashes.push(hash) });
    const state = store.getState();
    state.listPage('pods', [pod('a', '1')], '1', true, true);
    state.setDiscovered([{ group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true, verbs: [], shortNames: [] }]);
    state.setListFilter('pods', 'web');
    state.openDockTab({ id: 'shell-a', type: 'shell', namespace: 'default', pod: 'a', title: 'a' });
    state.setConnection({ state: 'offline', attempts: 2, lostAt: 1 });
    state.setClusterStatus({ state: 'connected', message: '', kubedesk: true, warnings: [] });
    store.getState().switchCluster('prod');
    const after = store.getState();
    expect(after.cluster).toBe('prod');
    expect(after.collections).toEqual({});
    expect(after.discovered).toEqual([]);
    expect(after.discoveryLoaded).toBe(false);
    expect(after.listFilters).toEqual({});
    expect(after.dockTabs).toEqual([]);
    expect(after.connection).toEqual({ state: 'online', attempts: 0 });
    expect(after.clusterStatus).toBeUndefined();
    expect(after.route).toEqual({ view: 'list', kindKey: 'pods' });
    expect(hashes).toEqual(['#/c/prod/pods']);
    expect(tabState.values.get(CLUSTER_KEY)).toBe('prod');
    after.navigate({ view: 'settings' });
    expect(hashes[1]).toBe('#/c/prod/settings');
    store.getState().switchCluster('');
    expect(hashes[2]).toBe('#/settings');
  });

  it('remembers the namespaces per cluster', () => {
    const preferences = memoryPreferences();
    const store = createAppStore({ preferences, tabState: memoryPreferences() });
    store.getState().setNamespaces(['default']);
    store.getState().switchCluster('prod');
    expect(store.getState().selectedNamespaces).toEqual([]);
    store.getState().setNamespaces(['payments', 'billing']);
    store.getState().switchCluster('');
    expect(store.getState().selectedNamespaces).toEqual(['default']);
    store.getState().switchCluster('prod');
    expect(store.getState().selectedNamespaces).toEqual(['billing', 'payments']);
  });

  it('follows a hash that names another cluster, opening the route it names there', () => {
    const store = createAppStore({ preferences: memoryPreferences(), tabState: memoryPreferences() });
    store.getState().listPage('pods', [pod('a', '1')], '1', true, true);
    store.getState().routeChanged('#/c/prod/deployments.apps/default/web');
    expect(store.getState().cluster).toBe('prod');
    expect(store.getState().collections).toEqual({});
    expect(store.getState().route).toEqual({ view: 'detail', kindKey: 'deployments.apps', namespace: 'default', name: 'web' });
    // a plain link keeps the window on its cluster
    store.getState().routeChanged('#/pods');
    expect(store.getState().cluster).toBe('prod');
    expect(store.getState().route).toEqual({ view: 'list', kindKey: 'pods' });
  });

  it('counts a choice of the serving cluster’s own context as the serving cluster', () => {
    const store = createAppStore({ preferences: memoryPreferences(), tabState: memoryPreferences(), initialHash: '#/c/kubedesk/pods' });
    expect(store.getState().cluster).toBe('kubedesk');
    store.getState().setClusterList({ self: 'kubedesk', kubeconfigFiles: [], clusters: [] });
    expect(store.getState().cluster).toBe('');
    expect(store.getState().route).toEqual({ view: 'list', kindKey: 'pods' });
  });
});
