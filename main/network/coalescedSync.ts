// CoalescedSync: the reconcile loop of the host-side listeners (NodePort/LoadBalancer ports,
// PortForwards). Like a client-go work queue holding a single key: any number of change
// notifications while a pass runs collapse into one more pass, never two at once; a pass that
// throws is reported and tried again after a delay (upstream requeues with backoff, here a fixed
// interval, as the service controller's retry of SyncLoadBalancerFailed does).
//
// Also holds the few pieces the listeners share: binding a TCP port exclusively and the wording of
// a port that cannot be opened.
import { createServer, type Server, type Socket } from 'node:net';
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import type { Disposable, Informer } from '../client/informer';

export interface CoalescedSyncOptions {
  /** one full pass; a throw is reported and the pass retried */
  sync: () => Promise<void>;
  /** names the loop in the default warning, e.g. `host ports` */
  name: string;
  /** how long until a failed pass is tried again; default 10 s */
  retryIntervalMs?: number;
  /** failures that are retried anyway; default console.warn */
  onError?: (error: unknown) => void;
}

const defaultRetryIntervalMs = 10_000;

export class CoalescedSync {
  private dirty = false;
  private syncing: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly owned: Disposable[] = [];

  constructor(private readonly options: CoalescedSyncOptions) {}

  /** True once dispose has been called: no pass starts any more. */
  get disposed(): boolean {
    return this.stopped;
  }

  /** Asks for a pass on every add, update and delete an informer sees, until dispose. */
  follow<T extends KubeObject>(informer: Informer<T>): void {
    const changed = () => this.request();
    this.own(informer.addEventHandler({ onAdd: changed, onUpdate: changed, onDelete: changed }));
  }

  /** Disposes `resource` (an event handler, say) first thing in dispose. */
  own(resource: Disposable): void {
    if (this.stopped) resource.dispose();
    else this.owned.push(resource);
  }

  /** Asks for a pass: starts one now, or one more after the pass under way. */
  request(): void {
    if (this.stopped) return;
    this.dirty = true;
    this.syncing ??= this.run();
  }

  /** Asks for a pass after the retry interval, unless one is already waiting for it. */
  retryLater(): void {
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.request();
    }, this.options.retryIntervalMs ?? defaultRetryIntervalMs);
    this.retryTimer.unref();
  }

  /** Reports a failure and asks for a pass after the retry interval. */
  retryAfter(error: unknown): void {
    this.report(error);
    this.retryLater();
  }

  report(error: unknown): void {
    (this.options.onError ?? ((reason: unknown) => console.warn(`${this.options.name}: ${errorMessage(reason)}`)))(error);
  }

  /** Resolves when every pass asked for so far has run. */
  async idle(): Promise<void> {
    while (this.syncing) await this.syncing;
  }

  /** Drops what it owns, stops retrying and waits for the pass under way, if any. */
  async dispose(): Promise<void> {
    this.stopped = true;
    for (const resource of this.owned.splice(0)) resource.dispose();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.syncing;
  }

  private async run(): Promise<void> {
    while (this.dirty && !this.stopped) {
      this.dirty = false;
      try {
        await this.options.sync();
      } catch (error) {
        this.retryAfter(error);
      }
    }
    this.syncing = undefined;
  }
}

export function errorCode(error: unknown): string | undefined {
  return isRecord(error) && typeof error.code === 'string' ? error.code : undefined;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Why `where` (e.g. `port 8080 on 127.0.0.1`) could not be bound, in the words of the events and
 * statuses that report it; a port in use is told apart so the caller can name its holder.
 */
export function bindFailureText(where: string, error: unknown): string {
  switch (errorCode(error)) {
    case 'EADDRINUSE':
      return `${where} is already in use`;
    case 'EACCES':
      return `${where} cannot be opened: permission denied (ports below 1024 need privileges)`;
    default:
      return `${where} cannot be opened: ${errorMessage(error)}`;
  }
}

/**
 * Binds host:port for nobody else (exclusive) and resolves once listening; rejects with the bind
 * error. Errors after that go to onError.
 */
export function listenTcp(host: string, port: number, onConnection: (socket: Socket) => void, onError: (error: unknown) => void): Promise<Server> {
  return new Promise((resolve, reject) => {
    // allowHalfOpen: a client that shuts down its sending side still gets the reply;
    // pauseOnConnect: bytes wait in the kernel until the backend is connected.
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, onConnection);
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      server.on('error', onError);
      resolve(server);
    });
  });
}
