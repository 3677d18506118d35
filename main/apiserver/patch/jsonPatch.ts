// JSON patch (RFC 6902, `application/json-patch+json`, what `kubectl patch --type=json` sends), as
// the apiserver applies it: decode like upstream patch.go's applyJSPatch (a strict decode into
// []jsonPatchOp first, which is what the default fieldValidation=Warn/Strict runs), then apply with
// the semantics and error texts of gopkg.in/evanphx/json-patch.v4, the library upstream vendors.
// v4 quirks kept on purpose because kubectl users see them against a real cluster:
// - `replace` of a missing object member adds it (only array indexes must exist);
// - negative array indexes count from the end; `add` at `-` appends;
// - a path without a leading `/` addresses the document root's members by its last segment;
// - `copy` from a missing object member copies `null`; `add` without `value` adds `null`;
// - `replace` of the whole document (`""`) with a scalar is silently ignored.
// Decode errors throw PatchError 400; failed operations throw PatchError 422 (generic message,
// the library text is in `detail`); more than 10000 operations throw 413.
import { isRecord } from '../../../shared/kubernetes/types';
import { jsonEqual } from '../../../shared/kubernetes/json';
import { cloneJson, hasOwn, jsonTypeWord, setOwn, type JsonObject } from './jsonValue';
import { maxJsonPatchOperations, PatchError } from './patchError';

type Container = JsonObject | unknown[];

interface Located {
  container: Container;
  key: string;
}

/** Applies an RFC 6902 patch to `doc` and returns the patched copy; inputs are not modified. */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  const operations = decodeOperations(patch);
  if (!isRecord(doc) && !Array.isArray(doc)) throw PatchError.malformed('Invalid JSON Document');
  const state = { root: cloneJson(doc) as Container };
  for (const operation of operations) {
    const failure = applyOperation(state, operation);
    if (failure !== undefined) throw PatchError.unprocessable(failure);
  }
  return state.root;
}

function decodeOperations(patch: unknown): (JsonObject | null)[] {
  // encoding/json turns a `null` document into an empty patch.
  if (patch === null) return [];
  if (!Array.isArray(patch)) throw PatchError.malformed(`error decoding patch: json: cannot unmarshal ${jsonTypeWord(patch)} into Go value of type []handlers.jsonPatchOp`);
  const operations: (JsonObject | null)[] = [];
  for (const item of patch) {
    if (item === null) {
      operations.push(null);
      continue;
    }
    if (!isRecord(item)) throw PatchError.malformed(`error decoding patch: json: cannot unmarshal ${jsonTypeWord(item)} into Go value of type handlers.jsonPatchOp`);
    for (const field of ['op', 'path', 'from'] as const) {
      const value = item[field];
      if (hasOwn(item, field) && value !== null && typeof value !== 'string') {
        throw PatchError.malformed(`error decoding patch: json: cannot unmarshal ${jsonTypeWord(value)} into Go struct field jsonPatchOp.${field} of type string`);
      }
    }
    operations.push(item);
  }
  if (operations.length > maxJsonPatchOperations) throw PatchError.tooManyOperations(operations.length);
  return operations;
}

const missing = 'missing value';
const invalidIndex = 'invalid index referenced';

/** Applies one operation in place; returns the library's error text when it does not apply. */
function applyOperation(state: { root: Container }, operation: JsonObject | null): string | undefined {
  const op = operation ?? {};
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  const path = stringField(op, 'path');
  const from = stringField(op, 'from');
  const hasValue = hasOwn(op, 'value') && op.value !== null;
  const value = hasValue ? op.value : null;
  switch (kind) {
    case 'add': {
      if (path === undefined) return `add operation failed to decode path: ${missing}`;
      const target = locate(state.root, path);
      if (!target) return `add operation does not apply: doc is missing path: "${path}": ${missing}`;
      const error = addAt(target, cloneJson(value));
      return error === undefined ? undefined : `error in add for path: '${path}': ${error}`;
    }
    case 'remove': {
      if (path === undefined) return `remove operation failed to decode path: ${missing}`;
      const target = locate(state.root, path);
      if (!target) return `remove operation does not apply: doc is missing path: "${path}": ${missing}`;
      const error = removeAt(target);
      return error === undefined ? undefined : `error in remove for path: '${path}': ${error}`;
    }
    case 'replace': {
      if (path === undefined) return `replace operation failed to decode path: operation missing path field: ${missing}`;
      if (path === '') {
        if (isRecord(value) || Array.isArray(value)) state.root = cloneJson(value) as Container;
        return undefined;
      }
      const target = locate(state.root, path);
      if (!target) return `replace operation does not apply: doc is missing path: ${path}: ${missing}`;
      if (typeof getAt(target) === 'string') return `replace operation does not apply: doc is missing key: ${path}: ${missing}`;
      setAt(target, cloneJson(value));
      return undefined;
    }
    case 'move': {
      if (from === undefined) return `move operation failed to decode from: operation, missing from field: ${missing}`;
      const source = locate(state.root, from);
      if (!source) return `move operation does not apply: doc is missing from path: ${from}: ${missing}`;
      const found = getAt(source);
      if (typeof found === 'string') return `error in move for path: '${source.key}': ${found}`;
      const removeError = removeAt(source);
      if (removeError !== undefined) return `error in move for path: '${source.key}': ${removeError}`;
      if (path === undefined) return `move operation failed to decode path: operation missing path field: ${missing}`;
      const target = locate(state.root, path);
      if (!target) return `move operation does not apply: doc is missing destination path: ${path}: ${missing}`;
      const addError = addAt(target, found.value ?? null);
      return addError === undefined ? undefined : `error in move for path: '${path}': ${addError}`;
    }
    case 'copy': {
      if (from === undefined) return `copy operation failed to decode from: operation, missing from field: ${missing}`;
      const source = locate(state.root, from);
      if (!source) return `copy operation does not apply: doc is missing from path: ${from}: ${missing}`;
      const found = getAt(source);
      if (typeof found === 'string') return `error in copy for from: '${from}': ${found}`;
      if (path === undefined) return `copy operation failed to decode path: ${missing}`;
      const target = locate(state.root, path);
      if (!target) return `copy operation does not apply: doc is missing destination path: ${path}: ${missing}`;
      const addError = addAt(target, cloneJson(found.value ?? null));
      return addError === undefined ? undefined : `error while adding value during copy: ${addError}`;
    }
    case 'test': {
      if (path === undefined) return `test operation failed to decode path: operation missing path field: ${missing}`;
      const failed = `testing value ${path} failed: test failed`;
      if (path === '') return hasValue && jsonEqual(state.root, value) ? undefined : failed;
      const target = locate(state.root, path);
      if (!target) return `test operation does not apply: is missing path: ${path}: ${missing}`;
      const found = getAt(target);
      if (typeof found === 'string') return `error in test for path: '${path}': ${found}`;
      // The library holds JSON null and an absent member alike as "no node".
      if (found.value === undefined || found.value === null) return hasValue ? failed : undefined;
      if (!hasOwn(op, 'value')) return failed;
      return jsonEqual(found.value, value) ? undefined : failed;
    }
    default:
      return `Unexpected kind: ${kind}`;
  }
}

