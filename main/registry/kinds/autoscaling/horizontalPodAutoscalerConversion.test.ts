import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../shared/kubernetes/types';
import { toV1, toV2 } from './horizontalPodAutoscalerConversion';

const v2: KubeObject = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', annotations: { team: 'a' } },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
    ],
  },
  status: {
    currentReplicas: 2,
    desiredReplicas: 3,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 70, averageValue: '70m' } } }],
    conditions: [{ type: 'AbleToScale', status: 'True' }],
  },
};

describe('autoscaling/v1 conversion', () => {
  it('turns the cpu utilization metric into targetCPUUtilizationPercentage and keeps the rest in annotations', () => {
    const v1 = toV1(v2);
    expect(v1.apiVersion).toBe('autoscaling/v1');
    expect(v1.spec).toEqual({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 50 });
    expect(v1.status).toEqual({ currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 70 });
    expect(Object.keys(v1.metadata.annotations ?? {}).sort()).toEqual(['autoscaling.alpha.kubernetes.io/conditions', 'autoscaling.alpha.kubernetes.io/metrics', 'team']);
  });

  it('round-trips a v2 object through v1 without losing metrics or conditions', () => {
    const back = toV2(toV1(v2));
    expect(back.metadata).toEqual({ name: 'web', namespace: 'default', annotations: { team: 'a' } });
    expect((back.spec as Record<string, unknown>).metrics).toEqual([
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
    ]);
    expect((back.status as Record<string, unknown>).conditions).toEqual([{ type: 'AbleToScale', status: 'True' }]);
  });

  it('converts an apply configuration without adding fields it does not name', () => {
    expect(toV2({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { maxReplicas: 4 } }, true)).toEqual({
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { maxReplicas: 4 },
    });
  });
});
