import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../test/doubles/fakeClock';
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { Container, Probe } from '../env/podSpec';
import type { ProbeOutcome } from './prober';
import { ProbeManager, type ContainerStatusView, type PodStatusView, type ProbeKind } from './probeWorker';

const start = Date.UTC(2026, 0, 1);

/** Lets the async probe loop run after a clock step (no real time passes). */
async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function probe(kind: ProbeKind, extra: Partial<Probe> = {}): Probe {
  return { exec: { command: [kind] }, periodSeconds: 10, ...extra };
}

class Harness {
  readonly clock = new FakeClock(start);
  /** next outcomes per probe kind; the last one repeats */
  readonly scripts: Record<string, ProbeOutcome[]> = {};
  readonly calls: string[] = [];
  readonly events: string[] = [];
  readonly liveness: string[] = [];
  readonly readiness: boolean[] = [];
  status: PodStatusView;
  readonly manager: ProbeManager;
  readonly pod: KubeObject;

  constructor(container: Container, options: { restartPolicy?: string } = {}) {
    this.pod = { metadata: { name: 'web', namespace: 'default', uid: 'uid-1' }, spec: { containers: [container], restartPolicy: options.restartPolicy ?? 'Always' } };
    this.status = { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [this.running('docker://one')] };
    this.manager = new ProbeManager({
      runtime: { execSync: async () => ({ exitCode: 0, stdout: '', stderr: '', timedOut: false }) },
      clock: this.clock,
      runProbe: async (spec, context) => {
        const kind = spec.exec?.command?.[0] ?? '';
        this.calls.push(`${kind}@${context.containerId}`);
        const script = this.scripts[kind] ?? [{ result: 'success', output: '' }];
        return script.length > 1 ? (script.shift() as ProbeOutcome) : script[0];
      },
    });
    this.manager.onProbeEvent((_pod, name, _kind, message, reason) => this.events.push(`${reason} ${name}: ${message}`));
    this.manager.onLivenessFailure((_pod, _name, _kind, message) => this.liveness.push(message));
    this.manager.onReadinessChange((_pod, _name, ready) => this.readiness.push(ready));
  }

  running(containerID: string, startedAt = start): ContainerStatusView {
    return { name: 'app', containerID, state: { running: { startedAt: new Date(startedAt).toISOString() } } };
  }

  script(kind: ProbeKind, ...outcomes: ('success' | 'failure' | 'unknown')[]): void {
    this.scripts[kind] = outcomes.map((result) => ({ result, output: result === 'failure' ? 'HTTP probe failed with statuscode: 500' : '' }));
  }

  async begin(): Promise<void> {
    this.manager.addPod(this.pod, () => this.status);
    await flush();
  }

  async advance(seconds: number): Promise<void> {
    for (let i = 0; i < seconds; i++) {
      this.clock.advance(1000);
      await flush();
    }
  }

  ready(): boolean {
    return this.manager.isReady('uid-1', 'app');
  }
}

describe('readiness', () => {
  it('starts not ready, turns ready on success and unready after failureThreshold failures', async () => {
    const harness = new Harness({ name: 'app', readinessProbe: probe('readiness', { failureThreshold: 3 }) });
    harness.script('readiness', 'success', 'success', 'failure', 'failure', 'failure', 'success');
    harness.manager.addPod(harness.pod, () => harness.status);
    expect(harness.ready()).toBe(false);
    await flush();
    expect(harness.ready()).toBe(true);
    expect(harness.readiness).toEqual([true]);

    await harness.advance(30); // success, failure, failure: still ready
    expect(harness.ready()).toBe(true);
    await harness.advance(10); // third failure
    expect(harness.ready()).toBe(false);
    expect(harness.readiness).toEqual([true, false]);
    expect(harness.events.filter((event) => event.includes('Readiness probe failed: HTTP probe failed with statuscode: 500'))).toHaveLength(3);
    await harness.advance(10);
    expect(harness.ready()).toBe(true);
    expect(harness.readiness).toEqual([true, false, true]);
  });

  it('needs successThreshold successes in a row', async () => {
    const harness = new Harness({ name: 'app', readinessProbe: probe('readiness', { successThreshold: 2 }) });
    harness.script('readiness', 'success', 'failure', 'success', 'success');
    await harness.begin();
    await harness.advance(20);
    expect(harness.ready()).toBe(false);
    await harness.advance(10);
    expect(harness.ready()).toBe(true);
  });

  it('waits for initialDelaySeconds', async () => {
    const harness = new Harness({ name: 'app', readinessProbe: probe('readiness', { initialDelaySeconds: 15, periodSeconds: 5 }) });
    await harness.begin();
    await harness.advance(10);
    expect(harness.calls).toEqual([]);
    await harness.advance(5);
    expect(harness.calls).toEqual(['readiness@one']);
    expect(harness.ready()).toBe(true);
  });

  it('reads not ready for a container that is not running', async () => {
    const harness = new Harness({ name: 'app', readinessProbe: probe('readiness') });
    await harness.begin();
    expect(harness.ready()).toBe(true);
    harness.status = { phase: 'Running', containerStatuses: [{ name: 'app', containerID: 'docker://one', state: { terminated: {} } }] };
    expect(harness.ready()).toBe(false);
    await harness.advance(10);
    expect(harness.readiness).toEqual([true, false]);
  });
});

