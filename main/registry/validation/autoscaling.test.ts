import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { defaultHorizontalPodAutoscaler } from '../defaults/autoscaling';
import { validateHorizontalPodAutoscaler } from './autoscaling';

function hpa(spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, ...spec },
  };
}

const cpu = (target: Record<string, unknown>) => [{ type: 'Resource', resource: { name: 'cpu', target } }];

describe('validateHorizontalPodAutoscaler', () => {
  it('accepts what kubectl autoscale sends, once defaulted', () => {
    const object = hpa({ minReplicas: undefined, maxReplicas: 5 });
    defaultHorizontalPodAutoscaler(object);
    expect(validateHorizontalPodAutoscaler(object)).toEqual([]);
    expect(object.spec).toMatchObject({ minReplicas: 1, metrics: cpu({ type: 'Utilization', averageUtilization: 80 }) });
  });

  it.each([
    { name: 'maxReplicas below minReplicas', spec: { minReplicas: 3, maxReplicas: 2 }, field: 'spec.maxReplicas', detail: 'Invalid value: 2: must be greater than or equal to `minReplicas`' },
    { name: 'minReplicas of zero', spec: { minReplicas: 0 }, field: 'spec.minReplicas', detail: 'Invalid value: 0: must be greater than or equal to 1' },
    { name: 'maxReplicas of zero', spec: { minReplicas: undefined, maxReplicas: 0 }, field: 'spec.maxReplicas', detail: 'Invalid value: 0: must be greater than 0' },
    { name: 'no target name', spec: { scaleTargetRef: { kind: 'Deployment' } }, field: 'spec.scaleTargetRef.name', detail: 'Required value' },
    { name: 'an unknown metric type', spec: { metrics: [{ type: 'Bogus' }] }, field: 'spec.metrics[0].type', detail: 'Unsupported value: "Bogus": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"' },
    { name: 'a metric type without its source', spec: { metrics: [{ type: 'Resource' }] }, field: 'spec.metrics[0].resource', detail: 'Required value: must populate information for the given metric source' },
    { name: 'a target without a type', spec: { metrics: cpu({ averageUtilization: 50 }) }, field: 'spec.metrics[0].resource.target.type', detail: 'Required value: must specify a metric target type' },
    { name: 'a zero utilization', spec: { metrics: cpu({ type: 'Utilization', averageUtilization: 0 }) }, field: 'spec.metrics[0].resource.target.averageUtilization', detail: 'Invalid value: 0: must be greater than 0' },
    { name: 'neither utilization nor value', spec: { metrics: cpu({ type: 'Utilization' }) }, field: 'spec.metrics[0].resource.target.averageUtilization', detail: 'Required value: must set either a target raw value or a target utilization' },
    { name: 'a negative stabilization window', spec: { behavior: { scaleDown: { stabilizationWindowSeconds: -1, policies: [{ type: 'Pods', value: 1, periodSeconds: 15 }] } } }, field: 'spec.behavior.scaleDown.stabilizationWindowSeconds', detail: 'Invalid value: -1: must be greater than or equal to zero' },
  ])('rejects $name', ({ spec, field, detail }) => {
    expect(validateHorizontalPodAutoscaler(hpa(spec))).toContainEqual(expect.objectContaining({ field, detail }));
  });

  it('fills the behavior rules a user left out', () => {
    const object = hpa({ behavior: { scaleDown: { stabilizationWindowSeconds: 5 } } });
    defaultHorizontalPodAutoscaler(object);
    expect((object.spec as Record<string, unknown>).behavior).toEqual({
      scaleDown: { stabilizationWindowSeconds: 5, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
    expect(validateHorizontalPodAutoscaler(object)).toEqual([]);
  });
});
