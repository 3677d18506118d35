// The autoscaling/v1 Scale view a kind's scale subresource declares (upstream ScaleREST of
// deployments, replicasets and statefulsets, and apiextensions-apiserver's for custom resources):
// replicas read from and written to the declared paths, the selector as a string.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { KindStrategy, ScaleSubresource } from '../../registry/strategy';
import { apiVersionOf } from '../../registry/resources';
import { ApiError } from '../apiError';

function segments(path: string): string[] {
  return path.replace(/^\./, '').split('.').filter((segment) => segment !== '');
}

/** The value at a dotted path (`.spec.replicas` or `spec.replicas`). */
export function readPath(obj: unknown, path: string): unknown {
  let current = obj;
  for (const segment of segments(path)) {
    if (!isRecord(current)) return undefined;
    current = current[segment];
  }
  return current;
}

export function writePath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = segments(path);
  let current = obj;
  for (const segment of parts.slice(0, -1)) {
    if (!isRecord(current[segment])) current[segment] = {};
    current = current[segment] as Record<string, unknown>;
  }
  current[parts[parts.length - 1]] = value;
}

/** The Scale of an object. */
export function toScale(obj: KubeObject, scale: ScaleSubresource): KubeObject {
  const specReplicas = readPath(obj, scale.specReplicasPath);
  const statusReplicas = readPath(obj, scale.statusReplicasPath);
  const status: Record<string, unknown> = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  const selector = scale.selector(obj);
  if (selector !== undefined) status.selector = selector;
  return {
    kind: scale.kind,
    apiVersion: apiVersionOf(scale),
    metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion, creationTimestamp: obj.metadata.creationTimestamp },
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status,
  };
}

/**
 * The object with the replicas of `scale` (a PUT body or a patched Scale). A resourceVersion in
 * the Scale is a precondition; a body that does not decode is reported as the decoder would.
 */
export function applyScale(def: KindStrategy, current: KubeObject, body: unknown, scale: ScaleSubresource, source: 'body' | 'patch'): KubeObject {
  const name = current.metadata.name ?? '';
  if (!isRecord(body)) throw ApiError.badRequest(`the body of the request is not a valid ${apiVersionOf(scale)} ${scale.kind}`);
  const replicas = isRecord(body.spec) ? body.spec.replicas : undefined;
  if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas))) {
    const cause = `json: cannot unmarshal ${typeof replicas} into Go struct field ${scale.kind}Spec.spec.replicas of type int32`;
    throw ApiError.badRequest(source === 'body' ? `${scale.kind} in version "${scale.version}" cannot be handled as a ${scale.kind}: ${cause}` : cause);
  }
  if (typeof replicas === 'number' && replicas < 0) {
    throw ApiError.invalid(scale.kind, scale.group, name, [{ type: 'FieldValueInvalid', field: 'spec.replicas', detail: `Invalid value: ${replicas}: must be greater than or equal to 0` }]);
  }
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  if (typeof metadata.resourceVersion === 'string' && metadata.resourceVersion !== '' && metadata.resourceVersion !== current.metadata.resourceVersion) throw ApiError.conflict(def, name);
  const next = structuredClone(current);
  writePath(next, scale.specReplicasPath, replicas ?? 0);
  return next;
}
