import { describe, expect, it } from 'vitest';
import { inMemoryApiServerPerTest, parseReply as parse } from '../../test/fixtures/inMemoryApiServer';
import type { KubeObject, WatchEventType } from '../../shared/kubernetes/types';

const server = inMemoryApiServerPerTest({ namespaces: ['default'] });
const { request } = server;

const configMap = (name: string, data: Record<string, string> = { a: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('ApiServer', () => {
  it('creates and gets an object with server-set metadata', async () => {
    const created = await request('POST', '/api/v1/namespaces/default/configmaps', configMap('one'));
    expect(created.status).toBe(201);
    const body = parse(created);
    expect(body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(body.metadata.namespace).toBe('default');
    const got = parse(await request('GET', '/api/v1/namespaces/default/configmaps/one'));
    expect(got.data).toEqual({ a: '1' });
  });

  it('answers AlreadyExists and NotFound with upstream Status bodies', async () => {
    await request('POST', '/api/v1/namespaces/default/configmaps', configMap('one'));
    const again = await request('POST', '/api/v1/namespaces/default/configmaps', configMap('one'));
    expect(again.status).toBe(409);
    expect(parse(again)).toMatchObject({ kind: 'Status', reason: 'AlreadyExists', message: 'configmaps "one" already exists', code: 409 });
    const missing = await request('GET', '/apis/apps/v1/namespaces/default/deployments/web');
    expect(parse(missing)).toMatchObject({ reason: 'NotFound', message: 'deployments.apps "web" not found', details: { name: 'web', group: 'apps', kind: 'deployments' } });
  });

  it('rejects a stale resourceVersion on update with Conflict', async () => {
    const created = parse(await request('POST', '/api/v1/namespaces/default/configmaps', configMap('one')));
    const updated = await request('PUT', '/api/v1/namespaces/default/configmaps/one', { ...created, data: { a: '2' } });
    expect(updated.status).toBe(200);
    const stale = await request('PUT', '/api/v1/namespaces/default/configmaps/one', { ...created, data: { a: '3' } });
    expect(stale.status).toBe(409);
    expect(parse(stale).message).toBe('Operation cannot be fulfilled on configmaps "one": the object has been modified; please apply your changes to the latest version and try again');
  });

  it('bumps generation only on spec changes', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'busybox' }] } } },
    };
    const created = parse(await request('POST', '/apis/apps/v1/namespaces/default/deployments', deployment));
    expect(created.metadata.generation).toBe(1);
    expect(created.spec.replicas).toBe(1);
    const labelled = parse(await request('PATCH', '/apis/apps/v1/namespaces/default/deployments/web', { metadata: { labels: { x: 'y' } } }, { 'content-type': 'application/merge-patch+json' }));
    expect(labelled.metadata.generation).toBe(1);
    const scaled = parse(await request('PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale', { spec: { replicas: 3 } }, { 'content-type': 'application/merge-patch+json' }));
    expect(scaled).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 3 }, status: { selector: 'app=web' } });
    const after = parse(await request('GET', '/apis/apps/v1/namespaces/default/deployments/web'));
    expect(after.metadata.generation).toBe(2);
  });

  it('keeps status on main-resource updates and spec on status updates', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] }, status: { phase: 'Running' } };
    const created = parse(await request('POST', '/api/v1/namespaces/default/pods', pod));
    expect(created.status.phase).toBe('Pending');
    const status = parse(await request('PATCH', '/api/v1/namespaces/default/pods/p/status', { status: { phase: 'Running' }, spec: { nodeName: 'x' } }, { 'content-type': 'application/merge-patch+json' }));
    expect(status.status.phase).toBe('Running');
    expect(status.spec.nodeName).toBeUndefined();
    const relabelled = parse(await request('PATCH', '/api/v1/namespaces/default/pods/p', { metadata: { labels: { a: 'b' } }, status: { phase: 'Failed' } }, { 'content-type': 'application/merge-patch+json' }));
    expect(relabelled.status.phase).toBe('Running');
  });

  it('serves Tables with upstream columns when asked', async () => {
    await request('POST', '/api/v1/namespaces/default/configmaps', configMap('one', { a: '1', b: '2' }));
    const reply = parse(await request('GET', '/api/v1/namespaces/default/configmaps?limit=500', undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' }));
    expect(reply.kind).toBe('Table');
    expect(reply.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Name', 'Data', 'Age']);
    expect(reply.rows[0].cells.slice(0, 2)).toEqual(['one', 2]);
    expect(reply.rows[0].object.kind).toBe('PartialObjectMetadata');
  });

  it('filters by label and field selectors and pages with continue', async () => {
    for (let i = 0; i < 5; i++) {
      await request('POST', '/api/v1/namespaces/default/configmaps', { ...configMap(`c${i}`), metadata: { name: `c${i}`, labels: { parity: i % 2 ? 'odd' : 'even' } } });
    }
    const even = parse(await request('GET', '/api/v1/namespaces/default/configmaps?labelSelector=parity%3Deven'));
    expect(even.items.map((item: KubeObject) => item.metadata.name)).toEqual(['c0', 'c2', 'c4']);
    const named = parse(await request('GET', '/api/v1/configmaps?fieldSelector=metadata.name%3Dc3'));
    expect(named.items).toHaveLength(1);
    const bad = await request('GET', '/api/v1/configmaps?fieldSelector=spec.nothing%3Dx');
    expect(bad.status).toBe(400);
    const first = parse(await request('GET', '/api/v1/namespaces/default/configmaps?limit=2'));
    expect(first.items).toHaveLength(2);
    expect(first.metadata.continue).toBeTruthy();
    const second = parse(await request('GET', `/api/v1/namespaces/default/configmaps?limit=2&continue=${first.metadata.continue}`));
    expect(second.items.map((item: KubeObject) => item.metadata.name)).toEqual(['c2', 'c3']);
  });

  it('keeps an object with finalizers until they are removed', async () => {
    await request('POST', '/api/v1/namespaces/default/configmaps', { ...configMap('held'), metadata: { name: 'held', finalizers: ['example.com/x'] } });
    const deleted = await request('DELETE', '/api/v1/namespaces/default/configmaps/held');
    expect(deleted.status).toBe(200);
    expect(parse(deleted).metadata.deletionTimestamp).toBeTruthy();
    const released = await request('PATCH', '/api/v1/namespaces/default/configmaps/held', { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
    expect(released.status).toBe(200);
    expect((await request('GET', '/api/v1/namespaces/default/configmaps/held')).status).toBe(404);
  });

  it('changes nothing on dry run', async () => {
    const reply = await request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', configMap('dry'));
    expect(reply.status).toBe(201);
    expect((await request('GET', '/api/v1/namespaces/default/configmaps/dry')).status).toBe(404);
  });

  it('rejects unknown fields under fieldValidation=Strict and type errors always', async () => {
    const strict = await request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { ...configMap('x'), bogus: 1 });
    expect(strict.status).toBe(400);
    expect(parse(strict).message).toContain('unknown field "bogus"');
    const warned = await request('POST', '/api/v1/namespaces/default/configmaps', { ...configMap('y'), bogus: 1 });
    expect(warned.status).toBe(201);
    expect(warned.headers['Warning']).toContain('unknown field');
    const typed = await request('POST', '/apis/apps/v1/namespaces/default/deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 'three' } });
    expect(typed.status).toBe(400);
  });

  it('drops unknown fields when validation is not strict, as decoding into Go types does', async () => {
    const reply = await request('POST', '/api/v1/namespaces?fieldValidation=Ignore', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'extra' }, data: { foo: 'bar' } });
    expect(reply.status).toBe(201);
    expect(parse(reply).data).toBeUndefined();
    expect(parse(await request('GET', '/api/v1/namespaces/extra')).data).toBeUndefined();
  });

  it('refuses documents nested too deeply with a 400, not a crash', async () => {
    const deep = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":' + '{"a":'.repeat(20000) + '"x"' + '}'.repeat(20000) + '}';
    const reply = await request('POST', '/api/v1/namespaces/default/configmaps', deep);
    expect(reply.status).toBe(400);
    expect(parse(reply).message).toContain('exceeded max depth');
    const array = await request('POST', '/api/v1/namespaces/default/configmaps', '['.repeat(20000) + ']'.repeat(20000));
    expect(array.status).toBe(400);
  });

  it('streams watch events with the initial-events-end bookmark', async () => {
    await request('POST', '/api/v1/namespaces/default/configmaps', configMap('before'));
    const reply = await server.api.handle({
      method: 'GET',
      path: '/api/v1/namespaces/default/configmaps',
      query: new URLSearchParams('watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true'),
      headers: {},
    });
    if (!('watch' in reply)) throw new Error(`expected a watch, got ${reply.status} ${reply.body}`);
    const events: { type: WatchEventType; object: KubeObject }[] = [];
    const handle = reply.watch({ send: (type, object) => events.push({ type, object }), close: () => undefined });
    await request('POST', '/api/v1/namespaces/default/configmaps', configMap('after'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    handle.dispose();
    expect(events.map((event) => `${event.type}:${event.object.metadata.name ?? ''}`)).toEqual(['ADDED:before', 'BOOKMARK:', 'ADDED:after']);
    expect(events[1].object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });

  it('serves legacy and aggregated discovery', async () => {
    const legacy = parse(await request('GET', '/apis/apps/v1'));
    expect(legacy.resources.find((resource: { name: string }) => resource.name === 'deployments')).toMatchObject({ shortNames: ['deploy'], categories: ['all'], namespaced: true });
    const aggregated = await request('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' });
    expect(aggregated.headers['Content-Type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(parse(aggregated).items.map((item: { metadata: { name: string } }) => item.metadata.name)).toContain('apps');
  });
});

describe('ApiServer requester', () => {
  it('hands the requesting user to the strategy on create (CSR spec.username and groups)', async () => {
    const pem = Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n').toString('base64');
    const body = { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'mine' }, spec: { request: pem, signerName: 'example.com/signer', usages: ['client auth'], username: 'mallory', groups: ['system:masters'] } };
    const reply = await server.api.handle({ method: 'POST', path: '/apis/certificates.k8s.io/v1/certificatesigningrequests', query: new URLSearchParams(), headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)), user: { name: 'jane', groups: ['developers', 'system:authenticated'] } });
    if ('watch' in reply) throw new Error('unexpected watch reply');
    expect(reply.status).toBe(201);
    expect(parse(reply).spec).toMatchObject({ username: 'jane', groups: ['developers', 'system:authenticated'] });
  });
});

describe('ApiServer delete propagation', () => {
  const deleteWith = (name: string, options: Record<string, unknown> | undefined, query = '') =>
    request('DELETE', `/api/v1/namespaces/default/configmaps/${name}${query}`, options === undefined ? undefined : { kind: 'DeleteOptions', apiVersion: 'v1', ...options });

  it.each([
    { policy: 'Orphan', options: { propagationPolicy: 'Orphan' }, query: '', finalizers: ['orphan'] },
    { policy: 'Foreground', options: { propagationPolicy: 'Foreground' }, query: '', finalizers: ['foregroundDeletion'] },
    { policy: 'legacy orphanDependents=true in the body', options: { orphanDependents: true }, query: '', finalizers: ['orphan'] },
    { policy: 'legacy orphanDependents=true in the query', options: undefined, query: '?orphanDependents=true', finalizers: ['orphan'] },
    { policy: 'Foreground in the query', options: undefined, query: '?propagationPolicy=Foreground', finalizers: ['foregroundDeletion'] },
  ])('keeps an object deleted with $policy, marked with the matching finalizer', async ({ options, query, finalizers }) => {
    await request('POST', '/api/v1/namespaces/default/configmaps', configMap('owner'));
    const deleted = parse(await deleteWith('owner', options, query));
    expect(deleted.metadata.deletionTimestamp).toBeTruthy();
    expect(deleted.metadata.finalizers).toEqual(finalizers);
    const got = parse(await request('GET', '/api/v1/namespaces/default/configmaps/owner'));
    expect(got.metadata.finalizers).toEqual(finalizers);
  });

  it.each([
    { policy: 'no options', options: undefined },
    { policy: 'Background', options: { propagationPolicy: 'Background' } },
    { policy: 'orphanDependents=false', options: { orphanDependents: false } },
  ])('deletes an object at once with $policy', async ({ options }) => {
    await request('POST', '/api/v1/namespaces/default/configmaps', configMap('owner'));
    const deleted = parse(await deleteWith('owner', options));
    expect(deleted.kind).toBe('Status');
    expect((await request('GET', '/api/v1/namespaces/default/configmaps/owner')).status).toBe(404);
  });

  it('keeps other finalizers in order and swaps orphan for foregroundDeletion on a second delete', async () => {
    await request('POST', '/api/v1/namespaces/default/configmaps', { ...configMap('owner'), metadata: { name: 'owner', finalizers: ['example.com/a', 'example.com/b'] } });
    const orphaned = parse(await deleteWith('owner', { propagationPolicy: 'Orphan' }));
    expect(orphaned.metadata.finalizers).toEqual(['example.com/a', 'example.com/b', 'orphan']);
    const foreground = parse(await deleteWith('owner', { propagationPolicy: 'Foreground' }));
    expect(foreground.metadata.finalizers).toEqual(['example.com/a', 'example.com/b', 'foregroundDeletion']);
    expect(foreground.metadata.deletionTimestamp).toBe(orphaned.metadata.deletionTimestamp);
  });

  it('honours a garbage-collection finalizer already present when no policy is given, and Background removes it', async () => {
    await request('POST', '/api/v1/namespaces/default/configmaps', configMap('owner'));
    await deleteWith('owner', { propagationPolicy: 'Orphan' });
    const again = parse(await deleteWith('owner', undefined));
    expect(again.metadata.finalizers).toEqual(['orphan']);
    const background = parse(await deleteWith('owner', { propagationPolicy: 'Background' }));
    expect(background.kind).toBe('Status');
    expect((await request('GET', '/api/v1/namespaces/default/configmaps/owner')).status).toBe(404);
  });

  it('adds the finalizer to a pod being deleted gracefully', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] } };
    await request('POST', '/api/v1/namespaces/default/pods', pod);
    const deleted = parse(await request('DELETE', '/api/v1/namespaces/default/pods/p', { propagationPolicy: 'Foreground' }));
    expect(deleted.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(deleted.metadata.deletionGracePeriodSeconds).toBe(30);
    const forced = parse(await request('DELETE', '/api/v1/namespaces/default/pods/p', { gracePeriodSeconds: 0 }));
    expect(forced.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(forced.metadata.deletionGracePeriodSeconds).toBe(0);
  });

  it('orphans the dependents of a ReplicationController deleted without a policy (its kind default), and Background deletes it at once', async () => {
    const rc = (name: string) => ({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name }, spec: { template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } });
    await request('POST', '/api/v1/namespaces/default/replicationcontrollers', rc('old'));
    await request('POST', '/api/v1/namespaces/default/replicationcontrollers', rc('new'));
    const orphaned = parse(await request('DELETE', '/api/v1/namespaces/default/replicationcontrollers/old'));
    expect(orphaned.metadata.finalizers).toEqual(['orphan']);
    const background = parse(await request('DELETE', '/api/v1/namespaces/default/replicationcontrollers/new', { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' }));
    expect(background.kind).toBe('Status');
  });

  it('rejects orphanDependents together with propagationPolicy as upstream validation does', async () => {
    await request('POST', '/api/v1/namespaces/default/configmaps', configMap('owner'));
    const reply = await deleteWith('owner', { orphanDependents: true, propagationPolicy: 'Orphan' });
    expect(reply.status).toBe(422);
    expect(parse(reply).message).toContain('orphanDependents and deletionPropagation cannot be both set');
  });
});
