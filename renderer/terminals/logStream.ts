// Streaming pod logs into the viewer: one WebSocket per pod to `pods/<name>/log?follow=true`
// (upstream's wsstream: binary.k8s.io frames carry the log bytes; the socket closes when the
// stream ends). Timestamps are always requested, so the toggle only changes the display and a
// reconnect can resume at the last line seen: when the socket closes while following (the
// container restarted, the connection dropped), it reconnects with sinceTime and drops the lines
// the server sends again. A refused handshake hides the API's Status from the browser, so the
// reason is asked for once over plain HTTP. With several pods (a workload's logs) the backlog is
// first read from every pod over HTTP and merged by timestamp, then each pod is followed from the
// last line read (sinceTime, repeats dropped) — so the history reads in time order rather than one
// pod after another. The follow streams' first lines (what each pod wrote since its backlog's last
// line) are held until every pod's stream has sent something, or for a second at most, and merged
// by time too, so a pod whose stream is slow to start does not put older lines after newer ones.
// Lines arriving later are merged by time within each screen frame.
import { isConnectionFailure, KubeApiError, type KubeClient } from '../api/kubeClient';
import type { ConnectionMonitor } from '../api/connection';
import { LineSplitter, linesOfText, mergeByTimestamp, ReconnectFilter, sinceTimeOf, splitTimestamp, timestampKey, type LogLine } from './lineStore';

export const LOG_PROTOCOLS = ['binary.k8s.io'];
/** How long the follow streams' first lines wait for the other pods' after a merged backlog. */
export const CATCH_UP_MS = 1000;

export type PodStreamPhase = 'connecting' | 'streaming' | 'retrying' | 'ended';

export interface PodStreamState {
  pod: string;
  phase: PodStreamPhase;
  message?: string;
}

export interface LogStreamOptions {
  client: Pick<KubeClient, 'openSocket' | 'text'>;
  namespace: string;
  pods: readonly string[];
  /** per pod; undefined lets the API pick (it refuses pods with several containers) */
  containerOf(pod: string): string | undefined;
  previous: boolean;
  tailLines?: number;
  /** read every pod's backlog first and deliver it merged by timestamp, then follow */
  mergeBacklog?: boolean;
  onLines(lines: LogLine[]): void;
  onState(states: PodStreamState[]): void;
  /** timers, replaceable in tests */
  setTimer?(callback: () => void, delayMs: number): unknown;
  clearTimer?(timer: unknown): void;
  /** the page's connection monitor: while the cluster does not answer, streams wait for it instead of retrying */
  connection?: Pick<ConnectionMonitor, 'reportTrouble' | 'onOnline'>;
}

