// The patch step of PATCH requests (upstream endpoints/handlers/patch.go): JSON, merge and
// strategic-merge patches by Content-Type, and server-side apply (fieldManager/) when the request
// carries an apply configuration.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { applyConfiguration, type ApplyContext } from '../fieldManager/apply';
import { applyPatchDocument, asClientError } from '../patch/patchDocument';
import { patchSchemaFor } from '../patch/patchSchema';
import { applyStrategicMergePatch } from '../patch/strategicMergePatch';

export const APPLY_PATCH = 'application/apply-patch+yaml';

/** The patched object. Without an apply context an apply configuration merges like a strategic patch. */
export function applyPatch(contentType: string, current: KubeObject, patch: unknown, apiVersion: string, kind: string, apply?: ApplyContext): unknown {
  if (contentType !== APPLY_PATCH) return applyPatchDocument(contentType, current, patch, apiVersion, kind);
  if (!isRecord(patch)) throw ApiError.badRequest('error decoding YAML: the applied configuration must be an object');
  if (patch.apiVersion !== undefined && patch.apiVersion !== apiVersion) throw ApiError.badRequest(`the API version in the data (${String(patch.apiVersion)}) does not match the expected API version (${apiVersion})`);
  if (patch.kind !== undefined && patch.kind !== kind) throw ApiError.badRequest(`the kind in the data (${String(patch.kind)}) does not match the expected kind (${kind})`);
  return asClientError(() => {
    if (apply) return applyConfiguration(current, patch, apply);
    return applyStrategicMergePatch(current, patch, patchSchemaFor(apiVersion, kind));
  });
}
