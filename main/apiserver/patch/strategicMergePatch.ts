// Strategic merge patch (`application/strategic-merge-patch+json`: `kubectl patch` by default,
// client-side `apply`/`diff`, `set image`, `rollout restart`, `cordon`), following the server-side
// path of k8s.io/apimachinery/pkg/util/strategicpatch/patch.go (StrategicMergeMapPatch with
// MergeParallelList and IgnoreUnmatchedNulls):
// - maps merge key by key, `null` deletes; a map field tagged `replace` is replaced whole;
// - lists tagged `merge` with a merge key merge element by element; lists of primitives tagged
//   `merge` are merged as sets; all other lists are replaced;
// - directives: `$patch: replace|delete` in a map, `$patch: delete|replace` as a list element
//   (`$patch: merge` is refused, as upstream does), `$retainKeys`, `$setElementOrder/<list>`,
//   `$deleteFromPrimitiveList/<list>`;
// - merged lists are ordered as upstream orders them: `$setElementOrder` first, then the patch's
//   order, then the live order for elements the patch does not mention.
// Differences, on purpose: fields missing from the PatchSchema behave as untagged fields (upstream
// refuses unknown fields of a typed struct, which cannot occur for objects it stored itself);
// other `$`-prefixed keys are refused as unknown directives (upstream's typed decoding would drop
// them, or fail with fieldValidation=Strict); directive keys left in the result are removed, as
// upstream's decoding into Go structs drops them. Errors are PatchError with upstream's codes and
// texts (see patchError.ts).
import { isRecord } from '../../../shared/kubernetes/types';
import { cloneJson, formatGoValue, goTypeName, hasOwn, jsonTypeWord, setOwn, type JsonObject } from './jsonValue';
import { PatchError } from './patchError';
import { emptyPatchSchema, lookupPatchField, type PatchFieldSchema, type PatchSchema } from './patchSchema';

const directiveMarker = '$patch';
const retainKeysDirective = '$retainKeys';
const setElementOrderPrefix = '$setElementOrder';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';

/** Keys other than directives that may start with `$` (JSONSchemaProps in CustomResourceDefinitions). */
const dollarFields = new Set(['$ref', '$schema']);

const errorBadPatchFormatForPrimitiveList = 'invalid patch format of primitive list';
const errorBadPatchFormatForRetainKeys = 'invalid patch format of retainKeys';
const errorBadPatchFormatForSetElementOrderList = 'invalid patch format of setElementOrder list';

/**
 * Applies a strategic merge patch to `doc` using the field metadata in `schema` (see
 * patchSchemaFor) and returns the merged copy; inputs are not modified. Throws PatchError.
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, schema: PatchSchema): unknown {
  if (patch === null) return cloneJson(doc);
  if (!isRecord(patch)) throw PatchError.malformed(`json: cannot unmarshal ${jsonTypeWord(patch)} into Go value of type map[string]interface {}`);
  if (!isRecord(doc)) throw PatchError.malformed('invalid JSON document');
  const merged = mergeMap(cloneJson(doc) as JsonObject, cloneJson(patch) as JsonObject, schema, '');
  stripDirectives(merged);
  return merged;
}

type ElementKind = 'map' | 'string' | 'number' | 'bool';

// Both arguments of the merge functions below are private deep copies, so they are changed in place.

function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema, path: string): JsonObject {
  if (hasOwn(patch, directiveMarker)) {
    const directive = patch[directiveMarker];
    if (directive === 'replace') {
      delete patch[directiveMarker];
      return patch;
    }
    if (directive === 'delete') return {};
    throw badPatchType(directive, patch);
  }
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, schema);

  for (const patchKey of Object.keys(patch)) {
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(deleteFromPrimitiveListPrefix)) {
      key = extractKey(patchKey, deleteFromPrimitiveListPrefix, errorBadPatchFormatForPrimitiveList);
      isDeleteList = true;
    } else if (patchKey.startsWith('$') && !dollarFields.has(patchKey)) {
      throw PatchError.malformed(`strict decoding error: unknown field "${path}${patchKey}"`);
    }
    const patchValue = patch[patchKey];
    // A null deletes the field; unmatched nulls are dropped (IgnoreUnmatchedNulls).
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    // A deletion list for a missing (or non-list) field is dropped rather than stored.
    if (!hasOwn(original, key) || valueKind(original[key]) !== valueKind(patchValue)) {
      if (!isDeleteList) insertPatchValue(original, key, patchValue);
      continue;
    }
    const current = original[key];
    const field = lookupPatchField(schema, key);
    if (isRecord(current) && isRecord(patchValue)) {
      setOwn(original, key, field?.strategy === 'replace' ? patchValue : mergeMap(current, patchValue, field?.schema ?? emptyPatchSchema, `${path}${key}.`));
    } else if (Array.isArray(current) && Array.isArray(patchValue)) {
      setOwn(original, key, mergeListField(goSlice(current), patchValue, field, isDeleteList, `${path}${key}`));
    } else {
      insertPatchValue(original, key, patchValue);
    }
  }
  return original;
}

/** A patch value taken as is loses its nested nulls and any map carrying `$patch` (upstream removeDirectives). */
function insertPatchValue(original: JsonObject, key: string, patchValue: unknown): void {
  discardNulls(patchValue);
  const [cleaned, keep] = removeDirectives(patchValue);
  if (keep) setOwn(original, key, cleaned);
  else delete original[key];
}

