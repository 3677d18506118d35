import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { eventTimeline, fitWindow, markPlacement, tickLabel } from './timelineModel';

const now = Date.parse('2026-01-01T01:00:00Z');
const ago = (minutes: number) => new Date(now - minutes * 60_000).toISOString().replace('.000Z', 'Z');

function event(name: string, object: string, first: number, last: number, options: { type?: string; count?: number; uid?: string } = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default', uid: name }, involvedObject: { kind: 'Pod', name: object, namespace: 'default', uid: options.uid ?? `uid-${object}`, apiVersion: 'v1' }, type: options.type ?? 'Normal', reason: name, message: `${name} happened`, firstTimestamp: ago(first), lastTimestamp: ago(last), count: options.count ?? 1 };
}

describe('the events timeline', () => {
  const events = [event('Scheduled', 'web', 50, 50), event('BackOff', 'crash', 40, 2, { type: 'Warning', count: 12 }), event('Pulled', 'web', 49, 49), event('Old', 'gone', 300, 200)];
  const timeline = eventTimeline(events, now, 60 * 60_000);

  it('puts each object in a lane, most recently active first, and leaves out what ended before the window', () => {
    expect(timeline.lanes.map((lane) => [lane.name, lane.marks.map((mark) => mark.reason), lane.warnings])).toEqual([
      ['crash', ['BackOff'], 1],
      ['web', ['Scheduled', 'Pulled'], 0],
    ]);
  });

  it('draws a repeated event as a bar from its first to its last occurrence, a single one as a dot', () => {
    const [crash, web] = timeline.lanes;
    const bar = markPlacement(crash.marks[0], timeline);
    expect(bar.left).toBeCloseTo(20 / 60);
    expect(bar.width).toBeCloseTo(38 / 60);
    expect(crash.marks[0].count).toBe(12);
    expect(markPlacement(web.marks[0], timeline)).toEqual({ left: expect.closeTo(10 / 60), width: 0 });
  });

  it('clips an event that began before the window to its start', () => {
    const long = eventTimeline([event('Long', 'db', 120, 30)], now, 60 * 60_000);
    expect(markPlacement(long.lanes[0].marks[0], long).left).toBe(0);
  });

  it('labels the axis from the window start to now', () => {
    expect(timeline.ticks.map((tick) => tick.label)).toEqual(['-1h', '-50m', '-40m', '-30m', '-20m', '-10m', 'now']);
    expect(eventTimeline([], now, 5 * 60_000).ticks.map((tick) => tick.label)).toEqual(['-5m', '-4m', '-3m', '-2m', '-1m', 'now']);
    expect(eventTimeline([], now, 60_000).ticks.map((tick) => tick.label)).toEqual(['-1m', '-45s', '-30s', '-15s', 'now']);
    expect(eventTimeline([], now, 7 * 24 * 3_600_000).ticks.map((tick) => tick.label)).toEqual(['-7d', '-6d', '-5d', '-4d', '-3d', '-2d', '-24h', 'now']);
    expect(tickLabel(6 * 60 * 60_000)).toBe('-6h');
    expect(tickLabel(75_000)).toBe('-75s');
  });

  it('fits the window to the oldest event shown', () => {
    expect(fitWindow([event('A', 'x', 3, 1)], now)).toBe(5 * 60_000);
    expect(fitWindow([event('A', 'x', 0.5, 0)], now)).toBe(60_000);
    expect(fitWindow([event('A', 'x', 3, 1), event('B', 'y', 50, 40)], now)).toBe(60 * 60_000);
    expect(fitWindow([event('Old', 'z', 60 * 24 * 30, 1)], now)).toBe(7 * 24 * 60 * 60_000);
    expect(fitWindow([], now)).toBe(60_000);
  });
});