describe('liveness', () => {
  it('reports a restart after failureThreshold failures and holds until a new container', async () => {
    const harness = new Harness({ name: 'app', livenessProbe: probe('liveness', { failureThreshold: 3 }) });
    harness.script('liveness', 'failure');
    await harness.begin();
    await harness.advance(20);
    expect(harness.liveness).toEqual(['Container app failed liveness probe, will be restarted']);
    expect(harness.events).toEqual(Array(3).fill('Unhealthy app: Liveness probe failed: HTTP probe failed with statuscode: 500'));

    await harness.advance(30);
    expect(harness.calls).toHaveLength(3); // on hold

    harness.script('liveness', 'success');
    harness.status = { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [harness.running('docker://two', start + 50_000)] };
    await harness.advance(10);
    expect(harness.calls.at(-1)).toBe('liveness@two');
    expect(harness.liveness).toHaveLength(1);
  });

  it('stops probing a pod being deleted', async () => {
    const harness = new Harness({ name: 'app', livenessProbe: probe('liveness') });
    harness.script('liveness', 'failure');
    await harness.begin();
    harness.manager.updatePod({ ...harness.pod, metadata: { ...harness.pod.metadata, deletionTimestamp: new Date(start).toISOString() } });
    await harness.advance(60);
    expect(harness.calls).toHaveLength(1);
    expect(harness.liveness).toEqual([]);
    expect(harness.clock.pendingTimers()).toBe(0);
  });

  it('retries an attempt that could not run and reports it as errored', async () => {
    const harness = new Harness({ name: 'app', livenessProbe: probe('liveness') });
    harness.scripts.liveness = [{ result: 'unknown', output: 'container not running' }];
    await harness.begin();
    expect(harness.calls).toHaveLength(3);
    expect(harness.events).toEqual(['Unhealthy app: Liveness probe errored: container not running']);
    expect(harness.liveness).toEqual([]);
  });
});

describe('startup', () => {
  it('holds liveness and readiness until the startup probe succeeds, then stops probing startup', async () => {
    const harness = new Harness({
      name: 'app',
      startupProbe: probe('startup', { periodSeconds: 5, failureThreshold: 30 }),
      livenessProbe: probe('liveness'),
      readinessProbe: probe('readiness'),
    });
    harness.script('startup', 'failure', 'failure', 'success');
    await harness.begin();
    expect(harness.manager.isStarted('uid-1', 'app')).toBe(false);
    expect(harness.ready()).toBe(false);
    await harness.advance(10);
    expect(harness.manager.isStarted('uid-1', 'app')).toBe(true);
    // readiness is triggered at once when the container has started
    expect(harness.ready()).toBe(true);
    const startupCalls = harness.calls.filter((call) => call.startsWith('startup')).length;
    expect(startupCalls).toBe(3);
    await harness.advance(30);
    expect(harness.calls.filter((call) => call.startsWith('startup')).length).toBe(3);
    expect(harness.calls.filter((call) => call.startsWith('liveness')).length).toBeGreaterThan(0);
    expect(harness.liveness).toEqual([]);
  });

  it('reports a restart when the startup probe exhausts its failures', async () => {
    const harness = new Harness({ name: 'app', startupProbe: probe('startup', { periodSeconds: 1, failureThreshold: 2 }), livenessProbe: probe('liveness') });
    harness.script('startup', 'failure');
    await harness.begin();
    await harness.advance(1);
    expect(harness.liveness).toEqual(['Container app failed startup probe, will be restarted']);
    expect(harness.calls.some((call) => call.startsWith('liveness'))).toBe(false);
  });
});

describe('ProbeManager', () => {
  it('treats containers without probes as started and ready', async () => {
    const harness = new Harness({ name: 'app' });
    await harness.begin();
    expect(harness.manager.isStarted('uid-1', 'app')).toBe(true);
    expect(harness.ready()).toBe(true);
    expect(harness.clock.pendingTimers()).toBe(0);
  });

  it('stops workers when the pod finishes or is removed', async () => {
    const harness = new Harness({ name: 'app', readinessProbe: probe('readiness') });
    await harness.begin();
    expect(harness.clock.pendingTimers()).toBe(1);
    harness.status = { ...harness.status, phase: 'Succeeded' };
    await harness.advance(10);
    expect(harness.clock.pendingTimers()).toBe(0);

    const other = new Harness({ name: 'app', livenessProbe: probe('liveness') });
    await other.begin();
    other.manager.removePod('uid-1');
    expect(other.clock.pendingTimers()).toBe(0);
    await other.advance(30);
    expect(other.calls).toHaveLength(1);
  });

  it('answers for the instance the caller names and probes a new one at once', async () => {
    const harness = new Harness({ name: 'app', readinessProbe: probe('readiness') });
    await harness.begin();
    expect(harness.manager.isReady('uid-1', 'app', 'docker://one')).toBe(true);
    harness.status = { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [harness.running('docker://two')] };
    expect(harness.manager.isReady('uid-1', 'app', 'docker://two')).toBe(false);
    await flush();
    expect(harness.calls).toEqual(['readiness@one', 'readiness@two']);
    expect(harness.manager.isReady('uid-1', 'app', 'docker://two')).toBe(true);
  });

  it('counts result changes per worker', async () => {
    const harness = new Harness({ name: 'app', readinessProbe: probe('readiness', { failureThreshold: 1 }) });
    harness.script('readiness', 'success', 'failure', 'success');
    await harness.begin();
    await harness.advance(20);
    const worker = harness.manager.worker('uid-1', 'app', 'readiness');
    expect(worker?.changes).toBe(3);
    expect(worker?.probes).toBe(3);
  });
});
