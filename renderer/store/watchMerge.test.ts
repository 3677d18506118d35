import { describe, expect, it } from 'vitest';
import type { KubeObject, WatchEvent } from '../../shared/kubernetes/types';
import { applyListPage, applyWatchEvents, emptyCollection, type Collection } from './watchMerge';

function pod(name: string, resourceVersion: string, namespace = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, resourceVersion } };
}

function listed(...objects: KubeObject[]): Collection {
  return applyListPage(emptyCollection, objects, '10', true, true);
}

describe('applyListPage', () => {
  it('replaces the collection with the first page and marks it loading until the last page', () => {
    const stale = listed(pod('old', '1'));
    const first = applyListPage(stale, [pod('a', '5')], '12', true, false);
    expect(Object.keys(first.items)).toEqual(['default/a']);
    expect(first.phase).toBe('loading');
    const second = applyListPage(first, [pod('b', '6')], '12', false, true);
    expect(Object.keys(second.items).sort()).toEqual(['default/a', 'default/b']);
    expect(second.phase).toBe('ready');
    expect(second.resourceVersion).toBe('12');
  });

  it('keys cluster-scoped objects by name alone', () => {
    const nodes = applyListPage(emptyCollection, [{ metadata: { name: 'node-1', resourceVersion: '3' } }], '3', true, true);
    expect(Object.keys(nodes.items)).toEqual(['node-1']);
  });
});

describe('applyWatchEvents', () => {
  const cases: { name: string; events: WatchEvent[]; keys: string[]; resourceVersion: string }[] = [
    { name: 'adds an object', events: [{ type: 'ADDED', object: pod('b', '11') }], keys: ['default/a', 'default/b'], resourceVersion: '11' },
    { name: 'replaces a modified object', events: [{ type: 'MODIFIED', object: pod('a', '12') }], keys: ['default/a'], resourceVersion: '12' },
    { name: 'removes a deleted object', events: [{ type: 'DELETED', object: pod('a', '13') }], keys: [], resourceVersion: '13' },
    { name: 'ignores the deletion of an unknown object but keeps its version', events: [{ type: 'DELETED', object: pod('x', '14') }], keys: ['default/a'], resourceVersion: '14' },
    { name: 'applies events in order (add then delete)', events: [{ type: 'ADDED', object: pod('b', '11') }, { type: 'DELETED', object: pod('b', '12') }], keys: ['default/a'], resourceVersion: '12' },
    { name: 'takes only the version from a bookmark', events: [{ type: 'BOOKMARK', object: { metadata: { resourceVersion: '20' } } }], keys: ['default/a'], resourceVersion: '20' },
    { name: 'keeps same-named objects of different namespaces apart', events: [{ type: 'ADDED', object: pod('a', '11', 'other') }], keys: ['default/a', 'other/a'], resourceVersion: '11' },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const result = applyWatchEvents(listed(pod('a', '5')), testCase.events);
      expect(Object.keys(result.items).sort()).toEqual(testCase.keys);
      expect(result.resourceVersion).toBe(testCase.resourceVersion);
    });
  }

  it('returns the same collection when nothing changed, so selectors do not re-render', () => {
    const collection = listed(pod('a', '5'));
    expect(applyWatchEvents(collection, [])).toBe(collection);
    const resent = applyWatchEvents(collection, [{ type: 'ADDED', object: pod('a', '5') }]);
    expect(resent.items).toBe(collection.items);
  });

  it('keeps unchanged objects identical (rows are cached per object)', () => {
    const a = pod('a', '5');
    const collection = listed(a, pod('b', '6'));
    const result = applyWatchEvents(collection, [{ type: 'MODIFIED', object: pod('b', '7') }]);
    expect(result.items['default/a']).toBe(a);
    expect(result.items['default/b'].metadata.resourceVersion).toBe('7');
  });

  it('does not change the input collection', () => {
    const collection = listed(pod('a', '5'));
    applyWatchEvents(collection, [{ type: 'DELETED', object: pod('a', '6') }]);
    expect(Object.keys(collection.items)).toEqual(['default/a']);
  });

  it('skips malformed events', () => {
    const collection = listed(pod('a', '5'));
    const result = applyWatchEvents(collection, [{ type: 'ADDED', object: null as unknown as KubeObject }]);
    expect(result).toBe(collection);
  });
});
