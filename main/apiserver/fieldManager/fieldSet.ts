// Sets of field paths and their FieldsV1 encoding, after sigs.k8s.io/structured-merge-diff
// fieldpath (Set, PathElement, serialize-pe.go) as managedFields carry them: `f:<field>` for a named
// field, `k:{"name":"x"}` for an item of an associative list, `v:<json>` for an item of a set list,
// `i:<n>` for a list index, and `.` for "this node itself is in the set" when it also has children.
// A path is an array of encoded elements; element strings are kept canonical (keys sorted, JSON
// re-encoded) so two equal paths are equal strings.
import { isRecord } from '../../../shared/kubernetes/types';

export type Path = readonly string[];

/** A tree of path elements; `member` marks a node whose own path is in the set. */
export class FieldSet {
  member = false;
  readonly children = new Map<string, FieldSet>();

  static of(...paths: Path[]): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    let node = this.child(path[0]);
    for (const element of path.slice(1)) node = node.child(element);
    node.member = true;
  }

  /** The child node for an element, created on demand. */
  child(element: string): FieldSet {
    let node = this.children.get(element);
    if (!node) {
      node = new FieldSet();
      this.children.set(element, node);
    }
    return node;
  }

  has(path: Path): boolean {
    const node = this.find(path);
    return node !== undefined && node.member;
  }

  find(path: Path): FieldSet | undefined {
    if (path.length === 0) return this;
    let node = this.children.get(path[0]);
    for (const element of path.slice(1)) {
      if (!node) return undefined;
      node = node.children.get(element);
    }
    return node;
  }

  isEmpty(): boolean {
    for (const node of this.children.values()) if (node.member || !node.isEmpty()) return false;
    return true;
  }

  clone(): FieldSet {
    const copy = new FieldSet();
    copy.member = this.member;
    for (const [element, node] of this.children) copy.children.set(element, node.clone());
    return copy;
  }

  union(other: FieldSet): FieldSet {
    const result = this.clone();
    mergeInto(result, other);
    return result;
  }

  /** Paths of this set that are not in `other` (exact paths, as fieldpath.Set.Difference). */
  difference(other: FieldSet): FieldSet {
    return combine(this, other, (left, right) => left && !right);
  }

  intersection(other: FieldSet): FieldSet {
    return combine(this, other, (left, right) => left && right);
  }

  /** Removes every path of `other` and everything beneath them (fieldpath.Set.RecursiveDifference). */
  recursiveDifference(other: FieldSet): FieldSet {
    const result = new FieldSet();
    for (const [element, node] of this.children) {
      const otherNode = other.children.get(element);
      if (otherNode?.member) continue;
      const kept = otherNode ? node.recursiveDifference(otherNode) : node.clone();
      kept.member = node.member;
      if (kept.member || !kept.isEmpty()) result.children.set(element, kept);
    }
    return result;
  }

  /** Every path in the set, in upstream's order: this level's members first, then each child. */
  paths(): Path[] {
    const out: Path[] = [];
    this.collect([], out);
    return out;
  }

  private collect(prefix: string[], out: Path[]): void {
    const elements = sortedElements(this.children.keys());
    for (const element of elements) if (this.children.get(element)?.member) out.push([...prefix, element]);
    for (const element of elements) {
      const node = this.children.get(element);
      if (node && node.children.size > 0) node.collect([...prefix, element], out);
    }
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty() && other.difference(this).isEmpty();
  }
}

function mergeInto(target: FieldSet, source: FieldSet): void {
  for (const [element, node] of source.children) {
    const child = target.child(element);
    if (node.member) child.member = true;
    mergeInto(child, node);
  }
}

function combine(left: FieldSet, right: FieldSet, keep: (inLeft: boolean, inRight: boolean) => boolean): FieldSet {
  const result = new FieldSet();
  for (const [element, node] of left.children) {
    const other = right.children.get(element) ?? new FieldSet();
    const child = combine(node, other, keep);
    child.member = keep(node.member, other.member);
    if (child.member || !child.isEmpty()) result.children.set(element, child);
  }
  return result;
}

// ---- path elements ----

export function fieldElement(name: string): string {
  return `f:${name}`;
}

/** `k:{"containerPort":80,"protocol":"TCP"}`: the key fields sorted by name. */
export function keyElement(keys: Record<string, unknown>): string {
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(keys).sort()) sorted[name] = keys[name];
  return `k:${JSON.stringify(sorted)}`;
}

export function valueElement(value: unknown): string {
  return `v:${JSON.stringify(canonical(value))}`;
}

export function indexElement(index: number): string {
  return `i:${index}`;
}

