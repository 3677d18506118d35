// Defaults for autoscaling/v2 HorizontalPodAutoscalers (pkg/apis/autoscaling/v2/defaults.go):
// minReplicas 1, a CPU utilization target of 80% when no metric is given, and, once `behavior` is
// present, every unset field of its scaleUp/scaleDown rules filled from the upstream defaults
// (scale up by max(4 pods, 100%) per 15 s with no stabilization; scale down by 100% per 15 s, the
// stabilization window left unset so the controller applies its own 300 s).
import type { KubeObject } from '../../../shared/kubernetes/types';
import { existing, isAbsent, isRecord, setDefault, type FieldRecord } from './fields';

/** upstream autoscaling.DefaultCPUUtilization */
export const DEFAULT_CPU_UTILIZATION = 80;

function scaleUpRules(): FieldRecord {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
  };
}

function scaleDownRules(): FieldRecord {
  return { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };
}

/** copyHPAScalingRules: the user's non-null fields over the defaults. */
function fillRules(behavior: FieldRecord, key: 'scaleUp' | 'scaleDown'): void {
  const defaults = key === 'scaleUp' ? scaleUpRules() : scaleDownRules();
  const given = behavior[key];
  if (isAbsent(given)) {
    behavior[key] = defaults;
    return;
  }
  if (!isRecord(given)) return;
  for (const [field, value] of Object.entries(defaults)) setDefault(given, field, value);
}

export function defaultHorizontalPodAutoscaler(obj: KubeObject): void {
  if (!isRecord(obj.spec)) return;
  const spec = obj.spec;
  setDefault(spec, 'minReplicas', 1);
  if (isAbsent(spec.metrics) || (Array.isArray(spec.metrics) && spec.metrics.length === 0)) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  const behavior = existing(spec, 'behavior');
  if (behavior) {
    fillRules(behavior, 'scaleUp');
    fillRules(behavior, 'scaleDown');
  }
}