function discardNulls(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) discardNulls(item);
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      if (value[key] === null) delete value[key];
      else discardNulls(value[key]);
    }
  }
}

function removeDirectives(value: unknown): [unknown, boolean] {
  if (Array.isArray(value)) {
    const kept: unknown[] = [];
    for (const item of value) {
      const [cleaned, keep] = removeDirectives(item);
      if (keep) kept.push(cleaned);
    }
    return [kept, true];
  }
  if (isRecord(value)) {
    if (hasOwn(value, directiveMarker)) return [null, false];
    for (const key of Object.keys(value)) {
      const [cleaned, keep] = removeDirectives(value[key]);
      if (keep) setOwn(value, key, cleaned);
      else delete value[key];
    }
  }
  return [value, true];
}

function valueKind(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (Array.isArray(value)) return 'slice';
  return typeof value;
}

/** upstream applyRetainKeysDirective: drop live keys not listed; every set patch key must be listed. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, retainKeysDirective)) return;
  const retained = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retained)) throw PatchError.malformed(errorBadPatchFormatForRetainKeys);
  const keep = new Set(retained.filter((item): item is string => typeof item === 'string'));
  for (const key of Object.keys(patch)) {
    if (patch[key] === null || key.startsWith(deleteFromPrimitiveListPrefix) || key.startsWith(setElementOrderPrefix)) continue;
    if (!keep.has(key)) throw PatchError.malformed(errorBadPatchFormatForRetainKeys);
  }
  for (const key of Object.keys(original)) {
    if (!keep.has(key)) delete original[key];
  }
}

/** upstream mergePatchIntoOriginal: merges each list that has a `$setElementOrder/<list>` and orders it. */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, schema: PatchSchema): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(setElementOrderPrefix) || !hasOwn(patch, directiveKey)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw badArgType('[]interface {}', order);
    const key = extractKey(directiveKey, setElementOrderPrefix, errorBadPatchFormatForSetElementOrderList);
    const foundOriginal = hasOwn(original, key);
    const foundPatch = hasOwn(patch, key);
    const originalList = foundOriginal ? original[key] : [];
    const patchList = foundPatch ? patch[key] : [];
    if (!Array.isArray(originalList)) throw badArgType('[]interface {}', originalList);
    if (!Array.isArray(patchList)) throw badArgType('[]interface {}', patchList);
    const field = lookupPatchField(schema, key);
    const mergeKey = field?.mergeKey ?? '';
    validatePatchWithSetOrderList(patchList, order, mergeKey);

    // Upstream orders by the live list *after* merging into it in place: deletions shift its
    // elements and appends may fill the freed slots (Go slices share their backing array).
    // Emulating that keeps results identical, e.g. where an added element lands.
    const live = goSlice(originalList);
    let merged: unknown[];
    if (foundOriginal && foundPatch) merged = mergeListField(live, patchList, field, false, key);
    else if (foundOriginal) merged = originalList;
    else if (foundPatch) merged = removeDirectives(patchList)[0] as unknown[];
    else continue;

    const [patchItems, serverOnlyItems] = mergeKey === '' ? partitionPrimitives(merged, order) : partitionMaps(merged, order, mergeKey);
    const kind = elementKind([originalList, patchList]);
    setOwn(original, key, normalizeElementOrder(patchItems, serverOnlyItems, order, live.items, mergeKey, kind));
    delete patch[key];
  }
}

