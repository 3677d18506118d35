// Keeps one list+watch per kind while any view needs it (reference-counted, lingering a little
// after the last view leaves so going back is instant), like a shared informer: list in pages
// (the first page paints at once), watch from the list's resourceVersion, relist on 410 Gone,
// reconnect with back-off otherwise. Events are handed to the store in batches, so a burst of
// watch events costs one render, not one per event. With a ConnectionMonitor, a watch that drops
// or a list the network fails waits for the monitor instead of retrying on its own: resumed at
// once when the server is fine, relisted (a resync) when it comes back after an outage or after
// signing in again — one probe with back-off instead of every kind reconnecting in a loop.
import type { WatchEvent } from '../../shared/kubernetes/types';
import { isConnectionFailure, KubeApiError, type KubeClient, type WatchHandle } from '../api/kubeClient';
import type { ConnectionMonitor } from '../api/connection';
import { resourcePath, type KindConfig } from '../kinds/kindConfig';
import type { AppStore } from './store';

export interface WatchManagerOptions {
  pageSize?: number;
  /** how long events are gathered before one store update */
  batchMs?: number;
  /** how long a watch outlives its last subscriber */
  lingerMs?: number;
  /** the page's connection monitor; without one each watch retries on its own */
  connection?: ConnectionMonitor;
}

interface Subscription {
  config: KindConfig;
  references: number;
  watch?: WatchHandle;
  stopped: boolean;
  lingerTimer?: ReturnType<typeof setTimeout>;
  retryTimer?: ReturnType<typeof setTimeout>;
  backoffMs: number;
  pending: WatchEvent[];
  flushTimer?: ReturnType<typeof setTimeout>;
  /** waiting for the connection monitor (its watch dropped or its list could not reach the server) */
  parked: boolean;
}

export class WatchManager {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly pageSize: number;
  private readonly batchMs: number;
  private readonly lingerMs: number;
  private readonly connection: ConnectionMonitor | undefined;
  private readonly unsubscribers: (() => void)[] = [];

  constructor(
    private readonly client: KubeClient,
    private readonly store: AppStore,
    options: WatchManagerOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 500;
    this.batchMs = options.batchMs ?? 50;
    this.lingerMs = options.lingerMs ?? 30_000;
    this.connection = options.connection;
    if (this.connection) {
      this.unsubscribers.push(this.connection.onOnline((afterOutage) => this.resume(afterOutage ? 'relist' : 'rewatch')));
      // signed in again (the session had ended): what is cached may be old, so relist everything
      this.unsubscribers.push(store.subscribe((state, previous) => {
        if (state.session === 'signed-in' && previous.session === 'signed-out') this.resume('relist-all');
      }));
    }
  }

  /** Starts (or joins) the watch of a kind; call the returned function when done. */
  acquire(config: KindConfig): () => void {
    let subscription = this.subscriptions.get(config.key);
    if (!subscription) {
      subscription = { config, references: 0, stopped: false, backoffMs: 250, pending: [], parked: false };
      this.subscriptions.set(config.key, subscription);
      void this.relist(subscription);
    }
    const current = subscription;
    current.references++;
    if (current.lingerTimer) {
      clearTimeout(current.lingerTimer);
      current.lingerTimer = undefined;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      current.references--;
      if (current.references === 0) current.lingerTimer = setTimeout(() => this.stop(current), this.lingerMs);
    };
  }

  dispose(): void {
    for (const unsubscribe of this.unsubscribers.splice(0)) unsubscribe();
    for (const subscription of [...this.subscriptions.values()]) this.stop(subscription);
  }

  /**
   * The server answers again: parked subscriptions resume — watching from where they were after a
   * dropped watch, relisting after an outage — and after a new sign-in every one relists.
   */
  private resume(mode: 'rewatch' | 'relist' | 'relist-all'): void {
    for (const subscription of this.subscriptions.values()) {
      if (subscription.stopped || (!subscription.parked && mode !== 'relist-all')) continue;
      subscription.parked = false;
      subscription.watch?.close();
      subscription.watch = undefined;
      clearTimeout(subscription.retryTimer);
      if (mode === 'rewatch') {
        const resourceVersion = this.store.getState().collections[subscription.config.key]?.resourceVersion ?? '';
        this.retry(subscription, () => (resourceVersion ? this.startWatch(subscription, resourceVersion) : void this.relist(subscription)));
      } else {
        void this.relist(subscription);
      }
    }
  }

  /** A failure that means the server is gone (or the session is): wait for the monitor. */
  private park(subscription: Subscription): boolean {
    if (!this.connection) return false;
    subscription.parked = true;
    this.connection.reportTrouble();
    return true;
  }

  private stop(subscription: Subscription): void {
    subscription.stopped = true;
    subscription.watch?.close();
    clearTimeout(subscription.retryTimer);
    clearTimeout(subscription.flushTimer);
    clearTimeout(subscription.lingerTimer);
    this.subscriptions.delete(subscription.config.key);
  }

  private async relist(subscription: Subscription): Promise<void> {
    const { config } = subscription;
    const path = resourcePath(config);
    let continueToken: string | undefined;
    let first = true;
    let resourceVersion = '';
    try {
      do {
        const page = await this.client.list(path, { limit: this.pageSize, continueToken });
        if (subscription.stopped) return;
        continueToken = page.continueToken;
        resourceVersion = page.resourceVersion;
        this.store.getState().listPage(config.key, page.items, page.resourceVersion, first, !continueToken);
        first = false;
      } while (continueToken);
    } catch (error) {
      if (subscription.stopped) return;
      // the cached items stay (the page marks them stale) while the monitor waits for the server
      if ((isConnectionFailure(error) || (error instanceof KubeApiError && error.code === 401)) && this.park(subscription)) return;
      this.store.getState().collectionFailed(config.key, error instanceof Error ? error.message : String(error));
      this.retry(subscription, () => void this.relist(subscription));
      return;
    }
    subscription.backoffMs = 250;
    this.startWatch(subscription, resourceVersion);
  }

  private startWatch(subscription: Subscription, resourceVersion: string): void {
    if (subscription.stopped) return;
    const path = resourcePath(subscription.config);
    subscription.watch = this.client.watch(path, resourceVersion, {
      onEvent: (event) => {
        // a frame already on its way when the watch was stopped (the window switched clusters)
        if (subscription.stopped) return;
        subscription.backoffMs = 250;
        subscription.pending.push(event);
        subscription.flushTimer ??= setTimeout(() => this.flush(subscription), this.batchMs);
      },
      onClose: ({ gone }) => {
        if (subscription.stopped) return;
        this.flush(subscription);
        if (gone) {
          void this.relist(subscription);
          return;
        }
        if (this.park(subscription)) return;
        this.retry(subscription, () => this.startWatch(subscription, this.store.getState().collections[subscription.config.key]?.resourceVersion ?? resourceVersion));
      },
    });
  }

  private flush(subscription: Subscription): void {
    clearTimeout(subscription.flushTimer);
    subscription.flushTimer = undefined;
    if (subscription.pending.length === 0) return;
    const events = subscription.pending;
    subscription.pending = [];
    this.store.getState().applyEvents(subscription.config.key, events);
  }

  private retry(subscription: Subscription, action: () => void): void {
    const delay = subscription.backoffMs;
    subscription.backoffMs = Math.min(subscription.backoffMs * 2, 5_000);
    subscription.retryTimer = setTimeout(() => {
      if (!subscription.stopped) action();
    }, delay);
  }
}
