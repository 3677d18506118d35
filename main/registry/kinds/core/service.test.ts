import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../shared/kubernetes/types';
import { serviceStrategy } from './service';

const loadBalancer: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'lb', namespace: 'default' },
  spec: {
    type: 'LoadBalancer',
    clusterIP: '10.7.128.20',
    clusterIPs: ['10.7.128.20'],
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    allocateLoadBalancerNodePorts: true,
    externalTrafficPolicy: 'Cluster',
    ports: [{ port: 80, targetPort: 8080, protocol: 'TCP', nodePort: 31080 }],
    selector: { app: 'web' },
  },
  status: { loadBalancer: { ingress: [{ ip: '127.0.0.1' }] } },
};

/** An update that changes only spec.type (what `kubectl patch -p '{"spec":{"type":…}}'` sends on). */
function retyped(type: string, change: Record<string, unknown> = {}): KubeObject {
  const next = structuredClone(loadBalancer);
  next.spec = { ...(next.spec as Record<string, unknown>), type, ...change };
  serviceStrategy.prepareForUpdate(next, loadBalancer);
  return next;
}

describe('Service updates that change the type (dropTypeDependentFields)', () => {
  it('drop allocateLoadBalancerNodePorts the client left alone when it leaves LoadBalancer, keeping node ports for NodePort', () => {
    const spec = retyped('NodePort').spec as Record<string, unknown>;
    expect(spec).not.toHaveProperty('allocateLoadBalancerNodePorts');
    expect(spec.ports).toEqual([{ port: 80, targetPort: 8080, protocol: 'TCP', nodePort: 31080 }]);
    expect(spec.clusterIP).toBe('10.7.128.20');
  });

  it('drop the node ports too for ClusterIP, unless the client set new ones', () => {
    expect((retyped('ClusterIP').spec as { ports: unknown[] }).ports).toEqual([{ port: 80, targetPort: 8080, protocol: 'TCP' }]);
    const spec = retyped('ClusterIP', { ports: [{ port: 80, targetPort: 8080, protocol: 'TCP', nodePort: 31999 }] }).spec as { ports: unknown[] };
    expect(spec.ports).toEqual([{ port: 80, targetPort: 8080, protocol: 'TCP', nodePort: 31999 }]);
  });

  it('keep a value the client changed in the same update (validation then judges it)', () => {
    expect((retyped('ClusterIP', { allocateLoadBalancerNodePorts: false }).spec as Record<string, unknown>).allocateLoadBalancerNodePorts).toBe(false);
  });

  it('drop the cluster IPs, families and policy when it becomes ExternalName', () => {
    const spec = retyped('ExternalName', { externalName: 'example.com' }).spec as Record<string, unknown>;
    for (const field of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) expect(spec).not.toHaveProperty(field);
  });

  it('still keep allocated values an update leaves out while the type needs them', () => {
    const next = structuredClone(loadBalancer);
    const spec = next.spec as Record<string, unknown>;
    delete spec.clusterIP;
    delete spec.clusterIPs;
    spec.ports = [{ port: 80, targetPort: 8080, protocol: 'TCP' }];
    serviceStrategy.prepareForUpdate(next, loadBalancer);
    expect(next.spec).toMatchObject({ clusterIP: '10.7.128.20', clusterIPs: ['10.7.128.20'], ports: [{ nodePort: 31080 }] });
  });
});
