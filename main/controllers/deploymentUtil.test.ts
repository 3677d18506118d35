import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import {
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  computeHash,
  deploymentTimedOut,
  equalIgnoreHash,
  findActiveOrLatest,
  fnv32a,
  maxSurge,
  maxUnavailable,
  newReplicaSetReplicas,
  proportionFor,
  resolveFenceposts,
  safeEncodeString,
  scaledValue,
  setNewReplicaSetAnnotations,
} from './deploymentUtil';

function deployment(replicas: number, strategy: Record<string, unknown> = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', generation: 1 }, spec: { replicas, strategy, progressDeadlineSeconds: 600, template: { metadata: { labels: { app: 'web' } } } }, ...extra };
}

function replicaSet(name: string, replicas: number, annotations: Record<string, string> = {}, status: Record<string, unknown> = {}, created = '2026-01-01T00:00:00Z'): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, namespace: 'default', uid: name, annotations, creationTimestamp: created }, spec: { replicas }, status };
}

describe('template hashing', () => {
  it('computes FNV-1a as Go hash/fnv does', () => {
    expect(fnv32a(new Uint8Array())).toBe(0x811c9dc5);
    expect(fnv32a(new TextEncoder().encode('a'))).toBe(0xe40c292c);
    expect(fnv32a(new TextEncoder().encode('foobar'))).toBe(0xbf9cf968);
  });

  it('renders digits with the safe alphabet as upstream SafeEncodeString', () => {
    expect(safeEncodeString('0123456789')).toBe('456789bcdf');
  });

  it('gives a stable hash of digits-mapped characters that changes with the template and the collision count', () => {
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'a' }] } };
    const reordered = { spec: { containers: [{ image: 'a', name: 'c' }] }, metadata: { labels: { app: 'web' } } };
    const hash = computeHash(template);
    expect(hash).toMatch(/^[4-9bcdf]{1,10}$/);
    expect(computeHash(reordered)).toBe(hash);
    expect(computeHash({ ...template, spec: { containers: [{ name: 'c', image: 'b' }] } })).not.toBe(hash);
    expect(computeHash(template, 1)).not.toBe(computeHash(template, 0));
  });

  it('compares templates ignoring the pod-template-hash label', () => {
    const plain = { metadata: { labels: { app: 'web' } }, spec: { containers: [] } };
    expect(equalIgnoreHash(plain, { metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' } }, spec: { containers: [] } })).toBe(true);
    expect(equalIgnoreHash({ metadata: {} }, { metadata: { labels: { 'pod-template-hash': 'abc' } } })).toBe(true);
    expect(equalIgnoreHash(plain, { metadata: { labels: { app: 'api' } }, spec: { containers: [] } })).toBe(false);
  });
});

describe('fenceposts', () => {
  it.each([
    [5, '25%', true, 2],
    [5, '25%', false, 1],
    [10, '10%', false, 1],
    [3, 2, false, 2],
    [0, '50%', true, 0],
  ])('scales %s by %s (round up %s) to %s', (total, value, roundUp, expected) => {
    expect(scaledValue(value, total, roundUp)).toBe(expected);
  });

  it.each([
    ['25%', '25%', 4, { surge: 1, unavailable: 1 }],
    ['25%', '25%', 1, { surge: 1, unavailable: 0 }],
    [0, '10%', 3, { surge: 0, unavailable: 1 }],
    [0, 0, 3, { surge: 0, unavailable: 1 }],
    ['100%', 0, 3, { surge: 3, unavailable: 0 }],
  ])('resolves maxSurge %s and maxUnavailable %s of %s replicas', (surge, unavailable, desired, expected) => {
    expect(resolveFenceposts(surge, unavailable, desired)).toEqual(expected);
  });

  it('has no surge or unavailability for Recreate, and caps maxUnavailable at the replicas', () => {
    expect(maxSurge(deployment(4, { type: 'Recreate' }))).toBe(0);
    expect(maxUnavailable(deployment(4, { type: 'Recreate' }))).toBe(0);
    expect(maxUnavailable(deployment(2, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 5 } }))).toBe(2);
  });
});

