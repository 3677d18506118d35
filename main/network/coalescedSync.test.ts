import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../client/apiClient';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { bindFailureText, CoalescedSync, listenTcp } from './coalescedSync';
import { until } from '../../test/fixtures/until';

/** A promise and the function that settles it, to hold a pass open. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function loop(sync: () => Promise<void>, errors: unknown[] = [], retryIntervalMs = 20): CoalescedSync {
  const created = new CoalescedSync({ sync, name: 'test', retryIntervalMs, onError: (error) => errors.push(error) });
  cleanups.push(() => created.dispose());
  return created;
}

describe('CoalescedSync', () => {
  it('runs requests made during a pass as one more pass, never two at once', async () => {
    const first = gate();
    let passes = 0;
    let running = 0;
    let overlapped = false;
    const syncs = loop(async () => {
      passes++;
      running++;
      overlapped ||= running > 1;
      if (passes === 1) await first.opened;
      running--;
    });
    syncs.request();
    syncs.request();
    syncs.request();
    first.open();
    await syncs.idle();
    expect(passes).toBe(2);
    expect(overlapped).toBe(false);
  });

  it('reports a pass that throws and runs it again after the retry interval', async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    let passes = 0;
    const syncs = loop(async () => {
      passes++;
      if (passes === 1) throw new Error('list failed');
    }, errors);
    syncs.request();
    await syncs.idle();
    expect(errors).toEqual([new Error('list failed')]);
    await vi.advanceTimersByTimeAsync(19);
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await syncs.idle();
    expect(passes).toBe(2);
  });

  it('keeps at most one retry waiting however often one is asked for', async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    let passes = 0;
    const syncs = loop(async () => {
      passes++;
    }, errors);
    syncs.retryLater();
    syncs.retryLater();
    syncs.retryAfter(new Error('patch failed'));
    expect(errors).toEqual([new Error('patch failed')]);
    await vi.advanceTimersByTimeAsync(100);
    await syncs.idle();
    expect(passes).toBe(1);
  });

  it('on dispose waits for the pass under way, drops its handlers and its retry, and runs no more passes', async () => {
    vi.useFakeTimers();
    const first = gate();
    let passes = 0;
    let finished = false;
    const syncs = loop(async () => {
      passes++;
      await first.opened;
      finished = true;
    }, [], 10);
    let disposedHandlers = 0;
    syncs.own({ dispose: () => disposedHandlers++ });
    syncs.request();
    syncs.retryLater();
    const disposing = syncs.dispose();
    expect(syncs.disposed).toBe(true);
    first.open();
    await disposing;
    expect(finished).toBe(true);
    expect(disposedHandlers).toBe(1);
    syncs.request();
    syncs.own({ dispose: () => disposedHandlers++ });
    await vi.advanceTimersByTimeAsync(100);
    await syncs.idle();
    expect(passes).toBe(1);
    expect(disposedHandlers).toBe(2);
  });

  it('runs a pass for each change an informer it follows sees', async () => {
    const transport = new FakeTransport();
    const client = new ApiClient(transport);
    const factory = new SharedInformerFactory(client);
    cleanups.push(() => factory.dispose());
    const services = factory.informerFor(resources.services);
    factory.start();
    await factory.waitForCacheSync();
    let passes = 0;
    const syncs = loop(async () => {
      passes++;
    });
    syncs.follow(services);
    transport.seed(resources.services, { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name: 'web' }, spec: {} });
    await until(() => passes >= 1, 'a pass after the add');
  });
});

describe('bindFailureText', () => {
  it.each([
    ['EADDRINUSE', 'port 80 on 127.0.0.1 is already in use'],
    ['EACCES', 'port 80 on 127.0.0.1 cannot be opened: permission denied (ports below 1024 need privileges)'],
    ['EADDRNOTAVAIL', 'port 80 on 127.0.0.1 cannot be opened: bind failed'],
  ])('words a %s bind error as the events and statuses report it', (code, expected) => {
    expect(bindFailureText('port 80 on 127.0.0.1', Object.assign(new Error('bind failed'), { code }))).toBe(expected);
  });
});

describe('listenTcp', () => {
  it('binds a port for itself alone and hands over each connection', async () => {
    const connected: unknown[] = [];
    const server = await listenTcp('127.0.0.1', 0, (socket) => {
      connected.push(socket.remoteAddress);
      socket.destroy();
    }, () => undefined);
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    await expect(listenTcp('127.0.0.1', port, () => undefined, () => undefined)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    connect({ host: '127.0.0.1', port }).on('error', () => undefined);
    await until(() => connected.length === 1, 'a connection');
    expect(connected).toEqual(['127.0.0.1']);
  });
});
