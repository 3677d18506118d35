// Pod QoS class, as upstream pkg/apis/core/helper/qos/qos.go: Guaranteed when every container has
// equal cpu and memory requests and limits, BestEffort when none has any, Burstable otherwise.
import { isRecord } from '../../shared/kubernetes/types';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

export function podQosClass(spec: unknown): QosClass {
  if (!isRecord(spec)) return 'BestEffort';
  const containers = [...asArray(spec.containers), ...asArray(spec.initContainers)];
  let any = false;
  let guaranteed = true;
  for (const container of containers) {
    const resources = isRecord(container) && isRecord(container.resources) ? container.resources : {};
    const requests = isRecord(resources.requests) ? resources.requests : {};
    const limits = isRecord(resources.limits) ? resources.limits : {};
    for (const name of ['cpu', 'memory']) {
      const request = requests[name];
      const limit = limits[name];
      if (request !== undefined && !isZero(request)) any = true;
      if (limit !== undefined && !isZero(limit)) any = true;
      if (limit === undefined || isZero(limit)) guaranteed = false;
      else if (request !== undefined && String(request) !== String(limit)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed && containers.length > 0 ? 'Guaranteed' : 'Burstable';
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function isZero(value: unknown): boolean {
  return value === 0 || value === '0';
}
