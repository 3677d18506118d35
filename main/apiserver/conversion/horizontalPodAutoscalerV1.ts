// autoscaling/v1 HorizontalPodAutoscalers served from the stored autoscaling/v2 objects, as the
// upstream apiserver converts between versions (pkg/apis/autoscaling/v1/conversion.go): v1's
// targetCPUUtilizationPercentage is v2's Resource/cpu/Utilization metric, and what v1 cannot say
// (other metrics, behavior, conditions, other current metrics) travels in the
// autoscaling.alpha.kubernetes.io/* annotations so a v1 round trip loses nothing. Kubedesk keeps
// the v2 JSON in those annotations (upstream writes v1-shaped metric specs there).
//
// Requests under /apis/autoscaling/v1/…/horizontalpodautoscalers are forwarded to the v2 path with
// their bodies converted, and replies (objects, lists, watch events, Table rows) converted back.
// Patches other than apply are applied to the v1 form of the current object, then written as v2.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import type { ApiReply, ApiRequest, ApiResponse, ApiServer, VirtualResourceHandler } from '../apiServer';
import { decodeBody, mediaType } from '../content';
import { applyPatchDocument } from '../patch/patchDocument';

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

/** Converts whatever a v2 reply or watch event holds (object, list, Table rows) to v1. */
export function convertReplyValue(value: unknown): unknown {
  if (!isRecord(value)) return value;
  if (value.kind === KIND && value.apiVersion === V2) return toV1(value as KubeObject);
  if (value.kind === `${KIND}List` && Array.isArray(value.items)) {
    return { ...value, apiVersion: V1, items: value.items.map((item) => (isRecord(item) ? toV1(item as KubeObject) : item)) };
  }
  if (value.kind === 'Table' && Array.isArray(value.rows)) {
    return { ...value, rows: value.rows.map((row) => (isRecord(row) && isRecord(row.object) ? { ...row, object: convertReplyValue(row.object) } : row)) };
  }
  return value;
}

function convertReply(reply: ApiResponse): ApiResponse {
  if ('watch' in reply) {
    const transform = reply.transform;
    return { ...reply, transform: (object, type) => convertReplyValue(transform(object, type)) };
  }
  if ('stream' in reply) return reply;
  const contentType = reply.headers['Content-Type'] ?? '';
  if (!contentType.startsWith('application/json') || typeof reply.body !== 'string') return reply;
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.body);
  } catch {
    return reply;
  }
  const converted: ApiReply = { ...reply, body: JSON.stringify(convertReplyValue(parsed)) };
  return converted;
}

function readBody(request: ApiRequest, contentType?: string): unknown {
  if (request.parsedBody !== undefined) return request.parsedBody;
  return decodeBody(request.body ?? Buffer.alloc(0), contentType ?? request.headers['content-type']);
}


/** The virtual-resource handler for autoscaling/v1 horizontalpodautoscalers. */
export function horizontalPodAutoscalerV1Handler(api: ApiServer): VirtualResourceHandler {
  return async (request, { namespace, name, rest }) => {
    if (rest.length > 1 || (rest.length === 1 && rest[0] !== 'status')) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    const v2Def = api.registry.lookup('autoscaling', 'v2', 'horizontalpodautoscalers');
    if (!v2Def) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    const path = request.path.replace('/apis/autoscaling/v1/', '/apis/autoscaling/v2/');
    // Replies are rewritten as JSON, so the forwarded request never asks for protobuf.
    const accept = request.headers['accept'];
    const headers = { ...request.headers, accept: accept && accept.includes('protobuf') && !accept.includes('as=Table') ? 'application/json' : accept };
    const forward = async (overrides: Partial<ApiRequest>): Promise<ApiResponse> => convertReply(await api.handle({ ...request, path, headers, body: undefined, ...overrides }));
    switch (request.method) {
      case 'GET':
      case 'DELETE':
        return forward({ body: request.body, parsedBody: request.parsedBody });
      case 'POST':
      case 'PUT': {
        const body = readBody(request);
        if (!isRecord(body)) throw ApiError.badRequest('the body of the request must be an autoscaling/v1 HorizontalPodAutoscaler object');
        if (body.apiVersion !== undefined && body.apiVersion !== V1) throw ApiError.badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${V1})`);
        return forward({ parsedBody: toV2(body), headers: { ...headers, 'content-type': 'application/json' } });
      }
      case 'PATCH': {
        const contentType = mediaType(request.headers['content-type']);
        if (contentType === 'application/apply-patch+yaml') {
          const patch = readBody(request, 'application/yaml');
          if (!isRecord(patch)) throw ApiError.badRequest('error decoding YAML: the applied configuration must be an object');
          return forward({ parsedBody: toV2(patch, true) });
        }
        const patch = readBody(request, 'application/json');
        if (name === undefined) throw ApiError.methodNotAllowed();
        for (let attempt = 0; ; attempt++) {
          const current = api.objects.get(v2Def, namespace, name);
          const patched = applyPatchDocument(contentType, toV1(current), patch, V1, KIND);
          if (!isRecord(patched)) throw ApiError.badRequest('the patch did not produce an object');
          const desired = toV2(patched);
          const metadata = recordOf(desired.metadata);
          const explicitVersion = metadata.resourceVersion !== current.metadata.resourceVersion;
          if (!explicitVersion) metadata.resourceVersion = current.metadata.resourceVersion;
          const reply = await forward({ method: 'PUT', parsedBody: desired, headers: { ...headers, 'content-type': 'application/json' } });
          if (reply.status === 409 && !explicitVersion && attempt < 5) continue;
          return reply;
        }
      }
      default:
        throw ApiError.methodNotAllowed();
    }
  };
}
