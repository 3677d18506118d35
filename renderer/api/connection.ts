// Whether the API server answers, watched in one place. When a request fails like the network (or
// a watch drops), the monitor asks the server once — GET /ui/session, which also says whether the
// session still counts. Reachable: the views go on. Unreachable: the UI is offline — watches stop
// retrying on their own, only the monitor tries again, with exponential back-off (1 s doubling up
// to 30 s, as client-go's reflector backs off a failing ListAndWatch), so a stopped cluster costs
// one request per step instead of a reconnect storm; when it answers again every watch relists
// and watches anew (a resync, as an informer does after a watch gap). The session is gone (the
// cluster restarted, or signed out elsewhere): the UI goes back to the sign-in page and says why.
// A window on another kubeconfig context probes that context through the relay instead
// (GET <basePath>/-/status): the relay answers for it, and a context it cannot use (unreachable,
// certificate not trusted, credentials refused, exec plugin failing) counts as not answering —
// the same back-off, with the status kept in the store for the strip's plain words.
import type { AppStore } from '../store/store';
import { parseClusterStatus, type ClusterStatus } from './clusters';
import { parseJson } from './kubeClient';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 1000, maxMs: 30_000, factor: 2 };

/** The wait before attempt `attempt` (0-based): initial × factor^attempt, at most max. */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const delay = options.initialMs * Math.pow(options.factor, Math.max(0, attempt));
  return Math.min(options.maxMs, Number.isFinite(delay) ? delay : options.maxMs);
}

/** What one probe of the server found. */
export type ProbeResult = 'ok' | 'unauthorized' | 'unreachable';

/** A probe's finding with the relayed cluster's status, when the probe read one. */
export interface ProbeReport {
  result: ProbeResult;
  status?: ClusterStatus;
}

/** The probe the page uses: its own session, on the server that serves the page. */
export async function probeSession(fetchImpl: typeof fetch = fetch): Promise<ProbeResult> {
  try {
    const response = await fetchImpl('/ui/session', { credentials: 'same-origin', cache: 'no-store' });
    if (response.ok) return 'ok';
    // 5xx while the server starts up counts as not there yet
    return response.status === 401 || response.status === 403 ? 'unauthorized' : 'unreachable';
  } catch {
    return 'unreachable';
  }
}

/**
 * The probe of a relayed context: its status through the relay. 401/403 = this page's session is
 * gone (the relay wants the session too); a context the relay cannot use is 'unreachable' with
 * the status saying why; an answer that is no status (an unknown context, a relay error) too.
 */
export async function probeClusterStatus(basePath: string, fetchImpl: typeof fetch = fetch): Promise<ProbeReport> {
  try {
    const response = await fetchImpl(`${basePath}/-/status`, { credentials: 'same-origin', cache: 'no-store' });
    if (response.status === 401 || response.status === 403) return { result: 'unauthorized' };
    const body = parseJson(await response.text());
    const status = response.ok ? parseClusterStatus(body) : undefined;
    if (!status) {
      const message = typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : `the relay answered ${response.status}`;
      return { result: 'unreachable', status: { state: 'error', message, kubedesk: false, warnings: [] } };
    }
    return { result: status.state === 'connected' ? 'ok' : 'unreachable', status };
  } catch {
    return { result: 'unreachable' };
  }
}

export interface ConnectionMonitorOptions {
  backoff?: BackoffOptions;
  now?: () => number;
}

export const SESSION_ENDED_REASON = 'The cluster no longer knows this browser’s session (it restarted, or you signed out in another tab). Sign in again.';

export class ConnectionMonitor {
  private readonly backoff: BackoffOptions;
  private readonly now: () => number;
  private readonly listeners = new Set<(afterOutage: boolean) => void>();
  private probing = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;

  constructor(
    private readonly store: AppStore,
    private readonly probe: () => Promise<ProbeResult | ProbeReport> = () => probeSession(),
    options: ConnectionMonitorOptions = {},
  ) {
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.now = options.now ?? Date.now;
  }

  get online(): boolean {
    return this.store.getState().connection.state === 'online';
  }

  /**
   * Called back when the server answers again after trouble: `afterOutage` = it was unreachable
   * (relist everything), otherwise only a check ran and watches may simply resume.
   */
  onOnline(listener: (afterOutage: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Something failed like the network: check the server now (once, however many report it). */
  reportTrouble(): void {
    if (this.disposed) return;
    const { connection } = this.store.getState();
    if (connection.state === 'online') this.store.getState().setConnection({ state: 'checking', attempts: 0, lostAt: this.now() });
    if (connection.state !== 'offline') void this.check();
  }

  /** Probe now without marking the page as checking: a window that just switched to a relayed cluster learns its state. */
  checkNow(): void {
    if (!this.disposed) void this.check();
  }

  /** The user asked to try again now. */
  retryNow(): void {
    if (this.disposed || this.store.getState().connection.state !== 'offline') return;
    clearTimeout(this.timer);
    this.timer = undefined;
    void this.check();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.listeners.clear();
  }

  private async check(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    let report: ProbeReport;
    try {
      const answer = await this.probe();
      report = typeof answer === 'string' ? { result: answer } : answer;
    } finally {
      this.probing = false;
    }
    if (this.disposed) return;
    const { result } = report;
    if (report.status) this.store.getState().setClusterStatus(report.status);
    const state = this.store.getState();
    const wasOffline = state.connection.state === 'offline';
    if (result === 'unreachable') {
      const attempts = wasOffline ? state.connection.attempts + 1 : 0;
      const delay = backoffDelay(attempts, this.backoff);
      state.setConnection({ state: 'offline', lostAt: state.connection.lostAt ?? this.now(), attempts, nextAttemptAt: this.now() + delay });
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.check();
      }, delay);
      return;
    }
    state.setConnection({ state: 'online', attempts: 0 });
    if (result === 'unauthorized') {
      if (state.session === 'signed-in') state.setSession('signed-out', SESSION_ENDED_REASON);
      return;
    }
    for (const listener of [...this.listeners]) listener(wasOffline);
  }
}
