import { describe, expect, it } from 'vitest';
import { CycleState, type PluginStatus } from '../framework';
import { newNodeInfo, podRequests } from '../nodeInfo';
import { makeNode, makePod } from '../../../test/fixtures/schedulerObjects';
import { leastRequestedScore, NodeResourcesFit } from './nodeResourcesFit';
import { balancedAllocationScore } from './nodeResourcesBalancedAllocation';

describe('pod requests', () => {
  it.each<[string, Parameters<typeof makePod>[1], number, number]>([
    ['sums app containers', { cpu: '500m', memory: '1Gi' }, 500, 1024 ** 3],
    ['takes the largest init container when it is bigger', { cpu: '100m', initContainers: [{ cpu: '2' }, { cpu: '300m' }] }, 2000, 0],
    ['keeps the app sum when init containers are smaller', { cpu: '1', initContainers: [{ cpu: '200m' }] }, 1000, 0],
    ['adds sidecars to the app containers and to later init steps', { cpu: '1', initContainers: [{ cpu: '500m', restartPolicy: 'Always' }, { cpu: '2' }] }, 2500, 0],
    ['adds the overhead', { cpu: '1', overhead: { cpu: '250m', memory: '64Mi' } }, 1250, 64 * 1024 ** 2],
  ])('%s', (_name, options, milliCPU, memory) => {
    const request = podRequests(makePod('p', options));
    expect([request.milliCPU, request.memory]).toEqual([milliCPU, memory]);
  });

  it('counts the default requests of containers without any when scoring', () => {
    const request = podRequests(makePod('p'), true);
    expect([request.milliCPU, request.memory]).toEqual([100, 200 * 1024 * 1024]);
  });
});

describe('NodeResourcesFit filter', () => {
  const full = makePod('existing', { nodeName: 'n1', cpu: '3', memory: '1Gi' });
  it.each<[string, Parameters<typeof makePod>[1], Parameters<typeof makeNode>[1], PluginStatus]>([
    ['admits a pod that fits', { cpu: '1' }, {}, { code: 'Success', reasons: [] }],
    ['rejects a pod needing more cpu than is left', { cpu: '2' }, {}, { code: 'Unschedulable', reasons: ['Insufficient cpu'] }],
    ['marks a request larger than the whole node unresolvable', { cpu: '8' }, {}, { code: 'UnschedulableAndUnresolvable', reasons: ['Insufficient cpu'] }],
    ['reports every missing resource', { cpu: '2', memory: '8Gi' }, {}, { code: 'Unschedulable', reasons: ['Insufficient cpu', 'Insufficient memory'] }],
    ['rejects a pod when the node holds its maximum number of pods', {}, { pods: '1' }, { code: 'Unschedulable', reasons: ['Too many pods'] }],
    ['checks init containers', { initContainers: [{ cpu: '1500m' }] }, {}, { code: 'Unschedulable', reasons: ['Insufficient cpu'] }],
  ])('%s', (_name, podOptions, nodeOptions, expected) => {
    const plugin = new NodeResourcesFit();
    const state = new CycleState();
    const pod = makePod('p', podOptions);
    plugin.preFilter(state, pod);
    expect(plugin.filter(state, pod, newNodeInfo(makeNode('n1', nodeOptions), [full]))).toEqual(expected);
  });
});

describe('NodeResourcesFit score', () => {
  it.each([
    [0, 4000, 100],
    [1000, 4000, 75],
    [4000, 4000, 0],
    [5000, 4000, 0],
    [1, 0, 0],
  ])('gives %d requested of %d a least-allocated score of %d', (requested, capacity, score) => {
    expect(leastRequestedScore(requested, capacity)).toBe(score);
  });

  it('prefers the emptier node', () => {
    const plugin = new NodeResourcesFit();
    const state = new CycleState();
    const pod = makePod('p', { cpu: '1', memory: '1Gi' });
    plugin.preScore(state, pod);
    const empty = plugin.score(state, pod, newNodeInfo(makeNode('empty')));
    const busy = plugin.score(state, pod, newNodeInfo(makeNode('busy'), [makePod('x', { nodeName: 'busy', cpu: '2', memory: '4Gi' })]));
    expect(empty).toBe(81);
    expect(busy).toBeLessThan(empty);
  });

  it('prefers the node where cpu and memory stay balanced', () => {
    const request = podRequests(makePod('p', { cpu: '2', memory: '1Gi' }));
    const balanced = balancedAllocationScore(request, newNodeInfo(makeNode('n', { cpu: '4', memory: '2Gi' })));
    const skewed = balancedAllocationScore(request, newNodeInfo(makeNode('n', { cpu: '4', memory: '8Gi' })));
    expect(balanced).toBe(100);
    expect(skewed).toBe(81);
  });
});
