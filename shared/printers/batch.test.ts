import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { cronJobTable, jobCompletions, jobDuration, jobStatus, jobTable } from './batch';

const now = new Date('2025-01-01T12:00:00Z');

function object(fields: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name: 'batch', creationTimestamp: '2025-01-01T11:50:00Z', ...metadata }, ...fields };
}

function condition(type: string, status = 'True'): Record<string, unknown> {
  return { type, status };
}

describe('jobStatus', () => {
  it.each<[string, unknown[], Record<string, unknown>, string]>([
    ['no conditions', [], {}, 'Running'],
    ['Complete', [condition('SuccessCriteriaMet'), condition('Complete')], {}, 'Complete'],
    ['Failed', [condition('FailureTarget'), condition('Failed')], {}, 'Failed'],
    ['a deleted running job', [], { deletionTimestamp: '2025-01-01T11:59:00Z' }, 'Terminating'],
    ['a deleted complete job', [condition('Complete')], { deletionTimestamp: '2025-01-01T11:59:00Z' }, 'Complete'],
    ['Suspended', [condition('Suspended')], {}, 'Suspended'],
    ['a resumed job', [condition('Suspended', 'False')], {}, 'Running'],
    ['FailureTarget', [condition('FailureTarget')], {}, 'FailureTarget'],
    ['SuccessCriteriaMet', [condition('SuccessCriteriaMet')], {}, 'SuccessCriteriaMet'],
  ])('is %s', (_description, conditions, metadata, expected) => {
    expect(jobStatus(object({ status: { conditions } }, metadata))).toBe(expected);
  });
});

describe('jobCompletions', () => {
  it.each<[Record<string, unknown>, Record<string, unknown>, string]>([
    [{ completions: 1, parallelism: 1 }, { succeeded: 1 }, '1/1'],
    [{ completions: 5, parallelism: 2 }, { succeeded: 3 }, '3/5'],
    [{ parallelism: 1 }, {}, '0/1'],
    [{}, {}, '0/1'],
    [{ parallelism: 4 }, { succeeded: 1 }, '1/1 of 4'],
  ])('prints spec %j status %j as %s', (spec, status, expected) => {
    expect(jobCompletions(object({ spec, status }))).toBe(expected);
  });
});

describe('jobDuration', () => {
  it('is empty before the job starts', () => {
    expect(jobDuration(object({ status: {} }), now)).toBe('');
  });

  it('counts up to now while running', () => {
    expect(jobDuration(object({ status: { startTime: '2025-01-01T11:55:30Z' } }), now)).toBe('4m30s');
  });

  it('is the run time once complete', () => {
    expect(jobDuration(object({ status: { startTime: '2025-01-01T11:50:00Z', completionTime: '2025-01-01T11:50:07Z' } }), now)).toBe('7s');
  });
});

describe('jobTable', () => {
  it('prints a complete job with wide columns', () => {
    const job = object({
      spec: {
        completions: 1,
        parallelism: 1,
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'abc' } },
        template: { spec: { containers: [{ name: 'pi', image: 'perl:5.34' }] } },
      },
      status: { succeeded: 1, startTime: '2025-01-01T11:50:00Z', completionTime: '2025-01-01T11:50:12Z', conditions: [condition('SuccessCriteriaMet'), condition('Complete')] },
    });
    expect(jobTable.row(job, now)).toEqual(['batch', 'Complete', '1/1', '12s', '10m', 'pi', 'perl:5.34', 'batch.kubernetes.io/controller-uid=abc']);
    expect(jobTable.columns.map((column) => column.name)).toEqual(['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers', 'Images', 'Selector']);
  });
});

describe('cronJobTable', () => {
  const jobTemplate = { spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox' }] } } } };

  it('prints a cron job that has never run', () => {
    const cronJob = object({ spec: { schedule: '*/5 * * * *', suspend: false, jobTemplate }, status: {} });
    expect(cronJobTable.row(cronJob, now)).toEqual(['batch', '*/5 * * * *', '<none>', 'False', 0, '<none>', '10m', 'hello', 'busybox', '<none>']);
  });

  it('prints time zone, suspension, active jobs and the last schedule', () => {
    const cronJob = object({
      spec: { schedule: '0 * * * *', timeZone: 'Etc/UTC', suspend: true, jobTemplate },
      status: { active: [{ name: 'batch-1' }, { name: 'batch-2' }], lastScheduleTime: '2025-01-01T11:00:00Z' },
    });
    expect(cronJobTable.row(cronJob, now).slice(1, 6)).toEqual(['0 * * * *', 'Etc/UTC', 'True', 2, '60m']);
  });

  it('prints <unset> when suspend was never defaulted', () => {
    expect(cronJobTable.row(object({ spec: { schedule: '@daily', jobTemplate } }), now)[3]).toBe('<unset>');
  });

  it('has the upstream columns', () => {
    expect(cronJobTable.columns.map((column) => [column.name, column.type, column.priority])).toEqual([
      ['Name', 'string', 0],
      ['Schedule', 'string', 0],
      ['Timezone', 'string', 0],
      ['Suspend', 'boolean', 0],
      ['Active', 'integer', 0],
      ['Last Schedule', 'string', 0],
      ['Age', 'string', 0],
      ['Containers', 'string', 1],
      ['Images', 'string', 1],
      ['Selector', 'string', 1],
    ]);
  });
});
