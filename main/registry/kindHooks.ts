// Per-kind strategy hooks (upstream pkg/registry/<group>/<kind>/strategy.go): what status an
// object starts with, what survives an update of the main resource, plus the kind's defaults,
// validation and printer, gathered from registry/defaults, registry/validation and shared/printers.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { FieldError } from './fieldErrors';
import type { TableDef } from './types';
import { tableDefs, defaultTableDef } from '../../shared/printers';
import { validators } from './validation';
import { defaulters } from './defaults';
import { podQosClass } from './podQos';

export interface KindHooks {
  defaults(obj: KubeObject): void;
  validateCreate(obj: KubeObject): FieldError[];
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
  prepareForCreate(obj: KubeObject): void;
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  table: TableDef;
}

/** Kinds whose status is reset on create (the status subresource owns it afterwards). */
const initialStatus: Record<string, (obj: KubeObject) => Record<string, unknown>> = {
  pods: (pod) => ({ phase: 'Pending', qosClass: podQosClass(pod.spec) }),
  services: () => ({ loadBalancer: {} }),
  'deployments.apps': () => ({}),
  'replicasets.apps': () => ({ replicas: 0 }),
  'statefulsets.apps': () => ({ replicas: 0, availableReplicas: 0 }),
  'daemonsets.apps': () => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }),
  'jobs.batch': () => ({}),
  'cronjobs.batch': () => ({}),
  persistentvolumeclaims: () => ({ phase: 'Pending' }),
  persistentvolumes: () => ({ phase: 'Pending' }),
  resourcequotas: () => ({}),
  namespaces: () => ({ phase: 'Active' }),
  'horizontalpodautoscalers.autoscaling': () => ({ desiredReplicas: 0 }),
  'ingresses.networking.k8s.io': () => ({ loadBalancer: {} }),
  'poddisruptionbudgets.policy': () => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
  'certificatesigningrequests.certificates.k8s.io': () => ({}),
};

/** Kinds whose main-resource writes keep the stored status (status is written through /status). */
const statusFromStorageOnUpdate = new Set(Object.keys(initialStatus).filter((key) => key !== 'namespaces'));

export function kindHooks(qualifiedResource: string): KindHooks {
  const validator = validators[qualifiedResource];
  const defaulter = defaulters[qualifiedResource];
  const makeStatus = initialStatus[qualifiedResource];
  return {
    defaults: (obj) => defaulter?.defaults(obj),
    validateCreate: (obj) => validator?.validateCreate(obj) ?? [],
    validateUpdate: (obj, old) => validator?.validateUpdate(obj, old) ?? [],
    prepareForCreate: (obj) => {
      defaulter?.prepareForCreate?.(obj);
      if (makeStatus) {
        const previous = isRecord(obj.status) ? obj.status : {};
        obj.status = makeStatus(obj);
        // A namespace created while terminating stays as requested; everything else starts fresh.
        if (qualifiedResource === 'namespaces' && previous.phase === 'Terminating') obj.status = { phase: 'Active' };
      }
    },
    prepareForUpdate: (obj, old) => {
      if (statusFromStorageOnUpdate.has(qualifiedResource)) {
        if (old.status === undefined) delete obj.status;
        else obj.status = structuredClone(old.status);
      }
      if (qualifiedResource === 'namespaces') obj.status = structuredClone(old.status ?? { phase: 'Active' });
      if (qualifiedResource === 'services') keepAllocatedServiceFields(obj, old);
      // The CSR strategy ignores spec changes: a request is what was signed for (certificates strategy.go).
      if (qualifiedResource === 'certificatesigningrequests.certificates.k8s.io') obj.spec = structuredClone(old.spec);
    },
    table: tableDefs[qualifiedResource] ?? defaultTableDef,
  };
}

/**
 * Upstream's service REST update keeps what the cluster allocated when an update leaves it out
 * (pkg/registry/core/service/storage/storage.go patchAllocatedValues): cluster IPs, IP families
 * and node ports.
 */
function keepAllocatedServiceFields(obj: KubeObject, old: KubeObject): void {
  if (!isRecord(obj.spec) || !isRecord(old.spec)) return;
  const spec = obj.spec;
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
