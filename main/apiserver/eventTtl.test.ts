import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { SqliteStore } from '../storage/sqliteStore';
import type { StoreEvent } from '../storage/store';
import { DEFAULT_EVENT_TTL_MS, expireEvents, lastWrittenAt } from './eventTtl';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const minutesAgo = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function coreEvent(name: string, fields: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default', creationTimestamp: minutesAgo(120) }, reason: 'Test', ...fields } as KubeObject;
}

let store: SqliteStore | undefined;
afterEach(() => store?.dispose());

describe('event expiry', () => {
  it('takes the newest time the event carries as its last write', () => {
    expect(lastWrittenAt(coreEvent('a', {}))).toBe(NOW - 120 * 60_000);
    expect(lastWrittenAt(coreEvent('b', { lastTimestamp: minutesAgo(5) }))).toBe(NOW - 5 * 60_000);
    expect(lastWrittenAt(coreEvent('c', { series: { count: 3, lastObservedTime: '2026-11-27T11:59:00.000000Z' } }))).toBe(NOW - 60_000);
    expect(lastWrittenAt({ ...coreEvent('d', {}), metadata: { name: 'd', managedFields: [{ manager: 'kubelet', time: minutesAgo(2) }] } } as KubeObject)).toBe(NOW - 2 * 60_000);
  });

  it('removes events of both groups last written over an hour ago, keeps newer ones, and tells watchers', () => {
    store = SqliteStore.open(':memory:');
    const key = (resource: string, name: string) => ({ resource, namespace: 'default', name });
    store.create(key('events', 'old'), coreEvent('old', { lastTimestamp: minutesAgo(61) }));
    store.create(key('events', 'repeated'), coreEvent('repeated', { lastTimestamp: minutesAgo(10) }));
    store.create(key('events.events.k8s.io', 'old-v1'), { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'old-v1', namespace: 'default', creationTimestamp: minutesAgo(90) }, eventTime: '2026-11-27T10:30:00.000000Z' } as KubeObject);
    const seen: StoreEvent[] = [];
    store.watch({ resource: 'events', fromRevision: store.currentRevision() }, (event) => seen.push(event));
    expect(expireEvents(store, DEFAULT_EVENT_TTL_MS, NOW)).toBe(2);
    expect(store.list('events', {}).items.map((item) => item.metadata.name)).toEqual(['repeated']);
    expect(store.list('events.events.k8s.io', {}).items).toEqual([]);
    expect(seen.map((event) => `${event.type} ${event.name}`)).toEqual(['DELETED old']);
  });

  it('leaves other kinds alone', () => {
    store = SqliteStore.open(':memory:');
    store.create({ resource: 'configmaps', namespace: 'default', name: 'old' }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old', namespace: 'default', creationTimestamp: minutesAgo(600) } });
    expect(expireEvents(store, DEFAULT_EVENT_TTL_MS, NOW)).toBe(0);
    expect(store.list('configmaps', {}).items).toHaveLength(1);
  });
});
