import { describe, expect, it } from 'vitest';
import type { NodeSelectorTerm, PreferredSchedulingTerm } from '../api';
import { CycleState } from '../framework';
import { newNodeInfo } from '../nodeInfo';
import { makeNode, makePod } from '../../../test/fixtures/schedulerObjects';
import { NodeAffinity } from './nodeAffinity';

const node = makeNode('n1', { labels: { zone: 'a', disk: 'ssd', cores: '8' } });
const required = (...nodeSelectorTerms: NodeSelectorTerm[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } });

describe('NodeAffinity filter', () => {
  it.each<[string, Parameters<typeof makePod>[1], boolean]>([
    ['admits a pod without constraints', {}, true],
    ['admits a matching nodeSelector', { nodeSelector: { zone: 'a' } }, true],
    ['rejects a nodeSelector with another value', { nodeSelector: { zone: 'b' } }, false],
    ['admits In', { affinity: required({ matchExpressions: [{ key: 'disk', operator: 'In', values: ['hdd', 'ssd'] }] }) }, true],
    ['rejects NotIn', { affinity: required({ matchExpressions: [{ key: 'disk', operator: 'NotIn', values: ['ssd'] }] }) }, false],
    ['admits NotIn on a missing label', { affinity: required({ matchExpressions: [{ key: 'gpu', operator: 'NotIn', values: ['x'] }] }) }, true],
    ['admits Exists', { affinity: required({ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }) }, true],
    ['rejects DoesNotExist', { affinity: required({ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }) }, false],
    ['admits Gt', { affinity: required({ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['4'] }] }) }, true],
    ['rejects Lt', { affinity: required({ matchExpressions: [{ key: 'cores', operator: 'Lt', values: ['4'] }] }) }, false],
    ['ANDs expressions of one term', { affinity: required({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }, { key: 'disk', operator: 'In', values: ['hdd'] }] }) }, false],
    ['ORs terms', { affinity: required({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }, { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }) }, true],
    ['matches fields on metadata.name', { affinity: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }) }, true],
    ['rejects fields naming another node', { affinity: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }) }, false],
    ['treats an empty term as matching nothing', { affinity: required({}) }, false],
    ['requires both nodeSelector and affinity', { nodeSelector: { zone: 'b' }, affinity: required({ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }) }, false],
  ])('%s', (_name, options, fits) => {
    const status = new NodeAffinity().filter(new CycleState(), makePod('p', options), newNodeInfo(node));
    expect(status).toEqual(fits ? { code: 'Success', reasons: [] } : { code: 'UnschedulableAndUnresolvable', reasons: ["node(s) didn't match Pod's node affinity/selector"] });
  });
});

describe('NodeAffinity score', () => {
  it('sums the weights of matching preferred terms and normalises them', () => {
    const preferred: PreferredSchedulingTerm[] = [
      { weight: 10, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
      { weight: 30, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } },
    ];
    const pod = makePod('p', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } } });
    const nodes = [makeNode('both', { labels: { zone: 'a', disk: 'ssd' } }), makeNode('zone', { labels: { zone: 'a' } }), makeNode('none')];
    const plugin = new NodeAffinity();
    const state = new CycleState();
    expect(plugin.preScore(state, pod).code).toBe('Success');
    const scores = nodes.map((entry) => ({ name: entry.metadata.name ?? '', score: plugin.score(state, pod, newNodeInfo(entry)) }));
    expect(scores.map((entry) => entry.score)).toEqual([40, 10, 0]);
    plugin.normalizeScore(state, pod, scores);
    expect(scores.map((entry) => entry.score)).toEqual([100, 25, 0]);
  });

  it('skips scoring for pods without preferences', () => {
    expect(new NodeAffinity().preScore(new CycleState(), makePod('p')).code).toBe('Skip');
  });
});
