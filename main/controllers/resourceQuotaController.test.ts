import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { quotaUsed } from '../registry/resourceQuotaUsage';
import { formatQuantity as formatAmount } from '../../shared/kubernetes/quantity';

const quota = (hard: Record<string, string>, spec: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'ns' }, spec: { hard, ...spec } });
const pod = (name: string, resources: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ns' },
  spec: { containers: [{ name: 'c', image: 'x', resources }], ...extra },
  status: { phase: 'Running' },
});

function used(hard: Record<string, string>, objects: { group: string; resource: string; items: KubeObject[] }[], spec: Record<string, unknown> = {}): Record<string, string> {
  const result = quotaUsed(quota(hard, spec), objects, new Date());
  return Object.fromEntries([...result].map(([name, amount]) => [name, formatAmount(amount)]));
}

describe('quota usage as the resource quota controller records it', () => {
  it('sums pod requests and limits in canonical form and skips finished pods', () => {
    const pods = [
      pod('a', { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } }),
      pod('b', { requests: { cpu: '750m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } }),
      { ...pod('done', { requests: { cpu: '4' } }), status: { phase: 'Succeeded' } },
    ];
    expect(used({ pods: '10', 'count/pods': '10', 'requests.cpu': '4', 'requests.memory': '1Gi', 'limits.cpu': '4', 'limits.memory': '1Gi' }, [{ group: '', resource: 'pods', items: pods }])).toEqual({
      pods: '2',
      'count/pods': '3',
      'requests.cpu': '1',
      'requests.memory': '128Mi',
      'limits.cpu': '1',
      'limits.memory': '256Mi',
    });
  });

  it('counts node ports and load balancers of services', () => {
    const services: KubeObject[] = [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'np' }, spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 443 }] } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ip' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } },
    ];
    expect(used({ services: '5', 'services.nodeports': '5', 'services.loadbalancers': '1' }, [{ group: '', resource: 'services', items: services }])).toEqual({ services: '3', 'services.nodeports': '3', 'services.loadbalancers': '1' });
  });

  it('applies BestEffort and NotTerminating scopes to pods', () => {
    const pods = [pod('be', {}), pod('burst', { requests: { cpu: '100m' } }), pod('job', {}, { activeDeadlineSeconds: 60 })];
    expect(used({ pods: '5' }, [{ group: '', resource: 'pods', items: pods }], { scopes: ['BestEffort', 'NotTerminating'] })).toEqual({ pods: '1' });
  });

  it('counts claims and requested storage per storage class', () => {
    const claims: KubeObject[] = [{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { storageClassName: 'fast', resources: { requests: { storage: '2Gi' } } } }];
    expect(used({ persistentvolumeclaims: '3', 'requests.storage': '10Gi', 'fast.storageclass.storage.k8s.io/requests.storage': '5Gi' }, [{ group: '', resource: 'persistentvolumeclaims', items: claims }])).toEqual({
      persistentvolumeclaims: '1',
      'requests.storage': '2Gi',
      'fast.storageclass.storage.k8s.io/requests.storage': '2Gi',
    });
  });
});
