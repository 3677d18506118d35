import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { planHostPorts, sessionAffinitySeconds, type HostPortListener } from './hostPortPlan';

function service(name: string, spec: Record<string, unknown>, created = '2026-01-01T00:00:00Z', namespace = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, creationTimestamp: created }, spec };
}

function listener(name: string, fields: Partial<HostPortListener> & Pick<HostPortListener, 'port' | 'hostPort' | 'kind'>): HostPortListener {
  return { namespace: 'default', name, portName: '', protocol: 'TCP', affinitySeconds: 0, ...fields };
}

describe('planHostPorts', () => {
  it.each([
    {
      name: 'opens nothing for ClusterIP, headless and ExternalName Services',
      services: [
        service('plain', { ports: [{ port: 80, nodePort: 30080 }] }),
        service('headless', { clusterIP: 'None', ports: [{ port: 80 }] }),
        service('external', { type: 'ExternalName', externalName: 'example.com' }),
      ],
      listeners: [],
      conflicts: [],
    },
    {
      name: 'opens every node port of a NodePort Service, with its protocol',
      services: [service('web', { type: 'NodePort', ports: [{ name: 'http', port: 80, nodePort: 30080 }, { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30053 }] })],
      listeners: [listener('web', { portName: 'http', port: 80, hostPort: 30080, kind: 'NodePort' }), listener('web', { portName: 'dns', port: 53, protocol: 'UDP', hostPort: 30053, kind: 'NodePort' })],
      conflicts: [],
    },
    {
      name: 'opens the service port and the node port of a LoadBalancer Service',
      services: [service('lb', { type: 'LoadBalancer', ports: [{ port: 8080, nodePort: 31000 }] })],
      listeners: [listener('lb', { port: 8080, hostPort: 8080, kind: 'LoadBalancer' }), listener('lb', { port: 8080, hostPort: 31000, kind: 'NodePort' })],
      conflicts: [],
    },
    {
      name: 'opens only the service port of a LoadBalancer without node ports',
      services: [service('lb', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 8080 }] })],
      listeners: [listener('lb', { port: 8080, hostPort: 8080, kind: 'LoadBalancer' })],
      conflicts: [],
    },
    {
      name: 'opens one socket when a LoadBalancer node port equals its service port',
      services: [service('lb', { type: 'LoadBalancer', ports: [{ port: 30080, nodePort: 30080 }] })],
      listeners: [listener('lb', { port: 30080, hostPort: 30080, kind: 'LoadBalancer' })],
      conflicts: [],
    },
    {
      name: 'gives a LoadBalancer of another class its node ports only',
      services: [service('lb', { type: 'LoadBalancer', loadBalancerClass: 'example.com/lb', ports: [{ port: 8080, nodePort: 31000 }] })],
      listeners: [listener('lb', { port: 8080, hostPort: 31000, kind: 'NodePort' })],
      conflicts: [],
    },
    {
      name: 'skips SCTP ports',
      services: [service('web', { type: 'NodePort', ports: [{ port: 9, protocol: 'SCTP', nodePort: 30009 }] })],
      listeners: [],
      conflicts: [],
    },
    {
      name: 'carries ClientIP affinity with its timeout',
      services: [service('web', { type: 'NodePort', sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } }, ports: [{ port: 80, nodePort: 30080 }] })],
      listeners: [listener('web', { port: 80, hostPort: 30080, kind: 'NodePort', affinitySeconds: 60 })],
      conflicts: [],
    },
    {
      name: 'lets TCP and UDP share a port number',
      services: [service('dns', { type: 'LoadBalancer', ports: [{ name: 'tcp', port: 53 }, { name: 'udp', port: 53, protocol: 'UDP' }] })],
      listeners: [listener('dns', { portName: 'tcp', port: 53, hostPort: 53, kind: 'LoadBalancer' }), listener('dns', { portName: 'udp', port: 53, protocol: 'UDP', hostPort: 53, kind: 'LoadBalancer' })],
      conflicts: [],
    },
    {
      name: 'gives a port two Services want to the older one',
      services: [service('young', { type: 'LoadBalancer', ports: [{ port: 80 }] }, '2026-01-02T00:00:00Z'), service('old', { type: 'LoadBalancer', ports: [{ port: 80 }] }, '2026-01-01T00:00:00Z')],
      listeners: [listener('old', { port: 80, hostPort: 80, kind: 'LoadBalancer' })],
      conflicts: [{ listener: listener('young', { port: 80, hostPort: 80, kind: 'LoadBalancer' }), heldBy: listener('old', { port: 80, hostPort: 80, kind: 'LoadBalancer' }) }],
    },
    {
      name: 'breaks a creation-time tie by namespace and name',
      services: [service('b', { type: 'LoadBalancer', ports: [{ port: 80 }] }), service('a', { type: 'NodePort', ports: [{ port: 8080, nodePort: 80 }] })],
      listeners: [listener('a', { port: 8080, hostPort: 80, kind: 'NodePort' })],
      conflicts: [{ listener: listener('b', { port: 80, hostPort: 80, kind: 'LoadBalancer' }), heldBy: listener('a', { port: 8080, hostPort: 80, kind: 'NodePort' }) }],
    },
  ])('$name', ({ services, listeners, conflicts }) => {
    expect(planHostPorts(services)).toEqual({ listeners, conflicts });
  });
});

describe('sessionAffinitySeconds', () => {
  it.each([
    { name: 'is 0 without session affinity', spec: {}, want: 0 },
    { name: 'is 0 for sessionAffinity None', spec: { sessionAffinity: 'None' }, want: 0 },
    { name: 'defaults to three hours for ClientIP', spec: { sessionAffinity: 'ClientIP' }, want: 10_800 },
    { name: 'takes the configured timeout', spec: { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } }, want: 5 },
  ])('$name', ({ spec, want }) => {
    expect(sessionAffinitySeconds(service('web', spec))).toBe(want);
  });
});
