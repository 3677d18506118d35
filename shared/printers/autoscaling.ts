// `kubectl get hpa`: upstream pkg/printers/internalversion/printers.go printHorizontalPodAutoscaler
// and formatHPAMetrics — NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE, where TARGETS shows
// each metric as `current/target` (`cpu: 12%/50%`, `<unknown>` before the first measurement) and
// cuts off after two with `+ N more...`.
import { isRecord } from '../kubernetes/types';
import type { TableDef } from './table';
import { ageColumn, column, nameColumn } from './columns';
import { arrayAt, hasValue, numberAt, quantityAt, recordAt, stringAt, valueAt } from './fields';
import { age, name } from './format';

const unknown = '<unknown>';

function utilizationText(value: unknown): string | undefined {
  return typeof value === 'number' ? `${value}%` : undefined;
}

/** One metric's `current/target` text; `status` is the matching entry of status.currentMetrics. */
function formatMetric(spec: Record<string, unknown>, status: Record<string, unknown> | undefined): string {
  const type = stringAt(spec, 'type');
  const sourceKey = type === 'ContainerResource' ? 'containerResource' : type.toLowerCase();
  const source = recordAt(spec, sourceKey);
  const target = recordAt(source, 'target');
  const current = status && isRecord(status[sourceKey]) ? recordAt(status[sourceKey], 'current') : undefined;
  switch (type) {
    case 'External':
    case 'Object':
      if (hasValue(target, 'averageValue')) {
        const now = current && hasValue(current, 'averageValue') ? quantityAt(current, 'averageValue') : unknown;
        return `${now}/${quantityAt(target, 'averageValue')} (avg)`;
      }
      return `${current ? quantityAt(current, 'value') : unknown}/${quantityAt(target, 'value')}`;
    case 'Pods':
      return `${current ? quantityAt(current, 'averageValue') : unknown}/${quantityAt(target, 'averageValue')}`;
    case 'Resource':
    case 'ContainerResource': {
      const resourceName = stringAt(source, 'name');
      if (hasValue(target, 'averageValue')) {
        return `${resourceName}: ${current ? quantityAt(current, 'averageValue') : unknown}/${quantityAt(target, 'averageValue')}`;
      }
      const now = (current && utilizationText(current.averageUtilization)) ?? unknown;
      return `${resourceName}: ${now}/${utilizationText(target.averageUtilization) ?? '<auto>'}`;
    }
    default:
      return '<unknown type>';
  }
}

/** formatHPAMetrics */
export function formatHorizontalPodAutoscalerMetrics(specs: unknown[], statuses: unknown[]): string {
  if (specs.length === 0) return '<none>';
  const shown = 2;
  const texts = specs.map((spec, index) => formatMetric(isRecord(spec) ? spec : {}, isRecord(statuses[index]) ? statuses[index] : undefined));
  const joined = texts.slice(0, shown).join(', ');
  return texts.length > shown ? `${joined} + ${texts.length - shown} more...` : joined;
}

export const horizontalPodAutoscalerTable: TableDef = {
  columns: [
    nameColumn(),
    column('Reference', 'string', 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.'),
    column('Targets', 'string', 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).'),
    column('MinPods', 'string', 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.'),
    column('MaxPods', 'string', 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.'),
    column('Replicas', 'string', 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.'),
    ageColumn(),
  ],
  row(object, now) {
    const minReplicas = valueAt(object, 'spec', 'minReplicas');
    return [
      name(object),
      `${stringAt(object, 'spec', 'scaleTargetRef', 'kind')}/${stringAt(object, 'spec', 'scaleTargetRef', 'name')}`,
      formatHorizontalPodAutoscalerMetrics(arrayAt(object, 'spec', 'metrics'), arrayAt(object, 'status', 'currentMetrics')),
      typeof minReplicas === 'number' ? String(minReplicas) : '<unset>',
      numberAt(object, 'spec', 'maxReplicas'),
      numberAt(object, 'status', 'currentReplicas'),
      age(object, now),
    ];
  },
};
