// Tests of the connection monitor: back-off, one probe for many failures, resync on return, and
// the sign-in page when the session is gone.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../store/store';
import { backoffDelay, ConnectionMonitor, probeClusterStatus, probeSession, SESSION_ENDED_REASON, type ProbeReport, type ProbeResult } from './connection';

afterEach(() => vi.useRealTimers());

function setup(results: ProbeResult[]) {
  const store = createAppStore({ preferences: { get: () => null, set: () => undefined } });
  store.getState().setSession('signed-in');
  let probes = 0;
  const probe = async (): Promise<ProbeResult> => {
    probes++;
    return results.length > 1 ? (results.shift() as ProbeResult) : results[0];
  };
  const monitor = new ConnectionMonitor(store, probe, { now: () => Date.now() });
  const onlineCalls: boolean[] = [];
  monitor.onOnline((afterOutage) => onlineCalls.push(afterOutage));
  return { store, monitor, onlineCalls, probes: () => probes };
}

describe('backoffDelay', () => {
  it.each([
    [0, 1000],
    [1, 2000],
    [2, 4000],
    [4, 16_000],
    [5, 30_000],
    [50, 30_000],
    [5000, 30_000],
  ])('waits before attempt %i: %i ms', (attempt, delay) => {
    expect(backoffDelay(attempt)).toBe(delay);
  });

  it('takes other limits', () => {
    expect(backoffDelay(3, { initialMs: 100, maxMs: 500, factor: 3 })).toBe(500);
    expect(backoffDelay(1, { initialMs: 100, maxMs: 500, factor: 3 })).toBe(300);
  });
});

describe('ConnectionMonitor', () => {
  it('probes once for many reports and resumes the watches when the server is fine', async () => {
    vi.useFakeTimers();
    const { store, monitor, onlineCalls, probes } = setup(['ok']);
    monitor.reportTrouble();
    monitor.reportTrouble();
    monitor.reportTrouble();
    expect(store.getState().connection.state).toBe('checking');
    await vi.runAllTimersAsync();
    expect(probes()).toBe(1);
    expect(store.getState().connection).toEqual({ state: 'online', attempts: 0 });
    expect(onlineCalls).toEqual([false]);
  });

  it('goes offline, retries with growing waits, and reports an outage when the server is back', async () => {
    vi.useFakeTimers({ now: 0 });
    const { store, monitor, onlineCalls, probes } = setup(['unreachable', 'unreachable', 'unreachable', 'ok']);
    monitor.reportTrouble();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().connection).toMatchObject({ state: 'offline', attempts: 0, lostAt: 0, nextAttemptAt: 1000 });
    // reports while offline do not add probes: only the back-off timer does
    monitor.reportTrouble();
    await vi.advanceTimersByTimeAsync(999);
    expect(probes()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(probes()).toBe(2);
    expect(store.getState().connection).toMatchObject({ state: 'offline', attempts: 1, nextAttemptAt: 3000 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(store.getState().connection).toMatchObject({ state: 'offline', attempts: 2, nextAttemptAt: 7000 });
    expect(onlineCalls).toEqual([]);
    await vi.advanceTimersByTimeAsync(4000);
    expect(probes()).toBe(4);
    expect(store.getState().connection.state).toBe('online');
    expect(onlineCalls).toEqual([true]);
  });

  it('tries at once when asked, and stops after dispose', async () => {
    vi.useFakeTimers({ now: 0 });
    const { monitor, probes } = setup(['unreachable']);
    monitor.reportTrouble();
    await vi.advanceTimersByTimeAsync(0);
    monitor.retryNow();
    await vi.advanceTimersByTimeAsync(0);
    expect(probes()).toBe(2);
    monitor.dispose();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(probes()).toBe(2);
  });

  it('signs out with the reason when the server answers but the session is gone', async () => {
    vi.useFakeTimers();
    const { store, monitor, onlineCalls } = setup(['unreachable', 'unauthorized']);
    monitor.reportTrouble();
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.getState().session).toBe('signed-out');
    expect(store.getState().signedOutReason).toBe(SESSION_ENDED_REASON);
    expect(store.getState().connection.state).toBe('online');
    expect(onlineCalls).toEqual([]);
  });
});

describe('probeSession', () => {
  it.each([
    [200, 'ok'],
    [401, 'unauthorized'],
    [503, 'unreachable'],
  ])('reads HTTP %i as %s', async (status, expected) => {
    const fake = (async () => new Response(null, { status })) as unknown as typeof fetch;
    expect(await probeSession(fake)).toBe(expected);
  });

  it('reads a refused connection as unreachable', async () => {
    const refused = (async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    expect(await probeSession(refused)).toBe('unreachable');
  });
});

describe('probeClusterStatus', () => {
  const answering = (status: number, body: unknown, seen: string[] = []) =>
    (async (url: string) => {
      seen.push(url);
      return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status });
    }) as unknown as typeof fetch;

  it('asks the context’s status under its base path and reads connected as ok', async () => {
    const seen: string[] = [];
    const report = await probeClusterStatus('/ui/clusters/prod', answering(200, { state: 'connected', message: '', kubedesk: false, warnings: [] }, seen));
    expect(seen).toEqual(['/ui/clusters/prod/-/status']);
    expect(report).toEqual({ result: 'ok', status: { state: 'connected', message: '', kubedesk: false, warnings: [] } });
  });

  it('counts a context the relay cannot use as not answering, with the reason', async () => {
    const report = await probeClusterStatus('/ui/clusters/prod', answering(200, { state: 'certificate-not-trusted', message: 'x509: unknown authority', fingerprint: 'AB:CD', kubedesk: false, warnings: [] }));
    expect(report.result).toBe('unreachable');
    expect(report.status).toMatchObject({ state: 'certificate-not-trusted', fingerprint: 'AB:CD' });
  });

  it('reads 401 as this page’s session gone, not the context’s credentials', async () => {
    expect(await probeClusterStatus('/ui/clusters/prod', answering(401, { kind: 'Status', code: 401 }))).toEqual({ result: 'unauthorized' });
  });

  it('turns an unknown context (404 Status) into an error state with the relay’s message', async () => {
    const report = await probeClusterStatus('/ui/clusters/gone', answering(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'context "gone" not found in the kubeconfig' }));
    expect(report).toEqual({ result: 'unreachable', status: { state: 'error', message: 'context "gone" not found in the kubeconfig', kubedesk: false, warnings: [] } });
  });
});

describe('ConnectionMonitor on a relayed cluster', () => {
  it('keeps the status the probe read, goes offline while the context cannot be used and back online when it can', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = createAppStore({ preferences: { get: () => null, set: () => undefined } });
    store.getState().setSession('signed-in');
    const reports: ProbeReport[] = [
      { result: 'unreachable', status: { state: 'unauthorized', message: 'token expired', kubedesk: false, warnings: [] } },
      { result: 'ok', status: { state: 'connected', message: '', kubedesk: true, warnings: [] } },
    ];
    const monitor = new ConnectionMonitor(store, async () => reports.shift() ?? { result: 'ok' }, { now: () => Date.now() });
    monitor.checkNow();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().connection).toMatchObject({ state: 'offline', attempts: 0 });
    expect(store.getState().clusterStatus?.state).toBe('unauthorized');
    // the context refused the credentials: the page stays signed in to its own cluster
    expect(store.getState().session).toBe('signed-in');
    monitor.retryNow();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().connection.state).toBe('online');
    expect(store.getState().clusterStatus).toMatchObject({ state: 'connected', kubedesk: true });
    monitor.dispose();
  });
});
