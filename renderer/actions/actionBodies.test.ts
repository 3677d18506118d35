import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { jsonEqual } from '../../shared/kubernetes/json';
import { cordonPatch, currentTemplatePatch, deleteOptions, drainSkipReason, drainSummary, drainWaitTitle, evictionBody, evictionStep, jobFromCronJob, manualJobName, parseReplicas, podsRemaining, podsToEvict, randomSuffix, restartPatch, revisionRollbackPlan, rfc3339, rollbackPlan, scalePatch, suspendPatch, terminationWaitMs } from './actionBodies';

describe('simple action bodies', () => {
  it.each([
    ['scale', scalePatch(3), { spec: { replicas: 3 } }],
    ['restart', restartPatch(new Date('2025-03-04T05:06:07.890Z')), { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2025-03-04T05:06:07Z' } } } } }],
    ['cordon', cordonPatch(true), { spec: { unschedulable: true } }],
    ['uncordon', cordonPatch(false), { spec: { unschedulable: null } }],
    ['suspend', suspendPatch(true), { spec: { suspend: true } }],
    ['resume', suspendPatch(false), { spec: { suspend: false } }],
    ['delete', deleteOptions(), { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' }],
    ['eviction', evictionBody({ metadata: { name: 'p', namespace: 'ns' } }), { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: 'ns' } }],
  ])('%s sends what kubectl sends', (_name, body, expected) => {
    expect(body).toEqual(expected);
  });

  it.each([
    ['3', { ok: true, replicas: 3 }],
    [' 0 ', { ok: true, replicas: 0 }],
    ['-1', { ok: false }],
    ['2.5', { ok: false }],
    ['many', { ok: false }],
    ['99999999999', { ok: false }],
  ])('parses the replica count %j', (text, expected) => {
    expect(parseReplicas(text)).toMatchObject(expected);
  });

  it('formats times as RFC 3339 without fractions', () => {
    expect(rfc3339(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 600)))).toBe('2024-01-02T03:04:05Z');
  });
});

function pod(name: string, extra: Partial<KubeObject['metadata']> = {}, nodeName = 'node-1'): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', ...extra }, spec: { nodeName } };
}

describe('drain', () => {
  it.each([
    ['a plain pod', pod('a'), undefined],
    ['a DaemonSet pod', pod('b', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: 'u', controller: true }] }), 'DaemonSet-managed'],
    ['a ReplicaSet pod', pod('c', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u', controller: true }] }), undefined],
    ['a mirror pod', pod('d', { annotations: { 'kubernetes.io/config.mirror': 'x' } }), 'mirror pod'],
    ['a terminating pod', pod('e', { deletionTimestamp: '2025-01-01T00:00:00Z' }), 'already terminating'],
  ])('treats %s as kubectl drain --ignore-daemonsets does', (_name, candidate, reason) => {
    expect(drainSkipReason(candidate)).toBe(reason);
  });

  it('evicts only the pods on the node that are not skipped', () => {
    const pods = [pod('a'), pod('elsewhere', {}, 'node-2'), pod('d', { annotations: { 'kubernetes.io/config.mirror': 'x' } })];
    expect(podsToEvict(pods, 'node-1').map((item) => item.metadata.name)).toEqual(['a']);
  });
});

describe('triggering a Job from a CronJob', () => {
  const cronJob: KubeObject = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'nightly', namespace: 'ops', uid: 'cron-uid' },
    spec: { schedule: '0 0 * * *', jobTemplate: { metadata: { labels: { team: 'ops' }, annotations: { note: 'n' } }, spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } } } },
  };

  it('builds the Job `kubectl create job --from=cronjob/nightly` creates', () => {
    expect(jobFromCronJob(cronJob, 'nightly-manual-abcde')).toEqual({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: 'nightly-manual-abcde',
        namespace: 'ops',
        annotations: { 'cronjob.kubernetes.io/instantiate': 'manual', note: 'n' },
        labels: { team: 'ops' },
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'nightly', uid: 'cron-uid', controller: true }],
      },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } },
    });
  });

  it('keeps generated names within 63 characters', () => {
    expect(manualJobName('x'.repeat(70), 'abcde')).toHaveLength(63);
    expect(manualJobName('nightly', 'abcde')).toBe('nightly-manual-abcde');
  });

  it('draws suffixes from the lower-case alphabet', () => {
    expect(randomSuffix(() => 0)).toBe('bbbbb');
    expect(randomSuffix(() => 0.999)).toMatch(/^[a-z0-9]{5}$/);
  });
});

