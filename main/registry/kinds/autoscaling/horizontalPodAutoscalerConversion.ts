// autoscaling/v1 HorizontalPodAutoscalers as conversions of the stored autoscaling/v2 objects, as
// upstream converts between versions (pkg/apis/autoscaling/v1/conversion.go): v1's
// targetCPUUtilizationPercentage is v2's Resource/cpu/Utilization metric, and what v1 cannot say
// (other metrics, behavior, conditions, other current metrics) travels in the
// autoscaling.alpha.kubernetes.io/* annotations so a v1 round trip loses nothing. Kubedesk keeps
// the v2 JSON in those annotations (upstream writes v1-shaped metric specs there).
import type { KubeObject } from '../../../../shared/kubernetes/types';
import { isRecord } from '../../../../shared/kubernetes/types';

const V1 = 'autoscaling/v1';
const V2 = 'autoscaling/v2';
const KIND = 'HorizontalPodAutoscaler';
export const metricsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
export const currentMetricsAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
export const behaviorAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';
const conversionAnnotations = [metricsAnnotation, currentMetricsAnnotation, conditionsAnnotation, behaviorAnnotation];

type JsonRecord = Record<string, unknown>;

function recordOf(value: unknown): JsonRecord {
  return isRecord(value) ? value : {};
}

function listOf(value: unknown): JsonRecord[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function isCpuUtilization(metric: JsonRecord, part: 'target' | 'current'): boolean {
  const resource = recordOf(metric.resource);
  const value = recordOf(resource[part]);
  if (metric.type !== 'Resource' || resource.name !== 'cpu' || typeof value.averageUtilization !== 'number') return false;
  return part === 'current' || value.type === 'Utilization';
}

function parseAnnotation(annotations: JsonRecord, key: string): JsonRecord[] | JsonRecord | undefined {
  const text = annotations[key];
  if (typeof text !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter(isRecord) : isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler, from the stored v2 object. */
export function toV1(obj: KubeObject): KubeObject {
  const metadata = structuredClone(obj.metadata);
  const annotations: Record<string, string> = { ...(metadata.annotations ?? {}) };
  for (const key of conversionAnnotations) delete annotations[key];
  const out: KubeObject = { apiVersion: V1, kind: KIND, metadata };
  if (obj.spec !== undefined) {
    const spec = recordOf(obj.spec);
    const v1Spec: JsonRecord = {};
    if (spec.scaleTargetRef !== undefined) v1Spec.scaleTargetRef = structuredClone(spec.scaleTargetRef);
    if (spec.minReplicas !== undefined) v1Spec.minReplicas = spec.minReplicas;
    if (spec.maxReplicas !== undefined) v1Spec.maxReplicas = spec.maxReplicas;
    const others: JsonRecord[] = [];
    for (const metric of listOf(spec.metrics)) {
      if (v1Spec.targetCPUUtilizationPercentage === undefined && isCpuUtilization(metric, 'target')) {
        v1Spec.targetCPUUtilizationPercentage = recordOf(recordOf(metric.resource).target).averageUtilization;
      } else {
        others.push(metric);
      }
    }
    if (others.length > 0) annotations[metricsAnnotation] = JSON.stringify(others);
    if (spec.behavior !== undefined && spec.behavior !== null) annotations[behaviorAnnotation] = JSON.stringify(spec.behavior);
    out.spec = v1Spec;
  }
  if (obj.status !== undefined) {
    const status = recordOf(obj.status);
    const v1Status: JsonRecord = {};
    for (const key of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) if (status[key] !== undefined) v1Status[key] = status[key];
    v1Status.currentReplicas ??= 0;
    v1Status.desiredReplicas ??= 0;
    const others: JsonRecord[] = [];
    for (const metric of listOf(status.currentMetrics)) {
      if (v1Status.currentCPUUtilizationPercentage === undefined && isCpuUtilization(metric, 'current')) {
        v1Status.currentCPUUtilizationPercentage = recordOf(recordOf(metric.resource).current).averageUtilization;
      } else {
        others.push(metric);
      }
    }
    if (others.length > 0) annotations[currentMetricsAnnotation] = JSON.stringify(others);
    if (listOf(status.conditions).length > 0) annotations[conditionsAnnotation] = JSON.stringify(status.conditions);
    out.status = v1Status;
  }
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  return out;
}

/**
 * Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler. `partial` converts an
 * apply configuration: only the fields present are written.
 */
export function toV2(obj: JsonRecord, partial = false): JsonRecord {
  const metadata = structuredClone(recordOf(obj.metadata));
  const annotations = { ...recordOf(metadata.annotations) };
  const out: JsonRecord = { ...obj, apiVersion: V2, kind: KIND, metadata };
  if (obj.spec !== undefined && obj.spec !== null) {
    const spec = recordOf(obj.spec);
    const v2Spec: JsonRecord = {};
    if (spec.scaleTargetRef !== undefined) v2Spec.scaleTargetRef = structuredClone(spec.scaleTargetRef);
    if (spec.minReplicas !== undefined) v2Spec.minReplicas = spec.minReplicas;
    if (spec.maxReplicas !== undefined) v2Spec.maxReplicas = spec.maxReplicas;
    const other = parseAnnotation(annotations, metricsAnnotation);
    const metrics = Array.isArray(other) ? [...other] : [];
    if (typeof spec.targetCPUUtilizationPercentage === 'number') {
      metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
    }
    if (metrics.length > 0 || !partial) v2Spec.metrics = metrics.length > 0 ? metrics : undefined;
    const behavior = parseAnnotation(annotations, behaviorAnnotation);
    if (isRecord(behavior)) v2Spec.behavior = behavior;
    for (const key of Object.keys(v2Spec)) if (v2Spec[key] === undefined) delete v2Spec[key];
    out.spec = v2Spec;
  }
  if (obj.status !== undefined && obj.status !== null) {
    const status = recordOf(obj.status);
    const v2Status: JsonRecord = {};
    for (const key of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) if (status[key] !== undefined) v2Status[key] = status[key];
    const other = parseAnnotation(annotations, currentMetricsAnnotation);
    const current = Array.isArray(other) ? [...other] : [];
    if (typeof status.currentCPUUtilizationPercentage === 'number') {
      current.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } });
    }
    if (current.length > 0) v2Status.currentMetrics = current;
    const conditions = parseAnnotation(annotations, conditionsAnnotation);
    if (Array.isArray(conditions) && conditions.length > 0) v2Status.conditions = conditions;
    out.status = v2Status;
  }
  for (const key of conversionAnnotations) delete annotations[key];
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  return out;
}
