// HorizontalPodAutoscalerController: autoscaling/v2 HPAs driven by CPU and memory from the resource
// metrics API, after upstream pkg/controller/podautoscaler/horizontal.go (reconcileAutoscaler,
// stabilization, scaling rules and behaviors, status conditions and events) and
// replica_calculator.go (GetResourceReplicas / GetRawResourceReplicas, groupPods, the 0.1
// tolerance). Every HPA is reconciled every 15 s: read the target's `scale` subresource, list the
// pods of its status.selector and their PodMetrics (GET /apis/metrics.k8s.io/v1beta1/…), compute
// the desired count, stabilize it (scale-down window 300 s unless spec.behavior says otherwise),
// limit the rate, PATCH the scale and write the status with the AbleToScale / ScalingActive /
// ScalingLimited conditions upstream reports. Pods, Object and External metrics need a custom or
// external metrics API, which kubedesk does not serve: they fail as on a cluster without an adapter.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { getCondition, setCondition, statusConditions, type Condition } from '../../shared/kubernetes/conditions';
import { parseGoDuration as parseDuration } from '../../shared/kubernetes/duration';
import { formatMilliQuantity, milliValue, parseQuantity } from '../../shared/kubernetes/quantity';
import { formatTime, parseTime } from '../../shared/kubernetes/time';

export { formatMilliQuantity };
import type { ApiClient } from '../client/apiClient';
import { type ControllerOptions, QueueController } from '../client/controllerLoop';
import type { SharedInformerFactory } from '../client/informer';
import { splitKey } from '../client/informer';
import { resources, type GroupVersionResource } from '../client/resources';
import { numberOr, podPhase, specOf, statusOf } from './controllerUtils';

export const horizontalPodAutoscalers: GroupVersionResource = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', namespaced: true, kind: 'HorizontalPodAutoscaler' };

/** upstream --horizontal-pod-autoscaler-sync-period */
const RESYNC_PERIOD_MS = 15_000;
/** upstream --horizontal-pod-autoscaler-downscale-stabilization */
const DOWNSCALE_STABILIZATION_WINDOW_MS = 300_000;
/** upstream --horizontal-pod-autoscaler-tolerance */
const TOLERANCE = 0.1;
/** upstream --horizontal-pod-autoscaler-cpu-initialization-period */
const CPU_INITIALIZATION_PERIOD_MS = 300_000;
/** upstream --horizontal-pod-autoscaler-initial-readiness-delay */
const DELAY_OF_INITIAL_READINESS_STATUS_MS = 30_000;

export interface HorizontalPodAutoscalerControllerOptions extends ControllerOptions {
  resyncPeriodMs?: number;
  downscaleStabilizationWindowMs?: number;
  tolerance?: number;
  /** Where failed rounds are reported; defaults to console.warn. */
  log?: (message: string) => void;
}

// ---------------------------------------------------------------------------------------------
// Replica calculation (replica_calculator.go), pure

/** One pod's usage of a resource in milli-units, with the window it was measured over. */
export interface PodMetric {
  value: number;
  timestamp: number;
  windowMs: number;
}

export type PodMetrics = Map<string, PodMetric>;

export interface ReplicaCalculationInput {
  currentReplicas: number;
  pods: KubeObject[];
  /** Consumed: entries of ignored and unready pods are removed. */
  metrics: PodMetrics;
  resource: string;
  /** Only this container's requests count (ContainerResource metrics). */
  container?: string;
  now: number;
  tolerance?: number;
  cpuInitializationPeriodMs?: number;
  delayOfInitialReadinessStatusMs?: number;
}

export interface ReplicaCalculation {
  replicas: number;
  /** Utilization in percent of the requests (utilization targets only). */
  utilization?: number;
  /** Average usage per pod in milli-units. */
  rawAverage: number;
  timestamp: number;
}

/** groupPods: which pods count, which are unready (not counted), missing (no metric) or ignored. */
export function groupPods(input: ReplicaCalculationInput): { readyPodCount: number; unready: Set<string>; missing: Set<string>; ignored: Set<string> } {
  const unready = new Set<string>();
  const missing = new Set<string>();
  const ignored = new Set<string>();
  let readyPodCount = 0;
  const cpuInitializationPeriod = input.cpuInitializationPeriodMs ?? CPU_INITIALIZATION_PERIOD_MS;
  const initialReadinessDelay = input.delayOfInitialReadinessStatusMs ?? DELAY_OF_INITIAL_READINESS_STATUS_MS;
  for (const pod of input.pods) {
    const name = pod.metadata.name ?? '';
    const phase = podPhase(pod);
    if (pod.metadata.deletionTimestamp || phase === 'Failed') {
      ignored.add(name);
      continue;
    }
    if (phase === 'Pending') {
      unready.add(name);
      continue;
    }
    const metric = input.metrics.get(name);
    if (!metric) {
      missing.add(name);
      continue;
    }
    if (input.resource === 'cpu') {
      // CPU spikes while a pod starts; its samples count only once it has been ready for a window.
      const ready = getCondition(pod, 'Ready');
      const startTime = parseTime(statusOf(pod).startTime);
      const transition = parseTime(ready?.lastTransitionTime) ?? 0;
      let isUnready: boolean;
      if (!ready || startTime === undefined) {
        isUnready = true;
      } else if (startTime + cpuInitializationPeriod > input.now) {
        isUnready = ready.status === 'False' || metric.timestamp < transition + metric.windowMs;
      } else {
        isUnready = ready.status === 'False' && startTime + initialReadinessDelay > transition;
      }
      if (isUnready) {
        unready.add(name);
        continue;
      }
    }
    readyPodCount++;
  }
  return { readyPodCount, unready, missing, ignored };
}

