// Snapshot: the immutable cluster view one scheduling cycle reads (upstream
// pkg/scheduler/backend/cache/snapshot.go plus the namespace and owner listers plugins use). A new
// one is built per cycle from the cache; plugins never change it.
import { selectorMatches } from '../../shared/kubernetes/labelSelector';
import type { LabelSelector, Node, Pod } from './api';
import type { ClusterView, NodeInfo } from './framework';
import { newNodeInfo } from './nodeInfo';
import { type Labels } from './selectors';

export class Snapshot implements ClusterView {
  private readonly byName: Map<string, NodeInfo>;

  constructor(
    readonly nodeInfos: readonly NodeInfo[],
    private readonly namespaces: ReadonlyMap<string, Labels> = new Map(),
    private readonly spreadSelector: (pod: Pod) => LabelSelector | undefined = () => undefined,
  ) {
    this.byName = new Map(nodeInfos.map((info) => [info.name, info]));
  }

  /** A snapshot of nodes with their pods, for tests and simple callers. */
  static of(nodes: readonly { node: Node; pods?: readonly Pod[] }[], namespaces?: ReadonlyMap<string, Labels>, spreadSelector?: (pod: Pod) => LabelSelector | undefined): Snapshot {
    return new Snapshot(nodes.map(({ node, pods }) => newNodeInfo(node, pods ?? [])), namespaces, spreadSelector);
  }

  nodeInfo(name: string): NodeInfo | undefined {
    return this.byName.get(name);
  }

  namespaceLabels(namespace: string): Labels | undefined {
    return this.namespaces.get(namespace);
  }

  namespacesMatching(selector: LabelSelector): string[] {
    const names: string[] = [];
    for (const [name, labels] of this.namespaces) if (selectorMatches(selector, labels)) names.push(name);
    return names;
  }

  defaultSpreadSelector(pod: Pod): LabelSelector | undefined {
    return this.spreadSelector(pod);
  }

  /** The same cluster with some pods gone from one node (for preemption's what-if). */
  withoutPods(nodeName: string, removed: ReadonlySet<Pod>): Snapshot {
    const infos = this.nodeInfos.map((info) => (info.name === nodeName ? newNodeInfo(info.node, info.pods.map((podInfo) => podInfo.pod).filter((pod) => !removed.has(pod))) : info));
    return new Snapshot(infos, this.namespaces, this.spreadSelector);
  }
}
