// Operations on JSON values guided by a TypeNode, after structured-merge-diff's typed package:
// the set of fields a value sets (tofieldset.go), the comparison of two values into added,
// modified and removed paths (compare.go), the apply merge of a configuration onto a live value
// (merge.go: associative lists merge item by item, set lists as sets, atomic values are
// replaced), the removal of items named by a set (remove.go), and the checks a value must pass to
// be typed (validate.go: keyed-list items carry their keys, no two items share a key or a value).
import { jsonEqual } from '../../../shared/kubernetes/json';
import { isRecord } from '../../../shared/kubernetes/types';
import { FieldSet, fieldElement, indexElement, keyElement, valueElement, type Path } from './fieldSet';
import { elementTypeOf, fieldType, type TypeNode } from './typeSchema';

/** Thrown when a value does not fit its type (an associative list item without its key). */
export class TypeError extends Error {}

type Json = Record<string, unknown>;

/**
 * The path element of a list item; undefined for atomic lists. `strict` refuses items that lack
 * a key field (apply configurations); otherwise such items fall back to their index.
 */
export function listItemElement(item: unknown, index: number, type: TypeNode, strict: boolean, path: Path): string | undefined {
  if (type.list === 'set') return valueElement(item);
  if (type.list !== 'map') return undefined;
  const keys: Record<string, unknown> = {};
  for (const key of type.keys ?? []) {
    const value = isRecord(item) && item[key.name] !== undefined && item[key.name] !== null ? item[key.name] : key.default;
    if (value === undefined) {
      if (strict) throw new TypeError(`${pathText(path)}: element ${index}: associative list with keys has an element that omits key field "${key.name}" (and doesn't have default value)`);
      return indexElement(index);
    }
    keys[key.name] = value;
  }
  return keyElement(keys);
}

/**
 * What keeps `value` from being typed, as structured-merge-diff's validation words it (validate.go,
 * fieldpath PathElement.String): `.spec.containers: duplicate entries for key [name="app"]`,
 * `.secrets: element 0: associative list with keys has an element that omits key field "name" (and
 * doesn't have default value)`. Object members are walked in name order.
 */
export function typingErrors(value: unknown, type: TypeNode): string[] {
  const errors: string[] = [];
  checkTyping(value, type, '', errors);
  return errors;
}

function checkTyping(value: unknown, type: TypeNode, path: string, errors: string[]): void {
  if (isGranularObject(value, type)) {
    for (const key of Object.keys(value).sort()) checkTyping(value[key], fieldType(type, key), `${path}.${key}`, errors);
    return;
  }
  if (!isGranularList(value, type)) return;
  const itemType = elementTypeOf(type);
  const seen = new Set<string>();
  for (let index = 0; index < value.length; index++) {
    const item = value[index];
    let element: string;
    if (type.list === 'set') {
      element = `[=${goValueText(item)}]`;
    } else {
      const missing = (type.keys ?? []).find((key) => !isRecord(item) || ((item[key.name] === undefined || item[key.name] === null) && key.default === undefined));
      if (missing) {
        // upstream gives up on the rest of the list: without a key nothing under it can be named
        errors.push(`${path}: element ${index}: associative list with keys has an element that omits key field "${missing.name}" (and doesn't have default value)`);
        return;
      }
      const record = isRecord(item) ? item : {};
      const keys = [...(type.keys ?? [])].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
      element = `[${keys.map((key) => `${key.name}=${goValueText(record[key.name] ?? key.default)}`).join(',')}]`;
    }
    if (seen.has(element)) errors.push(`${path}: duplicate entries for key ${element}`);
    seen.add(element);
    if (type.list === 'map') checkTyping(item, itemType, `${path}${element}`, errors);
  }
}

