import { describe, expect, it } from 'vitest';
import { releaseFromSecret, releaseOf, releaseSecret, type HelmRelease } from '../../shared/helm/releaseStorage';
import type { KubeObject } from '../../shared/kubernetes/types';
import { KubeApiError, type KubeClient, type ListPage } from '../api/kubeClient';
import type { DiscoveredResource } from '../kinds/discovery';
import { releaseHistory, rollbackRelease, uninstallRelease } from './helmReleaseActions';

const discovered: DiscoveredResource[] = [
  { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: [], shortNames: [] },
  { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, verbs: [], shortNames: [] },
  { group: 'batch', version: 'v1', plural: 'jobs', kind: 'Job', namespaced: true, verbs: [], shortNames: [] },
];

interface Write {
  method: string;
  path: string;
  type?: string;
  query?: Record<string, string | undefined>;
}

/** An in-memory API: objects by path, label-selected lists, apply = store the body. */
function fakeApi(options: { failPatch?: (path: string) => Error | undefined } = {}) {
  const fakeOptions = options;
  const objects = new Map<string, KubeObject>();
  const writes: Write[] = [];
  const missing = (path: string) => new KubeApiError(404, 'NotFound', `${path} not found`);
  const client: KubeClient = {
    get: async <T,>(path: string) => {
      const found = objects.get(path);
      if (!found) throw missing(path);
      return found as T;
    },
    list: async <T extends KubeObject>(path: string, options?: { labelSelector?: string }): Promise<ListPage<T>> => {
      const wanted = (options?.labelSelector ?? '').split(',').filter(Boolean).map((term) => term.split('='));
      const items = [...objects.entries()].filter(([key, object]) => key.startsWith(`${path}/`) && wanted.every(([label, value]) => object.metadata.labels?.[label] === value)).map(([, object]) => object);
      return { items: items as T[], resourceVersion: '1' };
    },
    create: async <T,>(path: string, body: unknown, options?: { query?: Record<string, string | undefined> }) => {
      const object = body as KubeObject;
      const key = `${path}/${object.metadata.name}`;
      writes.push({ method: 'POST', path: key, query: options?.query });
      if (objects.has(key)) throw new KubeApiError(409, 'AlreadyExists', 'exists');
      objects.set(key, object);
      return body as T;
    },
    replace: async <T,>(path: string, body: unknown, options?: { query?: Record<string, string | undefined> }) => {
      writes.push({ method: 'PUT', path, query: options?.query });
      objects.set(path, body as KubeObject);
      return body as T;
    },
    patch: async <T,>(path: string, body: unknown, type: string, options?: { query?: Record<string, string | undefined> }) => {
      writes.push({ method: 'PATCH', path, type, query: options?.query });
      const failure = fakeOptions.failPatch?.(path);
      if (failure) throw failure;
      objects.set(path, body as KubeObject);
      return body as T;
    },
    delete: async <T,>(path: string) => {
      writes.push({ method: 'DELETE', path });
      if (!objects.delete(path)) throw missing(path);
      return {} as T;
    },
    text: async () => '',
    watch: () => ({ close() {} }),
    openSocket: () => {
      throw new Error('no sockets');
    },
  };
  return { client, objects, writes };
}

const NS = 'web';
const configMap = (name: string, extra = '') => `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}data:\n  a: b\n`;

function revision(version: number, status: string, manifest: string, hooks: unknown[] = []): HelmRelease {
  return releaseOf({
    name: 'demo',
    namespace: NS,
    version,
    info: { first_deployed: '2026-11-27T06:00:00Z', last_deployed: `2026-11-27T06:0${version}:00Z`, status, description: version === 1 ? 'Install complete' : 'Upgrade complete' },
    chart: { metadata: { name: 'mychart', version: `0.${version}.0` }, values: {} },
    config: { revision: version },
    manifest,
    hooks,
    apply_method: 'ssa',
  });
}

