import { describe, expect, it } from 'vitest';
import type { Node, Pod, TopologySpreadConstraint } from '../api';
import { findFeasibleNodes, prioritizeNodes } from '../cycle';
import { createPlugins } from '../registry';
import { Snapshot } from '../snapshot';
import { makeNode, makePod } from '../../../test/fixtures/schedulerObjects';

const plugins = createPlugins(['PodTopologySpread']);
const web = { app: 'web' };
const constraint = (options: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint => ({
  maxSkew: 1,
  topologyKey: 'topology.kubernetes.io/zone',
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: web },
  ...options,
});

function cluster(nodes: Node[], placed: Record<string, number>, extra: Pod[] = []): Snapshot {
  return Snapshot.of(
    nodes.map((node) => {
      const name = node.metadata.name ?? '';
      const pods = Array.from({ length: placed[name] ?? 0 }, (_, index) => makePod(`${name}-${index}`, { nodeName: name, labels: web }));
      return { node, pods: [...pods, ...extra.filter((pod) => pod.spec?.nodeName === name)] };
    }),
  );
}

const zoned = [makeNode('a1', { labels: { 'topology.kubernetes.io/zone': 'a' } }), makeNode('b1', { labels: { 'topology.kubernetes.io/zone': 'b' } }), makeNode('c1', { labels: { 'topology.kubernetes.io/zone': 'c' } })];

describe('PodTopologySpread filter', () => {
  it.each<[string, Record<string, number>, Partial<TopologySpreadConstraint>, string[]]>([
    ['allows every zone when all are even', {}, {}, ['a1', 'b1', 'c1']],
    ['allows only the emptiest zones once one is ahead', { a1: 1 }, {}, ['b1', 'c1']],
    ['tolerates a larger skew', { a1: 1 }, { maxSkew: 2 }, ['a1', 'b1', 'c1']],
    ['counts a zone below minDomains as a minimum of 0', { a1: 1, b1: 1, c1: 1 }, { minDomains: 4 }, []],
    ['ignores pods the selector does not match', { a1: 3 }, { labelSelector: { matchLabels: { app: 'other' } } }, ['a1', 'b1', 'c1']],
  ])('%s', (_name, placed, options, expected) => {
    const outcome = findFeasibleNodes(plugins, makePod('new', { labels: web, spread: [constraint(options)] }), cluster(zoned, placed));
    expect(outcome.feasible.map((info) => info.name)).toEqual(expected);
  });

  it('rejects nodes without the topology key as unresolvable', () => {
    const outcome = findFeasibleNodes(plugins, makePod('new', { labels: web, spread: [constraint()] }), cluster([...zoned, makeNode('bare')], {}));
    expect(outcome.diagnosis.nodeToStatus.get('bare')).toEqual({ code: 'UnschedulableAndUnresolvable', reasons: ["node(s) didn't match pod topology spread constraints (missing required label)"], plugin: 'PodTopologySpread' });
  });

  it('reports skew violations as unschedulable', () => {
    const outcome = findFeasibleNodes(plugins, makePod('new', { labels: web, spread: [constraint()] }), cluster(zoned, { a1: 1 }));
    expect(outcome.diagnosis.nodeToStatus.get('a1')?.reasons).toEqual(["node(s) didn't match pod topology spread constraints"]);
  });

  it('leaves domains of nodes the pod cannot go to out of the minimum (nodeAffinityPolicy Honor)', () => {
    const pod = makePod('new', { labels: web, spread: [constraint()], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b'] }] }] } } } });
    const outcome = findFeasibleNodes(createPlugins(['NodeAffinity', 'PodTopologySpread']), pod, cluster(zoned, { a1: 1, b1: 2 }));
    expect(outcome.feasible.map((info) => info.name)).toEqual(['a1']);
  });

  it('does not count terminating pods or pods of other namespaces', () => {
    const terminating = { ...makePod('gone', { nodeName: 'a1', labels: web }), metadata: { name: 'gone', namespace: 'default', labels: web, deletionTimestamp: '2026-01-01T00:00:00Z' } };
    const elsewhere = makePod('other', { nodeName: 'a1', labels: web, namespace: 'team' });
    const outcome = findFeasibleNodes(plugins, makePod('new', { labels: web, spread: [constraint()] }), cluster(zoned, {}, [terminating, elsewhere]));
    expect(outcome.feasible.map((info) => info.name)).toEqual(['a1', 'b1', 'c1']);
  });
});

describe('PodTopologySpread score', () => {
  it('prefers the domain with fewer matching pods for ScheduleAnyway', () => {
    const pod = makePod('new', { labels: web, spread: [constraint({ whenUnsatisfiable: 'ScheduleAnyway', topologyKey: 'kubernetes.io/hostname' })] });
    const snapshot = cluster(zoned, { a1: 2, b1: 1 });
    const outcome = findFeasibleNodes(plugins, pod, snapshot);
    const scores = prioritizeNodes(plugins, outcome.state, pod, outcome.feasible, snapshot);
    expect(scores).toEqual([
      { name: 'a1', score: 0 },
      // raw counts × log(3 + 2): 3, 2, 0, normalised as 100 · (max + min − score) / max
      { name: 'b1', score: 2 * 33 },
      { name: 'c1', score: 2 * 100 },
    ]);
  });

  it('spreads pods of a service by default', () => {
    const pod = makePod('new', { labels: web });
    const snapshot = new Snapshot(cluster(zoned, { a1: 1 }).nodeInfos, new Map(), () => ({ matchLabels: web }));
    const outcome = findFeasibleNodes(plugins, pod, snapshot);
    const scores = prioritizeNodes(plugins, outcome.state, pod, outcome.feasible, snapshot);
    expect(scores[0].score).toBeLessThan(scores[1].score);
    expect(scores[1].score).toBe(scores[2].score);
  });
});
