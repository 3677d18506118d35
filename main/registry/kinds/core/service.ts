// Service (core/v1), after pkg/registry/core/service/strategy.go and storage/storage.go: created
// with an empty load-balancer status; main-resource updates keep the stored status and what the
// cluster allocated when the update leaves it out (cluster IPs, IP families, node ports —
// patchAllocatedValues); cluster IPs and node ports are allocated after validation by the API
// server's ServiceAllocator (main/apiserver/admission/serviceAllocation.ts); /proxy is the API
// server's service proxy.
import { isRecord, type KubeObject } from '../../../../shared/kubernetes/types';
import { serviceTable } from '../../../../shared/printers/core';
import { defaultService } from '../../defaults/core';
import { validateService, validateServiceUpdate } from '../../validation/core';
import { defineKind, fieldText, keepStoredStatus, statusSubresource, valueAt } from '../../strategy';

/** patchAllocatedValues: an update without cluster IPs, IP families or node ports keeps the allocated ones. */
function keepAllocatedFields(service: KubeObject, old: KubeObject): void {
  if (!isRecord(service.spec) || !isRecord(old.spec)) return;
  const spec = service.spec;
  const previous = old.spec;
  if ((spec.clusterIP === undefined || spec.clusterIP === '') && typeof previous.clusterIP === 'string') {
    spec.clusterIP = previous.clusterIP;
    if (spec.clusterIPs === undefined && previous.clusterIPs !== undefined) spec.clusterIPs = structuredClone(previous.clusterIPs);
  }
  if (spec.ipFamilies === undefined && previous.ipFamilies !== undefined) spec.ipFamilies = structuredClone(previous.ipFamilies);
  if (spec.ipFamilyPolicy === undefined && previous.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = previous.ipFamilyPolicy;
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
    keepAllocatedFields(service, old);
  },
  defaults: defaultService,
  validateCreate: validateService,
  validateUpdate: validateServiceUpdate,
  allocator: 'serviceAddresses',
  printer: serviceTable,
  selectableFields: (service) => ({ 'spec.clusterIP': fieldText(valueAt(service, 'spec', 'clusterIP')), 'spec.type': fieldText(valueAt(service, 'spec', 'type')) }),
});
