import { describe, expect, it } from 'vitest';
import { isRecord, type KubeObject, type WatchEvent } from '../../shared/kubernetes/types';
import { ApiClient } from '../client/apiClient';
import { FakeClock } from '../../test/doubles/fakeClock';
import { EventRecorder } from '../client/eventRecorder';
import { FakeTransport, matchesLabelSelector } from '../../test/doubles/fakeTransport';
import { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import type { Transport, TransportRequest, TransportResponse, WatchHandle } from '../client/transport';
import { selectorToString } from './controllerUtils';
import {
  calculateRawResourceReplicas,
  calculateResourceReplicas,
  convertDesiredReplicasWithBehaviorRate,
  convertDesiredReplicasWithRules,
  formatMilliQuantity,
  HorizontalPodAutoscalerController,
  horizontalPodAutoscalers,
  parseGoDuration,
  podMetricsFor,
  scaleUpLimit,
  scalingRules,
  stabilizeWithBehaviors,
  type PodMetric,
  type Recommendation,
} from './horizontalPodAutoscaler';
import { until } from '../../test/fixtures/until';

const start = Date.parse('2026-01-01T00:00:00Z');
const longAgo = '2025-12-31T23:00:00Z';

function pod(name: string, options: { cpu?: string | null; phase?: string; ready?: boolean; deleting?: boolean; startTime?: string; readySince?: string } = {}): KubeObject {
  const requests = options.cpu === null ? {} : { cpu: options.cpu ?? '100m', memory: '64Mi' };
  const metadata: KubeObject['metadata'] = { name, namespace: 'default', labels: { app: 'web' } };
  if (options.deleting) metadata.deletionTimestamp = longAgo;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: { containers: [{ name: 'main', image: 'busybox', resources: { requests } }] },
    status: {
      phase: options.phase ?? 'Running',
      startTime: options.startTime ?? longAgo,
      conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True', lastTransitionTime: options.readySince ?? longAgo }],
    },
  };
}

function metrics(values: Record<string, number | undefined>, at = start - 1000): Map<string, PodMetric> {
  return new Map(Object.entries(values).flatMap(([name, value]) => (value === undefined ? [] : [[name, { value, timestamp: at, windowMs: 10_000 }]])));
}

describe('calculateResourceReplicas', () => {
  it.each([
    { name: 'scales one pod at 200% of a 50% target to four', current: 1, pods: [pod('a')], usage: { a: 200 }, want: 4, utilization: 200 },
    { name: 'keeps the count at the target', current: 3, pods: [pod('a'), pod('b'), pod('c')], usage: { a: 50, b: 50, c: 50 }, want: 3, utilization: 50 },
    { name: 'keeps the count within the 10% tolerance', current: 2, pods: [pod('a'), pod('b')], usage: { a: 54, b: 54 }, want: 2, utilization: 54 },
    { name: 'scales three idle pods down to one', current: 3, pods: [pod('a'), pod('b'), pod('c')], usage: { a: 1, b: 1, c: 1 }, want: 1, utilization: 1 },
    { name: 'ignores pods being deleted and failed pods', current: 2, pods: [pod('a'), pod('b', { deleting: true }), pod('c', { phase: 'Failed' })], usage: { a: 100, b: 900, c: 900 }, want: 2, utilization: 100 },
    {
      name: 'assumes a pod without metrics uses its request on a scale-down, so the direction flips and nothing moves',
      current: 2, pods: [pod('a'), pod('b')], usage: { a: 10 }, want: 2, utilization: 10,
    },
    {
      name: 'counts a pending pod as idle on a scale-up',
      current: 2, pods: [pod('a'), pod('b', { phase: 'Pending' })], usage: { a: 200 }, want: 4, utilization: 200,
    },
    {
      name: 'treats a starting pod whose sample predates readiness plus a window as unready',
      current: 2, pods: [pod('a'), pod('b', { startTime: '2025-12-31T23:59:00Z', readySince: '2025-12-31T23:59:55Z' })], usage: { a: 200, b: 900 }, want: 4, utilization: 200,
    },
  ])('$name', ({ current, pods, usage, want, utilization }) => {
    const result = calculateResourceReplicas({ currentReplicas: current, pods, metrics: metrics(usage), resource: 'cpu', now: start }, 50);
    expect(result).toMatchObject({ replicas: want, utilization });
  });

  it.each([
    { name: 'a container without a request', pods: [pod('a', { cpu: null })], usage: { a: 10 }, error: 'missing request for cpu in container main of Pod a' },
    { name: 'no pods', pods: [], usage: { a: 10 }, error: 'no pods returned by selector while calculating replica count' },
    { name: 'only unready pods', pods: [pod('a', { ready: false, startTime: '2025-12-31T23:59:00Z' })], usage: { a: 10 }, error: 'did not receive metrics for targeted pods (pods might be unready)' },
  ])('fails for $name', ({ pods, usage, error }) => {
    expect(() => calculateResourceReplicas({ currentReplicas: 1, pods, metrics: metrics(usage), resource: 'cpu', now: start }, 50)).toThrow(error);
  });

  it('divides the average usage by an AverageValue target', () => {
    const result = calculateRawResourceReplicas({ currentReplicas: 2, pods: [pod('a'), pod('b')], metrics: metrics({ a: 300, b: 300 }), resource: 'memory', now: start }, 100);
    expect(result).toMatchObject({ replicas: 6, rawAverage: 300 });
  });
});