/** calculatePodRequests: the summed requests of each pod in milli-units. */
export function podRequests(pods: KubeObject[], resource: string, container?: string): Map<string, number> {
  const requests = new Map<string, number>();
  for (const pod of pods) {
    const containers = Array.isArray(specOf(pod).containers) ? (specOf(pod).containers as unknown[]).filter(isRecord) : [];
    let sum = 0;
    for (const entry of containers) {
      if (container !== undefined && entry.name !== container) continue;
      const requested = isRecord(entry.resources) && isRecord(entry.resources.requests) ? entry.resources.requests[resource] : undefined;
      const quantity = parseQuantity(requested);
      if (!quantity) throw new Error(`missing request for ${resource} in container ${String(entry.name)} of Pod ${pod.metadata.name ?? ''}`);
      sum += milliValue(quantity);
    }
    requests.set(pod.metadata.name ?? '', sum);
  }
  return requests;
}

/** GetResourceUtilizationRatio */
function utilizationRatio(metrics: PodMetrics, requests: Map<string, number>, targetUtilization: number): { ratio: number; utilization: number; rawAverage: number } {
  let metricsTotal = 0;
  let requestsTotal = 0;
  let entities = 0;
  for (const [name, metric] of metrics) {
    const request = requests.get(name);
    // metrics of pods we do not know (or that have no request) are extraneous
    if (request === undefined) continue;
    metricsTotal += metric.value;
    requestsTotal += request;
    entities++;
  }
  if (requestsTotal === 0) throw new Error('no metrics returned matched known pods');
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return { ratio: utilization / targetUtilization, utilization, rawAverage: Math.trunc(metricsTotal / entities) };
}

/** GetMetricUsageRatio */
function usageRatio(metrics: PodMetrics, targetUsage: number): { ratio: number; average: number } {
  let total = 0;
  for (const metric of metrics.values()) total += metric.value;
  const average = Math.trunc(total / metrics.size);
  return { ratio: average / targetUsage, average };
}

function withinTolerance(ratio: number, tolerance: number): boolean {
  return Math.abs(1 - ratio) <= tolerance;
}

function latestTimestamp(metrics: PodMetrics): number {
  let latest = 0;
  for (const metric of metrics.values()) latest = Math.max(latest, metric.timestamp);
  return latest;
}

/**
 * The shared second half of GetResourceReplicas and calcPlainMetricReplicas: with missing pods or
 * unready pods on a scale-up, assume the least favourable usage for them and only move if the
 * direction holds.
 */
function replicasWithAssumptions(
  input: ReplicaCalculationInput,
  groups: ReturnType<typeof groupPods>,
  ratio: number,
  ratioOf: (metrics: PodMetrics) => number,
  scaleDownFallback: (pod: string) => number,
): number {
  const tolerance = input.tolerance ?? TOLERANCE;
  const scaleUpWithUnready = groups.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && groups.missing.size === 0) {
    if (withinTolerance(ratio, tolerance)) return input.currentReplicas;
    return Math.ceil(ratio * groups.readyPodCount);
  }
  const metrics = input.metrics;
  const assumed = (value: number): PodMetric => ({ value, timestamp: input.now, windowMs: 0 });
  if (ratio < 1) for (const pod of groups.missing) metrics.set(pod, assumed(scaleDownFallback(pod)));
  else if (ratio > 1) for (const pod of groups.missing) metrics.set(pod, assumed(0));
  if (scaleUpWithUnready) for (const pod of groups.unready) metrics.set(pod, assumed(0));
  const newRatio = ratioOf(metrics);
  if (withinTolerance(newRatio, tolerance) || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1)) return input.currentReplicas;
  const replicas = Math.ceil(newRatio * metrics.size);
  if ((newRatio < 1 && replicas > input.currentReplicas) || (newRatio > 1 && replicas < input.currentReplicas)) return input.currentReplicas;
  return replicas;
}

