import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { builtinResources } from '../../registry/resources';
import { SqliteStore } from '../../storage/sqliteStore';
import type { ListOptions, ObjectKey } from '../../storage/store';
import { ResourceRegistry } from '../resourceRegistry';
import { StoreCache } from '../storeCache';
import { AdmissionReads } from './admissionReads';

let store: SqliteStore;
let cache: StoreCache;
let reads: AdmissionReads;
let storeReads: string[];

function namespace(name: string, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...extra };
}

function quota(namespaceName: string, name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: namespaceName }, spec: { hard: { pods: '2' } } };
}

const key = (resource: string, namespaceName: string, name: string): ObjectKey => ({ resource, namespace: namespaceName, name });

beforeEach(() => {
  store = SqliteStore.open(':memory:');
  storeReads = [];
  // Count what admission reads from SQLite: list and get of the wrapped store.
  const counted = Object.create(store) as SqliteStore;
  counted.list = (resource: string, options: ListOptions) => {
    storeReads.push(`list ${resource}`);
    return store.list(resource, options);
  };
  counted.get = (objectKey: ObjectKey) => {
    storeReads.push(`get ${objectKey.resource}`);
    return store.get(objectKey);
  };
  cache = new StoreCache(store);
  reads = new AdmissionReads(counted, new ResourceRegistry(builtinResources()), cache);
});

afterEach(() => {
  cache.dispose();
  store.dispose();
});

describe('AdmissionReads', () => {
  it('reads the namespaces once, then answers from memory until one changes', () => {
    store.create(key('namespaces', '', 'team'), namespace('team'));
    expect(reads.namespace('team')?.metadata.name).toBe('team');
    expect(reads.namespace('team')?.metadata.name).toBe('team');
    expect(reads.namespace('missing')).toBeUndefined();
    expect(storeReads).toEqual(['list namespaces']);
  });

  it('sees a namespace created, terminating or deleted at the next read', () => {
    expect(reads.namespace('team')).toBeUndefined();
    store.create(key('namespaces', '', 'team'), namespace('team'));
    expect(reads.namespace('team')).toBeDefined();
    const current = store.get(key('namespaces', '', 'team'));
    if (!current) throw new Error('namespace missing');
    store.update(key('namespaces', '', 'team'), { ...current, status: { phase: 'Terminating' } });
    expect(reads.namespace('team')?.status).toEqual({ phase: 'Terminating' });
    store.delete(key('namespaces', '', 'team'));
    expect(reads.namespace('team')).toBeUndefined();
  });

  it('groups ResourceQuotas by namespace and follows their changes', () => {
    store.create(key('resourcequotas', 'a', 'q1'), quota('a', 'q1'));
    store.create(key('resourcequotas', 'b', 'q2'), quota('b', 'q2'));
    expect(reads.resourceQuotas('a').map((item) => item.metadata.name)).toEqual(['q1']);
    expect(reads.resourceQuotas('b').map((item) => item.metadata.name)).toEqual(['q2']);
    expect(reads.resourceQuotas('c')).toEqual([]);
    expect(storeReads).toEqual(['list resourcequotas']);
    store.create(key('resourcequotas', 'a', 'q3'), quota('a', 'q3'));
    expect(reads.resourceQuotas('a').map((item) => item.metadata.name)).toEqual(['q1', 'q3']);
    expect(reads.limitRanges('a')).toEqual([]);
  });
});