describe('replica limits', () => {
  it.each([
    { current: 1, desired: 10, min: 1, max: 10, want: { replicas: 4, reason: 'ScaleUpLimit' } },
    { current: 3, desired: 10, min: 1, max: 5, want: { replicas: 5, reason: 'TooManyReplicas' } },
    { current: 3, desired: 0, min: 2, max: 5, want: { replicas: 2, reason: 'TooFewReplicas' } },
    { current: 3, desired: 4, min: 1, max: 5, want: { replicas: 4, reason: 'DesiredWithinRange' } },
  ])('limits $current → $desired within [$min, $max] to $want.replicas', ({ current, desired, min, max, want }) => {
    expect(convertDesiredReplicasWithRules(current, desired, min, max)).toMatchObject(want);
  });

  it('limits a scale-up by the default policies and what was added within their period', () => {
    const rules = scalingRules(undefined, 'up', 300);
    expect(scaleUpLimit(2, [], rules, start)).toBe(6); // max(2 + 4 pods, 2 · 200%)
    expect(scaleUpLimit(6, [{ replicaChange: 4, timestamp: start - 5000, outdated: false }], rules, start)).toBe(6);
    expect(scaleUpLimit(6, [{ replicaChange: 4, timestamp: start - 20_000, outdated: false }], rules, start)).toBe(12);
  });

  it('limits a scale-down to one pod per minute with a Pods policy', () => {
    const args = { currentReplicas: 5, desiredReplicas: 1, minReplicas: 1, maxReplicas: 10, scaleUp: scalingRules(undefined, 'up', 300), scaleDown: scalingRules({ policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] }, 'down', 300) };
    expect(convertDesiredReplicasWithBehaviorRate(args, [], [], start)).toEqual({ replicas: 4, reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' });
  });

  it('keeps the highest recommendation of the scale-down window and forgets older ones', () => {
    const args = { currentReplicas: 3, desiredReplicas: 1, minReplicas: 1, maxReplicas: 3, scaleUp: scalingRules(undefined, 'up', 300), scaleDown: scalingRules({ stabilizationWindowSeconds: 60 }, 'down', 300) };
    const recommendations: Recommendation[] = [{ replicas: 3, timestamp: start - 30_000 }];
    expect(stabilizeWithBehaviors(args, recommendations, start)).toMatchObject({ replicas: 3, reason: 'ScaleDownStabilized' });
    expect(stabilizeWithBehaviors(args, recommendations, start + 61_000)).toMatchObject({ replicas: 1 });
  });
});

describe('quantities, durations and metrics', () => {
  it.each([
    [0, '0'], [250, '250m'], [1000, '1'], [1500, '1500m'], [64_000_000_000, '64M'], [67_108_864_000, '67108864'],
  ])('formats %i milli-units as %s', (milli, text) => {
    expect(formatMilliQuantity(milli)).toBe(text);
  });

  it.each([['10.002s', 10_002], ['1m30s', 90_000], ['500ms', 500], ['bogus', 0]])('parses the Go duration %s', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it('sums container usage per pod and leaves out pods without the resource', () => {
    const items = [
      { metadata: { name: 'a' }, timestamp: '2026-01-01T00:00:00Z', window: '10s', containers: [{ name: 'x', usage: { cpu: '150000000n', memory: '1Mi' } }, { name: 'y', usage: { cpu: '50m', memory: '1Mi' } }] },
      { metadata: { name: 'b' }, timestamp: '2026-01-01T00:00:00Z', window: '10s', containers: [{ name: 'x', usage: { memory: '1Mi' } }] },
    ];
    expect([...podMetricsFor(items, 'cpu')]).toEqual([['a', { value: 200, timestamp: start, windowMs: 10_000 }]]);
    expect(podMetricsFor(items, 'cpu', 'y').get('a')?.value).toBe(50);
  });
});

// ---------------------------------------------------------------------------------------------
// The controller, against a fake API that also answers the scale subresource and metrics.k8s.io

class ScaleAndMetricsTransport implements Transport {
  podMetrics: { name: string; cpu: string }[] = [];

  constructor(
    readonly inner: FakeTransport,
    private readonly clock: FakeClock,
  ) {}

  async request(req: TransportRequest): Promise<TransportResponse> {
    if (req.path.startsWith('/apis/metrics.k8s.io/')) {
      const pods = this.inner.objectsOf(resources.pods);
      const items = this.podMetrics
        .filter((entry) => matchesLabelSelector(req.query?.labelSelector, pods.find((p) => p.metadata.name === entry.name)?.metadata.labels))
        .map((entry) => ({ metadata: { name: entry.name, namespace: 'default' }, timestamp: new Date(this.clock.now()).toISOString(), window: '10s', containers: [{ name: 'main', usage: { cpu: entry.cpu, memory: '1Mi' } }] }));
      return { status: 200, body: { kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {}, items } };
    }
    if (req.path.endsWith('/scale')) {
      const objectPath = req.path.slice(0, -'/scale'.length);
      const reply = req.method === 'PATCH'
        ? await this.inner.request({ method: 'PATCH', path: objectPath, body: { spec: { replicas: (req.body as { spec: { replicas: number } }).spec.replicas } }, contentType: 'application/merge-patch+json' })
        : await this.inner.request({ method: 'GET', path: objectPath });
      if (reply.status !== 200 || !isRecord(reply.body)) return reply;
      const object = reply.body as KubeObject;
      const spec = object.spec as Record<string, unknown>;
      return { status: 200, body: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: object.metadata, spec: { replicas: spec.replicas }, status: { replicas: spec.replicas, selector: selectorToString(spec.selector) } } };
    }
    return this.inner.request(req);
  }

  watch(path: string, query: Record<string, string>, onEvent: (event: WatchEvent) => void, onDone: (error?: Error) => void): WatchHandle {
    return this.inner.watch(path, query, onEvent, onDone);
  }
}

function deployment(replicas: number): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas, selector: { matchLabels: { app: 'web' } } } };
}

