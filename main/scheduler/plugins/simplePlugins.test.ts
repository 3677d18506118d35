import { describe, expect, it } from 'vitest';
import type { Pod } from '../api';
import { CycleState, type NodeInfo, type Plugin, type PluginStatus } from '../framework';
import { newNodeInfo } from '../nodeInfo';
import { Snapshot } from '../snapshot';
import { makeNode, makePod, type NodeOptions, type PodOptions } from '../../../test/fixtures/schedulerObjects';
import { NodeName } from './nodeName';
import { NodePorts } from './nodePorts';
import { NodeUnschedulable } from './nodeUnschedulable';
import { TaintToleration } from './taintToleration';

function runFilter(plugin: Plugin, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
  const state = new CycleState();
  const cluster = new Snapshot([nodeInfo]);
  const pre = plugin.preFilter?.(state, pod, cluster);
  if (pre?.code === 'Skip') return { code: 'Success', reasons: [] };
  if (pre && pre.code !== 'Success') return pre;
  return plugin.filter?.(state, pod, nodeInfo, cluster) ?? { code: 'Success', reasons: [] };
}

const rejected = (code: PluginStatus['code'], reason: string): PluginStatus => ({ code, reasons: [reason] });
const ok: PluginStatus = { code: 'Success', reasons: [] };

describe('NodeUnschedulable', () => {
  it.each<[string, NodeOptions, Parameters<typeof makePod>[1], PluginStatus]>([
    ['admits pods on a schedulable node', {}, {}, ok],
    ['rejects pods on a cordoned node', { unschedulable: true }, {}, rejected('UnschedulableAndUnresolvable', 'node(s) were unschedulable')],
    ['admits pods tolerating the unschedulable taint', { unschedulable: true }, { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }, ok],
  ])('%s', (_name, node, pod, expected) => {
    expect(runFilter(new NodeUnschedulable(), makePod('p', pod), newNodeInfo(makeNode('n1', node)))).toEqual(expected);
  });
});

describe('NodeName', () => {
  it.each<[string, string | undefined, PluginStatus]>([
    ['admits a pod naming no node', undefined, ok],
    ['admits a pod naming this node', 'n1', ok],
    ['rejects a pod naming another node', 'n2', rejected('UnschedulableAndUnresolvable', "node(s) didn't match the requested node name")],
  ])('%s', (_name, nodeName, expected) => {
    expect(runFilter(new NodeName(), makePod('p', { nodeName }), newNodeInfo(makeNode('n1')))).toEqual(expected);
  });
});

describe('TaintToleration filter', () => {
  const taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
  const reason = rejected('UnschedulableAndUnresolvable', 'node(s) had untolerated taint(s)');
  it.each<[string, NodeOptions, Parameters<typeof makePod>[1], PluginStatus]>([
    ['admits pods on an untainted node', {}, {}, ok],
    ['rejects an untolerated NoSchedule taint', { taints: [taint] }, {}, reason],
    ['rejects an untolerated NoExecute taint', { taints: [{ ...taint, effect: 'NoExecute' }] }, {}, reason],
    ['ignores PreferNoSchedule taints', { taints: [{ ...taint, effect: 'PreferNoSchedule' }] }, {}, ok],
    ['admits an Equal toleration with the same value', { taints: [taint] }, { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] }, ok],
    ['rejects an Equal toleration with another value', { taints: [taint] }, { tolerations: [{ key: 'dedicated', value: 'cpu' }] }, reason],
    ['admits an Exists toleration without key', { taints: [taint] }, { tolerations: [{ operator: 'Exists' }] }, ok],
    ['rejects a toleration for another effect', { taints: [taint] }, { tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }] }, reason],
    ['rejects a node that is not Ready', { ready: 'False' }, {}, reason],
    ['rejects a node that never reported', { ready: 'absent' }, {}, reason],
    ['admits pods tolerating not-ready on a NotReady node', { ready: 'False' }, { tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }] }, ok],
    ['rejects an unreachable node for pods tolerating only not-ready', { ready: 'Unknown' }, { tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }] }, reason],
  ])('%s', (_name, node, pod, expected) => {
    expect(runFilter(new TaintToleration(), makePod('p', pod), newNodeInfo(makeNode('n1', node)))).toEqual(expected);
  });
});

describe('TaintToleration score', () => {
  it('prefers nodes with fewer untolerated PreferNoSchedule taints', () => {
    const prefer = (key: string) => ({ key, effect: 'PreferNoSchedule' });
    const nodes = [newNodeInfo(makeNode('clean')), newNodeInfo(makeNode('one', { taints: [prefer('a')] })), newNodeInfo(makeNode('two', { taints: [prefer('a'), prefer('b')] })), newNodeInfo(makeNode('tolerated', { taints: [prefer('b')] }))];
    const plugin = new TaintToleration();
    const state = new CycleState();
    const pod = makePod('p', { tolerations: [{ key: 'b', operator: 'Exists', effect: 'PreferNoSchedule' }] });
    plugin.preScore(state, pod);
    const scores = nodes.map((info) => ({ name: info.name, score: plugin.score(state, pod, info) }));
    plugin.normalizeScore(state, pod, scores);
    expect(scores.map((entry) => entry.score)).toEqual([100, 0, 0, 100]);
  });
});

describe('NodePorts', () => {
  const used = (ports: PodOptions['ports']) => newNodeInfo(makeNode('n1'), [makePod('existing', { nodeName: 'n1', ports })]);
  const reason = rejected('Unschedulable', "node(s) didn't have free ports for the requested pod ports");
  it.each<[string, PodOptions['ports'], PodOptions['ports'], PluginStatus]>([
    ['admits pods without host ports', [{ hostPort: 80 }], [{ containerPort: 80 }], ok],
    ['rejects the same port and protocol on the wildcard address', [{ hostPort: 80 }], [{ hostPort: 80 }], reason],
    ['admits the same port with another protocol', [{ hostPort: 53, protocol: 'UDP' }], [{ hostPort: 53, protocol: 'TCP' }], ok],
    ['admits the same port on two specific addresses', [{ hostPort: 80, hostIP: '10.0.0.1' }], [{ hostPort: 80, hostIP: '10.0.0.2' }], ok],
    ['rejects a specific address when the wildcard is taken', [{ hostPort: 80 }], [{ hostPort: 80, hostIP: '10.0.0.2' }], reason],
    ['rejects the wildcard when a specific address is taken', [{ hostPort: 80, hostIP: '10.0.0.1' }], [{ hostPort: 80 }], reason],
  ])('%s', (_name, existing, wanted, expected) => {
    expect(runFilter(new NodePorts(), makePod('p', { ports: wanted }), used(existing))).toEqual(expected);
  });
});