function stringField(op: JsonObject, field: string): string | undefined {
  const value = op[field];
  return typeof value === 'string' ? value : undefined;
}

function decodePointerToken(token: string): string {
  return token.replace(/~[01]/g, (escape) => (escape === '~1' ? '/' : '~'));
}

/** evanphx findObject: walks all but the last token; intermediate nodes must be objects or arrays. */
function locate(root: Container, path: string): Located | undefined {
  const tokens = path.split('/');
  if (tokens.length < 2) return undefined;
  let container: Container = root;
  for (const token of tokens.slice(1, -1)) {
    const found = getAt({ container, key: decodePointerToken(token) });
    if (typeof found === 'string') return undefined;
    const next = found.value;
    if (Array.isArray(next) || isRecord(next)) container = next;
    else return undefined;
  }
  return { container, key: decodePointerToken(tokens[tokens.length - 1]) };
}

/** The value at the location, or the library's error text (arrays only: objects never fail). */
function getAt({ container, key }: Located): { value: unknown } | string {
  if (!Array.isArray(container)) return { value: hasOwn(container, key) ? container[key] : undefined };
  const index = existingIndex(container, key);
  return typeof index === 'string' ? index : { value: container[index] };
}

function existingIndex(list: unknown[], key: string): number | string {
  const parsed = parseGoInt(key);
  if (typeof parsed === 'string') return parsed;
  let index = parsed;
  if (index < 0) {
    if (index < -list.length) return `Unable to access invalid index: ${index}: ${invalidIndex}`;
    index += list.length;
  }
  if (index >= list.length) return `Unable to access invalid index: ${index}: ${invalidIndex}`;
  return index;
}

function addAt({ container, key }: Located, value: unknown): string | undefined {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return undefined;
  }
  if (key === '-') {
    container.push(value);
    return undefined;
  }
  const parsed = parseGoInt(key);
  if (typeof parsed === 'string') return `value was not a proper array index: '${key}': ${parsed}`;
  const size = container.length + 1;
  let index = parsed;
  if (index >= size) return `Unable to access invalid index: ${index}: ${invalidIndex}`;
  if (index < 0) {
    if (index < -size) return `Unable to access invalid index: ${index}: ${invalidIndex}`;
    index += size;
  }
  container.splice(index, 0, value);
  return undefined;
}

function removeAt({ container, key }: Located): string | undefined {
  if (!Array.isArray(container)) {
    if (!hasOwn(container, key)) return `Unable to remove nonexistent key: ${key}: ${missing}`;
    delete container[key];
    return undefined;
  }
  const parsed = parseGoInt(key);
  if (typeof parsed === 'string') return parsed;
  let index = parsed;
  if (index >= container.length) return `Unable to access invalid index: ${index}: ${invalidIndex}`;
  if (index < 0) {
    if (index < -container.length) return `Unable to access invalid index: ${index}: ${invalidIndex}`;
    index += container.length;
  }
  container.splice(index, 1);
  return undefined;
}

/** Only called after getAt succeeded, so an array index is valid. */
function setAt({ container, key }: Located, value: unknown): void {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return;
  }
  const index = existingIndex(container, key);
  if (typeof index === 'number') container[index] = value;
}

const int64Max = 2n ** 63n - 1n;

/** Go strconv.Atoi: an optional sign and decimal digits, or its error text. */
function parseGoInt(text: string): number | string {
  if (!/^[+-]?\d+$/.test(text)) return `strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`;
  const big = BigInt(text);
  if (big > int64Max || big < -int64Max - 1n) return `strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`;
  // Beyond 2^53 precision is lost, but such an index is out of bounds either way.
  return Number(big);
}
