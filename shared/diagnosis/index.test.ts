import { describe, expect, it } from 'vitest';
import { NOW, makeDiagnosisPod, makeObject } from '../../test/fixtures/diagnosisObjects';
import { DIAGNOSED_KINDS, diagnose, diagnosisInputs, formatDiagnosis, type Diagnosis } from './index';

describe('diagnose', () => {
  it('diagnoses the kinds of the brief and nothing else', () => {
    expect(Object.keys(DIAGNOSED_KINDS).sort()).toEqual(['CronJob', 'DaemonSet', 'Deployment', 'Ingress', 'Job', 'PersistentVolumeClaim', 'Pod', 'ReplicaSet', 'ReplicationController', 'Service', 'StatefulSet'].sort());
    expect(diagnose('Pod', makeDiagnosisPod('web'), { now: NOW })?.healthy).toBe(true);
    expect(diagnose('ConfigMap', makeObject('v1', 'ConfigMap', 'c'), { now: NOW })).toBeUndefined();
  });

  it('lists what each kind reads', () => {
    expect(diagnosisInputs('Deployment')).toEqual(expect.arrayContaining(['pods', 'events', 'replicaSets']));
    expect(diagnosisInputs('CronJob')).toContain('jobs');
    expect(diagnosisInputs('Ingress')).toEqual(expect.arrayContaining(['services', 'pods', 'endpointSlices']));
    expect(diagnosisInputs('Secret')).toEqual([]);
  });
});

describe('formatDiagnosis', () => {
  const crash: Diagnosis = {
    healthy: false,
    severity: 'error',
    code: 'CrashLoop',
    reason: 'container "app" keeps crashing: exit code 127 (command not found), restarted 3 times',
    details: ['Last exit: code 127: command not found'],
    hints: ['check the command'],
    logRequest: { namespace: 'default', pod: 'crash', container: 'app', previous: true },
    logLines: ['sh: nope: not found'],
  };

  it('prints the reason first, then details, log lines and hints', () => {
    expect(formatDiagnosis(crash)).toBe(
      [
        'container "app" keeps crashing: exit code 127 (command not found), restarted 3 times',
        '  Last exit: code 127: command not found',
        '  Last log lines of container "app" in pod crash (previous instance):',
        '    | sh: nope: not found',
        'hint: check the command',
        '',
      ].join('\n'),
    );
  });

  it('says a crashed run printed nothing, and leaves out an empty log of a running container', () => {
    expect(formatDiagnosis({ ...crash, logLines: [] })).toContain('    (no output)');
    const running = formatDiagnosis({ ...crash, logRequest: { ...crash.logRequest!, previous: false }, logLines: [] });
    expect(running).not.toContain('Last log lines');
  });
});
