import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../storage/sqliteStore';
import { StoreCache } from './storeCache';

const store = SqliteStore.open(':memory:');
const cache = new StoreCache(store);
afterEach(() => cache.dispose());

function configMap(name: string) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } };
}

describe('StoreCache', () => {
  it('builds a value once and rebuilds it right after a write to a resource it reads', () => {
    let builds = 0;
    const names = () => cache.get('names', ['configmaps'], () => (builds++, store.list('configmaps', {}).items.map((item) => item.metadata.name)));
    expect(names()).toEqual([]);
    expect(names()).toEqual([]);
    expect(builds).toBe(1);
    store.create({ resource: 'configmaps', namespace: 'default', name: 'a' }, configMap('a'));
    expect(names()).toEqual(['a']);
    expect(builds).toBe(2);
  });

  it('keeps a value when other resources change', () => {
    let builds = 0;
    cache.get('secrets', ['secrets'], () => builds++);
    store.create({ resource: 'configmaps', namespace: 'default', name: 'b' }, configMap('b'));
    cache.get('secrets', ['secrets'], () => builds++);
    expect(builds).toBe(1);
  });
});