async function seed(api: ReturnType<typeof fakeApi>, releases: HelmRelease[]): Promise<void> {
  for (const release of releases) {
    const secret = await releaseSecret(release, 'create', new Date());
    api.objects.set(`/api/v1/namespaces/${NS}/secrets/${secret.metadata.name}`, secret);
  }
}

const context = (api: ReturnType<typeof fakeApi>) => ({ client: api.client, discovered, now: () => new Date('2026-11-27T07:00:00.000Z'), pause: async () => undefined });

describe('helm rollback from the UI', () => {
  it('writes revision N+1 from the target, applies its objects as helm, prunes the rest and supersedes the old one', async () => {
    const api = fakeApi();
    await seed(api, [revision(1, 'superseded', configMap('one')), revision(2, 'deployed', configMap('one') + configMap('two'))]);
    api.objects.set(`/api/v1/namespaces/${NS}/configmaps/two`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two', namespace: NS } });
    expect(await rollbackRelease(context(api), NS, 'demo', 1)).toBe(3);
    const history = await releaseHistory(api.client, NS, 'demo');
    expect(history.map((release) => [release.version, release.status, release.description])).toEqual([
      [1, 'superseded', 'Install complete'],
      [2, 'superseded', 'Upgrade complete'],
      [3, 'deployed', 'Rollback to 1'],
    ]);
    expect(history[2].config).toEqual({ revision: 1 });
    expect(history[2].chartVersion).toBe('0.1.0');
    expect(history[2].lastDeployed).toBe('2026-11-27T07:00:00.000Z');
    expect(api.writes.find((write) => write.path.endsWith('/configmaps/one'))).toEqual({ method: 'PATCH', path: `/api/v1/namespaces/${NS}/configmaps/one`, type: 'apply', query: { fieldManager: 'helm', force: 'false', fieldValidation: 'Strict' } });
    expect(api.objects.has(`/api/v1/namespaces/${NS}/configmaps/two`)).toBe(false);
    expect(api.objects.get(`/api/v1/namespaces/${NS}/configmaps/one`)?.metadata.annotations).toEqual({ 'meta.helm.sh/release-name': 'demo', 'meta.helm.sh/release-namespace': NS });
  });

  it('marks the new revision failed and the current one superseded when an apply fails, as helm does', async () => {
    const conflict = new KubeApiError(409, 'Conflict', 'Apply failed with 1 conflict: conflict with "kubectl-edit": .data.a');
    const api = fakeApi({ failPatch: (path) => (path.endsWith('/configmaps/one') ? conflict : undefined) });
    await seed(api, [revision(1, 'superseded', configMap('one')), revision(2, 'deployed', configMap('one'))]);
    api.objects.set(`/api/v1/namespaces/${NS}/configmaps/one`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: NS } });
    await expect(rollbackRelease(context(api), NS, 'demo', 1)).rejects.toThrow('Rollback "demo" failed: conflict occurred while applying object web/one /v1, Kind=ConfigMap: Apply failed with 1 conflict');
    expect((await releaseHistory(api.client, NS, 'demo')).map((release) => [release.version, release.status, release.description])).toEqual([
      [1, 'superseded', 'Install complete'],
      [2, 'superseded', 'Upgrade complete'],
      [3, 'failed', 'Rollback "demo" failed: conflict occurred while applying object web/one /v1, Kind=ConfigMap: Apply failed with 1 conflict: conflict with "kubectl-edit": .data.a'],
    ]);
  });

  it('refuses a revision the release does not have with helm words', async () => {
    const api = fakeApi();
    await seed(api, [revision(1, 'deployed', configMap('one'))]);
    await expect(rollbackRelease(context(api), NS, 'demo', 7)).rejects.toThrow('release has no 7 version');
  });

  it('leaves an object annotated with resource-policy keep', async () => {
    const api = fakeApi();
    await seed(api, [revision(1, 'superseded', configMap('one')), revision(2, 'deployed', configMap('one') + configMap('kept'))]);
    api.objects.set(`/api/v1/namespaces/${NS}/configmaps/kept`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: NS, annotations: { 'helm.sh/resource-policy': 'keep' } } });
    await rollbackRelease(context(api), NS, 'demo', 1);
    expect(api.objects.has(`/api/v1/namespaces/${NS}/configmaps/kept`)).toBe(true);
  });

  it('runs pre-rollback hooks, records their last run and deletes them when they succeed', async () => {
    const api = fakeApi();
    const hook = { name: 'check', kind: 'ConfigMap', path: 'mychart/templates/hook.yaml', manifest: configMap('check'), events: ['pre-rollback'], delete_policies: ['hook-succeeded'], last_run: { phase: '' } };
    await seed(api, [revision(1, 'superseded', configMap('one'), [hook]), revision(2, 'deployed', configMap('one'))]);
    await rollbackRelease(context(api), NS, 'demo', 1);
    const [latest] = (await releaseHistory(api.client, NS, 'demo')).slice(-1);
    expect(latest.hooks).toEqual([expect.objectContaining({ name: 'check', last_run: { started_at: '2026-11-27T07:00:00.000Z', completed_at: '2026-11-27T07:00:00.000Z', phase: 'Succeeded' } })]);
    expect(api.writes.filter((write) => write.path.endsWith('/configmaps/check')).map((write) => write.method)).toEqual(['PATCH', 'DELETE']);
    expect(api.objects.has(`/api/v1/namespaces/${NS}/configmaps/check`)).toBe(false);
  });
});

