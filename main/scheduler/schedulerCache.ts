// The scheduler's cache of nodes and the pods placed on them, after upstream
// pkg/scheduler/backend/cache/cache.go: bound pods come from the informer; a pod the scheduler has
// just chosen a node for is "assumed" on that node at once, so the next cycles see its requests
// before the binding round-trip completes (no overcommit in bursts); the informer's update
// confirms it, a failed binding forgets it. NodeInfos are rebuilt lazily, only for nodes that
// changed since the last snapshot.
import { podKey, type LabelSelector, type Node, type Pod } from './api';
import type { NodeInfo } from './framework';
import { newNodeInfo } from './nodeInfo';
import type { Labels } from './selectors';
import { Snapshot } from './snapshot';

interface PodState {
  pod: Pod;
  node: string;
  assumed: boolean;
}

export class SchedulerCache {
  private readonly nodes = new Map<string, Node>();
  private readonly pods = new Map<string, PodState>();
  private readonly podsByNode = new Map<string, Set<string>>();
  private readonly nodeInfos = new Map<string, NodeInfo>();
  private readonly dirty = new Set<string>();

  addOrUpdateNode(node: Node): void {
    const name = node.metadata.name ?? '';
    this.nodes.set(name, node);
    this.dirty.add(name);
  }

  removeNode(name: string): void {
    this.nodes.delete(name);
    this.nodeInfos.delete(name);
    this.dirty.delete(name);
  }

  /** A pod the informer reports as bound (spec.nodeName set); replaces an assumed copy. */
  addOrUpdatePod(pod: Pod): void {
    const node = pod.spec?.nodeName;
    if (!node) return;
    this.place(podKey(pod), { pod, node, assumed: false });
  }

  removePod(pod: Pod): void {
    this.unplace(podKey(pod));
  }

  /** Counts the pod on the node before the binding is confirmed. */
  assumePod(pod: Pod, node: string): void {
    const assumed: Pod = { ...pod, spec: { ...(pod.spec ?? {}), nodeName: node } };
    this.place(podKey(pod), { pod: assumed, node, assumed: true });
  }

  /** Drops an assumed pod whose binding failed; a confirmed pod is left alone. */
  forgetPod(pod: Pod): void {
    const key = podKey(pod);
    if (this.pods.get(key)?.assumed) this.unplace(key);
  }

  isAssumed(pod: Pod): boolean {
    return this.pods.get(podKey(pod))?.assumed ?? false;
  }

  nodeCount(): number {
    return this.nodes.size;
  }

  snapshot(namespaces: ReadonlyMap<string, Labels>, spreadSelector: (pod: Pod) => LabelSelector | undefined): Snapshot {
    for (const name of this.dirty) {
      const node = this.nodes.get(name);
      if (!node) continue;
      const pods = [...(this.podsByNode.get(name) ?? [])].map((key) => this.pods.get(key)?.pod).filter((pod): pod is Pod => pod !== undefined);
      this.nodeInfos.set(name, newNodeInfo(node, pods));
    }
    this.dirty.clear();
    const infos = [...this.nodeInfos.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return new Snapshot(infos, namespaces, spreadSelector);
  }

  private place(key: string, state: PodState): void {
    this.unplace(key);
    this.pods.set(key, state);
    let keys = this.podsByNode.get(state.node);
    if (!keys) this.podsByNode.set(state.node, (keys = new Set()));
    keys.add(key);
    this.dirty.add(state.node);
  }

  private unplace(key: string): void {
    const previous = this.pods.get(key);
    if (!previous) return;
    this.pods.delete(key);
    this.podsByNode.get(previous.node)?.delete(key);
    this.dirty.add(previous.node);
  }
}
