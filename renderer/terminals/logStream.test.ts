import { describe, expect, it } from 'vitest';
import { ConnectionError, KubeApiError } from '../api/kubeClient';
import type { LogLine } from './lineStore';
import { backlogCut, LogStream, logQuery, type PodStreamState } from './logStream';

class FakeSocket {
  binaryType = 'blob';
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: (() => void) | null = null;
  onerror: (() => void) | null = null;
  closed = false;
  constructor(
    readonly path: string,
    readonly query: URLSearchParams,
  ) {}
  close() {
    this.closed = true;
  }
  receive(text: string) {
    this.onmessage?.({ data: new TextEncoder().encode(text).buffer });
  }
}

function harness(options: { previous?: boolean; pods?: string[]; failure?: string; failureCode?: number; backlog?: Record<string, string> } = {}) {
  const texts: { path: string; query: Record<string, string | undefined> }[] = [];
  const sockets: FakeSocket[] = [];
  const lines: LogLine[] = [];
  const timers: Array<() => void> = [];
  let states: PodStreamState[] = [];
  const stream = new LogStream({
    client: {
      openSocket(path, query) {
        const socket = new FakeSocket(path, query);
        sockets.push(socket);
        return socket as unknown as WebSocket;
      },
      text: (path, request) => {
        texts.push({ path, query: request?.query ?? {} });
        const pod = /pods\/([^/]+)\/log$/.exec(path)?.[1] ?? '';
        const backlog = options.backlog?.[pod];
        if (backlog !== undefined) return Promise.resolve(backlog);
        return Promise.reject(new KubeApiError(options.failureCode ?? 400, options.failureCode === 404 ? 'NotFound' : 'BadRequest', options.failure ?? 'container "app" is waiting to start'));
      },
    },
    mergeBacklog: options.backlog !== undefined,
    namespace: 'default',
    pods: options.pods ?? ['web-1'],
    containerOf: () => 'app',
    previous: options.previous ?? false,
    tailLines: 100,
    onLines: (batch) => lines.push(...batch),
    onState: (next) => (states = next),
    setTimer: (callback) => timers.push(callback),
    clearTimer: () => undefined,
  });
  return { stream, sockets, lines, timers, texts, states: () => states };
}

describe('logQuery', () => {
  it('always asks for timestamps, and for sinceTime instead of tailLines when resuming', () => {
    expect(Object.fromEntries(logQuery({ follow: true, container: 'app', previous: false, tailLines: 10 }))).toEqual({ follow: 'true', timestamps: 'true', container: 'app', tailLines: '10' });
    expect(Object.fromEntries(logQuery({ follow: true, previous: true, tailLines: 10, sinceTime: '2024-01-01T00:00:00Z' }))).toEqual({ follow: 'true', timestamps: 'true', previous: 'true', sinceTime: '2024-01-01T00:00:00Z' });
  });
});

