// `kubectl get` tables for cluster-policy kinds: upstream pkg/printers/internalversion/printers.go
// printPodDisruptionBudget (policy/v1), printPriorityClass (scheduling.k8s.io/v1) and
// printMutatingWebhook / printValidatingWebhook (admissionregistration.k8s.io/v1).
import type { TableDef } from './table';
import { ageColumn, column, nameColumn } from './columns';
import { arrayAt, booleanAt, hasValue, numberAt, stringAt, valueAt } from './fields';
import { age, name } from './format';

/** intstr.IntOrString.String(), or `N/A` when unset. */
function intOrStringText(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  return 'N/A';
}

export const podDisruptionBudgetTable: TableDef = {
  columns: [
    nameColumn(),
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageColumn(),
  ],
  row(object, now) {
    return [
      name(object),
      intOrStringText(valueAt(object, 'spec', 'minAvailable')),
      intOrStringText(valueAt(object, 'spec', 'maxUnavailable')),
      numberAt(object, 'status', 'disruptionsAllowed'),
      age(object, now),
    ];
  },
};

export const priorityClassTable: TableDef = {
  columns: [
    nameColumn(),
    column('Value', 'integer', 'value represents the integer value of this priority class.'),
    column('Global-Default', 'boolean', 'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.'),
    ageColumn(),
    column('PreemptionPolicy', 'string', 'preemptionPolicy is the Policy for preempting pods with lower priority.'),
  ],
  row(object, now) {
    return [
      name(object),
      numberAt(object, 'value'),
      booleanAt(object, 'globalDefault'),
      age(object, now),
      hasValue(object, 'preemptionPolicy') ? stringAt(object, 'preemptionPolicy') : '',
    ];
  },
};

export const webhookConfigurationTable: TableDef = {
  columns: [
    nameColumn(),
    column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'),
    ageColumn(),
  ],
  row(object, now) {
    return [name(object), arrayAt(object, 'webhooks').length, age(object, now)];
  },
};
