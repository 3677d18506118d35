// JSON merge patch (RFC 7386, `application/merge-patch+json`: `kubectl label`, `annotate`, `scale`),
// with the behaviour of gopkg.in/evanphx/json-patch.v4 MergePatch that upstream's patch handler
// calls: objects merge recursively, `null` deletes a member, anything else (arrays included)
// replaces. A value placed where there was no object is stored with its nested `null` members
// pruned (array elements keep theirs, as the library does). A patch that is not a JSON object is
// refused with 400 `Invalid JSON Patch` (upstream answers the same for `null` and scalars; an array
// there replaces the whole object, which then fails to decode, so the outcome is an error either way).
import { isRecord } from '../../../shared/kubernetes/types';
import { cloneJson, hasOwn, setOwn, type JsonObject } from './jsonValue';
import { PatchError } from './patchError';

/** Applies an RFC 7386 merge patch to `doc` and returns the merged copy; inputs are not modified. */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) throw PatchError.malformed('Invalid JSON Patch');
  const patchCopy = cloneJson(patch) as JsonObject;
  if (!isRecord(doc)) return pruneNulls(patchCopy);
  const result = cloneJson(doc) as JsonObject;
  mergeInto(result, patchCopy);
  return result;
}

/** Both arguments are private copies, so merging moves patch values without cloning again. */
function mergeInto(target: JsonObject, patch: JsonObject): void {
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      delete target[key];
      continue;
    }
    // Own members only: reading `__proto__` through the prototype chain would merge into Object.prototype.
    const current = hasOwn(target, key) ? target[key] : undefined;
    if (isRecord(current) && isRecord(value)) mergeInto(current, value);
    else setOwn(target, key, isRecord(current) ? value : pruneNulls(value));
  }
}

function pruneNulls(value: unknown): unknown {
  if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      if (value[key] === null) delete value[key];
      else pruneNulls(value[key]);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) pruneNulls(item);
  }
  return value;
}
