import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { eventsApiEventTable, eventTable } from './events';

const now = new Date('2025-01-01T12:00:00Z');

describe('eventTable', () => {
  it('prints a core/v1 event in upstream column order', () => {
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web.17a', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{nginx}' },
      reason: 'Pulled',
      message: '  Container image "nginx" already present on machine\n',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2025-01-01T11:50:00Z',
      lastTimestamp: '2025-01-01T11:58:00Z',
      count: 3,
      type: 'Normal',
    };
    expect(eventTable.row(event, now)).toEqual([
      '2m', 'Normal', 'Pulled', 'pod/web', 'spec.containers{nginx}', 'kubelet, node-1', 'Container image "nginx" already present on machine', '10m', 3, 'web.17a',
    ]);
    expect(eventTable.columns.map((column) => `${column.name}:${column.priority}`)).toEqual([
      'Last Seen:0', 'Type:0', 'Reason:0', 'Object:0', 'Subobject:1', 'Source:1', 'Message:0', 'First Seen:1', 'Count:1', 'Name:1',
    ]);
  });

  it('falls back to eventTime, the reporting controller and a count of one', () => {
    const event: KubeObject = {
      metadata: { name: 'e' },
      involvedObject: { kind: 'Node' },
      reason: 'Starting',
      message: 'started',
      eventTime: '2025-01-01T11:59:30.000000Z',
      reportingComponent: 'kubedesk-scheduler',
      reportingInstance: '',
      type: 'Normal',
    };
    expect(eventTable.row(event, now)).toEqual(['30s', 'Normal', 'Starting', 'node', '', 'kubedesk-scheduler', 'started', '30s', 1, 'e']);
  });

  it('prints <unknown> times for an event without any timestamp', () => {
    const event: KubeObject = { metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p' } };
    expect(eventTable.row(event, now).slice(0, 1)).toEqual(['<unknown>']);
  });

  it('uses the series for last seen and count', () => {
    const event: KubeObject = {
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod', name: 'p' },
      eventTime: '2025-01-01T11:00:00.000000Z',
      series: { count: 7, lastObservedTime: '2025-01-01T11:59:00.000000Z' },
    };
    const row = eventTable.row(event, now);
    expect([row[0], row[7], row[8]]).toEqual(['60s', '60m', 7]);
  });
});

describe('eventsApiEventTable', () => {
  it('reads regarding, note and the deprecated fields of events.k8s.io/v1', () => {
    const event: KubeObject = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'web.17b' },
      regarding: { kind: 'Deployment', name: 'web' },
      reason: 'ScalingReplicaSet',
      note: 'Scaled up replica set web-5d to 3',
      type: 'Normal',
      eventTime: null,
      reportingController: 'deployment-controller',
      deprecatedSource: { component: 'deployment-controller' },
      deprecatedFirstTimestamp: '2025-01-01T11:00:00Z',
      deprecatedLastTimestamp: '2025-01-01T11:59:00Z',
      deprecatedCount: 2,
    };
    expect(eventsApiEventTable.row(event, now)).toEqual([
      '60s', 'Normal', 'ScalingReplicaSet', 'deployment/web', '', 'deployment-controller', 'Scaled up replica set web-5d to 3', '60m', 2, 'web.17b',
    ]);
  });
});