function autoscaler(spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default', generation: 1 },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
      ...spec,
    },
  };
}

async function setUp(objects: { deployment?: KubeObject; hpa: KubeObject; pods: KubeObject[] }) {
  const clock = new FakeClock(start);
  const fake = new FakeTransport();
  if (objects.deployment) fake.seed(resources.deployments, objects.deployment);
  fake.seed(horizontalPodAutoscalers, objects.hpa);
  for (const p of objects.pods) fake.seed(resources.pods, p);
  const transport = new ScaleAndMetricsTransport(fake, clock);
  const client = new ApiClient(transport);
  const factory = new SharedInformerFactory(client);
  const recorder = new EventRecorder(client, { component: 'horizontal-pod-autoscaler' }, clock);
  const logged: string[] = [];
  const controller = new HorizontalPodAutoscalerController(client, factory, { clock, recorder, log: (message) => logged.push(message) });
  factory.start();
  await factory.waitForCacheSync();
  const hpa = () => fake.objectsOf(horizontalPodAutoscalers)[0];
  const status = () => hpa().status as Record<string, unknown>;
  const condition = (type: string) => (status().conditions as Record<string, unknown>[]).find((c) => c.type === type);
  const events = async () => {
    await recorder.flush();
    return fake.objectsOf(resources.events).map((event) => `${String(event.type)} ${String(event.reason)} ${String(event.message)}`);
  };
  const replicas = () => (fake.objectsOf(resources.deployments)[0].spec as Record<string, unknown>).replicas;
  /** One round, once the informer has seen the last status write. */
  const round = async () => {
    const resourceVersion = hpa().metadata.resourceVersion;
    await until(() => factory.informerFor(horizontalPodAutoscalers).get('default', 'web')?.metadata.resourceVersion === resourceVersion);
    await controller.reconcile('default/web');
  };
  return { clock, fake, transport, controller, logged, status, condition, events, replicas, round, dispose: () => { void controller.dispose(); factory.dispose(); } };
}

