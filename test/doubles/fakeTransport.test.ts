import { describe, expect, it } from 'vitest';
import type { KubeObject, WatchEvent } from '../../shared/kubernetes/types';
import { ApiClient } from '../../main/client/apiClient';
import { ClientApiError } from '../../main/client/errors';
import { resources } from '../../main/client/resources';
import { applyMergePatch, FakeTransport, matchesFieldSelector, matchesLabelSelector, parseResourcePath } from './fakeTransport';

describe('fake transport helpers', () => {
  it.each([
    ['/api/v1/namespaces/a/pods/p/status', { group: '', version: 'v1', resource: 'pods', namespace: 'a', name: 'p', subresource: 'status' }],
    ['/api/v1/namespaces/a', { group: '', version: 'v1', resource: 'namespaces', name: 'a' }],
    ['/api/v1/namespaces/a/finalize', { group: '', version: 'v1', resource: 'namespaces', name: 'a', subresource: 'finalize' }],
    ['/apis/apps/v1/deployments', { group: 'apps', version: 'v1', resource: 'deployments' }],
    ['/api/v1/nodes/n%201', { group: '', version: 'v1', resource: 'nodes', name: 'n 1' }],
  ])('parses %s', (path, expected) => {
    expect(parseResourcePath(path)).toMatchObject(expected);
  });

  it.each([
    ['', {}, true],
    ['app=web', { app: 'web' }, true],
    ['app==web,tier!=db', { app: 'web', tier: 'front' }, true],
    ['app!=web', {}, true],
    ['app', { app: '' }, true],
    ['!app', { app: 'x' }, false],
    ['env in (a, b),app notin (x)', { env: 'b', app: 'y' }, true],
    ['env in (a,b)', { env: 'c' }, false],
  ])('matches label selector %j against %j: %s', (selector, labels, expected) => {
    expect(matchesLabelSelector(selector, labels)).toBe(expected);
  });

  it.each([
    ['metadata.name=a', true],
    ['spec.nodeName=n1,metadata.namespace!=x', true],
    ['spec.nodeName=', false],
    ['status.phase=Running', false],
  ])('matches field selector %j: %s', (selector, expected) => {
    expect(matchesFieldSelector(selector, { metadata: { name: 'a', namespace: 'ns' }, spec: { nodeName: 'n1' } })).toBe(expected);
  });

  it('applies a JSON merge patch, removing fields set to null', () => {
    expect(applyMergePatch({ a: { b: 1, c: 2 }, d: [1] }, { a: { b: null, e: 3 }, d: [2] })).toEqual({ a: { c: 2, e: 3 }, d: [2] });
  });
});

describe('fake transport patches', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] },
            { name: 'sidecar', image: 'sidecar:1' },
          ],
        },
      },
    },
  };

  async function seeded(): Promise<{ transport: FakeTransport; client: ApiClient }> {
    const transport = new FakeTransport();
    transport.seed(resources.deployments, structuredClone(deployment));
    return { transport, client: new ApiClient(transport) };
  }

  function containersOf(object: KubeObject): unknown {
    return (object.spec as { template: { spec: { containers: unknown } } }).template.spec.containers;
  }

  it('merges a strategic patch of a container list by container name, as the API server does', async () => {
    const { client } = await seeded();
    const patched = await client.resource(resources.deployments).patch('default', 'web', { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'sidecar:2' }] } } } }, 'strategic');
    expect(containersOf(patched)).toEqual([
      { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] },
      { name: 'sidecar', image: 'sidecar:2' },
    ]);
  });

  it('replaces the list for a JSON merge patch of the same body', async () => {
    const { client } = await seeded();
    const patched = await client.resource(resources.deployments).patch('default', 'web', { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'sidecar:2' }] } } } }, 'merge');
    expect(containersOf(patched)).toEqual([{ name: 'sidecar', image: 'sidecar:2' }]);
  });

  it('honours strategic directives: $patch delete removes one container by name', async () => {
    const { client } = await seeded();
    const patched = await client.resource(resources.deployments).patch('default', 'web', { spec: { template: { spec: { containers: [{ name: 'app', $patch: 'delete' }] } } } }, 'strategic');
    expect(containersOf(patched)).toEqual([{ name: 'sidecar', image: 'sidecar:1' }]);
  });

  it('merges env entries by name inside the matched container', async () => {
    const { client } = await seeded();
    const patched = await client.resource(resources.deployments).patch('default', 'web', { spec: { template: { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: '2' }] }] } } } }, 'strategic');
    expect(containersOf(patched)).toEqual([
      { name: 'app', image: 'app:1', env: [{ name: 'B', value: '2' }, { name: 'A', value: '1' }] },
      { name: 'sidecar', image: 'sidecar:1' },
    ]);
  });

  it('answers a JSON patch that does not apply with the API server 422 Status', async () => {
    const { client } = await seeded();
    const failed = await client.resource(resources.deployments).patch('default', 'web', [{ op: 'replace', path: '/spec/missing/field', value: 1 }], 'json').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ClientApiError);
    expect((failed as ClientApiError).code).toBe(422);
  });

  it('treats a write that changes nothing as no write: same resourceVersion, no watch event', async () => {
    const { transport, client } = await seeded();
    const before = transport.objectsOf(resources.deployments)[0];
    const events: WatchEvent[] = [];
    const handle = transport.watch('/apis/apps/v1/namespaces/default/deployments', { resourceVersion: before.metadata.resourceVersion ?? '' }, (event) => events.push(event), () => undefined);
    const after = await client.resource(resources.deployments).patch('default', 'web', { metadata: { labels: null } }, 'merge');
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    await client.resource(resources.deployments).patch('default', 'web', { metadata: { labels: { changed: 'yes' } } }, 'merge');
    handle.close();
    expect(events.map((event) => event.type)).toEqual(['MODIFIED']);
  });
});