/** A value as structured-merge-diff's value.ToString prints it: strings quoted, numbers and booleans bare. */
function goValueText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(goValueText).join(',')}]`;
  if (isRecord(value)) return `{${Object.keys(value).sort().map((key) => `${key}=${goValueText(value[key])}`).join(',')}}`;
  return String(value);
}

function pathText(path: Path): string {
  return path.map((element) => (element.startsWith('f:') ? `.${element.slice(2)}` : `[${element.slice(2)}]`)).join('');
}

function isGranularObject(value: unknown, type: TypeNode): value is Json {
  return isRecord(value) && !type.atomic;
}

function isGranularList(value: unknown, type: TypeNode): value is unknown[] {
  return Array.isArray(value) && (type.list === 'map' || type.list === 'set');
}

/** The set of paths a value sets (typed.ToFieldSet). */
export function toFieldSet(value: unknown, type: TypeNode, strict = true): FieldSet {
  const set = new FieldSet();
  collect(value, type, set, [], strict);
  return set;
}

/** Adds the paths under `value` to `node`; returns whether the value is a leaf (owned whole). */
function collect(value: unknown, type: TypeNode, node: FieldSet, path: string[], strict: boolean): boolean {
  if (isGranularObject(value, type)) {
    for (const key of Object.keys(value)) {
      const childValue = value[key];
      const element = fieldElement(key);
      const child = node.child(element);
      const leaf = collect(childValue, fieldType(type, key), child, [...path, element], strict);
      if (leaf || childValue === null || (isRecord(childValue) && Object.keys(childValue).length === 0)) child.member = true;
      if (!child.member && child.isEmpty()) node.children.delete(element);
    }
    return false;
  }
  if (isGranularList(value, type)) {
    const itemType = elementTypeOf(type);
    value.forEach((item, index) => {
      const element = listItemElement(item, index, type, strict, path);
      if (element === undefined) return;
      const child = node.child(element);
      child.member = true;
      if (type.list === 'map') collect(item, itemType, child, [...path, element], strict);
    });
    return false;
  }
  return true;
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

// Go value structs are always present in the typed object, so upstream never reports them as
// added or removed themselves (only their fields); these are the common ones.
const valueStructNames = new Set(['spec', 'status', 'template', 'strategy', 'updateStrategy', 'jobTemplate', 'metadata']);

/** Paths added, modified and removed from `left` to `right` (typed.Compare). */
export function compareValues(left: unknown, right: unknown, type: TypeNode): Comparison {
  const comparison: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareAt(left, right, type, [], comparison);
  return comparison;
}

function compareAt(left: unknown, right: unknown, type: TypeNode, path: string[], comparison: Comparison): void {
  if (left === undefined && right === undefined) return;
  const bothObjects = (left === undefined || isGranularObject(left, type)) && (right === undefined || isGranularObject(right, type));
  const bothLists = (left === undefined || isGranularList(left, type)) && (right === undefined || isGranularList(right, type));
  if (bothObjects) {
    const leftObject = left ?? {};
    const rightObject = right ?? {};
    const keys = new Set([...Object.keys(leftObject), ...Object.keys(rightObject)]);
    for (const key of keys) compareAt(leftObject[key], rightObject[key], fieldType(type, key), [...path, fieldElement(key)], comparison);
  } else if (bothLists) {
    const itemType = elementTypeOf(type);
    const leftItems = itemsByElement(left ?? [], type, path);
    const rightItems = itemsByElement(right ?? [], type, path);
    const elements = new Set([...leftItems.keys(), ...rightItems.keys()]);
    for (const element of elements) {
      const itemPath = [...path, element];
      const leftItem = leftItems.get(element);
      const rightItem = rightItems.get(element);
      if (type.list === 'map') {
        compareAt(leftItem, rightItem, itemType, itemPath, comparison);
      } else if (leftItem === undefined) {
        comparison.added.insert(itemPath);
      } else if (rightItem === undefined) {
        comparison.removed.insert(itemPath);
      }
    }
  } else {
    if (left === undefined) comparison.added.insert(path);
    else if (right === undefined) comparison.removed.insert(path);
    else if (!jsonEqual(left, right)) comparison.modified.insert(path);
    return;
  }
  if (path.length === 0) return;
  const last = path[path.length - 1];
  if (last.startsWith('f:') && valueStructNames.has(last.slice(2))) return;
  if (left === undefined) comparison.added.insert(path);
  else if (right === undefined) comparison.removed.insert(path);
}

function itemsByElement(items: unknown[], type: TypeNode, path: Path): Map<string, unknown> {
  const byElement = new Map<string, unknown>();
  items.forEach((item, index) => {
    const element = listItemElement(item, index, type, false, path);
    if (element !== undefined && !byElement.has(element)) byElement.set(element, item);
  });
  return byElement;
}

/**
 * Merges an applied configuration onto a live value (merge.go with the apply rules): the
 * configuration wins for scalars and atomic values, objects merge member by member, associative
 * lists item by item in the configuration's order, set lists as sets. `null` in the configuration
 * clears the member. Inputs are not modified.
 */
export function mergeValues(live: unknown, config: unknown, type: TypeNode, path: string[] = []): unknown {
  if (config === undefined) return structuredClone(live);
  if (isGranularObject(live, type) && isGranularObject(config, type)) {
    const out: Json = structuredClone(live);
    for (const key of Object.keys(config)) {
      const value = config[key];
      if (value === null) delete out[key];
      else out[key] = mergeValues(live[key], value, fieldType(type, key), [...path, fieldElement(key)]);
    }
    return out;
  }
  if (isGranularList(live, type) && isGranularList(config, type)) return mergeLists(live, config, type, path);
  if (isRecord(config) && !type.atomic) return dropNulls(config);
  return structuredClone(config);
}

function dropNulls(value: Json): Json {
  const out: Json = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null) continue;
    out[key] = isRecord(member) ? dropNulls(member) : structuredClone(member);
  }
  return out;
}

function mergeLists(live: unknown[], config: unknown[], type: TypeNode, path: string[]): unknown[] {
  const itemType = elementTypeOf(type);
  const liveElements = live.map((item, index) => listItemElement(item, index, type, false, path) ?? indexElement(index));
  const configElements = config.map((item, index) => listItemElement(item, index, type, true, path) ?? indexElement(index));
  const liveByElement = new Map<string, unknown>();
  liveElements.forEach((element, index) => {
    if (!liveByElement.has(element)) liveByElement.set(element, live[index]);
  });
  const configSet = new Set(configElements);
  const emitted = new Set<string>();
  const out: unknown[] = [];
  const emit = (element: string, configItem: unknown): void => {
    if (emitted.has(element)) return;
    emitted.add(element);
    const liveItem = liveByElement.get(element);
    if (configItem === undefined) out.push(structuredClone(liveItem));
    else if (type.list === 'set' || liveItem === undefined) out.push(type.list === 'map' ? mergeValues(undefined, configItem, itemType, [...path, element]) : structuredClone(configItem));
    else out.push(mergeValues(liveItem, configItem, itemType, [...path, element]));
  };
  // merge.go's order: live items the configuration does not mention stay where they were, the
  // rest follow the configuration's order.
  let liveIndex = 0;
  let configIndex = 0;
  while (liveIndex < live.length || configIndex < config.length) {
    if (liveIndex < live.length && emitted.has(liveElements[liveIndex])) {
      liveIndex++;
      continue;
    }
    if (liveIndex < live.length && !configSet.has(liveElements[liveIndex])) {
      emit(liveElements[liveIndex], undefined);
      liveIndex++;
      continue;
    }
    if (configIndex < config.length) {
      emit(configElements[configIndex], config[configIndex]);
      configIndex++;
      continue;
    }
    liveIndex++;
  }
  return out;
}

/** Removes from `value` (in place) every member of `set` (typed.RemoveItems). */
export function removeItems(value: unknown, set: FieldSet, type: TypeNode, path: string[] = []): void {
  if (isGranularObject(value, type)) {
    for (const key of Object.keys(value)) {
      const node = set.children.get(fieldElement(key));
      if (!node) continue;
      if (node.member) delete value[key];
      else removeItems(value[key], node, fieldType(type, key), [...path, fieldElement(key)]);
    }
    return;
  }
  if (isGranularList(value, type)) {
    const itemType = elementTypeOf(type);
    const kept: unknown[] = [];
    value.forEach((item, index) => {
      const element = listItemElement(item, index, type, false, path) ?? indexElement(index);
      const node = set.children.get(element);
      if (node?.member) return;
      if (node) removeItems(item, node, itemType, [...path, element]);
      kept.push(item);
    });
    value.splice(0, value.length, ...kept);
  }
}

/**
 * The set with every named field on the way to a member made a member too
 * (fieldpath.Set.EnsureNamedFieldsAreMembers), so pruning can remove a whole field.
 */
export function withNamedFieldsAsMembers(set: FieldSet): FieldSet {
  const out = set.clone();
  mark(out);
  return out;
}

function mark(node: FieldSet): void {
  for (const [element, child] of node.children) {
    if (element.startsWith('f:') && !child.isEmpty()) child.member = true;
    mark(child);
  }
}

/** Every path of the set plus all their ancestors. */
export function withAncestors(set: FieldSet): FieldSet {
  const out = set.clone();
  markAll(out);
  return out;
}

function markAll(node: FieldSet): boolean {
  let any = false;
  for (const child of node.children.values()) {
    if (markAll(child) || child.member) {
      child.member = true;
      any = true;
    }
  }
  return any;
}
