import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { applyLimitRangeDefaults, claimLimitViolations, podLimitViolations } from './limitRanger';

const range = (limits: Record<string, unknown>[]): KubeObject => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'r' }, spec: { limits } });
const pod = (containers: Record<string, unknown>[]): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers } });

describe('podLimitViolations', () => {
  it.each([
    ['a limit above the container max', [{ type: 'Container', max: { cpu: '500m' } }], { limits: { cpu: '1' } }, ['maximum cpu usage per Container is 500m, but limit is 1']],
    ['a missing limit under a max', [{ type: 'Container', max: { memory: '1Gi' } }], {}, ['maximum memory usage per Container is 1Gi.  No limit is specified']],
    ['a request below the min', [{ type: 'Container', min: { cpu: '100m' } }], { requests: { cpu: '50m' } }, ['minimum cpu usage per Container is 100m, but request is 50m']],
    ['a missing request under a min', [{ type: 'Container', min: { cpu: '100m' } }], {}, ['minimum cpu usage per Container is 100m.  No request is specified']],
    ['a ratio above maxLimitRequestRatio', [{ type: 'Container', maxLimitRequestRatio: { cpu: '2' } }], { requests: { cpu: '100m' }, limits: { cpu: '500m' } }, ['cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000']],
    ['a pod total above the pod max', [{ type: 'Pod', max: { cpu: '1' } }], { limits: { cpu: '800m' } }, ['maximum cpu usage per Pod is 1, but limit is 1600m']],
    ['nothing within bounds', [{ type: 'Container', max: { cpu: '2' }, min: { cpu: '100m' } }], { requests: { cpu: '200m' }, limits: { cpu: '1' } }, []],
  ])('reports %s with upstream text', (_name, limits, resources, expected) => {
    const containers = limits[0].type === 'Pod' ? [{ name: 'a', resources }, { name: 'b', resources }] : [{ name: 'a', resources }];
    expect(podLimitViolations(pod(containers), [range(limits)])).toEqual(expected);
  });
});

describe('applyLimitRangeDefaults', () => {
  it('takes the default request from the default limit and keeps what the container sets', () => {
    const target = pod([{ name: 'a', resources: { limits: { memory: '64Mi' } } }]);
    applyLimitRangeDefaults(target, [range([{ type: 'Container', default: { cpu: '300m', memory: '128Mi' } }])]);
    const spec = target.spec as { containers: { resources: unknown }[] };
    expect(spec.containers[0].resources).toEqual({ limits: { memory: '64Mi', cpu: '300m' }, requests: { cpu: '300m', memory: '128Mi' } });
    expect(target.metadata.annotations?.['kubernetes.io/limit-ranger']).toBe('LimitRanger plugin set: cpu, memory request for container a; cpu limit for container a');
  });
});

describe('claimLimitViolations', () => {
  it('checks requested storage against min and max', () => {
    const claim: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { resources: { requests: { storage: '5Gi' } } } };
    expect(claimLimitViolations(claim, [range([{ type: 'PersistentVolumeClaim', max: { storage: '2Gi' }, min: { storage: '1Gi' } }])])).toEqual(['maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi']);
  });
});
