// `kubectl get` tables for batch/v1 Job and CronJob, following upstream
// pkg/printers/internalversion/printers.go printJob (Status, Completions, Duration) and printCronJob.
import { isConditionTrue } from '../kubernetes/conditions';
import type { TableDef } from './table';
import { ageColumn, column, containerColumns, nameColumn } from './columns';
import { humanDuration, parseTimestamp, translateTimestampSince } from './duration';
import { arrayAt, booleanAt, hasValue, numberAt, stringAt, valueAt } from './fields';
import { age, formatLabelSelector, isDeleting, layoutContainerCells, name } from './format';

/** printJob's Status cell. Terminal conditions win over deletion, which wins over transient ones. */
export function jobStatus(job: unknown): string {
  if (isConditionTrue(job, 'Complete')) return 'Complete';
  if (isConditionTrue(job, 'Failed')) return 'Failed';
  if (isDeleting(job)) return 'Terminating';
  if (isConditionTrue(job, 'Suspended')) return 'Suspended';
  if (isConditionTrue(job, 'FailureTarget')) return 'FailureTarget';
  if (isConditionTrue(job, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

/** printJob's Completions cell: `succeeded/completions`, or `n/1 of parallelism` for work queues. */
export function jobCompletions(job: unknown): string {
  const succeeded = numberAt(job, 'status', 'succeeded');
  if (hasValue(job, 'spec', 'completions')) return `${succeeded}/${numberAt(job, 'spec', 'completions')}`;
  const parallelism = numberAt(job, 'spec', 'parallelism');
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** printJob's Duration cell: empty before start, running time until completion. */
export function jobDuration(job: unknown, now: Date): string {
  const start = parseTimestamp(valueAt(job, 'status', 'startTime'));
  if (start === undefined) return '';
  const completion = parseTimestamp(valueAt(job, 'status', 'completionTime'));
  return humanDuration((completion ?? now.getTime()) - start);
}

const jobSelectorDescription =
  'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors';

export const jobTable: TableDef = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', 'The number of pods which reached phase Succeeded.'),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn(),
    ...containerColumns(),
    column('Selector', 'string', jobSelectorDescription, { priority: 1 }),
  ],
  row(object, now) {
    const { names, images } = layoutContainerCells(valueAt(object, 'spec', 'template', 'spec'));
    return [
      name(object),
      jobStatus(object),
      jobCompletions(object),
      jobDuration(object, now),
      age(object, now),
      names,
      images,
      formatLabelSelector(valueAt(object, 'spec', 'selector')),
    ];
  },
};

/** printBoolPtr: `True`, `False`, or `<unset>`. */
function booleanPointerText(object: unknown, ...path: string[]): string {
  if (!hasValue(object, ...path)) return '<unset>';
  return booleanAt(object, ...path) ? 'True' : 'False';
}

export const cronJobTable: TableDef = {
  columns: [
    nameColumn(),
    column('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    column('Timezone', 'string', 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.'),
    column('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.'),
    column('Active', 'integer', 'A list of pointers to currently running jobs.'),
    column('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
    ageColumn(),
    ...containerColumns(),
    column('Selector', 'string', jobSelectorDescription, { priority: 1 }),
  ],
  row(object, now) {
    const jobSpec = valueAt(object, 'spec', 'jobTemplate', 'spec');
    const { names, images } = layoutContainerCells(valueAt(jobSpec, 'template', 'spec'));
    const lastSchedule = hasValue(object, 'status', 'lastScheduleTime')
      ? translateTimestampSince(valueAt(object, 'status', 'lastScheduleTime'), now)
      : '<none>';
    return [
      name(object),
      stringAt(object, 'spec', 'schedule'),
      hasValue(object, 'spec', 'timeZone') ? stringAt(object, 'spec', 'timeZone') : '<none>',
      booleanPointerText(object, 'spec', 'suspend'),
      arrayAt(object, 'status', 'active').length,
      lastSchedule,
      age(object, now),
      names,
      images,
      formatLabelSelector(valueAt(jobSpec, 'selector')),
    ];
  },
};
