// The Priority admission plugin (plugin/pkg/admission/priority/admission.go). On pod create it
// resolves spec.priority and spec.preemptionPolicy from spec.priorityClassName, or from the
// globalDefault class when the pod names none (priority 0 and PreemptLowerPriority when there is
// no default), and refuses unknown classes with upstream's `no PriorityClass with name x was
// found`, and a priority or preemption policy the client gave that differs from what the class
// gives. Pod defaulting leaves both fields alone, as upstream's does, so an explicit 0 is told from
// none. On PriorityClass create it allows one globalDefault.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import type { ResourceRegistry } from '../resourceRegistry';
import type { CreateAdmission, ResourceStore } from '../resourceStore';

function forbidden(resource: string, group: string, name: string, message: string): ApiError {
  const qualified = group ? `${resource}.${group}` : resource;
  return new ApiError(403, 'Forbidden', `${qualified} "${name}" is forbidden: ${message}`, { name, group, kind: resource });
}

/** getDefaultPriorityClass: the globalDefault class with the lowest value, should there be several. */
export function defaultPriorityClass(classes: readonly KubeObject[]): KubeObject | undefined {
  let chosen: KubeObject | undefined;
  for (const candidate of classes) {
    if (candidate.globalDefault !== true) continue;
    if (!chosen || Number(chosen.value ?? 0) > Number(candidate.value ?? 0)) chosen = candidate;
  }
  return chosen;
}

/**
 * admitPod for create: mutates `pod.spec` or throws a 403. `lookupClass` reads one PriorityClass,
 * `listClasses` all of them (for the default).
 */
export function admitPodPriority(pod: KubeObject, lookupClass: (name: string) => KubeObject | undefined, listClasses: () => readonly KubeObject[]): void {
  if (!isRecord(pod.spec)) return;
  const spec = pod.spec;
  const podName = pod.metadata.name ?? '';
  const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  // establishPriority: the named class, else the default class, else priority 0 and PreemptLowerPriority
  let priority = 0;
  let preemptionPolicy: unknown = 'PreemptLowerPriority';
  if (className === '') {
    const fallback = defaultPriorityClass(listClasses());
    if (fallback) {
      spec.priorityClassName = fallback.metadata.name;
      priority = Number(fallback.value ?? 0);
      preemptionPolicy = fallback.preemptionPolicy;
    }
  } else {
    const found = lookupClass(className);
    if (!found) throw forbidden('pods', '', podName, `no PriorityClass with name ${className} was found`);
    priority = Number(found.value ?? 0);
    preemptionPolicy = found.preemptionPolicy;
  }
  if (typeof spec.priority === 'number' && spec.priority !== priority) {
    throw forbidden('pods', '', podName, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
  }
  spec.priority = priority;
  if (typeof preemptionPolicy === 'string' && preemptionPolicy !== '') {
    if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy !== preemptionPolicy) {
      throw forbidden('pods', '', podName, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${preemptionPolicy} from the given PriorityClass name`);
    }
    spec.preemptionPolicy = preemptionPolicy;
  }
}

/** validatePriorityClass (admission half): only one class may be the global default. */
export function admitPriorityClass(priorityClass: KubeObject, listClasses: () => readonly KubeObject[]): void {
  if (priorityClass.globalDefault !== true) return;
  const existing = defaultPriorityClass(listClasses().filter((candidate) => candidate.metadata.name !== priorityClass.metadata.name));
  if (existing) {
    throw forbidden('priorityclasses', 'scheduling.k8s.io', priorityClass.metadata.name ?? '', `PriorityClass ${existing.metadata.name ?? ''} is already marked as default. Only one default can exist`);
  }
}

/** The plugin's two hooks for the API server's create admission chain. */
export function priorityAdmissionHooks(registry: ResourceRegistry): CreateAdmission[] {
  const classes = (objects: ResourceStore): readonly KubeObject[] => {
    const def = registry.lookup('scheduling.k8s.io', 'v1', 'priorityclasses');
    return def ? objects.list(def, { labels: [], fields: [] }).items : [];
  };
  return [
    (def, obj, objects) => {
      if (def.group !== '' || def.resource !== 'pods') return;
      const classDef = registry.lookup('scheduling.k8s.io', 'v1', 'priorityclasses');
      admitPodPriority(obj, (name) => (classDef ? objects.tryGet(classDef, '', name) : undefined), () => classes(objects));
    },
    (def, obj, objects) => {
      if (def.group !== 'scheduling.k8s.io' || def.resource !== 'priorityclasses') return;
      admitPriorityClass(obj, () => classes(objects));
    },
  ];
}
