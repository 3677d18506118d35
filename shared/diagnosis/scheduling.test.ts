import { describe, expect, it } from 'vitest';
import { makeDiagnosisNode, makeDiagnosisPod } from '../../test/fixtures/diagnosisObjects';
import { nodeMismatches, podRequests } from './scheduling';

describe('nodeMismatches', () => {
  it('names what keeps a pod off each node, and leaves out nodes that fit', () => {
    const pod = makeDiagnosisPod('p', { nodeName: null, nodeSelector: { zone: 'a' }, tolerations: [{ key: 'team', operator: 'Equal', value: 'blue', effect: 'NoSchedule' }] });
    const nodes = [
      makeDiagnosisNode('fits', { labels: { zone: 'a' }, taints: [{ key: 'team', value: 'blue', effect: 'NoSchedule' }] }),
      makeDiagnosisNode('other-zone', { labels: { zone: 'b' } }),
      makeDiagnosisNode('cordoned', { labels: { zone: 'a' }, unschedulable: true }),
      makeDiagnosisNode('tainted', { labels: { zone: 'a' }, taints: [{ key: 'team', value: 'red', effect: 'NoExecute' }, { key: 'soft', effect: 'PreferNoSchedule' }] }),
    ];
    expect(nodeMismatches(pod, nodes, undefined)).toEqual([
      { node: 'other-zone', problems: ['its label is zone=b, nodeSelector wants zone=a'], hints: ["change the pod's nodeSelector to zone=b, or relabel the node: kubectl label node other-zone zone=a --overwrite"] },
      { node: 'cordoned', problems: ['it is cordoned (unschedulable)'], hints: ['kubectl uncordon cordoned'] },
      { node: 'tainted', problems: ['it has the taint team=red:NoExecute, which the pod does not tolerate'], hints: ['add a toleration for team=red:NoExecute to the pod, or remove the taint: kubectl taint node tainted team:NoExecute-'] },
    ]);
  });

  it('checks required node affinity terms', () => {
    const pod = makeDiagnosisPod('p', { nodeName: null });
    (pod.spec as Record<string, unknown>).affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }] } } };
    expect(nodeMismatches(pod, [makeDiagnosisNode('plain'), makeDiagnosisNode('gpu', { labels: { gpu: 'yes' } })], undefined)).toEqual([{ node: 'plain', problems: ["its labels match none of the pod's required node affinity terms"], hints: [] }]);
  });

  it('counts what the pods on a node already request', () => {
    const pod = makeDiagnosisPod('p', { nodeName: null, requests: { cpu: '1500m' } });
    const busy = makeDiagnosisPod('busy', { nodeName: 'n', requests: { cpu: '3' } });
    const done = makeDiagnosisPod('done', { nodeName: 'n', phase: 'Succeeded', requests: { cpu: '3' } });
    expect(podRequests(pod)).toEqual({ cpu: 1500, memory: 0 });
    expect(nodeMismatches(pod, [makeDiagnosisNode('n', { cpu: '4' })], [busy, done])[0].problems).toEqual(['not enough CPU: the pod requests 1500m, 1 of 4 is free']);
  });
});