describe('replica arithmetic', () => {
  it.each([
    ['a fresh rollout of 4 starts with replicas plus surge minus old', 4, [3], 0, 2],
    ['no room above the surge leaves the new ReplicaSet as is', 4, [5], 0, 0],
    ['never beyond the desired count', 4, [], 2, 4],
  ])('%s', (_name, replicas, oldSizes, newSize, expected) => {
    const newRs = replicaSet('new', newSize);
    const all = [...oldSizes.map((size, i) => replicaSet(`old${i}`, size)), newRs];
    expect(newReplicaSetReplicas(deployment(replicas), all, newRs)).toBe(expected);
  });

  it('gives Recreate every replica at once', () => {
    expect(newReplicaSetReplicas(deployment(4, { type: 'Recreate' }), [replicaSet('new', 0)], replicaSet('new', 0))).toBe(4);
  });

  it('spreads a resize in proportion to the max-replicas annotation', () => {
    const d = deployment(20, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
    const rs = replicaSet('a', 5, { [MAX_REPLICAS_ANNOTATION]: '10' });
    expect(proportionFor(rs, d, 10, 0)).toBe(5);
    expect(proportionFor(rs, d, 3, 0)).toBe(3);
    expect(proportionFor(replicaSet('b', 0), d, 10, 0)).toBe(0);
  });

  it('finds the only active ReplicaSet, or the newest when none is active', () => {
    const older = replicaSet('older', 0, {}, {}, '2026-01-01T00:00:00Z');
    const newer = replicaSet('newer', 0, {}, {}, '2026-01-02T00:00:00Z');
    expect(findActiveOrLatest(undefined, [older, newer])?.metadata.name).toBe('newer');
    expect(findActiveOrLatest(undefined, [replicaSet('x', 2), newer])?.metadata.name).toBe('x');
    expect(findActiveOrLatest(replicaSet('n', 1), [replicaSet('x', 2)])).toBeUndefined();
  });
});

describe('annotations', () => {
  it('copies deployment annotations, sets the revision and the replica annotations of a new ReplicaSet', () => {
    const d = deployment(3, undefined, {});
    d.metadata.annotations = { 'kubernetes.io/change-cause': 'set image', [REVISION_ANNOTATION]: '7', 'kubectl.kubernetes.io/last-applied-configuration': '{}' };
    const rs = replicaSet('web-1', 0);
    expect(setNewReplicaSetAnnotations(d, rs, 2, false)).toBe(true);
    expect(rs.metadata.annotations).toEqual({ 'kubernetes.io/change-cause': 'set image', [REVISION_ANNOTATION]: '2', [DESIRED_REPLICAS_ANNOTATION]: '3', [MAX_REPLICAS_ANNOTATION]: '4' });
  });

  it('keeps earlier revisions of a rolled-back ReplicaSet in revision-history', () => {
    const d = deployment(3);
    const rs = replicaSet('web-1', 0, { [REVISION_ANNOTATION]: '1' });
    setNewReplicaSetAnnotations(d, rs, 3, true);
    expect(rs.metadata.annotations?.[REVISION_ANNOTATION]).toBe('3');
    expect(rs.metadata.annotations?.[REVISION_HISTORY_ANNOTATION]).toBe('1');
    setNewReplicaSetAnnotations(d, rs, 5, true);
    expect(rs.metadata.annotations?.[REVISION_HISTORY_ANNOTATION]).toBe('1,3');
    expect(setNewReplicaSetAnnotations(d, rs, 5, true)).toBe(false);
  });
});

describe('progress deadline', () => {
  const condition = (reason: string, lastUpdateTime: string) => ({ conditions: [{ type: 'Progressing', status: 'True' as const, reason, lastUpdateTime }] });
  it.each([
    ['past the deadline', 'ReplicaSetUpdated', '2026-01-01T00:00:00Z', '2026-01-01T00:10:01Z', true],
    ['within the deadline', 'ReplicaSetUpdated', '2026-01-01T00:00:00Z', '2026-01-01T00:09:59Z', false],
    ['complete rollouts never time out', 'NewReplicaSetAvailable', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', false],
    ['once timed out stays timed out', 'ProgressDeadlineExceeded', '2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z', true],
  ])('is %s', (_name, reason, updated, now, expected) => {
    expect(deploymentTimedOut(deployment(1), condition(reason, updated), new Date(now))).toBe(expected);
  });
});