/** Re-encodes an element read from FieldsV1 into canonical form; throws on a malformed one. */
export function canonicalElement(element: string): string {
  const prefix = element.slice(0, 2);
  const body = element.slice(2);
  switch (prefix) {
    case 'f:':
      return element;
    case 'k:': {
      const parsed: unknown = JSON.parse(body);
      if (!isRecord(parsed)) throw new Error(`invalid key element: ${element}`);
      return keyElement(parsed);
    }
    case 'v:':
      return valueElement(JSON.parse(body));
    case 'i:': {
      if (!/^-?\d+$/.test(body)) throw new Error(`invalid index element: ${element}`);
      return indexElement(Number(body));
    }
    default:
      throw new Error(`unknown path element type: ${element}`);
  }
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical(value[key]);
    return out;
  }
  return value;
}

/** `.spec.template.spec.containers[name="nginx"].image`, as fieldpath.Path.String prints it. */
export function pathString(path: Path): string {
  return path.map(elementString).join('');
}

function elementString(element: string): string {
  const body = element.slice(2);
  switch (element.slice(0, 2)) {
    case 'f:':
      return `.${body}`;
    case 'k:': {
      const parsed: unknown = JSON.parse(body);
      if (!isRecord(parsed)) return '{{invalid path element}}';
      return `[${Object.keys(parsed).map((name) => `${name}=${JSON.stringify(parsed[name])}`).join(',')}]`;
    }
    case 'v:':
      return `[=${body}]`;
    case 'i:':
      return `[${body}]`;
    default:
      return '{{invalid path element}}';
  }
}

// Upstream orders elements by kind (field < key < value < index), then within a kind.
const kindRank: Record<string, number> = { 'f:': 0, 'k:': 1, 'v:': 2, 'i:': 3 };

export function compareElements(left: string, right: string): number {
  const leftRank = kindRank[left.slice(0, 2)] ?? 4;
  const rightRank = kindRank[right.slice(0, 2)] ?? 4;
  if (leftRank !== rightRank) return leftRank - rightRank;
  const leftBody = left.slice(2);
  const rightBody = right.slice(2);
  switch (left.slice(0, 2)) {
    case 'f:':
      return compareStrings(leftBody, rightBody);
    case 'i:':
      return Number(leftBody) - Number(rightBody);
    case 'k:': {
      const leftKeys = parseRecord(leftBody);
      const rightKeys = parseRecord(rightBody);
      const leftNames = Object.keys(leftKeys);
      const rightNames = Object.keys(rightKeys);
      for (let i = 0; ; i++) {
        if (i >= leftNames.length || i >= rightNames.length) return leftNames.length - rightNames.length;
        const byName = compareStrings(leftNames[i], rightNames[i]);
        if (byName !== 0) return byName;
        const byValue = compareValues(leftKeys[leftNames[i]], rightKeys[rightNames[i]]);
        if (byValue !== 0) return byValue;
      }
    }
    default:
      return compareValues(JSON.parse(leftBody), JSON.parse(rightBody));
  }
}

function parseRecord(text: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text);
  return isRecord(parsed) ? parsed : {};
}

function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function valueRank(value: unknown): number {
  if (value === null) return 0;
  if (typeof value === 'boolean') return 1;
  if (typeof value === 'number') return 2;
  if (typeof value === 'string') return 3;
  if (Array.isArray(value)) return 4;
  return 5;
}

function compareValues(left: unknown, right: unknown): number {
  const byRank = valueRank(left) - valueRank(right);
  if (byRank !== 0) return byRank;
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  if (typeof left === 'string' && typeof right === 'string') return compareStrings(left, right);
  if (typeof left === 'boolean' && typeof right === 'boolean') return Number(left) - Number(right);
  return compareStrings(JSON.stringify(left), JSON.stringify(right));
}

export function sortedElements(elements: Iterable<string>): string[] {
  return [...elements].sort(compareElements);
}

// ---- FieldsV1 ----

/** The FieldsV1 JSON form of a set: `{"f:spec":{"f:replicas":{}}}`, `.` marking inner members. */
export function encodeFieldsV1(set: FieldSet): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const element of sortedElements(set.children.keys())) {
    const node = set.children.get(element);
    if (!node || (!node.member && node.isEmpty())) continue;
    const encoded = encodeFieldsV1(node);
    out[element] = node.member && Object.keys(encoded).length > 0 ? { '.': {}, ...encoded } : encoded;
  }
  return out;
}

/** Parses FieldsV1; throws on anything upstream would refuse to decode. */
export function decodeFieldsV1(value: unknown): FieldSet {
  const set = new FieldSet();
  decodeInto(set, value);
  return set;
}

function decodeInto(node: FieldSet, value: unknown): void {
  if (!isRecord(value)) throw new Error('FieldsV1 must be an object');
  for (const [element, child] of Object.entries(value)) {
    if (element === '.') {
      node.member = true;
      continue;
    }
    const childNode = node.child(canonicalElement(element));
    if (!isRecord(child)) throw new Error('FieldsV1 must be an object');
    if (Object.keys(child).length === 0) childNode.member = true;
    else decodeInto(childNode, child);
  }
}
