import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { compareEventsNewestFirst, eventFirstSeen, eventLastSeen, eventLastSeenMs, timeMicros } from './eventTimes';

function event(name: string, fields: Record<string, unknown>, meta: { created?: string; resourceVersion?: string } = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default', creationTimestamp: meta.created ?? '2026-01-01T00:00:00Z', resourceVersion: meta.resourceVersion ?? '1' }, ...fields };
}

describe('event times', () => {
  it.each([
    ['lastTimestamp', { firstTimestamp: '2026-01-01T00:00:01Z', lastTimestamp: '2026-01-01T00:05:00Z' }, '2026-01-01T00:05:00Z'],
    ['series.lastObservedTime over lastTimestamp', { lastTimestamp: '2026-01-01T00:05:00Z', series: { count: 3, lastObservedTime: '2026-01-01T00:09:00.123456Z' } }, '2026-01-01T00:09:00.123456Z'],
    ['eventTime when no timestamps are set', { eventTime: '2026-01-01T00:02:00.500000Z', lastTimestamp: null }, '2026-01-01T00:02:00.500000Z'],
    ['events.k8s.io deprecatedLastTimestamp', { deprecatedLastTimestamp: '2026-01-01T00:07:00Z', eventTime: '2026-01-01T00:01:00.000001Z' }, '2026-01-01T00:07:00Z'],
    ['the creation time as the last resort', {}, '2026-01-01T00:00:00Z'],
  ])('reads the last occurrence from %s', (_case, fields, expected) => {
    expect(eventLastSeen(event('e', fields))).toBe(expected);
  });

  it('reads the first occurrence from firstTimestamp, else eventTime', () => {
    expect(eventFirstSeen(event('e', { firstTimestamp: '2026-01-01T00:00:03Z', eventTime: '2026-01-01T00:00:01.000000Z' }))).toBe('2026-01-01T00:00:03Z');
    expect(eventFirstSeen(event('e', { eventTime: '2026-01-01T00:00:01.000000Z' }))).toBe('2026-01-01T00:00:01.000000Z');
  });

  it('reads RFC 3339 times to the microsecond, whatever the number of fraction digits', () => {
    expect(timeMicros('2026-01-01T00:00:00.5Z') - timeMicros('2026-01-01T00:00:00Z')).toBe(500_000);
    expect(timeMicros('2026-01-01T00:00:00.000001Z') - timeMicros('2026-01-01T00:00:00Z')).toBe(1);
    expect(timeMicros('2026-01-01T01:00:00+01:00')).toBe(timeMicros('2026-01-01T00:00:00Z'));
    expect(timeMicros('yesterday')).toBeNaN();
    expect(eventLastSeenMs(event('e', { lastTimestamp: '2026-01-01T00:00:02Z' }))).toBe(Date.parse('2026-01-01T00:00:02Z'));
  });

  it('sorts by the real times, not by the printed ages (18s is newer than 2m58s)', () => {
    const now = Date.parse('2026-01-01T01:00:00Z');
    const ago = (seconds: number) => new Date(now - seconds * 1000).toISOString().replace('.000Z', 'Z');
    const events = [event('a', { lastTimestamp: ago(178) }), event('b', { lastTimestamp: ago(290) }), event('c', { lastTimestamp: ago(18) })];
    expect(events.sort(compareEventsNewestFirst).map((item) => item.metadata.name)).toEqual(['c', 'a', 'b']);
  });

  it('orders events of the same second newest first by eventTime, creation time, then resourceVersion', () => {
    const second = '2026-01-01T00:00:05Z';
    const scheduled = event('pod.1', { lastTimestamp: second }, { resourceVersion: '98' });
    const pulled = event('pod.2', { lastTimestamp: second }, { resourceVersion: '99' });
    const created = event('pod.3', { lastTimestamp: second }, { resourceVersion: '100' });
    const started = event('pod.4', { lastTimestamp: second }, { resourceVersion: '101' });
    const sorted = [pulled, started, scheduled, created].sort(compareEventsNewestFirst);
    expect(sorted.map((item) => item.metadata.name)).toEqual(['pod.4', 'pod.3', 'pod.2', 'pod.1']);
    const fine = [event('x', { lastTimestamp: second, eventTime: '2026-01-01T00:00:05.000002Z' }, { resourceVersion: '5' }), event('y', { lastTimestamp: second, eventTime: '2026-01-01T00:00:05.000009Z' }, { resourceVersion: '4' })];
    expect(fine.sort(compareEventsNewestFirst).map((item) => item.metadata.name)).toEqual(['y', 'x']);
    const byCreation = [event('p', { lastTimestamp: second }, { created: '2026-01-01T00:00:01Z', resourceVersion: '9' }), event('q', { lastTimestamp: second }, { created: '2026-01-01T00:00:04Z', resourceVersion: '3' })];
    expect(byCreation.sort(compareEventsNewestFirst).map((item) => item.metadata.name)).toEqual(['q', 'p']);
  });

  it('gives the same order whatever order the events arrive in', () => {
    const events = Array.from({ length: 12 }, (_, index) => event(`e${index}`, { lastTimestamp: `2026-01-01T00:00:0${index % 3}Z` }, { resourceVersion: String(100 + index) }));
    const expected = [...events].sort(compareEventsNewestFirst).map((item) => item.metadata.name);
    for (let round = 0; round < 5; round++) {
      const shuffled = [...events].sort(() => Math.random() - 0.5);
      expect(shuffled.sort(compareEventsNewestFirst).map((item) => item.metadata.name)).toEqual(expected);
    }
    expect(expected.slice(0, 4)).toEqual(['e11', 'e8', 'e5', 'e2']);
  });
});
