// The objects the command palette searches beyond the watch caches: when the palette opens, every
// listable kind no view is watching is listed once — names only (PartialObjectMetadataList, as
// `kubectl get` asks for metadata), at most `maxPerKind` objects per kind, a few kinds at a time —
// and kept for a while, so objects of kinds never opened in this session are found too. Kinds a
// view watches come from the store instead, live.
import type { KubeObject } from '../../shared/kubernetes/types';
import type { KubeClient } from '../api/kubeClient';
import { resourcePath, type KindConfig } from '../kinds/kindConfig';

export const PARTIAL_METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

export interface SearchIndexOptions {
  maxPerKind?: number;
  concurrency?: number;
  /** how long a listed kind counts as fresh */
  freshMs?: number;
  now?: () => number;
}

export interface IndexedKind {
  items: KubeObject[];
  /** more objects exist than were listed */
  truncated: boolean;
  listedAt: number;
}

export class PaletteSearchIndex {
  private readonly kinds = new Map<string, IndexedKind>();
  private readonly inFlight = new Set<string>();
  private readonly queue: KindConfig[] = [];
  private readonly listeners = new Set<() => void>();
  private running = 0;
  private readonly maxPerKind: number;
  private readonly concurrency: number;
  private readonly freshMs: number;
  private readonly now: () => number;

  constructor(
    private readonly client: KubeClient,
    options: SearchIndexOptions = {},
  ) {
    this.maxPerKind = options.maxPerKind ?? 500;
    this.concurrency = options.concurrency ?? 4;
    this.freshMs = options.freshMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** Lists, in the background, each of these kinds not listed recently; listeners hear of every result. */
  refresh(kinds: KindConfig[]): void {
    let queued = false;
    for (const kind of kinds) {
      const known = this.kinds.get(kind.key);
      if (this.inFlight.has(kind.key) || (known && this.now() - known.listedAt < this.freshMs)) continue;
      this.inFlight.add(kind.key);
      this.queue.push(kind);
      queued = true;
    }
    if (queued) this.notify();
    this.pump();
  }

  /** What was listed of a kind, if anything. */
  get(kindKey: string): IndexedKind | undefined {
    return this.kinds.get(kindKey);
  }

  /** Kinds still being listed. */
  get pending(): number {
    return this.inFlight.size;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private pump(): void {
    while (this.running < this.concurrency && this.queue.length > 0) {
      const kind = this.queue.shift() as KindConfig;
      this.running++;
      void this.list(kind).finally(() => {
        this.running--;
        this.inFlight.delete(kind.key);
        this.notify();
        this.pump();
      });
    }
  }

  private async list(kind: KindConfig): Promise<void> {
    try {
      const page = await this.client.list(resourcePath(kind), { limit: this.maxPerKind, accept: PARTIAL_METADATA_LIST });
      this.kinds.set(kind.key, { items: page.items, truncated: page.continueToken !== undefined, listedAt: this.now() });
    } catch {
      // a kind this user may not list (403) or that went away: nothing to search in it
      this.kinds.set(kind.key, { items: [], truncated: false, listedAt: this.now() });
    }
  }
}