describe('rollback to the previous revision', () => {
  const template = (image: string, hash?: string) => ({ metadata: { labels: { app: 'web', ...(hash ? { 'pod-template-hash': hash } : {}) } }, spec: { containers: [{ name: 'web', image }] } });
  const deployment = (image: string, extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', uid: 'dep-uid', annotations: { 'deployment.kubernetes.io/revision': '3', 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
    spec: { template: template(image), ...extra },
  });
  const replicaSet = (revision: string, image: string, owner = 'dep-uid', annotations: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: `web-${revision}`, namespace: 'default', annotations: { 'deployment.kubernetes.io/revision': revision, ...annotations }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: owner, controller: true }] },
    spec: { template: template(image, `hash${revision}`) },
  });

  it('patches the template of the second-newest revision, minus pod-template-hash', () => {
    const plan = rollbackPlan(deployment('v3'), [replicaSet('1', 'v1'), replicaSet('3', 'v3'), replicaSet('2', 'v2', 'dep-uid', { team: 'a', 'deployment.kubernetes.io/desired-replicas': '5' }), replicaSet('9', 'other', 'someone-else')]);
    expect(plan).toEqual({
      ok: true,
      revision: 2,
      patch: [
        { op: 'replace', path: '/spec/template', value: template('v2') },
        { op: 'replace', path: '/metadata/annotations', value: { 'deployment.kubernetes.io/revision': '3', 'kubectl.kubernetes.io/last-applied-configuration': '{}', team: 'a' } },
      ],
    });
  });

  it.each([
    ['no earlier revision', deployment('v3'), [replicaSet('3', 'v3')], false, 'no rollout history found for deployment "web"'],
    ['a paused deployment', deployment('v3', { paused: true }), [replicaSet('2', 'v2'), replicaSet('3', 'v3')], false, /cannot rollback a paused deployment/],
    ['a template that already matches', deployment('v2'), [replicaSet('2', 'v2'), replicaSet('3', 'v3')], true, 'skipped rollback (current template already matches revision 2)'],
  ])('refuses with %s', (_name, current, replicaSets, skipped, message) => {
    const plan = rollbackPlan(current, replicaSets);
    expect(plan.ok).toBe(false);
    if (!plan.ok) {
      expect(plan.skipped).toBe(skipped);
      expect(plan.message).toMatch(message);
    }
  });

  it.each([
    [{ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: undefined }, true],
    [{ a: [1, 2] }, { a: [2, 1] }, false],
    [{ a: { b: 1 } }, { a: { b: 2 } }, false],
  ])('compares JSON %j and %j structurally', (left, right, expected) => {
    expect(jsonEqual(left, right)).toBe(expected);
  });
});

// Shaped like main/controllers/controllerHistory.ts writes them: data is the getPatch of the owner
// ({spec:{template:{…,$patch:'replace'}}}), labels are the template's plus the hash label, the owner
// is a controller reference with blockOwnerDeletion.
function podTemplate(image: string): Record<string, unknown> {
  return { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image }] } };
}

function owner(kind: string, template: Record<string, unknown>, uid = 'owner-uid'): KubeObject {
  return { apiVersion: 'apps/v1', kind, metadata: { name: 'db', namespace: 'data', uid }, spec: { selector: { matchLabels: { app: 'db' } }, template } };
}

function controllerRevision(parent: KubeObject, revision: number, image: string, hashLabel: string): KubeObject {
  const hash = `h${revision}${image.replace(/[^a-z0-9]/g, '')}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${parent.metadata.name ?? ''}-${hash}`,
      namespace: parent.metadata.namespace,
      labels: { app: 'db', [hashLabel]: hash },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: parent.kind ?? '', name: parent.metadata.name ?? '', uid: parent.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    data: { spec: { template: { ...podTemplate(image), $patch: 'replace' } } },
    revision,
  };
}

