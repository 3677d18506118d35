import { describe, expect, it } from 'vitest';
import type { Affinity, Pod, PodAffinityTerm } from '../api';
import { findFeasibleNodes, prioritizeNodes } from '../cycle';
import { createPlugins } from '../registry';
import { Snapshot } from '../snapshot';
import { makeNode, makePod } from '../../../test/fixtures/schedulerObjects';

const plugins = createPlugins(['InterPodAffinity']);
const zone = 'topology.kubernetes.io/zone';
const nodes = [makeNode('a1', { labels: { [zone]: 'a' } }), makeNode('a2', { labels: { [zone]: 'a' } }), makeNode('b1', { labels: { [zone]: 'b' } })];
const term = (labels: Record<string, string>, topologyKey = zone, extra: Partial<PodAffinityTerm> = {}): PodAffinityTerm => ({ labelSelector: { matchLabels: labels }, topologyKey, ...extra });

function snapshot(pods: Pod[], namespaces = new Map<string, Record<string, string>>()): Snapshot {
  return Snapshot.of(
    nodes.map((node) => ({ node, pods: pods.filter((pod) => pod.spec?.nodeName === node.metadata.name) })),
    namespaces,
  );
}

function feasible(pod: Pod, pods: Pod[], namespaces?: Map<string, Record<string, string>>): string[] {
  return findFeasibleNodes(plugins, pod, snapshot(pods, namespaces)).feasible.map((info) => info.name);
}

const db = makePod('db', { nodeName: 'a1', labels: { app: 'db' } });

describe('InterPodAffinity filter', () => {
  it.each<[string, Affinity, Pod[], string[]]>([
    ['places a pod with required affinity in the zone of its match', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' })] } }, [db], ['a1', 'a2']],
    ['honours the hostname topology', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' }, 'kubernetes.io/hostname')] } }, [db], ['a1']],
    ['lets the first pod of a self-affine group go anywhere', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'web' })] } }, [], ['a1', 'a2', 'b1']],
    ['keeps a pod with anti-affinity out of the zone of its match', { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' })] } }, [db], ['b1']],
    ['looks only in the own namespace by default', { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' })] } }, [makePod('db', { nodeName: 'a1', labels: { app: 'db' }, namespace: 'team' })], ['a1', 'a2', 'b1']],
    ['looks in every namespace for an empty namespaceSelector', { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' }, zone, { namespaceSelector: {} })] } }, [makePod('db', { nodeName: 'a1', labels: { app: 'db' }, namespace: 'team' })], ['b1']],
    ['looks in the listed namespaces', { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' }, zone, { namespaces: ['team'] })] } }, [makePod('db', { nodeName: 'b1', labels: { app: 'db' }, namespace: 'team' })], ['a1', 'a2']],
  ])('%s', (_name, affinity, pods, expected) => {
    expect(feasible(makePod('web', { labels: { app: 'web' }, affinity }), pods)).toEqual(expected);
  });

  it('resolves a namespaceSelector against namespace labels', () => {
    const affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' }, zone, { namespaceSelector: { matchLabels: { tier: 'data' } } })] } };
    const pods = [makePod('db', { nodeName: 'b1', labels: { app: 'db' }, namespace: 'data' })];
    expect(feasible(makePod('web', { labels: { app: 'web' }, affinity }), pods, new Map<string, Record<string, string>>([['data', { tier: 'data' }], ['default', {}]]))).toEqual(['a1', 'a2']);
  });

  it("keeps a pod out of zones whose pods' anti-affinity rejects it", () => {
    const guard = makePod('guard', { nodeName: 'b1', labels: { app: 'guard' }, affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'web' })] } } });
    const outcome = findFeasibleNodes(plugins, makePod('web', { labels: { app: 'web' } }), snapshot([guard]));
    expect(outcome.feasible.map((info) => info.name)).toEqual(['a1', 'a2']);
    expect(outcome.diagnosis.nodeToStatus.get('b1')?.reasons).toEqual(["node(s) didn't satisfy existing pods anti-affinity rules"]);
  });

  it('reports the upstream reasons and codes', () => {
    const affine = findFeasibleNodes(plugins, makePod('web', { labels: { app: 'web' }, affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' })] } } }), snapshot([db]));
    expect(affine.diagnosis.nodeToStatus.get('b1')).toMatchObject({ code: 'UnschedulableAndUnresolvable', reasons: ["node(s) didn't match pod affinity rules"] });
    const anti = findFeasibleNodes(plugins, makePod('web', { labels: { app: 'web' }, affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' })] } } }), snapshot([db]));
    expect(anti.diagnosis.nodeToStatus.get('a1')).toMatchObject({ code: 'Unschedulable', reasons: ["node(s) didn't match pod anti-affinity rules"] });
  });
});

describe('InterPodAffinity score', () => {
  it('prefers zones with preferred matches and avoids zones with preferred anti-matches', () => {
    const cache = makePod('cache', { nodeName: 'b1', labels: { app: 'cache' } });
    const pod = makePod('web', {
      labels: { app: 'web' },
      affinity: {
        podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: term({ app: 'cache' }) }] },
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: term({ app: 'db' }) }] },
      },
    });
    const view = snapshot([db, cache]);
    const outcome = findFeasibleNodes(plugins, pod, view);
    expect(prioritizeNodes(plugins, outcome.state, pod, outcome.feasible, view)).toEqual([
      { name: 'a1', score: 0 },
      { name: 'a2', score: 0 },
      { name: 'b1', score: 2 * 100 },
    ]);
  });
});