export function logPath(namespace: string, pod: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`;
}

export function logQuery(options: { container?: string; previous: boolean; tailLines?: number; sinceTime?: string; follow: boolean }): URLSearchParams {
  const query = new URLSearchParams();
  if (options.follow) query.set('follow', 'true');
  query.set('timestamps', 'true');
  if (options.container) query.set('container', options.container);
  if (options.previous) query.set('previous', 'true');
  if (options.sinceTime) query.set('sinceTime', options.sinceTime);
  else if (options.tailLines !== undefined) query.set('tailLines', String(options.tailLines));
  return query;
}

const MAX_BACKOFF_MS = 10_000;

interface PodConnection {
  pod: string;
  source: number;
  socket?: WebSocket;
  splitter: LineSplitter;
  filter: ReconnectFilter;
  state: PodStreamState;
  timer?: unknown;
  backoffMs: number;
  connections: number;
  /** stops waiting for the connection monitor */
  stopWaiting?: () => void;
}

/** The earliest of the pods' last timestamps (as timestampKey text); undefined when no backlog has one. */
export function backlogCut(backlogs: readonly (readonly LogLine[])[]): string | undefined {
  let cut: string | undefined;
  for (const lines of backlogs) {
    let last: string | undefined;
    for (let index = lines.length - 1; index >= 0 && last === undefined; index--) last = lines[index].timestamp;
    if (last === undefined) continue;
    const key = timestampKey(last);
    if (cut === undefined || key < cut) cut = key;
  }
  return cut;
}

/** The lines up to and including time `cut` (an untimed line goes with the line before it). */
function upTo(lines: readonly LogLine[], cut: string): LogLine[] {
  const kept: LogLine[] = [];
  for (const line of lines) {
    if (line.timestamp !== undefined && timestampKey(line.timestamp) > cut) break;
    kept.push(line);
  }
  return kept;
}

/** The log streams of one viewer tab; `close()` ends them all. */
export class LogStream {
  private readonly connections: PodConnection[];
  private closed = false;
  /** after a merged backlog: each pod's first follow lines, held until every pod sent some (or CATCH_UP_MS) */
  private catchUp: { lines: LogLine[][]; waiting: Set<number>; timer: unknown } | undefined;
  private readonly setTimer: (callback: () => void, delayMs: number) => unknown;
  private readonly clearTimer: (timer: unknown) => void;

  constructor(private readonly options: LogStreamOptions) {
    this.setTimer = options.setTimer ?? ((callback, delayMs) => setTimeout(callback, delayMs));
    this.clearTimer = options.clearTimer ?? ((timer) => clearTimeout(timer as ReturnType<typeof setTimeout>));
    this.connections = options.pods.map((pod, source) => ({ pod, source, splitter: new LineSplitter(), filter: new ReconnectFilter(), state: { pod, phase: 'connecting' }, backoffMs: 1000, connections: 0 }));
    if (options.mergeBacklog && this.connections.length > 1) void this.loadBacklog();
    else for (const connection of this.connections) this.connect(connection);
  }

  /** Every pod's backlog over HTTP, merged by time and delivered at once; then each pod is followed. */
  private async loadBacklog(): Promise<void> {
    const { options } = this;
    const results = await Promise.all(
      this.connections.map(async (connection) => {
        const query = Object.fromEntries(logQuery({ follow: false, container: options.containerOf(connection.pod), previous: options.previous, tailLines: options.tailLines }));
        try {
          return { connection, text: await options.client.text(logPath(options.namespace, connection.pod), { query }) };
        } catch (error) {
          return { connection, error };
        }
      }),
    );
    if (this.closed) return;
    const backlogs = results.map((result) => (result.text === undefined ? [] : linesOfText(result.text, result.connection.source)));
    // Each pod's backlog ends where its read ended. Beyond the earliest of those ends a pod read
    // first would miss lines another pod already shows, so lines after that cut are not shown
    // now: each pod's follow stream sends them again from its last line shown.
    const cut = backlogCut(backlogs);
    const groups = results.map((result, index) => this.keep(result.connection, cut === undefined ? backlogs[index] : upTo(backlogs[index], cut)));
    const merged = mergeByTimestamp(groups);
    if (merged.length > 0) options.onLines(merged);
    if (!options.previous) {
      this.catchUp = { lines: this.connections.map(() => []), waiting: new Set(this.connections.map((connection) => connection.source)), timer: this.setTimer(() => this.releaseCatchUp(), CATCH_UP_MS) };
    }
    for (const result of results) {
      if (!options.previous) this.connect(result.connection);
      else if (result.text !== undefined) this.setState(result.connection, { phase: 'ended', message: "end of the previous container's log" });
      else this.setState(result.connection, { phase: 'ended', message: result.error instanceof Error ? result.error.message : 'could not read the log' });
    }
  }

  /** Drops the lines a reconnect sent again and remembers where the pod's stream got to. */
  private keep(connection: PodConnection, lines: LogLine[]): LogLine[] {
    const kept: LogLine[] = [];
    for (const line of lines) {
      if (connection.filter.isRepeat(line.timestamp)) continue;
      connection.filter.seen(line.timestamp);
      kept.push(line);
    }
    return kept;
  }

  /** Delivers the held follow lines, merged by time; from now on lines go out as they come. */
  private releaseCatchUp(): void {
    const held = this.catchUp;
    if (!held) return;
    this.catchUp = undefined;
    this.clearTimer(held.timer);
    const merged = mergeByTimestamp(held.lines);
    if (merged.length > 0) this.options.onLines(merged);
  }

  close(): void {
    this.closed = true;
    if (this.catchUp) this.clearTimer(this.catchUp.timer);
    this.catchUp = undefined;
    for (const connection of this.connections) {
      if (connection.timer !== undefined) this.clearTimer(connection.timer);
      connection.stopWaiting?.();
      const socket = connection.socket;
      connection.socket = undefined;
      if (socket) {
        socket.onclose = null;
        socket.onerror = null;
        socket.onmessage = null;
        socket.close();
      }
    }
  }

  states(): PodStreamState[] {
    return this.connections.map((connection) => connection.state);
  }

  private setState(connection: PodConnection, state: Omit<PodStreamState, 'pod'>): void {
    connection.state = { pod: connection.pod, ...state };
    this.options.onState(this.states());
  }

  private connect(connection: PodConnection): void {
    if (this.closed) return;
    const { options } = this;
    const resuming = connection.filter.lastTimestamp !== undefined;
    if (resuming) connection.filter.reconnecting();
    connection.splitter = new LineSplitter();
    const query = logQuery({
      follow: true,
      container: options.containerOf(connection.pod),
      previous: options.previous,
      tailLines: options.tailLines,
      sinceTime: resuming && connection.filter.lastTimestamp ? sinceTimeOf(connection.filter.lastTimestamp) : undefined,
    });
    const socket = options.client.openSocket(logPath(options.namespace, connection.pod), query, LOG_PROTOCOLS);
    socket.binaryType = 'arraybuffer';
    connection.socket = socket;
    connection.connections++;
    let opened = false;
    let received = false;
    this.setState(connection, { phase: 'connecting' });
    socket.onopen = () => {
      opened = true;
      this.setState(connection, { phase: 'streaming' });
    };
    socket.onmessage = (event: MessageEvent) => {
      const data: unknown = event.data;
      const lines = data instanceof ArrayBuffer ? connection.splitter.push(new Uint8Array(data)) : typeof data === 'string' ? connection.splitter.pushText(data) : [];
      if (lines.length === 0) return;
      received = true;
      connection.backoffMs = 1000;
      this.emit(connection, lines);
    };
    socket.onerror = () => undefined;
    socket.onclose = () => {
      if (connection.socket !== socket || this.closed) return;
      connection.socket = undefined;
      this.emit(connection, connection.splitter.flush());
      if (options.previous) {
        if (opened) this.setState(connection, { phase: 'ended', message: 'end of the previous container\'s log' });
        else void this.explainFailure(connection, false);
        return;
      }
      if (opened && received) {
        connection.backoffMs = 1000;
        this.retry(connection, 'the log stream ended; reconnecting');
      } else if (opened) {
        this.retry(connection, 'waiting for more log output');
      } else {
        void this.explainFailure(connection, true);
      }
    };
  }

  private emit(connection: PodConnection, texts: string[]): void {
    const lines = this.keep(
      connection,
      texts.map((text) => ({ ...splitTimestamp(text), source: connection.source })),
    );
    const held = this.catchUp;
    if (held) {
      held.lines[connection.source].push(...lines);
      held.waiting.delete(connection.source);
      if (held.waiting.size === 0) this.releaseCatchUp();
      return;
    }
    if (lines.length > 0) this.options.onLines(lines);
  }

  private retry(connection: PodConnection, message: string): void {
    if (this.closed) return;
    const delay = connection.backoffMs;
    connection.backoffMs = Math.min(MAX_BACKOFF_MS, connection.backoffMs * 2);
    this.setState(connection, { phase: 'retrying', message });
    connection.timer = this.setTimer(() => {
      connection.timer = undefined;
      this.connect(connection);
    }, delay);
  }

  /** The cluster is gone: reconnect when the connection monitor says it answers again, not on a timer. */
  private waitForCluster(connection: PodConnection, monitor: NonNullable<LogStreamOptions['connection']>): void {
    this.setState(connection, { phase: 'retrying', message: 'the cluster does not answer; waiting for it' });
    connection.stopWaiting?.();
    const stop = monitor.onOnline(() => {
      stop();
      connection.stopWaiting = undefined;
      connection.backoffMs = 1000;
      this.connect(connection);
    });
    connection.stopWaiting = stop;
    monitor.reportTrouble();
  }

  /** Asks the API over HTTP why the WebSocket was refused (pod gone, container not started…). */
  private async explainFailure(connection: PodConnection, retry: boolean): Promise<void> {
    let reason = 'could not connect to the log stream';
    let gone = false;
    try {
      await this.options.client.text(logPath(this.options.namespace, connection.pod), {
        query: { container: this.options.containerOf(connection.pod), previous: this.options.previous ? 'true' : undefined, tailLines: '1' },
      });
    } catch (error) {
      reason = error instanceof KubeApiError || error instanceof Error ? error.message : reason;
      // a deleted pod has no more log to wait for (its replacement is another pod)
      gone = error instanceof KubeApiError && error.code === 404;
      if (retry && isConnectionFailure(error) && this.options.connection && !this.closed) {
        this.waitForCluster(connection, this.options.connection);
        return;
      }
    }
    if (this.closed) return;
    if (retry && !gone) this.retry(connection, reason);
    else this.setState(connection, { phase: 'ended', message: reason });
  }
}
