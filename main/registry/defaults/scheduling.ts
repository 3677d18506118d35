// Defaults for scheduling.k8s.io/v1 PriorityClasses (pkg/apis/scheduling/v1/defaults.go):
// preemptionPolicy PreemptLowerPriority.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { setDefault } from './fields';

export function defaultPriorityClass(obj: KubeObject): void {
  setDefault(obj, 'preemptionPolicy', 'PreemptLowerPriority');
}