function readyMetrics(input: ReplicaCalculationInput): ReturnType<typeof groupPods> {
  if (input.pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const groups = groupPods(input);
  for (const pod of [...groups.ignored, ...groups.unready]) input.metrics.delete(pod);
  if (input.metrics.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
  return groups;
}

/** GetResourceReplicas: the replica count for a target utilization (percent of requests). */
export function calculateResourceReplicas(input: ReplicaCalculationInput, targetUtilization: number): ReplicaCalculation {
  const timestamp = latestTimestamp(input.metrics);
  const groups = readyMetrics(input);
  const requests = podRequests(input.pods, input.resource, input.container);
  const { ratio, utilization, rawAverage } = utilizationRatio(input.metrics, requests, targetUtilization);
  // on a scale-down a pod without metrics is assumed to use its target (or its whole request)
  const fallback = Math.max(100, targetUtilization);
  const replicas = replicasWithAssumptions(input, groups, ratio, (metrics) => utilizationRatio(metrics, requests, targetUtilization).ratio, (pod) => Math.trunc(((requests.get(pod) ?? 0) * fallback) / 100));
  return { replicas, utilization, rawAverage, timestamp };
}

/** GetRawResourceReplicas: the replica count for a target average usage per pod (milli-units). */
export function calculateRawResourceReplicas(input: ReplicaCalculationInput, targetUsage: number): ReplicaCalculation {
  const timestamp = latestTimestamp(input.metrics);
  const groups = readyMetrics(input);
  const { ratio, average } = usageRatio(input.metrics, targetUsage);
  const replicas = replicasWithAssumptions(input, groups, ratio, (metrics) => usageRatio(metrics, targetUsage).ratio, () => targetUsage);
  return { replicas, rawAverage: average, timestamp };
}

// ---------------------------------------------------------------------------------------------
// Normalization (horizontal.go), pure

export interface ScalingPolicy {
  type: 'Pods' | 'Percent';
  value: number;
  periodSeconds: number;
}

export interface ScalingRules {
  stabilizationWindowSeconds: number;
  selectPolicy: 'Max' | 'Min' | 'Disabled';
  policies: ScalingPolicy[];
}

export interface ScaleEvent {
  replicaChange: number;
  timestamp: number;
  outdated: boolean;
}

export interface Recommendation {
  replicas: number;
  timestamp: number;
}

export interface Limited {
  replicas: number;
  reason: string;
  message: string;
}

const withinRange = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };

/** convertDesiredReplicasWithRules: the limits of an HPA without behavior. */
export function convertDesiredReplicasWithRules(currentReplicas: number, desiredReplicas: number, minReplicas: number, maxReplicas: number): Limited {
  // guards against a bogus usage report multiplying the replicas at once
  const scaleUpLimit = Math.max(2 * currentReplicas, 4);
  let maximum: number;
  let reason: string;
  let message: string;
  if (maxReplicas > scaleUpLimit) {
    maximum = scaleUpLimit;
    reason = 'ScaleUpLimit';
    message = 'the desired replica count is increasing faster than the maximum scale rate';
  } else {
    maximum = maxReplicas;
    reason = 'TooManyReplicas';
    message = 'the desired replica count is more than the maximum replica count';
  }
  if (desiredReplicas < minReplicas) return { replicas: minReplicas, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
  if (desiredReplicas > maximum) return { replicas: maximum, reason, message };
  return { replicas: desiredReplicas, ...withinRange };
}

/** getReplicasChangePerPeriod */
function replicasChangedWithin(periodSeconds: number, events: readonly ScaleEvent[], now: number): number {
  const cutoff = now - periodSeconds * 1000;
  let change = 0;
  for (const event of events) if (event.timestamp > cutoff) change += event.replicaChange;
  return change;
}

/** calculateScaleUpLimitWithScalingRules */
export function scaleUpLimit(currentReplicas: number, scaleUpEvents: readonly ScaleEvent[], rules: ScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return currentReplicas;
  const pick = rules.selectPolicy === 'Min' ? Math.min : Math.max;
  let result = rules.selectPolicy === 'Min' ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  for (const policy of rules.policies) {
    const periodStart = currentReplicas - replicasChangedWithin(policy.periodSeconds, scaleUpEvents, now);
    const proposed = policy.type === 'Pods' ? periodStart + policy.value : Math.ceil(periodStart * (1 + policy.value / 100));
    result = pick(result, proposed);
  }
  return result;
}

/** calculateScaleDownLimitWithBehaviors */
export function scaleDownLimit(currentReplicas: number, scaleUpEvents: readonly ScaleEvent[], scaleDownEvents: readonly ScaleEvent[], rules: ScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return currentReplicas;
  // for scaling down the smallest change ('Min') is the largest count
  const pick = rules.selectPolicy === 'Min' ? Math.max : Math.min;
  let result = rules.selectPolicy === 'Min' ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  for (const policy of rules.policies) {
    const periodStart = currentReplicas - replicasChangedWithin(policy.periodSeconds, scaleUpEvents, now) + replicasChangedWithin(policy.periodSeconds, scaleDownEvents, now);
    const proposed = policy.type === 'Pods' ? periodStart - policy.value : Math.trunc(periodStart * (1 - policy.value / 100));
    result = pick(result, proposed);
  }
  return result;
}

export interface BehaviorArguments {
  currentReplicas: number;
  desiredReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  scaleUp: ScalingRules;
  scaleDown: ScalingRules;
}

/** convertDesiredReplicasWithBehaviorRate */
export function convertDesiredReplicasWithBehaviorRate(args: BehaviorArguments, scaleUpEvents: readonly ScaleEvent[], scaleDownEvents: readonly ScaleEvent[], now: number): Limited {
  if (args.desiredReplicas > args.currentReplicas) {
    const limit = Math.max(scaleUpLimit(args.currentReplicas, scaleUpEvents, args.scaleUp, now), args.currentReplicas);
    const limited = args.maxReplicas > limit
      ? { replicas: limit, reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' }
      : { replicas: args.maxReplicas, reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
    if (args.desiredReplicas > limited.replicas) return limited;
  } else if (args.desiredReplicas < args.currentReplicas) {
    const limit = Math.min(scaleDownLimit(args.currentReplicas, scaleUpEvents, scaleDownEvents, args.scaleDown, now), args.currentReplicas);
    const limited = args.minReplicas < limit
      ? { replicas: limit, reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' }
      : { replicas: args.minReplicas, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
    if (args.desiredReplicas < limited.replicas) return limited;
  }
  return { replicas: args.desiredReplicas, ...withinRange };
}

/**
 * stabilizeRecommendationWithBehaviors: the current count moved no lower than the highest
 * recommendation of the scale-down window and no higher than the lowest of the scale-up window.
 * Records the new recommendation in `recommendations` (replacing one that fell out of both windows).
 */
export function stabilizeWithBehaviors(args: BehaviorArguments, recommendations: Recommendation[], now: number): Limited {
  const upCutoff = now - args.scaleUp.stabilizationWindowSeconds * 1000;
  const downCutoff = now - args.scaleDown.stabilizationWindowSeconds * 1000;
  let upRecommendation = args.desiredReplicas;
  let downRecommendation = args.desiredReplicas;
  let oldIndex = -1;
  recommendations.forEach((recommendation, index) => {
    if (recommendation.timestamp > upCutoff) upRecommendation = Math.min(recommendation.replicas, upRecommendation);
    if (recommendation.timestamp > downCutoff) downRecommendation = Math.max(recommendation.replicas, downRecommendation);
    if (recommendation.timestamp < upCutoff && recommendation.timestamp < downCutoff) oldIndex = index;
  });
  let replicas = args.currentReplicas;
  if (replicas < upRecommendation) replicas = upRecommendation;
  if (replicas > downRecommendation) replicas = downRecommendation;
  const entry = { replicas: args.desiredReplicas, timestamp: now };
  if (oldIndex >= 0) recommendations[oldIndex] = entry;
  else recommendations.push(entry);
  return args.desiredReplicas >= args.currentReplicas
    ? { replicas, reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
    : { replicas, reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
}

/** stabilizeRecommendation: the highest recommendation of the downscale window (HPAs without behavior). */
export function stabilizeRecommendation(desiredReplicas: number, recommendations: Recommendation[], windowMs: number, now: number): number {
  const cutoff = now - windowMs;
  let maximum = desiredReplicas;
  let oldIndex = -1;
  recommendations.forEach((recommendation, index) => {
    if (recommendation.timestamp < cutoff) oldIndex = index;
    else if (recommendation.replicas > maximum) maximum = recommendation.replicas;
  });
  const entry = { replicas: desiredReplicas, timestamp: now };
  if (oldIndex >= 0) recommendations[oldIndex] = entry;
  else recommendations.push(entry);
  return maximum;
}

function integer(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) ? value : fallback;
}

/** The scaling rules with upstream's defaults (GenerateHPAScaleUpRules / GenerateHPAScaleDownRules) for unset fields. */
export function scalingRules(value: unknown, direction: 'up' | 'down', downscaleWindowSeconds: number): ScalingRules {
  const given = isRecord(value) ? value : {};
  const defaultPolicies: ScalingPolicy[] = direction === 'up'
    ? [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }]
    : [{ type: 'Percent', value: 100, periodSeconds: 15 }];
  const policies = Array.isArray(given.policies)
    ? given.policies.filter(isRecord).map((policy): ScalingPolicy => ({ type: policy.type === 'Pods' ? 'Pods' : 'Percent', value: integer(policy.value, 0), periodSeconds: integer(policy.periodSeconds, 15) }))
    : defaultPolicies;
  const selectPolicy = given.selectPolicy === 'Min' || given.selectPolicy === 'Disabled' ? given.selectPolicy : 'Max';
  return { stabilizationWindowSeconds: integer(given.stabilizationWindowSeconds, direction === 'up' ? 0 : downscaleWindowSeconds), selectPolicy, policies };
}

// ---------------------------------------------------------------------------------------------
// Quantities and durations

/** A metric window (metav1.Duration text) in milliseconds; 0 when it is absent or not a duration. */
export function parseGoDuration(text: unknown): number {
  return parseDuration(text) ?? 0;
}

// ---------------------------------------------------------------------------------------------
// The controller

interface WorkingStatus {
  conditions: Condition[];
  currentMetrics: Record<string, unknown>[] | null;
  currentReplicas: number;
  desiredReplicas: number;
  lastScaleTime?: string;
}

interface Scale {
  replicas: number;
  statusReplicas: number;
  selector: string;
}

interface MetricOutcome {
  replicas: number;
  metricName: string;
  status: Record<string, unknown>;
}

/** An error that also carries the ScalingActive condition to report (upstream's invalidMetricCondition). */
class MetricError extends Error {
  constructor(
    message: string,
    readonly reason: string,
    readonly conditionMessage: string,
  ) {
    super(message);
  }
}

const knownScaleResources: Record<string, string> = {
  Deployment: 'deployments',
  ReplicaSet: 'replicasets',
  StatefulSet: 'statefulsets',
  ReplicationController: 'replicationcontrollers',
};

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function setStatusCondition(status: WorkingStatus, type: string, value: 'True' | 'False', reason: string, message: string, now: string): void {
  status.conditions = setCondition(status.conditions, { type, status: value, reason, message }, now);
}

function workingStatus(hpa: KubeObject): WorkingStatus {
  const status = statusOf(hpa);
  return {
    conditions: statusConditions(status),
    currentMetrics: Array.isArray(status.currentMetrics) ? status.currentMetrics.filter(isRecord) : null,
    currentReplicas: numberOr(status.currentReplicas, 0),
    desiredReplicas: numberOr(status.desiredReplicas, 0),
    lastScaleTime: typeof status.lastScaleTime === 'string' ? status.lastScaleTime : undefined,
  };
}

/** The status as upstream serializes it: currentReplicas and lastScaleTime omitted when empty. */
function serializedStatus(status: WorkingStatus): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  if (status.conditions.length > 0) result.conditions = status.conditions;
  if (status.currentMetrics && status.currentMetrics.length > 0) result.currentMetrics = status.currentMetrics;
  if (status.currentReplicas !== 0) result.currentReplicas = status.currentReplicas;
  result.desiredReplicas = status.desiredReplicas;
  if (status.lastScaleTime) result.lastScaleTime = status.lastScaleTime;
  return result;
}

export class HorizontalPodAutoscalerController extends QueueController {
  private readonly autoscalers = this.factory.informerFor(horizontalPodAutoscalers);
  private readonly resyncPeriodMs: number;
  private readonly downscaleWindowMs: number;
  private readonly tolerance: number;
  private readonly log: (message: string) => void;
  private readonly recommendations = new Map<string, Recommendation[]>();
  private readonly scaleUpEvents = new Map<string, ScaleEvent[]>();
  private readonly scaleDownEvents = new Map<string, ScaleEvent[]>();

  constructor(client: ApiClient, factory: SharedInformerFactory, options: HorizontalPodAutoscalerControllerOptions = {}) {
    super(client, factory, { name: 'horizontal-pod-autoscaler', component: 'horizontal-pod-autoscaler', workers: 5 }, options);
    this.resyncPeriodMs = options.resyncPeriodMs ?? RESYNC_PERIOD_MS;
    this.downscaleWindowMs = options.downscaleStabilizationWindowMs ?? DOWNSCALE_STABILIZATION_WINDOW_MS;
    this.tolerance = options.tolerance ?? TOLERANCE;
    this.log = options.log ?? ((message) => console.warn(message));
    // Status writes come back as updates; only a changed spec is worth an early round, the
    // periodic resync covers the rest (upstream queues every HPA at the sync period).
    this.handle(this.autoscalers, {
      onAdd: (hpa) => this.enqueue(hpa),
      onUpdate: (old, hpa) => {
        if (old.metadata.generation !== hpa.metadata.generation || JSON.stringify(old.spec) !== JSON.stringify(hpa.spec)) this.enqueue(hpa);
      },
      onDelete: (hpa) => this.enqueue(hpa),
    });
  }

  /** One round for one HPA; always schedules the next round while the HPA exists. */
  async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const cached = this.autoscalers.get(namespace, name);
    if (!cached) {
      this.recommendations.delete(key);
      this.scaleUpEvents.delete(key);
      this.scaleDownEvents.delete(key);
      return;
    }
    try {
      await this.reconcileAutoscaler(structuredClone(cached) as KubeObject, key);
    } catch (error) {
      // upstream logs and retries at the next sync period rather than backing off
      this.log(`[horizontal-pod-autoscaler] ${key}: ${errorMessage(error)}`);
    } finally {
      this.queue.addAfter(key, this.resyncPeriodMs);
    }
  }

  private now(): { ms: number; text: string } {
    const ms = this.clock.now();
    return { ms, text: formatTime(ms) };
  }

  private scaleClient(hpa: KubeObject): { gvrClient: ReturnType<ApiClient['resource']>; name: string; kind: string } {
    const ref = isRecord(specOf(hpa).scaleTargetRef) ? (specOf(hpa).scaleTargetRef as Record<string, unknown>) : {};
    const kind = String(ref.kind ?? '');
    const apiVersion = String(ref.apiVersion ?? '');
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion || 'v1'];
    const resource = knownScaleResources[kind] ?? `${kind.toLowerCase()}s`;
    return { gvrClient: this.client.resource({ group, version, resource, namespaced: true, kind }), name: String(ref.name ?? ''), kind };
  }

  private async reconcileAutoscaler(hpa: KubeObject, key: string): Promise<void> {
    const namespace = hpa.metadata.namespace ?? '';
    const spec = specOf(hpa);
    const original = serializedStatus(workingStatus(hpa));
    const status = workingStatus(hpa);
    const target = this.scaleClient(hpa);
    const reference = `${target.kind}/${namespace}/${target.name}`;
    let scale: Scale;
    try {
      scale = await this.getScale(target.gvrClient, namespace, target.name);
    } catch (error) {
      const message = errorMessage(error);
      this.recorder.event(hpa, 'Warning', 'FailedGetScale', message);
      setStatusCondition(status, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${message}`, this.now().text);
      await this.updateStatusIfNeeded(hpa, original, status);
      throw new Error(`failed to query scale subresource for ${reference}: ${message}`);
    }
    setStatusCondition(status, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale", this.now().text);
    const currentReplicas = scale.replicas;
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ replicas: currentReplicas, timestamp: this.now().ms }]);

    const minReplicas = integer(spec.minReplicas, 1);
    const maxReplicas = integer(spec.maxReplicas, 0);
    let desiredReplicas = 0;
    let rescaleReason = '';
    let rescale = true;
    let metricStatuses: Record<string, unknown>[] | null = status.currentMetrics;
    if (currentReplicas === 0 && minReplicas !== 0) {
      rescale = false;
      setStatusCondition(status, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero', this.now().text);
    } else if (currentReplicas > maxReplicas) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
      desiredReplicas = maxReplicas;
    } else if (currentReplicas < minReplicas) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas';
      desiredReplicas = minReplicas;
    } else {
      const computed = await this.computeReplicasForMetrics(hpa, scale, status);
      metricStatuses = computed.statuses;
      if (computed.replicas < 0) {
        status.currentReplicas = currentReplicas;
        status.currentMetrics = metricStatuses;
        await this.updateStatusIfNeeded(hpa, original, status);
        this.recorder.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.error ?? '');
        throw new Error(`failed to compute desired number of replicas based on listed metrics for ${reference}: ${computed.error ?? ''}`);
      }
      let rescaleMetric = '';
      if (computed.replicas > desiredReplicas) {
        desiredReplicas = computed.replicas;
        rescaleMetric = computed.metricName;
      }
      if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`;
      if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
      desiredReplicas = isRecord(spec.behavior)
        ? this.normalizeWithBehaviors(status, key, spec.behavior, currentReplicas, desiredReplicas, minReplicas, maxReplicas)
        : this.normalize(status, key, currentReplicas, desiredReplicas, minReplicas, maxReplicas);
      rescale = desiredReplicas !== currentReplicas;
    }

    if (rescale) {
      try {
        await target.gvrClient.patch(namespace, target.name, { spec: { replicas: desiredReplicas } }, 'merge', { subresource: 'scale' });
      } catch (error) {
        const message = errorMessage(error);
        this.recorder.event(hpa, 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${message}`);
        setStatusCondition(status, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${message}`, this.now().text);
        status.currentReplicas = currentReplicas;
        status.currentMetrics = metricStatuses;
        await this.updateStatusIfNeeded(hpa, original, status);
        throw new Error(`failed to rescale ${reference}: ${message}`);
      }
      setStatusCondition(status, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desiredReplicas}`, this.now().text);
      this.recorder.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}`);
      this.storeScaleEvent(spec.behavior, key, currentReplicas, desiredReplicas);
      status.lastScaleTime = this.now().text;
    } else {
      desiredReplicas = currentReplicas;
    }
    status.currentReplicas = currentReplicas;
    status.desiredReplicas = desiredReplicas;
    status.currentMetrics = metricStatuses;
    await this.updateStatusIfNeeded(hpa, original, status);
  }

  private async getScale(client: ReturnType<ApiClient['resource']>, namespace: string, name: string): Promise<Scale> {
    const body = await client.getSubresource(namespace, name, 'scale');
    const scale = isRecord(body) ? body : {};
    const scaleSpec = isRecord(scale.spec) ? scale.spec : {};
    const scaleStatus = isRecord(scale.status) ? scale.status : {};
    return { replicas: numberOr(scaleSpec.replicas, 0), statusReplicas: numberOr(scaleStatus.replicas, 0), selector: typeof scaleStatus.selector === 'string' ? scaleStatus.selector : '' };
  }

  /** computeReplicasForMetrics: the largest proposal of the valid metrics; -1 when none can be used. */
  private async computeReplicasForMetrics(hpa: KubeObject, scale: Scale, status: WorkingStatus): Promise<{ replicas: number; metricName: string; statuses: Record<string, unknown>[] | null; error?: string }> {
    const now = this.now();
    if (scale.selector === '') {
      const message = 'selector is required';
      this.recorder.event(hpa, 'Warning', 'SelectorRequired', message);
      setStatusCondition(status, 'ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector", now.text);
      return { replicas: -1, metricName: '', statuses: null, error: message };
    }
    const specs = Array.isArray(specOf(hpa).metrics) ? (specOf(hpa).metrics as unknown[]).filter(isRecord) : [];
    const statuses: Record<string, unknown>[] = specs.map(() => ({ type: '' }));
    const namespace = hpa.metadata.namespace ?? '';
    let pods: Promise<KubeObject[]> | undefined;
    let metrics: Promise<unknown[]> | undefined;
    const sources = {
      pods: () => (pods ??= this.client.resource(resources.pods).list(namespace, { labelSelector: scale.selector }).then((list) => list.items)),
      metrics: () => (metrics ??= this.fetchPodMetrics(namespace, scale.selector)),
    };
    let replicas = 0;
    let metricName = '';
    let invalid = 0;
    let firstError: MetricError | undefined;
    for (const [index, metricSpec] of specs.entries()) {
      try {
        const outcome = await this.computeReplicasForMetric(hpa, metricSpec, scale.replicas, sources);
        statuses[index] = outcome.status;
        if (replicas === 0 || outcome.replicas > replicas) {
          replicas = outcome.replicas;
          metricName = outcome.metricName;
        }
      } catch (error) {
        const metricError = error instanceof MetricError ? error : new MetricError(errorMessage(error), 'FailedGetResourceMetric', errorMessage(error));
        if (!firstError) firstError = metricError;
        invalid++;
      }
    }
    const error = firstError ? `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError.message}` : undefined;
    // all metrics invalid, or some invalid while the rest would scale down: do nothing
    if (firstError && (invalid >= specs.length || replicas < scale.replicas)) {
      setStatusCondition(status, 'ScalingActive', 'False', firstError.reason, firstError.conditionMessage, now.text);
      return { replicas: -1, metricName: '', statuses, error };
    }
    if (specs.length === 0) {
      // upstream defaulting always gives one metric; an HPA stored without defaults has nothing to go by
      setStatusCondition(status, 'ScalingActive', 'False', 'InvalidMetricSourceType', 'the HPA was unable to compute the replica count: no metrics specified', now.text);
      return { replicas: -1, metricName: '', statuses, error: 'no metrics specified' };
    }
    setStatusCondition(status, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${metricName}`, now.text);
    return { replicas, metricName, statuses, error };
  }

  private async computeReplicasForMetric(
    hpa: KubeObject,
    metricSpec: Record<string, unknown>,
    specReplicas: number,
    sources: { pods: () => Promise<KubeObject[]>; metrics: () => Promise<unknown[]> },
  ): Promise<MetricOutcome> {
    const type = String(metricSpec.type ?? '');
    const unable = (reason: string, error: string, wrapped: string): MetricError => {
      this.recorder.event(hpa, 'Warning', reason, error);
      return new MetricError(wrapped, reason, `the HPA was unable to compute the replica count: ${error}`);
    };
    if (type === 'Resource' || type === 'ContainerResource') {
      const source = isRecord(metricSpec[type === 'Resource' ? 'resource' : 'containerResource']) ? (metricSpec[type === 'Resource' ? 'resource' : 'containerResource'] as Record<string, unknown>) : {};
      const resourceName = String(source.name ?? '');
      const container = type === 'ContainerResource' ? String(source.container ?? '') : undefined;
      const reason = type === 'Resource' ? 'FailedGetResourceMetric' : 'FailedGetContainerResourceMetric';
      const prefix = type === 'Resource' ? `failed to get ${resourceName} resource metric value` : `failed to get ${resourceName} container resource metric value`;
      try {
        return await this.computeResourceMetric(source, resourceName, container, specReplicas, sources);
      } catch (error) {
        throw unable(reason, errorMessage(error), `${prefix}: ${errorMessage(error)}`);
      }
    }
    // Pods, Object and External metrics come from custom/external metrics APIs kubedesk does not serve.
    const lower = type.toLowerCase();
    const reasons: Record<string, string> = { Pods: 'FailedGetPodsMetric', Object: 'FailedGetObjectMetric', External: 'FailedGetExternalMetric' };
    if (reasons[type]) {
      const source = isRecord(metricSpec[lower]) ? (metricSpec[lower] as Record<string, unknown>) : {};
      const metricName = isRecord(source.metric) ? String(source.metric.name ?? '') : '';
      const api = type === 'External' ? 'external metrics API' : 'custom metrics API';
      const error = `unable to get metric ${metricName}: unable to fetch metrics from ${api}: the server could not find the requested resource`;
      throw unable(reasons[type], error, `failed to get ${lower} metric value: ${error}`);
    }
    const error = `unknown metric source type "${type}"`;
    throw unable('InvalidMetricSourceType', error, error);
  }

  private async computeResourceMetric(
    source: Record<string, unknown>,
    resourceName: string,
    container: string | undefined,
    specReplicas: number,
    sources: { pods: () => Promise<KubeObject[]>; metrics: () => Promise<unknown[]> },
  ): Promise<MetricOutcome> {
    const target = isRecord(source.target) ? source.target : {};
    const statusKey = container === undefined ? 'resource' : 'containerResource';
    const identity = container === undefined ? { name: resourceName } : { name: resourceName, container };
    const describe = (kind: string) => (container === undefined ? `${resourceName} resource${kind}` : `${resourceName} container resource${kind}`);
    const averageValue = target.averageValue !== undefined && target.averageValue !== null ? parseQuantity(target.averageValue) : undefined;
    if (averageValue === undefined && typeof target.averageUtilization !== 'number') {
      throw new Error('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
    }
    const what = averageValue ? 'usage' : 'utilization';
    const input = await this.calculationInput(resourceName, container, specReplicas, sources, what);
    // errors of the calculation itself carry the prefix upstream adds
    const calculate = (run: () => ReplicaCalculation): ReplicaCalculation => {
      try {
        return run();
      } catch (error) {
        throw new Error(`failed to get ${resourceName} ${what}: ${errorMessage(error)}`);
      }
    };
    if (averageValue) {
      const targetUsage = milliValue(averageValue);
      const result = calculate(() => calculateRawResourceReplicas(input, targetUsage));
      return {
        replicas: result.replicas,
        metricName: describe(''),
        status: { type: container === undefined ? 'Resource' : 'ContainerResource', [statusKey]: { ...identity, current: { averageValue: formatMilliQuantity(result.rawAverage) } } },
      };
    }
    const utilization = Number(target.averageUtilization);
    const result = calculate(() => calculateResourceReplicas(input, utilization));
    return {
      replicas: result.replicas,
      metricName: describe(' utilization (percentage of request)'),
      status: { type: container === undefined ? 'Resource' : 'ContainerResource', [statusKey]: { ...identity, current: { averageUtilization: result.utilization, averageValue: formatMilliQuantity(result.rawAverage) } } },
    };
  }

  private async calculationInput(
    resourceName: string,
    container: string | undefined,
    specReplicas: number,
    sources: { pods: () => Promise<KubeObject[]>; metrics: () => Promise<unknown[]> },
    what: 'usage' | 'utilization',
  ): Promise<ReplicaCalculationInput> {
    let items: unknown[];
    try {
      items = await sources.metrics();
    } catch (error) {
      throw new Error(`failed to get ${resourceName} ${what}: unable to get metrics for resource ${resourceName}: unable to fetch metrics from resource metrics API: ${errorMessage(error)}`);
    }
    const metrics = podMetricsFor(items, resourceName, container);
    if (metrics.size === 0) throw new Error(`failed to get ${resourceName} ${what}: unable to get metrics for resource ${resourceName}: no metrics returned from resource metrics API`);
    let pods: KubeObject[];
    try {
      pods = await sources.pods();
    } catch (error) {
      throw new Error(`failed to get ${resourceName} ${what}: unable to get pods while calculating replica count: ${errorMessage(error)}`);
    }
    return { currentReplicas: specReplicas, pods, metrics, resource: resourceName, container, now: this.clock.now(), tolerance: this.tolerance };
  }

  private async fetchPodMetrics(namespace: string, selector: string): Promise<unknown[]> {
    const body = await this.client.request({ method: 'GET', path: `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods`, query: { labelSelector: selector } });
    return isRecord(body) && Array.isArray(body.items) ? body.items : [];
  }

  /** normalizeDesiredReplicas (no behavior): downscale stabilization, then the fixed rate and bounds. */
  private normalize(status: WorkingStatus, key: string, currentReplicas: number, desiredReplicas: number, minReplicas: number, maxReplicas: number): number {
    const now = this.now();
    const stabilized = stabilizeRecommendation(desiredReplicas, this.recommendationsOf(key), this.downscaleWindowMs, now.ms);
    if (stabilized !== desiredReplicas) {
      setStatusCondition(status, 'AbleToScale', 'True', 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation', now.text);
    } else {
      setStatusCondition(status, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size', now.text);
    }
    const limited = convertDesiredReplicasWithRules(currentReplicas, stabilized, minReplicas, maxReplicas);
    setStatusCondition(status, 'ScalingLimited', limited.replicas === stabilized ? 'False' : 'True', limited.reason, limited.message, now.text);
    return limited.replicas;
  }

  /** normalizeDesiredReplicasWithBehaviors */
  private normalizeWithBehaviors(status: WorkingStatus, key: string, behavior: Record<string, unknown>, currentReplicas: number, desiredReplicas: number, minReplicas: number, maxReplicas: number): number {
    const now = this.now();
    const args: BehaviorArguments = {
      currentReplicas,
      desiredReplicas,
      minReplicas,
      maxReplicas,
      scaleUp: scalingRules(behavior.scaleUp, 'up', this.downscaleWindowMs / 1000),
      scaleDown: scalingRules(behavior.scaleDown, 'down', this.downscaleWindowMs / 1000),
    };
    const stabilized = stabilizeWithBehaviors(args, this.recommendationsOf(key), now.ms);
    if (stabilized.replicas !== desiredReplicas) setStatusCondition(status, 'AbleToScale', 'True', stabilized.reason, stabilized.message, now.text);
    else setStatusCondition(status, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size', now.text);
    const limited = convertDesiredReplicasWithBehaviorRate({ ...args, desiredReplicas: stabilized.replicas }, this.scaleUpEvents.get(key) ?? [], this.scaleDownEvents.get(key) ?? [], now.ms);
    setStatusCondition(status, 'ScalingLimited', limited.replicas === stabilized.replicas ? 'False' : 'True', limited.reason, limited.message, now.text);
    return limited.replicas;
  }

  private recommendationsOf(key: string): Recommendation[] {
    let list = this.recommendations.get(key);
    if (!list) {
      list = [];
      this.recommendations.set(key, list);
    }
    return list;
  }

  /** storeScaleEvent: remembered for the rate policies; events older than the longest period are reused. */
  private storeScaleEvent(behavior: unknown, key: string, previous: number, next: number): void {
    if (!isRecord(behavior)) return;
    const up = next > previous;
    const rules = scalingRules(up ? behavior.scaleUp : behavior.scaleDown, up ? 'up' : 'down', this.downscaleWindowMs / 1000);
    const longest = Math.max(0, ...rules.policies.map((policy) => policy.periodSeconds));
    const now = this.clock.now();
    const events = (up ? this.scaleUpEvents : this.scaleDownEvents).get(key) ?? [];
    let reused = false;
    for (const event of events) if (event.timestamp <= now - longest * 1000) event.outdated = true;
    const entry: ScaleEvent = { replicaChange: Math.abs(next - previous), timestamp: now, outdated: false };
    const index = events.findIndex((event) => event.outdated);
    if (index >= 0) {
      events[index] = entry;
      reused = true;
    }
    if (!reused) events.push(entry);
    (up ? this.scaleUpEvents : this.scaleDownEvents).set(key, events);
  }

  private async updateStatusIfNeeded(hpa: KubeObject, original: Record<string, unknown>, status: WorkingStatus): Promise<void> {
    const next = serializedStatus(status);
    if (JSON.stringify(next) === JSON.stringify(original)) return;
    // a merge patch removes what is gone with explicit nulls and never conflicts with a stale cache
    const patch: Record<string, unknown> = { ...next };
    for (const field of Object.keys(original)) if (!(field in next)) patch[field] = null;
    await this.client.resource(horizontalPodAutoscalers).patchStatus(hpa.metadata.namespace, hpa.metadata.name ?? '', { status: patch }, 'merge');
  }
}

/** The usage of `resource` per pod from PodMetrics items (metrics client GetResourceMetric). */
export function podMetricsFor(items: unknown[], resource: string, container?: string): PodMetrics {
  const result: PodMetrics = new Map();
  for (const item of items) {
    if (!isRecord(item) || !isRecord(item.metadata) || typeof item.metadata.name !== 'string') continue;
    const containers = Array.isArray(item.containers) ? item.containers.filter(isRecord) : [];
    let sum = 0;
    let found = false;
    let missing = false;
    for (const entry of containers) {
      if (container !== undefined && entry.name !== container) continue;
      const usage = isRecord(entry.usage) ? parseQuantity(entry.usage[resource]) : undefined;
      if (!usage) {
        missing = true;
        break;
      }
      sum += milliValue(usage);
      found = true;
    }
    // a pod whose figures lack the resource for some container is left out, as upstream
    if (missing || (container !== undefined && !found)) continue;
    result.set(item.metadata.name, { value: sum, timestamp: parseTime(item.timestamp) ?? 0, windowMs: parseGoDuration(item.window) });
  }
  return result;
}
