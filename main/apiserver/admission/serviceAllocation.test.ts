import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { ServiceAllocator } from './serviceAllocation';

const config = { serviceRange: '10.123.128.0/17', nodePortRange: { min: 30000, max: 30009 } };

function service(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP' }], ...spec } };
}

describe('ServiceAllocator', () => {
  it('gives a Service without a cluster IP a free one inside the service range', () => {
    const allocator = new ServiceAllocator(config);
    const created = service('web', {});
    expect(allocator.allocate(created, undefined, [])).toEqual([]);
    const spec = created.spec as Record<string, unknown>;
    expect(spec.clusterIP).toMatch(/^10\.123\.(1[2-9]\d|2[0-5]\d)\.\d+$/);
    expect(spec.clusterIPs).toEqual([spec.clusterIP]);
  });

  it('never hands out an address another Service holds, even when the range is nearly full', () => {
    const allocator = new ServiceAllocator({ ...config, serviceRange: '10.0.0.0/29' });
    const others: KubeObject[] = [];
    for (let index = 0; index < 6; index++) {
      const next = service(`s${index}`, {});
      expect(allocator.allocate(next, undefined, others)).toEqual([]);
      others.push(next);
    }
    const ips = others.map((other) => (other.spec as Record<string, unknown>).clusterIP);
    expect(new Set(ips).size).toBe(6);
    const full = service('full', {});
    expect(allocator.allocate(full, undefined, others)[0]?.detail).toContain('failed to allocate a serviceIP: range is full');
  });

  it.each([
    ['an address outside the range', '10.96.0.5', 'failed to allocate IP 10.96.0.5: the provided IP (10.96.0.5) is not in the valid range. The range of valid IPs is 10.123.128.0/17'],
    ['an address already allocated', '10.123.128.10', 'failed to allocate IP 10.123.128.10: provided IP is already allocated'],
  ])('refuses %s with the upstream message', (_label, ip, message) => {
    const allocator = new ServiceAllocator(config);
    const taken = service('dns', { clusterIP: '10.123.128.10' });
    const errors = allocator.allocate(service('web', { clusterIP: ip, clusterIPs: [ip] }), undefined, [taken]);
    expect(errors).toHaveLength(1);
    expect(errors[0].field).toBe('spec.clusterIPs');
    expect(errors[0].detail).toMatch(/^Invalid value: /);
    expect(errors[0].detail.endsWith(`: ${message}`)).toBe(true);
  });

  it('allocates nothing for headless and ExternalName Services', () => {
    const allocator = new ServiceAllocator(config);
    const headless = service('h', { clusterIP: 'None' });
    const external = service('e', { type: 'ExternalName', externalName: 'example.com' });
    allocator.allocate(headless, undefined, []);
    allocator.allocate(external, undefined, []);
    expect((headless.spec as Record<string, unknown>).clusterIP).toBe('None');
    expect((external.spec as Record<string, unknown>).clusterIP).toBeUndefined();
  });

  it('gives NodePort Services distinct node ports in range and keeps a requested one', () => {
    const allocator = new ServiceAllocator(config);
    const first = service('a', { type: 'NodePort', ports: [{ port: 80, protocol: 'TCP', nodePort: 30005 }, { port: 443, protocol: 'TCP' }] });
    expect(allocator.allocate(first, undefined, [])).toEqual([]);
    const ports = (first.spec as { ports: Array<{ nodePort: number }> }).ports;
    expect(ports[0].nodePort).toBe(30005);
    expect(ports[1].nodePort).toBeGreaterThanOrEqual(30000);
    expect(ports[1].nodePort).not.toBe(30005);
    const clash = service('b', { type: 'NodePort', ports: [{ port: 80, protocol: 'TCP', nodePort: 30005 }] });
    expect(allocator.allocate(clash, undefined, [first])).toEqual([
      expect.objectContaining({ field: 'spec.ports[0].nodePort', detail: 'Invalid value: 30005: provided port is already allocated' }),
    ]);
    const outside = service('c', { type: 'NodePort', ports: [{ port: 80, protocol: 'TCP', nodePort: 80 }] });
    expect(allocator.allocate(outside, undefined, [])[0].detail).toBe('Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-30009');
  });

  it('hands out no node port the host already holds, yet gives a held one when asked for it', () => {
    const held = new Set([30000, 30001, 30002, 30003, 30004, 30005, 30006, 30007]);
    const allocator = new ServiceAllocator({ ...config, hostPortsInUse: () => held });
    const automatic = service('auto', { type: 'NodePort', ports: [{ port: 80, protocol: 'TCP' }, { port: 81, protocol: 'TCP' }] });
    expect(allocator.allocate(automatic, undefined, [])).toEqual([]);
    const nodePorts = ((automatic.spec as Record<string, unknown>).ports as Array<{ nodePort: number }>).map((port) => port.nodePort);
    expect(nodePorts.sort((left, right) => left - right)).toEqual([30008, 30009]);
    const asked = service('asked', { type: 'NodePort', ports: [{ port: 80, protocol: 'TCP', nodePort: 30003 }] });
    expect(allocator.allocate(asked, undefined, [automatic])).toEqual([]);
  });

  it('falls back to ports the host holds when nothing else of the range is free', () => {
    const everything = new Set(Array.from({ length: 10 }, (_, index) => 30000 + index));
    const allocator = new ServiceAllocator({ ...config, hostPortsInUse: () => everything });
    const created = service('auto', { type: 'NodePort' });
    expect(allocator.allocate(created, undefined, [])).toEqual([]);
    expect(((created.spec as Record<string, unknown>).ports as Array<{ nodePort: number }>)[0].nodePort).toBe(30000);
  });

  it('lets one port number over TCP and UDP share a node port', () => {
    const allocator = new ServiceAllocator(config);
    const dns = service('dns', { type: 'NodePort', ports: [{ name: 'udp', port: 53, protocol: 'UDP' }, { name: 'tcp', port: 53, protocol: 'TCP' }] });
    expect(allocator.allocate(dns, undefined, [])).toEqual([]);
    const ports = (dns.spec as { ports: Array<{ nodePort: number }> }).ports;
    expect(ports[0].nodePort).toBe(ports[1].nodePort);
  });

  it('releases node ports when an update turns a NodePort Service into a ClusterIP one', () => {
    const allocator = new ServiceAllocator(config);
    const old = service('a', { type: 'NodePort', clusterIP: '10.123.200.1', ports: [{ port: 80, protocol: 'TCP', nodePort: 30001 }] });
    const updated = service('a', { type: 'ClusterIP', clusterIP: '10.123.200.1', ports: [{ port: 80, protocol: 'TCP', nodePort: 30001 }] });
    expect(allocator.allocate(updated, old, [old])).toEqual([]);
    expect((updated.spec as { ports: Array<{ nodePort?: number }> }).ports[0].nodePort).toBeUndefined();
  });
});
