import { describe, expect, it } from 'vitest';
import type { Pod } from './api';
import { evaluatePreemption, fitErrorMessage, schedulePod, selectHost, type Diagnosis } from './cycle';
import { createPlugins } from './registry';
import { Snapshot } from './snapshot';
import { makeNode, makePod } from '../../test/fixtures/schedulerObjects';

const plugins = createPlugins();
const controlPlaneTaint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

function failureMessage(pod: Pod, snapshot: Snapshot): string {
  const result = schedulePod(plugins, pod, snapshot);
  if (result.kind !== 'unschedulable') throw new Error(`expected no fit, got ${JSON.stringify(result)}`);
  result.diagnosis.postFilterMessage = evaluatePreemption(plugins, pod, snapshot, result.diagnosis).message;
  return fitErrorMessage(result.numAllNodes, result.diagnosis);
}

describe('fitErrorMessage', () => {
  it('counts reasons over nodes and sorts them as strings', () => {
    const diagnosis: Diagnosis = {
      nodeToStatus: new Map([
        ['a', { code: 'Unschedulable', reasons: ['Insufficient cpu', 'Insufficient memory'] }],
        ['b', { code: 'Unschedulable', reasons: ['Insufficient cpu'] }],
        ['c', { code: 'UnschedulableAndUnresolvable', reasons: ['node(s) were unschedulable'] }],
      ]),
      unschedulablePlugins: new Set(),
    };
    expect(fitErrorMessage(3, diagnosis)).toBe('0/3 nodes are available: 1 Insufficient memory, 1 node(s) were unschedulable, 2 Insufficient cpu.');
  });

  it('uses the PreFilter message instead of per-node reasons, then the PostFilter message', () => {
    const diagnosis: Diagnosis = { nodeToStatus: new Map(), preFilterMessage: 'pod affinity terms conflict', postFilterMessage: 'preemption: not eligible due to preemptionPolicy=Never.', unschedulablePlugins: new Set() };
    expect(fitErrorMessage(2, diagnosis)).toBe('0/2 nodes are available: pod affinity terms conflict. preemption: not eligible due to preemptionPolicy=Never.');
  });
});

describe('schedulePod', () => {
  it('explains a pod too big for any worker on a cluster with a tainted control plane', () => {
    const snapshot = Snapshot.of([{ node: makeNode('cp', { taints: [controlPlaneTaint] }) }, { node: makeNode('w1', { cpu: '2' }) }, { node: makeNode('w2', { cpu: '2' }) }]);
    expect(failureMessage(makePod('big', { cpu: '3' }), snapshot)).toBe(
      '0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
  });

  it('says when no pod could be preempted to make room', () => {
    const busy = (name: string) => ({ node: makeNode(name, { cpu: '2' }), pods: [makePod(`${name}-app`, { nodeName: name, cpu: '1500m' })] });
    const snapshot = Snapshot.of([{ node: makeNode('cp', { taints: [controlPlaneTaint] }) }, busy('w1'), busy('w2')]);
    expect(failureMessage(makePod('new', { cpu: '1' }), snapshot)).toBe(
      '0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    );
  });

  it('finds lower-priority victims whose eviction makes room', () => {
    const low = makePod('low', { nodeName: 'w1', cpu: '1500m', priority: 0 });
    const snapshot = Snapshot.of([{ node: makeNode('w1', { cpu: '2' }), pods: [low, makePod('tiny', { nodeName: 'w1', cpu: '100m', priority: 0 })] }]);
    const pod = makePod('urgent', { cpu: '1', priority: 1000 });
    const result = schedulePod(plugins, pod, snapshot);
    if (result.kind !== 'unschedulable') throw new Error('expected no fit');
    const outcome = evaluatePreemption(plugins, pod, snapshot, result.diagnosis);
    expect(outcome.candidate?.node).toBe('w1');
    expect(outcome.candidate?.victims.map((victim) => victim.metadata.name)).toEqual(['low']);
    expect(outcome.message).toBe('');
  });

  it('does not preempt for pods with preemptionPolicy Never', () => {
    const snapshot = Snapshot.of([{ node: makeNode('w1', { cpu: '1' }) }]);
    const pod = makePod('p', { cpu: '2' });
    pod.spec = { ...pod.spec, preemptionPolicy: 'Never' };
    expect(failureMessage(pod, snapshot)).toBe('0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.');
  });

  it('reports a cluster without nodes as an error', () => {
    expect(schedulePod(plugins, makePod('p'), Snapshot.of([]))).toEqual({ kind: 'error', message: 'no nodes available to schedule pods' });
  });

  it('picks the only node that fits', () => {
    const snapshot = Snapshot.of([{ node: makeNode('small', { cpu: '1' }) }, { node: makeNode('large', { cpu: '8' }) }, { node: makeNode('cordoned', { cpu: '8', unschedulable: true }) }]);
    expect(schedulePod(plugins, makePod('p', { cpu: '2' }), snapshot)).toEqual({ kind: 'scheduled', node: 'large', feasibleNodes: 1 });
  });

  it('prefers the least allocated node', () => {
    const snapshot = Snapshot.of([{ node: makeNode('busy'), pods: [makePod('x', { nodeName: 'busy', cpu: '3', memory: '6Gi' })] }, { node: makeNode('idle') }]);
    expect(schedulePod(plugins, makePod('p', { cpu: '500m', memory: '512Mi' }), snapshot)).toMatchObject({ kind: 'scheduled', node: 'idle' });
  });
});

describe('selectHost', () => {
  it.each([
    [0, 'c'],
    [0.99, 'b'],
  ])('breaks ties at random (draw %d gives %s)', (draw, expected) => {
    const scores = [
      { name: 'a', score: 1 },
      { name: 'b', score: 5 },
      { name: 'c', score: 5 },
    ];
    expect(selectHost(scores, () => draw)).toBe(expected);
  });
});
