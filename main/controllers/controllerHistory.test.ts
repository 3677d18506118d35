import { describe, expect, it } from 'vitest';
import { ApiClient } from '../client/apiClient';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import type { KubeObject } from '../../shared/kubernetes/types';
import { CONTROLLER_REVISION_HASH_LABEL, ControllerHistory, applyRevision, controllerRevisionName, equalRevision, hashControllerRevision, newControllerRevision, nextRevision, safeEncodeString, sortRevisions, stableStringify, templateFromRevision, templatePatch, type ControllerRevision } from './controllerHistory';

const owner: KubeObject = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', namespace: 'default', uid: 'set-uid' }, spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'a' }] } } } };

describe('controller history helpers', () => {
  it('hashes the same data the same way whatever the key order, and differently per collision count', () => {
    const left = hashControllerRevision({ a: 1, b: { c: [1, 2] } });
    expect(hashControllerRevision({ b: { c: [1, 2] }, a: 1 })).toBe(left);
    expect(hashControllerRevision({ a: 1, b: { c: [1, 2] } }, 1)).not.toBe(left);
    expect(left).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
  });

  it.each([
    ['0', '4'],
    ['12', '56'],
  ])('encodes %s safely as %s', (input, output) => {
    expect(safeEncodeString(input)).toBe(output);
  });

  it('sorts keys in stable JSON and drops undefined fields', () => {
    expect(stableStringify({ b: 1, a: [{ d: 1, c: undefined }] })).toBe('{"a":[{"d":1}],"b":1}');
  });

  it('cuts long prefixes in revision names', () => {
    expect(controllerRevisionName('x'.repeat(300), 'h')).toBe(`${'x'.repeat(223)}-h`);
  });

  it('records the template as a replacing patch and applies it back', () => {
    const patch = templatePatch(owner);
    expect(patch).toEqual({ spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'a' }] }, $patch: 'replace' } } });
    const revision = newControllerRevision(owner, { app: 'web' }, patch, 3);
    expect(revision.metadata.name).toBe(`web-${hashControllerRevision(patch)}`);
    expect(revision.metadata.labels).toEqual({ app: 'web', [CONTROLLER_REVISION_HASH_LABEL]: hashControllerRevision(patch) });
    expect(revision.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'StatefulSet', uid: 'set-uid', controller: true });
    expect(templateFromRevision(revision)).toEqual((owner.spec as { template: unknown }).template);
    const changed = applyRevision({ ...owner, spec: { replicas: 2, template: {} } }, revision);
    expect(changed.spec).toEqual({ replicas: 2, template: templateFromRevision(revision) });
  });

  it('sorts revisions by number and finds the next one; equal means equal data', () => {
    const revisions: ControllerRevision[] = [
      { metadata: { name: 'b' }, revision: 2, data: { x: 1 } },
      { metadata: { name: 'a' }, revision: 1, data: { x: 2 } },
    ];
    expect(sortRevisions(revisions).map((revision) => revision.metadata.name)).toEqual(['a', 'b']);
    expect(nextRevision(revisions)).toBe(3);
    expect(nextRevision([])).toBe(1);
    expect(equalRevision(revisions[0], { metadata: { name: 'z' }, data: { x: 1 } })).toBe(true);
    expect(equalRevision(revisions[0], revisions[1])).toBe(false);
  });

  it('creates a revision, reuses an equal one, and moves to the next hash when the name holds other data', async () => {
    const transport = new FakeTransport();
    const client = new ApiClient(transport);
    const factory = new SharedInformerFactory(client);
    const history = new ControllerHistory(client, factory.informerFor(resources.controllerrevisions));
    const revision = newControllerRevision(owner, { app: 'web' }, templatePatch(owner), 1);
    transport.seed(resources.controllerrevisions, { ...revision, data: { other: true } });
    const created = await history.createControllerRevision(owner, revision, 0);
    expect(created.collisionCount).toBe(1);
    expect(created.revision.metadata.name).toBe(`web-${hashControllerRevision(revision.data, 1)}`);
    const again = await history.createControllerRevision(owner, revision, 1);
    expect(again.revision.metadata.uid).toBe(created.revision.metadata.uid);
    factory.start();
    await factory.waitForCacheSync();
    expect(history.listRevisions(owner, { matchLabels: { app: 'web' } }).map((found) => found.metadata.name)).toHaveLength(2);
    factory.dispose();
  });
});
