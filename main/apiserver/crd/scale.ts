// The `scale` subresource of custom resources (apiextensions-apiserver
// pkg/registry/customresource/etcd.go ScaleREST): an autoscaling/v1 Scale read from and written to
// the CRD's specReplicasPath, statusReplicasPath and labelSelectorPath. Writes go through the
// custom resource's normal update path, so its schema and rules still apply.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { json, type ApiServer, type SubresourceHandler } from '../apiServer';
import { decodeBody, mediaType } from '../content';
import { applyJsonPatch } from '../patch/jsonPatch';
import { applyMergePatch } from '../patch/mergePatch';
import type { WriteOptions } from '../resourceStore';
import { customResourceInfo, type ScaleSpec } from './customResourceDef';

function segments(path: string): string[] {
  return path.replace(/^\./, '').split('.').filter((segment) => segment !== '');
}

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

export function toScale(obj: KubeObject, spec: ScaleSpec): KubeObject {
  const specReplicas = readPath(obj, spec.specReplicasPath);
  const statusReplicas = readPath(obj, spec.statusReplicasPath);
  const selector = spec.labelSelectorPath ? readPath(obj, spec.labelSelectorPath) : undefined;
  const status: Record<string, unknown> = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  if (typeof selector === 'string' && selector !== '') status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion, creationTimestamp: obj.metadata.creationTimestamp },
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status,
  };
}

function writeOptions(query: URLSearchParams): WriteOptions {
  const fieldValidation = query.get('fieldValidation');
  return {
    dryRun: query.getAll('dryRun').includes('All'),
    fieldValidation: fieldValidation === 'Ignore' || fieldValidation === 'Strict' ? fieldValidation : 'Warn',
    fieldManager: query.get('fieldManager') ?? undefined,
    warnings: [],
  };
}

export function scaleHandler(api: ApiServer): SubresourceHandler {
  return (request, { def, namespace, name }) => {
    const spec = customResourceInfo(def)?.scale;
    if (!spec) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    const apply = (current: KubeObject, scale: unknown): KubeObject => {
      if (!isRecord(scale)) throw ApiError.badRequest('the body of the request is not a valid autoscaling/v1 Scale');
      const replicas = isRecord(scale.spec) ? scale.spec.replicas : undefined;
      if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas))) {
        throw ApiError.badRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
      }
      if (typeof replicas === 'number' && replicas < 0) {
        throw ApiError.invalid('Scale', 'autoscaling', name, [{ type: 'FieldValueInvalid', field: 'spec.replicas', detail: `Invalid value: ${replicas}: must be greater than or equal to 0` }]);
      }
      const metadata = isRecord(scale.metadata) ? scale.metadata : {};
      if (typeof metadata.resourceVersion === 'string' && metadata.resourceVersion !== '' && metadata.resourceVersion !== current.metadata.resourceVersion) throw ApiError.conflict(def, name);
      const next = structuredClone(current);
      writePath(next, spec.specReplicasPath, replicas ?? 0);
      return next;
    };
    switch (request.method) {
      case 'GET':
        return json(200, toScale(api.objects.get(def, namespace, name), spec));
      case 'PUT': {
        const body = request.parsedBody ?? decodeBody(request.body ?? Buffer.alloc(0), request.headers['content-type']);
        const { object } = api.objects.patch(def, namespace, name, (current) => apply(current, body), writeOptions(request.query));
        return json(200, toScale(object, spec));
      }
      case 'PATCH': {
        const contentType = mediaType(request.headers['content-type']);
        const patch = request.parsedBody ?? decodeBody(request.body ?? Buffer.alloc(0), contentType === 'application/apply-patch+yaml' ? 'application/yaml' : 'application/json');
        const { object } = api.objects.patch(
          def,
          namespace,
          name,
          (current) => {
            const scale = toScale(current, spec);
            const patched = contentType === 'application/json-patch+json' ? applyJsonPatch(scale, patch) : applyMergePatch(scale, patch);
            return apply(current, patched);
          },
          writeOptions(request.query),
        );
        return json(200, toScale(object, spec));
      }
      default:
        throw ApiError.methodNotAllowed();
    }
  };
}