describe('helm uninstall from the UI', () => {
  it('deletes the objects but kept ones, then every revision Secret', async () => {
    const api = fakeApi();
    await seed(api, [revision(1, 'superseded', configMap('one')), revision(2, 'deployed', configMap('one') + configMap('kept', '  annotations:\n    helm.sh/resource-policy: keep\n'))]);
    for (const name of ['one', 'kept']) api.objects.set(`/api/v1/namespaces/${NS}/configmaps/${name}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS } });
    expect(await uninstallRelease(context(api), NS, 'demo')).toEqual(['[ConfigMap] kept']);
    expect([...api.objects.keys()]).toEqual([`/api/v1/namespaces/${NS}/configmaps/kept`]);
  });

  it('keeps the history as uninstalled when asked, as --keep-history', async () => {
    const api = fakeApi();
    await seed(api, [revision(1, 'deployed', configMap('one'))]);
    await uninstallRelease(context(api), NS, 'demo', { keepHistory: true });
    const secret = api.objects.get(`/api/v1/namespaces/${NS}/secrets/sh.helm.release.v1.demo.v1`);
    expect(secret?.metadata.labels?.status).toBe('uninstalled');
    const release = await releaseFromSecret(secret!);
    expect([release.status, release.description, release.deleted]).toEqual(['uninstalled', 'Uninstallation complete', '2026-11-27T07:00:00.000Z']);
    await expect(uninstallRelease(context(api), NS, 'demo', { keepHistory: true })).rejects.toThrow('the release named "demo" is already deleted');
    await uninstallRelease(context(api), NS, 'demo');
    expect(api.objects.size).toBe(0);
  });

  it('brings back a release uninstalled with its history by rolling back, as helm allows', async () => {
    const api = fakeApi();
    await seed(api, [revision(1, 'deployed', configMap('one'))]);
    await uninstallRelease(context(api), NS, 'demo', { keepHistory: true });
    expect(await rollbackRelease(context(api), NS, 'demo', 1)).toBe(2);
    expect((await releaseHistory(api.client, NS, 'demo')).map((release) => [release.version, release.status])).toEqual([
      [1, 'uninstalled'],
      [2, 'deployed'],
    ]);
    expect(api.objects.has(`/api/v1/namespaces/${NS}/configmaps/one`)).toBe(true);
  });
});