/** upstream validatePatchWithSetOrderList: patch elements must appear in `$setElementOrder`, in its order. */
function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const candidates = mergeKey === '' ? patchList : splitDeletions(patchList).kept;
  let patchIndex = 0;
  let orderIndex = 0;
  while (patchIndex < candidates.length && orderIndex < order.length) {
    const candidate = candidates[patchIndex];
    if (isRecord(candidate) && hasOwn(candidate, directiveMarker)) {
      patchIndex++;
      continue;
    }
    if (mergeKeyValueEqual(candidate, order[orderIndex], mergeKey)) patchIndex++;
    orderIndex++;
  }
  if (patchIndex < candidates.length && orderIndex >= order.length) {
    throw PatchError.unclassified(`The order in patch list:\n${formatGoValue(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${formatGoValue(order)}\n`);
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return sameScalar(left, right);
  if (!isRecord(left)) throw badArgType('map[string]interface {}', left);
  if (!isRecord(right)) throw badArgType('map[string]interface {}', right);
  if (!hasOwn(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!hasOwn(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return sameScalar(left[mergeKey], right[mergeKey]);
}

/** Go's `==` on decoded JSON scalars; nil equals nil (absent and null alike). */
function sameScalar(left: unknown, right: unknown): boolean {
  if ((left === null || left === undefined) && (right === null || right === undefined)) return true;
  return left === right;
}

/** A Go slice header over a backing array that other headers may share. */
interface GoSlice {
  readonly items: unknown[];
  readonly length: number;
  readonly capacity: number;
}

/** A slice whose capacity equals its length, as upstream's ToUnstructured makes them. */
function goSlice(list: unknown[]): GoSlice {
  return { items: [...list], length: list.length, capacity: list.length };
}

function sliceValues(slice: GoSlice): unknown[] {
  return slice.items.slice(0, slice.length);
}

/** Go's `append(s[:i], s[i+1:]...)`: shifts the tail left within the shared backing array. */
function removeAt(slice: GoSlice, index: number): GoSlice {
  for (let position = index; position < slice.length - 1; position++) slice.items[position] = slice.items[position + 1];
  return { ...slice, length: slice.length - 1 };
}

/** Go's `append(s, value)`: writes into the shared backing array while capacity allows, else copies. */
function appendTo(slice: GoSlice, value: unknown): GoSlice {
  if (slice.length < slice.capacity) {
    slice.items[slice.length] = value;
    return { ...slice, length: slice.length + 1 };
  }
  const items = [...sliceValues(slice), value];
  return { items, length: items.length, capacity: items.length * 2 };
}

/** upstream mergeSliceHandler: merge when the field is tagged merge (or for a deletion list), else the patch list replaces. */
function mergeListField(original: GoSlice, patch: unknown[], field: PatchFieldSchema | undefined, isDeleteList: boolean, path: string): unknown[] {
  if (field?.strategy !== 'merge' && !isDeleteList) return patch;
  return mergeList(original, patch, field?.items ?? emptyPatchSchema, field?.mergeKey ?? '', isDeleteList, path);
}

/** upstream mergeSlice. */
function mergeList(originalSlice: GoSlice, patch: unknown[], itemSchema: PatchSchema, mergeKey: string, isDeleteList: boolean, path: string): unknown[] {
  const original = sliceValues(originalSlice);
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind([original, patch]);
  if (kind !== 'map') {
    if (isDeleteList) return original.filter((item) => !patch.some((deleted) => sameScalar(item, deleted)));
    const merged = deduplicate([...original, ...patch]);
    const [patchItems, serverOnlyItems] = partitionPrimitives(merged, patch);
    return normalizeElementOrder(patchItems, serverOnlyItems, patch, original, mergeKey, kind);
  }
  // Only primitive lists are tagged merge without a merge key, so the element type is a string.
  if (mergeKey === '') throw PatchError.unclassified('cannot merge lists without merge key for string');
  const special = applySpecialElements(originalSlice, patch as JsonObject[], mergeKey);
  const serverOrder = sliceValues(special.original);
  const merged = mergeByKey(special.original, special.patch, mergeKey, itemSchema, path);
  const [patchItems, serverOnlyItems] = partitionMaps(merged, special.patch, mergeKey);
  return normalizeElementOrder(patchItems, serverOnlyItems, special.patch, serverOrder, mergeKey, kind);
}

/** upstream mergeSliceWithSpecialElements: `$patch: delete` removes by key, `$patch: replace` replaces the list. */
function applySpecialElements(original: GoSlice, patch: JsonObject[], mergeKey: string): { original: GoSlice; patch: JsonObject[] } {
  const plain: JsonObject[] = [];
  let live = original;
  let replace = false;
  for (const item of patch) {
    if (!hasOwn(item, directiveMarker)) {
      plain.push(item);
      continue;
    }
    const directive = item[directiveMarker];
    if (directive === 'delete') {
      if (!hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      for (let index = findByKey(sliceValues(live), mergeKey, item[mergeKey]); index >= 0; index = findByKey(sliceValues(live), mergeKey, item[mergeKey])) {
        live = removeAt(live, index);
      }
    } else if (directive === 'replace') {
      // Keep scanning: the remaining directive elements are still dropped from the list.
      replace = true;
    } else if (directive === 'merge') {
      throw PatchError.unclassified('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, item);
    }
  }
  return replace ? { original: goSlice(plain), patch: [] } : { original: live, patch: plain };
}

/** upstream mergeSliceWithoutSpecialElements: merge into the element with the same key, else append. */
function mergeByKey(original: GoSlice, patch: JsonObject[], mergeKey: string, itemSchema: PatchSchema, path: string): unknown[] {
  let result = original;
  patch.forEach((item, index) => {
    if (!hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const position = findByKey(sliceValues(result), mergeKey, item[mergeKey]);
    if (position >= 0) result.items[position] = mergeMap(result.items[position] as JsonObject, item, itemSchema, `${path}[${index}].`);
    else result = appendTo(result, item);
  });
  return sliceValues(result);
}

/** upstream sliceElementType: all elements must share one type, and lists of lists are refused. */
function elementKind(lists: unknown[][]): ElementKind {
  let kind: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const current = valueKind(item);
      if (kind === undefined) {
        if (current === 'slice') throw PatchError.unprocessable('lists of lists are not supported');
        kind = current;
      } else if (kind !== current) {
        throw PatchError.unclassified(`list element types are not identical: ${formatGoValue(lists)}`);
      }
    }
  }
  if (kind === undefined) throw PatchError.unclassified('no elements in any of the given slices');
  if (kind === 'object') return 'map';
  if (kind === 'boolean') return 'bool';
  if (kind === 'string' || kind === 'number') return kind;
  throw PatchError.unclassified(`list element types are not identical: ${formatGoValue(lists)}`);
}

function deduplicate(items: unknown[]): unknown[] {
  const result: unknown[] = [];
  for (const item of items) if (!result.some((kept) => sameScalar(kept, item))) result.push(item);
  return result;
}

/** Splits into [items present in `by`, items absent from it]. */
function partitionPrimitives(items: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const present = items.filter((item) => by.some((entry) => sameScalar(entry, item)));
  const absent = items.filter((item) => !by.some((entry) => sameScalar(entry, item)));
  return [present, absent];
}

/** Splits maps into [those whose merge key value appears in `by`, the others]. */
function partitionMaps(items: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const present: unknown[] = [];
  const absent: unknown[] = [];
  for (const item of items) {
    if (!isRecord(item)) throw badArgType('map[string]interface {}', item);
    if (!hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    if (findByKey(by, mergeKey, item[mergeKey]) >= 0) present.push(item);
    else absent.push(item);
  }
  return [present, absent];
}

/** upstream findMapInSliceBasedOnKeyValue: the position of the first map with that key value, or -1. */
function findByKey(list: unknown[], mergeKey: string, value: unknown): number {
  for (let index = 0; index < list.length; index++) {
    const entry = list[index];
    if (!isRecord(entry)) throw PatchError.unclassified(`value for key ${index} is not a map.`);
    if (hasOwn(entry, mergeKey) && sameScalar(entry[mergeKey], value)) return index;
  }
  return -1;
}

function splitDeletions(items: unknown[]): { kept: unknown[]; deleted: unknown[] } {
  const kept: unknown[] = [];
  const deleted: unknown[] = [];
  for (const item of items) {
    if (!isRecord(item)) throw badArgType('map[string]interface {}', item);
    if (item[directiveMarker] === 'delete') deleted.push(item);
    else kept.push(item);
  }
  return { kept, deleted };
}

/**
 * upstream normalizeElementOrder: sorts the patch's elements by `patchOrder` and the live-only
 * elements by `serverOrder`, then interleaves them, keeping both relative orders.
 */
function normalizeElementOrder(patchItems: unknown[], serverOnlyItems: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  const sortedPatch = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const sortedServer = normalizeSliceOrder(serverOnlyItems, serverOrder, mergeKey, kind);
  const serverIndex = indexer(serverOrder, mergeKey, kind);
  const result: unknown[] = [];
  let left = 0;
  let right = 0;
  while (left < sortedServer.length || right < sortedPatch.length) {
    if (left >= sortedServer.length) result.push(sortedPatch[right++]);
    else if (right >= sortedPatch.length) result.push(sortedServer[left++]);
    else {
      const leftIndex = serverIndex(sortedServer[left]);
      const rightIndex = serverIndex(sortedPatch[right]);
      if (leftIndex >= 0 && rightIndex >= 0 && leftIndex < rightIndex) result.push(sortedServer[left++]);
      else result.push(sortedPatch[right++]);
    }
  }
  return result;
}

/** upstream normalizeSliceOrder: stable sort by position in `order`; `$patch: delete` elements go last. */
function normalizeSliceOrder(items: unknown[], order: unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  let toSort = items;
  let deleted: unknown[] = [];
  if (kind === 'map') {
    for (const list of [items, order]) {
      for (const item of list) {
        if (!isRecord(item)) throw badArgType('map[string]interface {}', item);
        if (!hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      }
    }
    ({ kept: toSort, deleted } = splitDeletions(items));
  }
  const position = indexer(order, mergeKey, kind);
  const positions = toSort.map(position);
  if (positions.every((index) => index >= 0)) {
    const indexed = toSort.map((item, index) => ({ item, at: positions[index] }));
    indexed.sort((a, b) => a.at - b.at);
    return [...indexed.map((entry) => entry.item), ...deleted];
  }
  return [...insertionSortLikeGo(toSort, positions), ...deleted];
}

/**
 * Upstream's comparator treats an element missing from the order list as "less" than anything,
 * which is not a consistent ordering; Go's stable sort runs it as an insertion sort for lists of
 * up to 20 elements, reproduced here so those rare cases (e.g. an empty `$setElementOrder`) match.
 */
function insertionSortLikeGo(items: unknown[], positions: number[]): unknown[] {
  const entries = items.map((item, index) => ({ item, at: positions[index] }));
  const less = (a: { at: number }, b: { at: number }) => (a.at >= 0 && b.at >= 0 ? a.at < b.at : true);
  for (let index = 1; index < entries.length; index++) {
    for (let cursor = index; cursor > 0 && less(entries[cursor], entries[cursor - 1]); cursor--) {
      [entries[cursor], entries[cursor - 1]] = [entries[cursor - 1], entries[cursor]];
    }
  }
  return entries.map((entry) => entry.item);
}

/** A lookup of an element's first position in `list` (by merge key value for maps), -1 if absent. */
function indexer(list: unknown[], mergeKey: string, kind: ElementKind): (item: unknown) => number {
  const valueOf = (item: unknown): unknown => {
    const value = kind === 'map' ? (isRecord(item) ? item[mergeKey] : null) : item;
    return value === undefined ? null : value;
  };
  const positions = new Map<unknown, number>();
  list.forEach((item, index) => {
    const value = valueOf(item);
    if (!positions.has(value)) positions.set(value, index);
  });
  return (item) => positions.get(valueOf(item)) ?? -1;
}

function extractKey(key: string, prefix: string, formatError: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw PatchError.malformed(formatError);
  return key.slice(slash + 1);
}

/** Removes directive keys from the result, as upstream's decoding into Go structs drops them. */
function stripDirectives(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) stripDirectives(item);
    return;
  }
  if (!isRecord(value)) return;
  for (const key of Object.keys(value)) {
    if (key === directiveMarker || key === retainKeysDirective || key.startsWith(`${setElementOrderPrefix}/`) || key.startsWith(`${deleteFromPrimitiveListPrefix}/`)) {
      delete value[key];
    } else {
      stripDirectives(value[key]);
    }
  }
}

function badPatchType(directive: unknown, map: JsonObject): PatchError {
  return PatchError.unclassified(`unknown patch type: ${formatGoPercentS(directive)} in map: ${formatGoValue(map)}`);
}

function noMergeKey(map: JsonObject, mergeKey: string): PatchError {
  return PatchError.unclassified(`map: ${formatGoValue(map)} does not contain declared merge key: ${mergeKey}`);
}

function badArgType(expected: string, actual: unknown): PatchError {
  return PatchError.unclassified(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}

/** Go's `%s` of an interface{} holding a decoded JSON value. */
function formatGoPercentS(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (typeof value === 'number' || typeof value === 'boolean') return `%!s(${goTypeName(value)}=${formatGoValue(value)})`;
  return formatGoValue(value);
}