describe('HorizontalPodAutoscalerController', () => {
  it('scales a CPU-bound deployment up to its maximum and reports why', async () => {
    const t = await setUp({ deployment: deployment(1), hpa: autoscaler(), pods: [pod('web-a')] });
    t.transport.podMetrics = [{ name: 'web-a', cpu: '200m' }];
    await t.round();
    expect(t.replicas()).toBe(3);
    expect(t.status()).toMatchObject({
      currentReplicas: 1,
      desiredReplicas: 3,
      lastScaleTime: '2026-01-01T00:00:00Z',
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 200, averageValue: '200m' } } }],
    });
    expect(t.condition('AbleToScale')).toMatchObject({ status: 'True', reason: 'SucceededRescale', message: 'the HPA controller was able to update the target scale to 3' });
    expect(t.condition('ScalingActive')).toMatchObject({ status: 'True', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' });
    expect(t.condition('ScalingLimited')).toMatchObject({ status: 'True', reason: 'TooManyReplicas' });
    expect(await t.events()).toContain('Normal SuccessfulRescale New size: 3; reason: cpu resource utilization (percentage of request) above target');
    t.dispose();
  });

  it('reports FailedGetResourceMetric while the metrics API has no figures yet', async () => {
    const t = await setUp({ deployment: deployment(1), hpa: autoscaler(), pods: [pod('web-a')] });
    await t.round();
    expect(t.replicas()).toBe(1);
    const error = 'failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API';
    expect(t.condition('ScalingActive')).toMatchObject({ status: 'False', reason: 'FailedGetResourceMetric', message: `the HPA was unable to compute the replica count: ${error}` });
    expect(t.status()).toMatchObject({ currentReplicas: 1, desiredReplicas: 0, currentMetrics: [{ type: '' }] });
    expect(await t.events()).toEqual([
      `Warning FailedGetResourceMetric ${error}`,
      `Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${error}`,
    ]);
    t.dispose();
  });

  it('waits out the scale-down stabilization window before scaling down', async () => {
    const t = await setUp({ deployment: deployment(3), hpa: autoscaler({ behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } }), pods: [pod('web-a'), pod('web-b'), pod('web-c')] });
    t.transport.podMetrics = [{ name: 'web-a', cpu: '1m' }, { name: 'web-b', cpu: '1m' }, { name: 'web-c', cpu: '1m' }];
    await t.round();
    expect(t.replicas()).toBe(3);
    expect(t.condition('AbleToScale')).toMatchObject({ reason: 'ScaleDownStabilized' });
    t.clock.advance(61_000);
    await t.round();
    expect(t.replicas()).toBe(1);
    expect(await t.events()).toContain('Normal SuccessfulRescale New size: 1; reason: All metrics below target');
    t.dispose();
  });

  it('raises a target below minReplicas without reading metrics', async () => {
    const t = await setUp({ deployment: deployment(1), hpa: autoscaler({ minReplicas: 2 }), pods: [pod('web-a')] });
    await t.round();
    expect(t.replicas()).toBe(2);
    expect(await t.events()).toContain('Normal SuccessfulRescale New size: 2; reason: Current number of replicas below Spec.MinReplicas');
    t.dispose();
  });

  it('leaves a target scaled to zero alone', async () => {
    const t = await setUp({ deployment: deployment(0), hpa: autoscaler(), pods: [] });
    await t.round();
    expect(t.replicas()).toBe(0);
    expect(t.condition('ScalingActive')).toMatchObject({ status: 'False', reason: 'ScalingDisabled' });
    t.dispose();
  });

  it('reports FailedGetScale when the target does not exist', async () => {
    const t = await setUp({ hpa: autoscaler(), pods: [] });
    await t.round();
    expect(t.condition('AbleToScale')).toMatchObject({ status: 'False', reason: 'FailedGetScale' });
    expect((await t.events())[0]).toMatch(/^Warning FailedGetScale /);
    expect(t.logged).toEqual(['[horizontal-pod-autoscaler] default/web: failed to query scale subresource for Deployment/default/web: deployments.apps "web" not found']);
    t.dispose();
  });
});
