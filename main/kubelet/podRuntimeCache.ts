// PodRuntimeCache: one snapshot of the node's sandboxes and containers, grouped by pod uid, shared
// by every pod worker (upstream's PLEG relist + pod cache, pkg/kubelet/pleg/generic.go). A worker
// that changed something invalidates it; concurrent readers share one relist.
import type { ContainerRuntime, ContainerStatus, SandboxStatus } from './runtime/containerRuntime';
import type { ObservedPod } from './podStatus';

export class PodRuntimeCache {
  private snapshot: { at: number; byPod: Map<string, ObservedPod> } | undefined;
  private refreshing: Promise<Map<string, ObservedPod>> | undefined;
  private generation = 0;

  constructor(
    private readonly runtime: ContainerRuntime,
    private readonly maxAgeMs = 1000,
  ) {}

  /** Counts invalidations: a reader that saw it unchanged since an earlier point knows no one wrote meanwhile. */
  get generationNow(): number {
    return this.generation;
  }

  invalidate(): void {
    this.generation++;
    this.snapshot = undefined;
  }

  async get(uid: string): Promise<ObservedPod> {
    const all = await this.all();
    return all.get(uid) ?? { containers: [] };
  }

  async all(): Promise<Map<string, ObservedPod>> {
    if (this.snapshot && Date.now() - this.snapshot.at < this.maxAgeMs) return this.snapshot.byPod;
    if (!this.refreshing) {
      const generation = this.generation;
      this.refreshing = this.relist().then(
        (byPod) => {
          this.refreshing = undefined;
          // A write during the relist makes it stale at birth; the next reader relists again.
          if (generation === this.generation) this.snapshot = { at: Date.now(), byPod };
          return byPod;
        },
        (error: unknown) => {
          this.refreshing = undefined;
          throw error;
        },
      );
    }
    return this.refreshing;
  }

  private async relist(): Promise<Map<string, ObservedPod>> {
    const [sandboxes, containers] = await Promise.all([this.runtime.listSandboxes(), this.runtime.listContainers()]);
    const byPod = new Map<string, ObservedPod>();
    const entry = (uid: string) => {
      let observed = byPod.get(uid);
      if (!observed) {
        observed = { containers: [] };
        byPod.set(uid, observed);
      }
      return observed;
    };
    for (const sandbox of newestFirst(sandboxes)) {
      const observed = entry(sandbox.podUid);
      observed.sandboxes = observed.sandboxes ?? [];
      observed.sandboxes.push(sandbox);
      if (!observed.sandbox) observed.sandbox = sandbox;
    }
    for (const container of containers) entry(container.podUid).containers.push(container);
    return byPod;
  }
}

function newestFirst(sandboxes: SandboxStatus[]): SandboxStatus[] {
  return [...sandboxes].sort((a, b) => b.attempt - a.attempt || b.createdAt.getTime() - a.createdAt.getTime());
}

export type { ContainerStatus };