describe('LogStream', () => {
  it('splits frames into lines with their timestamps and source pod, merging pods by arrival', () => {
    const { sockets, lines } = harness({ pods: ['web-1', 'web-2'] });
    expect(sockets.map((socket) => socket.path)).toEqual(['/api/v1/namespaces/default/pods/web-1/log', '/api/v1/namespaces/default/pods/web-2/log']);
    sockets[0].receive('2024-05-01T10:00:00.1Z one\n2024-05-01T10:00:00.2Z tw');
    sockets[1].receive('2024-05-01T10:00:00.3Z other\n');
    sockets[0].receive('o\n');
    expect(lines.map((line) => [line.source, line.text, line.timestamp])).toEqual([
      [0, 'one', '2024-05-01T10:00:00.1Z'],
      [1, 'other', '2024-05-01T10:00:00.3Z'],
      [0, 'two', '2024-05-01T10:00:00.2Z'],
    ]);
  });

  it('reconnects with sinceTime after the stream closes and drops the lines sent again', () => {
    const { sockets, lines, timers, states } = harness();
    sockets[0].onopen?.();
    sockets[0].receive('2024-05-01T10:00:07.5Z before restart\n');
    sockets[0].onclose?.();
    expect(states()[0].phase).toBe('retrying');
    timers.shift()?.();
    expect(sockets[1].query.get('sinceTime')).toBe('2024-05-01T10:00:07Z');
    expect(sockets[1].query.has('tailLines')).toBe(false);
    sockets[1].onopen?.();
    sockets[1].receive('2024-05-01T10:00:07.5Z before restart\n2024-05-01T10:00:09Z after restart\n');
    expect(lines.map((line) => line.text)).toEqual(['before restart', 'after restart']);
  });

  it('shows why a refused connection failed and does not retry for the previous container', async () => {
    const { sockets, timers, states } = harness({ previous: true, failure: 'previous terminated container "app" in pod "web-1" not found' });
    sockets[0].onclose?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(states()[0]).toEqual({ pod: 'web-1', phase: 'ended', message: 'previous terminated container "app" in pod "web-1" not found' });
    expect(timers).toHaveLength(0);
  });

  it('stops following a pod that was deleted instead of retrying forever', async () => {
    const { sockets, timers, states } = harness({ failureCode: 404, failure: 'pods "web-1" not found' });
    sockets[0].onclose?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(states()[0]).toEqual({ pod: 'web-1', phase: 'ended', message: 'pods "web-1" not found' });
    expect(timers).toHaveLength(0);
  });

  it('keeps retrying a refused connection while the container is not started yet', async () => {
    const { sockets, timers, states } = harness();
    sockets[0].onclose?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(states()[0]).toMatchObject({ pod: 'web-1', phase: 'retrying', message: 'container "app" is waiting to start' });
    expect(timers).toHaveLength(1);
  });

  it("merges several pods' backlogs by time, then follows each from its last line", async () => {
    const { sockets, lines, texts } = harness({
      pods: ['web-1', 'web-2'],
      backlog: {
        'web-1': '2024-05-01T10:00:01Z a1\n2024-05-01T10:00:03.5Z a2\n2024-05-01T10:00:05Z a3\n',
        'web-2': '2024-05-01T10:00:02Z b1\n2024-05-01T10:00:03.25Z b2\n',
      },
    });
    expect(sockets).toHaveLength(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(texts.map((text) => [text.path, text.query.follow, text.query.timestamps, text.query.tailLines])).toEqual([
      ['/api/v1/namespaces/default/pods/web-1/log', undefined, 'true', '100'],
      ['/api/v1/namespaces/default/pods/web-2/log', undefined, 'true', '100'],
    ]);
    // web-2's read ended at 10:00:03.25: web-1's later lines wait for its follow stream
    expect(lines.map((line) => `${line.source}:${line.text}`)).toEqual(['0:a1', '1:b1', '1:b2']);
    expect(sockets.map((socket) => socket.query.get('sinceTime'))).toEqual(['2024-05-01T10:00:01Z', '2024-05-01T10:00:03Z']);
    sockets[0].receive('2024-05-01T10:00:01Z a1\n2024-05-01T10:00:03.5Z a2\n2024-05-01T10:00:05Z a3\n2024-05-01T10:00:06Z a4\n');
    // web-2's stream sends again only the line it ended on: nothing new, and the held lines go out
    sockets[1].receive('2024-05-01T10:00:03.25Z b2\n');
    expect(lines.map((line) => line.text)).toEqual(['a1', 'b1', 'b2', 'a2', 'a3', 'a4']);
  });

  it("holds the follow streams' first lines until every pod sent some, and merges them by time", async () => {
    const { sockets, lines, timers } = harness({
      pods: ['web-1', 'web-2'],
      backlog: { 'web-1': '2024-05-01T10:00:01Z a1\n', 'web-2': '2024-05-01T10:00:01.5Z b1\n' },
    });
    await new Promise((resolve) => setImmediate(resolve));
    // the cut is web-1's last line: b1 comes with web-2's follow stream
    expect(lines.map((line) => line.text)).toEqual(['a1']);
    sockets[0].receive('2024-05-01T10:00:01Z a1\n2024-05-01T10:00:03Z a2\n2024-05-01T10:00:05Z a3\n');
    expect(lines.map((line) => line.text)).toEqual(['a1']);
    sockets[1].receive('2024-05-01T10:00:01.5Z b1\n2024-05-01T10:00:04Z b2\n');
    expect(lines.map((line) => line.text)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
    // then lines go out as they come
    sockets[1].receive('2024-05-01T10:00:06Z b3\n');
    expect(lines.map((line) => line.text)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
    expect(timers).toHaveLength(1);
  });

  it('stops holding after a second when a pod sends nothing', async () => {
    const { sockets, lines, timers } = harness({
      pods: ['web-1', 'web-2'],
      backlog: { 'web-1': '2024-05-01T10:00:01Z a1\n', 'web-2': '2024-05-01T10:00:01.5Z b1\n' },
    });
    await new Promise((resolve) => setImmediate(resolve));
    sockets[0].receive('2024-05-01T10:00:03Z a2\n');
    expect(lines.map((line) => line.text)).toEqual(['a1']);
    timers[0]();
    expect(lines.map((line) => line.text)).toEqual(['a1', 'a2']);
    sockets[0].receive('2024-05-01T10:00:04Z a3\n');
    expect(lines.map((line) => line.text)).toEqual(['a1', 'a2', 'a3']);
  });

  it('cuts the merged backlogs at the earliest end of any pod’s read', () => {
    const at = (source: number, timestamp?: string) => ({ text: '', source, timestamp });
    expect(backlogCut([[at(0, '2024-05-01T10:00:05Z')], [at(1, '2024-05-01T10:00:03.25Z'), at(1)], []])).toBe('2024-05-01T10:00:03.250000000');
    expect(backlogCut([[], [at(0)]])).toBeUndefined();
  });

  it('follows a pod whose backlog could not be read like any other (the socket explains why)', async () => {
    const { sockets, lines } = harness({ pods: ['web-1', 'web-2'], backlog: { 'web-1': '2024-05-01T10:00:01Z a1\n' } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => line.text)).toEqual(['a1']);
    expect(sockets.map((socket) => [socket.query.get('sinceTime'), socket.query.get('tailLines')])).toEqual([
      ['2024-05-01T10:00:01Z', null],
      [null, '100'],
    ]);
  });

  it('closes its sockets and stops reconnecting when closed', () => {
    const { stream, sockets, timers } = harness();
    stream.close();
    expect(sockets[0].closed).toBe(true);
    expect(timers).toHaveLength(0);
  });
});

describe('LogStream while the cluster is gone', () => {
  it('waits for the connection monitor instead of retrying on a timer, then reconnects', async () => {
    const sockets: FakeSocket[] = [];
    const timers: Array<() => void> = [];
    let states: PodStreamState[] = [];
    const listeners: Array<(afterOutage: boolean) => void> = [];
    let troubles = 0;
    const stream = new LogStream({
      client: {
        openSocket(path, query) {
          const socket = new FakeSocket(path, query);
          sockets.push(socket);
          return socket as unknown as WebSocket;
        },
        text: () => Promise.reject(new ConnectionError('the cluster did not answer (Failed to fetch)')),
      },
      namespace: 'default',
      pods: ['web-1'],
      containerOf: () => 'app',
      previous: false,
      onLines: () => undefined,
      onState: (next) => (states = next),
      setTimer: (callback) => timers.push(callback),
      clearTimer: () => undefined,
      connection: {
        reportTrouble: () => void troubles++,
        onOnline(listener) {
          listeners.push(listener);
          return () => listeners.splice(listeners.indexOf(listener), 1);
        },
      },
    });
    sockets[0].onclose?.();
    await expect.poll(() => states[0]?.message).toBe('the cluster does not answer; waiting for it');
    expect(timers).toHaveLength(0);
    expect(troubles).toBe(1);
    for (const listener of [...listeners]) listener(true);
    expect(sockets).toHaveLength(2);
    expect(listeners).toHaveLength(0);
    stream.close();
  });
});
