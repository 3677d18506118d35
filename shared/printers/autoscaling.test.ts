import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { formatHorizontalPodAutoscalerMetrics, horizontalPodAutoscalerTable } from './autoscaling';

const now = new Date('2025-01-01T12:00:00Z');
const cpu = (target: Record<string, unknown>) => ({ type: 'Resource', resource: { name: 'cpu', target } });

describe('horizontalPodAutoscalerTable', () => {
  it('prints the reference, targets, bounds and current replicas', () => {
    const hpa: KubeObject = {
      metadata: { name: 'web', creationTimestamp: '2025-01-01T11:00:00Z' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, metrics: [cpu({ type: 'Utilization', averageUtilization: 50 })] },
      status: { currentReplicas: 2, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 12, averageValue: '12m' } } }] },
    };
    expect(horizontalPodAutoscalerTable.row(hpa, now)).toEqual(['web', 'Deployment/web', 'cpu: 12%/50%', '1', 5, 2, '60m']);
    expect(horizontalPodAutoscalerTable.columns.map((column) => column.name)).toEqual(['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']);
  });

  it.each([
    { name: 'no metrics', specs: [], statuses: [], want: '<none>' },
    { name: 'a metric not measured yet', specs: [cpu({ type: 'Utilization', averageUtilization: 80 })], statuses: [{ type: '' }], want: 'cpu: <unknown>/80%' },
    { name: 'an average value', specs: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } }], statuses: [{ type: 'Resource', resource: { name: 'memory', current: { averageValue: '52428800' } } }], want: 'memory: 52428800/100Mi' },
    { name: 'a pods metric', specs: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } }], statuses: [], want: '<unknown>/10' },
    { name: 'an external average', specs: [{ type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } }], statuses: [], want: '<unknown>/30 (avg)' },
    {
      name: 'more than two metrics',
      specs: [cpu({ averageUtilization: 50 }), cpu({ averageUtilization: 60 }), cpu({ averageUtilization: 70 })],
      statuses: [],
      want: 'cpu: <unknown>/50%, cpu: <unknown>/60% + 1 more...',
    },
  ])('formats $name', ({ specs, statuses, want }) => {
    expect(formatHorizontalPodAutoscalerMetrics(specs, statuses)).toBe(want);
  });

  it('prints <unset> without minReplicas', () => {
    const hpa: KubeObject = { metadata: { name: 'web', creationTimestamp: '2025-01-01T11:00:00Z' }, spec: { scaleTargetRef: { kind: 'StatefulSet', name: 'db' }, maxReplicas: 2 } };
    expect(horizontalPodAutoscalerTable.row(hpa, now)).toEqual(['web', 'StatefulSet/db', '<none>', '<unset>', 2, 0, '60m']);
  });
});
