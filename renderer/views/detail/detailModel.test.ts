import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { builtinKinds } from '../../kinds';
import { childKindKeys, chipsOf, conditionsOf, conditionTone, containerRows, eventsAbout, ownedBy, ownersOf, podsMatching } from './detailModel';

function object(name: string, metadata: Partial<KubeObject['metadata']> = {}, rest: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `${name}-uid`, ...metadata }, ...rest };
}

describe('the detail page model', () => {
  it.each([
    ['Ready', 'True', 'ok'],
    ['Ready', 'False', 'warn'],
    ['MemoryPressure', 'False', 'ok'],
    ['MemoryPressure', 'True', 'error'],
    ['Available', 'Unknown', 'warn'],
  ])('colours condition %s=%s as %s', (type, status, tone) => {
    expect(conditionTone(type, status)).toBe(tone);
  });

  it('lists conditions with their reason, message and last transition', () => {
    const rows = conditionsOf(object('p', {}, { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [web]', lastTransitionTime: '2025-01-01T00:00:00Z' }] } }));
    expect(rows).toEqual([{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [web]', lastTransitionTime: '2025-01-01T00:00:00Z', tone: 'warn' }]);
  });

  it('links owners through their kind, and leaves unknown kinds unlinked', () => {
    const pod = object('p', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'rs', controller: true }, { apiVersion: 'example.com/v1', kind: 'Thing', name: 't', uid: 't' }] });
    expect(ownersOf(pod, builtinKinds)).toEqual([
      { kind: 'ReplicaSet', name: 'web-1', controller: true, link: { kindKey: 'replicasets.apps', namespace: 'default', name: 'web-1' } },
      { kind: 'Thing', name: 't', controller: false, link: undefined },
    ]);
  });

  it.each([
    ['deployments.apps', ['replicasets.apps']],
    ['replicasets.apps', ['pods']],
    ['jobs.batch', ['pods']],
    ['cronjobs.batch', ['jobs.batch']],
    ['configmaps', []],
  ])('knows the children of %s', (kindKey, expected) => {
    expect(childKindKeys(kindKey)).toEqual(expected);
  });

  it('finds owned objects by owner uid, sorted by name', () => {
    const reference = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid' };
    const items = [object('b', { ownerReferences: [reference] }), object('c'), object('a', { ownerReferences: [reference] })];
    expect(ownedBy(items, 'rs-uid').map((item) => item.metadata.name)).toEqual(['a', 'b']);
    expect(ownedBy(items, undefined)).toEqual([]);
  });

  it('matches pods by selector inside the namespace only; an empty selector matches none', () => {
    const pods = [object('a', { labels: { app: 'web', tier: 'x' } }), object('b', { labels: { app: 'db' } }), object('c', { namespace: 'other', labels: { app: 'web' } })];
    expect(podsMatching(pods, 'default', { app: 'web' }).map((pod) => pod.metadata.name)).toEqual(['a']);
    expect(podsMatching(pods, 'default', {})).toEqual([]);
  });

  it('lists the events about the object newest first', () => {
    const events = [
      { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', uid: 'e1' }, involvedObject: { uid: 'target' }, type: 'Normal', reason: 'Scheduled', message: 'ok', lastTimestamp: '2025-01-01T00:00:01Z' },
      { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e2', uid: 'e2' }, involvedObject: { uid: 'target' }, type: 'Warning', reason: 'BackOff', message: 'bad', count: 4, lastTimestamp: '2025-01-01T00:00:09Z', source: { component: 'kubelet' } },
      { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e3', uid: 'e3' }, involvedObject: { uid: 'other' }, lastTimestamp: '2025-01-01T00:00:05Z' },
    ] as KubeObject[];
    const rows = eventsAbout(events, 'target');
    expect(rows.map((row) => [row.reason, row.type, row.count, row.source])).toEqual([
      ['BackOff', 'Warning', 4, 'kubelet'],
      ['Scheduled', 'Normal', 1, ''],
    ]);
  });

  it("lists a pod's events of the same second in a stable order, newest write first", () => {
    const second = '2025-01-01T00:00:04Z';
    const written = ['Scheduled', 'Pulled', 'Created', 'Started'].map((reason, index) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name: `p.${index}`, uid: `u${index}`, resourceVersion: String(40 + index), creationTimestamp: second }, involvedObject: { uid: 'target' }, reason, lastTimestamp: second }) as KubeObject);
    for (const order of [[0, 1, 2, 3], [3, 1, 0, 2], [2, 3, 0, 1]]) {
      expect(eventsAbout(order.map((index) => written[index]), 'target').map((row) => row.reason)).toEqual(['Started', 'Created', 'Pulled', 'Scheduled']);
    }
  });

  it('shows each container with its state, readiness and restarts', () => {
    const pod = object('p', {}, {
      spec: { initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'web', image: 'nginx' }, { name: 'side', image: 'envoy' }] },
      status: {
        initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, state: { terminated: { reason: 'Completed', exitCode: 0 } } }],
        containerStatuses: [
          { name: 'web', ready: true, restartCount: 2, state: { running: { startedAt: 'x' } } },
          { name: 'side', ready: false, restartCount: 5, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    });
    expect(containerRows(pod).map((row) => [row.name, row.init, row.state, row.tone, row.ready, row.restarts])).toEqual([
      ['init', true, 'Terminated: Completed (exit code 0)', 'muted', false, 0],
      ['web', false, 'Running', 'ok', true, 2],
      ['side', false, 'Waiting: CrashLoopBackOff', 'error', false, 5],
    ]);
  });

  it('does not colour a running container that is not ready green', () => {
    const pod = object('p', {}, { spec: { containers: [{ name: 'web', image: 'nginx' }] }, status: { containerStatuses: [{ name: 'web', ready: false, restartCount: 0, state: { running: {} } }] } });
    expect(containerRows(pod).map((row) => [row.state, row.tone])).toEqual([['Running', 'warn']]);
  });

  it('sorts label chips by key', () => {
    expect(chipsOf({ b: '2', a: '1' })).toEqual([{ key: 'a', value: '1' }, { key: 'b', value: '2' }]);
    expect(chipsOf(undefined)).toEqual([]);
  });
});
