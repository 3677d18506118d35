// Wires the built-in admission plugins into the write path in upstream's order
// (kube-apiserver's default plugin order: NamespaceLifecycle, LimitRanger, ServiceAccount, …,
// Priority, DefaultStorageClass, …, PodSecurity, …, ResourceQuota): ServiceAccount,
// DefaultStorageClass, Priority and LimitRanger's defaults mutate on create; after validation,
// LimitRanger checks, PodSecurity and ResourceQuota (last, so nothing refused later is charged)
// run as validators. NamespaceLifecycle (namespaceLifecycle.ts) is asked first by ResourceStore.create.
// Namespaces, LimitRanges and ResourceQuotas are read from memory (AdmissionReads).
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { ResourceRegistry } from '../resourceRegistry';
import type { ResourceStore } from '../resourceStore';
import type { AdmissionReads } from './admissionReads';
import { admitPersistentVolumeClaimStorageClass } from './defaultStorageClassAdmission';
import { applyLimitRangeDefaults, claimLimitViolations, enforceLimitViolations, podLimitViolations } from './limitRanger';
import { priorityAdmissionHooks } from './priorityAdmission';
import { admitPodServiceAccount } from './serviceAccountAdmission';
import { admitNamespaceSecurity, admitPodControllerSecurity, admitPodSecurity } from './podSecurityAdmission';
import { admitResourceQuota } from './resourceQuotaAdmission';

export function installAdmissionPlugins(objects: ResourceStore, registry: ResourceRegistry, reads: AdmissionReads, clock: () => Date = () => new Date()): void {
  const listIn = (group: string, version: string, resource: string, namespace: string): KubeObject[] => {
    const def = registry.lookup(group, version, resource);
    return def ? objects.list(def, { namespace, labels: [], fields: [] }).items : [];
  };
  const limitRanges = (namespace: string) => reads.limitRanges(namespace);
  const namespaceLabels = (namespace: string): Record<string, string> | undefined => reads.namespace(namespace)?.metadata.labels;

  objects.addMutatingAdmission((def, obj) => {
    if (def.group !== '' || def.resource !== 'pods') return;
    const serviceAccounts = registry.lookup('', 'v1', 'serviceaccounts');
    admitPodServiceAccount(obj, (namespace, name) => (serviceAccounts ? objects.tryGet(serviceAccounts, namespace, name) : undefined));
  });
  objects.addMutatingAdmission((def, obj) => {
    if (def.group !== '' || def.resource !== 'persistentvolumeclaims') return;
    const storageClasses = registry.lookup('storage.k8s.io', 'v1', 'storageclasses');
    admitPersistentVolumeClaimStorageClass(obj, () => (storageClasses ? objects.list(storageClasses, { labels: [], fields: [] }).items : []));
  });
  for (const hook of priorityAdmissionHooks(registry)) objects.addMutatingAdmission(hook);
  objects.addMutatingAdmission((def, obj) => {
    if (def.group === '' && def.resource === 'pods' && obj.metadata.namespace) applyLimitRangeDefaults(obj, limitRanges(obj.metadata.namespace));
  });

  objects.addValidatingAdmission(({ operation, def, obj, old, options, subresource }) => {
    const namespace = obj.metadata.namespace ?? '';
    // Of the subresources admission sees, PodSecurity alone checks (pods/ephemeralcontainers).
    if (subresource) {
      if (def.group === '' && def.resource === 'pods' && namespace) admitPodSecurity(obj, old, namespaceLabels(namespace), options.warnings);
      return;
    }
    // LimitRanger: pods on create only (their resources are immutable), claims on create and update.
    if (def.group === '' && namespace) {
      if (def.resource === 'pods' && operation === 'CREATE') enforceLimitViolations('pods', obj.metadata.name ?? '', podLimitViolations(obj, limitRanges(namespace)));
      if (def.resource === 'persistentvolumeclaims' && !old?.metadata.deletionTimestamp) enforceLimitViolations('persistentvolumeclaims', obj.metadata.name ?? '', claimLimitViolations(obj, limitRanges(namespace)));
    }
    // PodSecurity
    if (def.group === '' && def.resource === 'namespaces') {
      admitNamespaceSecurity(obj, old, () => listIn('', 'v1', 'pods', obj.metadata.name ?? ''), options.warnings);
    } else if (def.group === '' && def.resource === 'pods' && namespace) {
      admitPodSecurity(obj, old, namespaceLabels(namespace), options.warnings);
    } else if (namespace) {
      admitPodControllerSecurity(def.group, def.resource, obj, namespaceLabels(namespace), options.warnings);
    }
    // ResourceQuota
    if (def.namespaced && namespace) {
      admitResourceQuota(
        { operation, group: def.group, resource: def.resource, obj, old },
        {
          quotas: (ns) => reads.resourceQuotas(ns),
          objects: (group, resource, ns) => {
            const found = registry.all().find((candidate) => candidate.group === group && candidate.resource === resource);
            return found ? objects.list(found, { namespace: ns, labels: [], fields: [] }).items : [];
          },
          now: clock,
        },
      );
    }
  });
}
