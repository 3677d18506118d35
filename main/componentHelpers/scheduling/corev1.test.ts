import { describe, expect, it } from 'vitest';
import { findUntoleratedTaint, nodeSelectorTermMatches, podMatchesNodeSelectorAndAffinity, tolerationToleratesTaint, type NodeSelectorTerm, type SchedulingPod, type Taint, type Toleration } from './corev1';

const node = { metadata: { name: 'node-a', labels: { zone: 'a', disk: 'ssd', cores: '8' } } };

describe('tolerations', () => {
  const taint: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
  it.each<[string, Toleration, boolean]>([
    ['Equal with the same key, value and effect', { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }, true],
    ['an empty operator, which means Equal', { key: 'dedicated', value: 'gpu' }, true],
    ['Equal with another value', { key: 'dedicated', operator: 'Equal', value: 'cpu' }, false],
    ['Exists on the key, any effect', { key: 'dedicated', operator: 'Exists' }, true],
    ['Exists without a key, which tolerates everything', { operator: 'Exists' }, true],
    ['another effect', { key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, false],
    ['another key', { key: 'other', operator: 'Exists' }, false],
    ['an unknown operator', { key: 'dedicated', operator: 'Gt', value: 'gpu' }, false],
  ])('%s: %s', (_name, toleration, tolerated) => {
    expect(tolerationToleratesTaint(toleration, taint)).toBe(tolerated);
  });

  it('finds the first NoSchedule or NoExecute taint nothing tolerates, ignoring PreferNoSchedule', () => {
    const taints: Taint[] = [
      { key: 'soft', effect: 'PreferNoSchedule' },
      { key: 'tolerated', effect: 'NoSchedule' },
      { key: 'blocking', effect: 'NoExecute' },
    ];
    expect(findUntoleratedTaint(taints, [{ key: 'tolerated', operator: 'Exists' }])).toEqual({ key: 'blocking', effect: 'NoExecute' });
    expect(findUntoleratedTaint(taints, [{ operator: 'Exists' }])).toBeUndefined();
  });
});

describe('node affinity', () => {
  it.each<[string, NodeSelectorTerm, boolean]>([
    ['In', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }, true],
    ['NotIn on a missing label', { matchExpressions: [{ key: 'gpu', operator: 'NotIn', values: ['x'] }] }, true],
    ['Gt on integers', { matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['4'] }] }, true],
    ['Lt on integers', { matchExpressions: [{ key: 'cores', operator: 'Lt', values: ['4'] }] }, false],
    ['Gt with a value that is not an integer', { matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['four'] }] }, false],
    ['matchFields on metadata.name', { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-a'] }] }, true],
    ['matchFields on another field', { matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['node-a'] }] }, false],
    ['expressions ANDed', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }, { key: 'disk', operator: 'In', values: ['hdd'] }] }, false],
    ['an empty term, which matches nothing', {}, false],
  ])('a term with %s matches: %s', (_name, term, matches) => {
    expect(nodeSelectorTermMatches(term, node)).toBe(matches);
  });

  it.each<[string, SchedulingPod, boolean]>([
    ['no constraint', {}, true],
    ['a matching nodeSelector', { spec: { nodeSelector: { zone: 'a' } } }, true],
    ['a nodeSelector that does not match', { spec: { nodeSelector: { zone: 'b' } } }, false],
    ['terms ORed', { spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }, { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }] } } } } }, true],
    ['nodeSelector and affinity both required', { spec: { nodeSelector: { zone: 'b' }, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }] } } } } }, false],
  ])('a pod with %s fits: %s', (_name, pod, fits) => {
    expect(podMatchesNodeSelectorAndAffinity(pod, node)).toBe(fits);
  });
});
