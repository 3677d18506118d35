// Applies a JSON, merge or strategic-merge patch document by its Content-Type (upstream
// endpoints/handlers/patch.go applyPatcher), for every path that patches objects: the resource
// handler and virtual resources such as autoscaling/v1 HPAs. Server-side apply is not here — it
// needs field ownership (fieldManager/).
import type { KubeObject } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { applyJsonPatch } from './jsonPatch';
import { applyMergePatch } from './mergePatch';
import { PatchError } from './patchError';
import { patchSchemaFor } from './patchSchema';
import { applyStrategicMergePatch } from './strategicMergePatch';

/** The patched object; an unknown Content-Type is 415, a malformed patch 400. */
export function applyPatchDocument(contentType: string, current: KubeObject, patch: unknown, apiVersion: string, kind: string): unknown {
  return asClientError(() => {
    switch (contentType) {
      case 'application/json-patch+json':
        return applyJsonPatch(current, patch);
      case 'application/merge-patch+json':
        return applyMergePatch(current, patch);
      case 'application/strategic-merge-patch+json':
        return applyStrategicMergePatch(current, patch, patchSchemaFor(apiVersion, kind));
      default:
        throw ApiError.unsupportedMediaType(contentType);
    }
  });
}

/**
 * Runs a patch step. Upstream answers some strategic-patch failures with a reason-less 500; a
 * malformed patch is the client's error, so kubedesk keeps the message and answers 400.
 */
export function asClientError<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof PatchError && error.code >= 500) throw ApiError.badRequest(error.detail);
    throw error;
  }
}