describe('StatefulSet and DaemonSet rollback to the previous ControllerRevision', () => {
  const cases = [
    { kind: 'StatefulSet', hashLabel: 'controller.kubernetes.io/hash' },
    { kind: 'DaemonSet', hashLabel: 'controller-revision-hash' },
  ];

  it.each(cases)('patches a $kind with the data of its second-highest revision', ({ kind, hashLabel }) => {
    const current = owner(kind, podTemplate('db:3'));
    const revisions = [controllerRevision(current, 3, 'db:3', hashLabel), controllerRevision(current, 1, 'db:1', hashLabel), controllerRevision(current, 2, 'db:2', hashLabel)];
    expect(revisionRollbackPlan(current, revisions)).toEqual({ ok: true, revision: 2, patch: { spec: { template: { ...podTemplate('db:2'), $patch: 'replace' } } } });
  });

  it.each([
    ['no revisions at all', [], { ok: false, skipped: false, message: 'no previous revision to roll back to' }],
    ['only the current revision', [1], { ok: false, skipped: false, message: 'no previous revision to roll back to' }],
    ['revisions of another owner only', [], { ok: false, skipped: false, message: 'no previous revision to roll back to' }, true],
  ])('refuses with %s', (_name, numbers, expected, foreign = false) => {
    const current = owner('StatefulSet', podTemplate('db:1'));
    const other = owner('StatefulSet', podTemplate('db:1'), 'someone-else');
    const revisions = foreign ? [1, 2].map((revision) => controllerRevision(other, revision, `db:${revision}`, 'x')) : numbers.map((revision) => controllerRevision(current, revision, `db:${revision}`, 'x'));
    expect(revisionRollbackPlan(current, revisions)).toEqual(expected);
  });

  it('skips when the current template already matches the previous revision (kubectl daemonSetMatch / statefulsetMatch)', () => {
    const current = owner('DaemonSet', podTemplate('db:1'));
    // a template edited back by hand: revision 1 matches it although revision 2 is the newest
    const revisions = [controllerRevision(current, 1, 'db:1', 'x'), controllerRevision(current, 2, 'db:1', 'x')];
    expect(revisionRollbackPlan(current, revisions)).toEqual({ ok: false, skipped: true, message: 'skipped rollback (current template already matches revision 1)' });
  });

  it('matches the controllers\' revision data with the template patch of the object', () => {
    const current = owner('StatefulSet', podTemplate('db:7'));
    expect(currentTemplatePatch(current)).toEqual(controllerRevision(current, 1, 'db:7', 'x').data);
  });
});

describe('drain eviction and waiting', () => {
  it.each([
    ['a created eviction', undefined, 0, { action: 'evicted' }],
    ['a pod already gone', 404, 0, { action: 'gone' }],
    ['a budget refusal with time left', 429, 0, { action: 'retry', afterMs: 5_000 }],
    ['a budget refusal retried up to the deadline exactly', 429, 5_000, { action: 'retry', afterMs: 5_000 }],
    ['a budget refusal past the deadline', 429, 5_001, { action: 'blocked' }],
    ['a forbidden eviction', 403, 0, { action: 'failed' }],
    ['a server error', 500, 0, { action: 'failed' }],
    ['a network failure', 0, 0, { action: 'failed' }],
  ])('decides what follows %s', (_name, status, now, expected) => {
    expect(evictionStep(status, now, 10_000)).toEqual(expected);
  });

  it.each([
    ['no pods', [], 30_000],
    ['the default grace period', [{}], 60_000],
    ['the longest grace period', [{ terminationGracePeriodSeconds: 5 }, { terminationGracePeriodSeconds: 120 }], 150_000],
    ['a zero grace period', [{ terminationGracePeriodSeconds: 0 }], 30_000],
  ])('waits for %s plus 30 s', (_name, specs, expected) => {
    expect(terminationWaitMs(specs.map((spec, index) => ({ metadata: { name: `p${index}` }, spec })))).toBe(expected);
  });

  it('counts a pod as gone once the cache lacks it or holds a replacement with another uid', () => {
    const evicted = [pod('a', { uid: '1' }), pod('b', { uid: '2' }), pod('c', { uid: '3' })];
    const cache = { 'default/b': pod('b', { uid: '2' }), 'default/c': pod('c', { uid: '33' }), 'default/z': pod('z') };
    expect(podsRemaining(evicted, cache).map((item) => item.metadata.name)).toEqual(['b']);
  });

  it('titles the waiting task with the count', () => {
    expect([drainWaitTitle('n', 1), drainWaitTitle('n', 3)]).toEqual(['Draining n: waiting for 1 pod to terminate', 'Draining n: waiting for 3 pods to terminate']);
  });

  it.each([
    ['a clean drain', { evicted: ['default/a'], blocked: [], failed: [], stuck: [], ignoredDaemonSetPods: 1 }, 'ok', 'node/n drained: 1 pod(s) evicted, 1 DaemonSet pod(s) ignored'],
    ['budget-blocked pods in one notice', { evicted: ['default/a'], blocked: ['default/b', 'default/c'], failed: [], stuck: [], ignoredDaemonSetPods: 0 }, 'error', 'node/n: 2 of 3 pod(s) not drained\neviction refused by a PodDisruptionBudget until the deadline: default/b, default/c'],
    ['failures and stuck pods', { evicted: [], blocked: [], failed: [{ pod: 'default/d', message: 'forbidden' }], stuck: ['default/e'], ignoredDaemonSetPods: 0 }, 'error', 'node/n: 2 of 2 pod(s) not drained\nerror when evicting default/d: forbidden\nstill terminating at the deadline: default/e'],
  ])('summarises %s', (_name, outcome, tone, text) => {
    expect(drainSummary({ nodeName: 'n', ...outcome })).toEqual({ tone, text });
  });
});
