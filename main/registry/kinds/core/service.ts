// Service (core/v1), after pkg/registry/core/service/strategy.go and storage/storage.go: created
// with an empty load-balancer status; main-resource updates keep the stored status, drop what a
// type change leaves without use when the client did not change it too (dropTypeDependentFields:
// cluster IPs for ExternalName, node ports, allocateLoadBalancerNodePorts and loadBalancerClass
// off LoadBalancer), and keep what the cluster allocated when the update leaves it out while the
// type still needs it (cluster IPs, IP families, node ports — patchAllocatedValues); cluster IPs and node ports are allocated after validation by the API
// server's ServiceAllocator (main/apiserver/admission/serviceAllocation.ts); /proxy is the API
// server's service proxy.
import { isRecord, type KubeObject } from '../../../../shared/kubernetes/types';
import { serviceTable } from '../../../../shared/printers/core';
import { defaultService } from '../../defaults/core';
import { validateService, validateServiceUpdate } from '../../validation/core';
import { defineKind, fieldText, keepStoredStatus, statusSubresource, valueAt } from '../../strategy';

function typeOf(spec: Record<string, unknown>): string {
  return typeof spec.type === 'string' && spec.type !== '' ? spec.type : 'ClusterIP';
}

const needsClusterIP = (spec: Record<string, unknown>) => typeOf(spec) !== 'ExternalName';
const needsNodePort = (spec: Record<string, unknown>) => typeOf(spec) === 'NodePort' || typeOf(spec) === 'LoadBalancer';
const needsHealthCheckNodePort = (spec: Record<string, unknown>) => typeOf(spec) === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
const same = (left: unknown, right: unknown) => JSON.stringify(left ?? null) === JSON.stringify(right ?? null);

function nodePortsOf(spec: Record<string, unknown>): Set<number> {
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isRecord) : [];
  return new Set(ports.map((port) => port.nodePort).filter((nodePort): nodePort is number => typeof nodePort === 'number' && nodePort !== 0));
}

/** dropTypeDependentFields: a type change wipes what the new type has no use for, unless the client changed it too. */
function dropTypeDependentFields(service: KubeObject, old: KubeObject): void {
  if (!isRecord(service.spec) || !isRecord(old.spec)) return;
  const spec = service.spec;
  const previous = old.spec;
  if (needsClusterIP(previous) && !needsClusterIP(spec)) {
    if (same(previous.clusterIP, spec.clusterIP) && same(previous.clusterIPs, spec.clusterIPs)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (same(previous.ipFamilies, spec.ipFamilies)) delete spec.ipFamilies;
    if (same(previous.ipFamilyPolicy, spec.ipFamilyPolicy)) delete spec.ipFamilyPolicy;
  }
  // users may add, remove or change ports as long as they add no new node port
  const oldNodePorts = nodePortsOf(previous);
  if (needsNodePort(previous) && !needsNodePort(spec) && [...nodePortsOf(spec)].every((nodePort) => oldNodePorts.has(nodePort))) {
    for (const port of Array.isArray(spec.ports) ? spec.ports.filter(isRecord) : []) delete port.nodePort;
  }
  if (needsHealthCheckNodePort(previous) && !needsHealthCheckNodePort(spec) && same(previous.healthCheckNodePort, spec.healthCheckNodePort)) delete spec.healthCheckNodePort;
  if (typeOf(previous) === 'LoadBalancer' && typeOf(spec) !== 'LoadBalancer') {
    if (typeof spec.allocateLoadBalancerNodePorts === 'boolean' && spec.allocateLoadBalancerNodePorts === previous.allocateLoadBalancerNodePorts) delete spec.allocateLoadBalancerNodePorts;
    if (same(previous.loadBalancerClass, spec.loadBalancerClass)) delete spec.loadBalancerClass;
  }
}

/** patchAllocatedValues: an update without cluster IPs, IP families or node ports keeps the allocated ones the type still needs. */
function keepAllocatedFields(service: KubeObject, old: KubeObject): void {
  if (!isRecord(service.spec) || !isRecord(old.spec)) return;
  const spec = service.spec;
  const previous = old.spec;
  if (needsClusterIP(previous) && needsClusterIP(spec)) {
    if ((spec.clusterIP === undefined || spec.clusterIP === '') && typeof previous.clusterIP === 'string') {
      spec.clusterIP = previous.clusterIP;
      if (spec.clusterIPs === undefined && previous.clusterIPs !== undefined) spec.clusterIPs = structuredClone(previous.clusterIPs);
    }
    if (spec.ipFamilies === undefined && previous.ipFamilies !== undefined) spec.ipFamilies = structuredClone(previous.ipFamilies);
    if (spec.ipFamilyPolicy === undefined && previous.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = previous.ipFamilyPolicy;
  }
  if (!needsNodePort(previous) || !needsNodePort(spec)) return;
  const oldPorts = Array.isArray(previous.ports) ? previous.ports.filter(isRecord) : [];
  if (Array.isArray(spec.ports)) {
    for (const port of spec.ports) {
      if (!isRecord(port) || (port.nodePort !== undefined && port.nodePort !== 0)) continue;
      const match = oldPorts.find((candidate) => candidate.port === port.port && (candidate.protocol ?? 'TCP') === (port.protocol ?? 'TCP'));
      if (match && typeof match.nodePort === 'number') port.nodePort = match.nodePort;
    }
  }
}

export const serviceStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'services',
  kind: 'Service',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  subresources: [
    { name: 'proxy', type: 'connect', provider: 'serviceProxy', kind: 'ServiceProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
    statusSubresource(),
  ],
  prepareForCreate: (service) => {
    service.status = { loadBalancer: {} };
  },
  prepareForUpdate: (service, old) => {
    keepStoredStatus(service, old);
    dropTypeDependentFields(service, old);
    keepAllocatedFields(service, old);
  },
  defaults: defaultService,
  validateCreate: validateService,
  validateUpdate: validateServiceUpdate,
  allocator: 'serviceAddresses',
  printer: serviceTable,
  selectableFields: (service) => ({ 'spec.clusterIP': fieldText(valueAt(service, 'spec', 'clusterIP')), 'spec.type': fieldText(valueAt(service, 'spec', 'type')) }),
});
