// The YAML editor's text model, kept pure so it is unit tested: an object shown as YAML as
// `kubectl get -o yaml` prints it — keys in the order sigs.k8s.io/yaml writes them (go-yaml's
// sorter: apiVersion, kind, metadata, spec, status at the top, every level sorted the same way) and
// without metadata.managedFields unless asked (`--show-managed-fields=false`),
// parse errors with 1-based line numbers, unsaved-edit detection, and the body sent for
// server-side apply (the apply configuration must not carry managedFields, status or a stale
// resourceVersion — upstream fieldmanager rejects managedFields in an apply body).
import { parseDocument, stringify, type Pair } from 'yaml';
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';

export interface YamlProblem {
  /** 1-based line of the problem (0 when the position is unknown) */
  line: number;
  column: number;
  message: string;
}

export type ParsedObject = { ok: true; object: Record<string, unknown> } | { ok: false; problems: YamlProblem[] };

/** A copy of the object without metadata.managedFields (unless `showManagedFields`). */
export function withoutManagedFields(object: KubeObject, showManagedFields = false): KubeObject {
  if (showManagedFields || !isRecord(object.metadata) || !('managedFields' in object.metadata)) return object;
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...object, metadata };
}

const LETTER = /\p{L}/u;
const DIGIT = /[0-9]/;

/**
 * The order go-yaml gives map keys (kubectl's YAML output): at the first differing character two
 * letters compare by code point; a letter and a non-letter put the non-letter first, unless digits
 * came just before (then the letter); two non-letters compare their digit runs as numbers.
 */
export function compareYamlKeys(left: string, right: string): number {
  const a = [...left];
  const b = [...right];
  let afterDigit = false;
  for (let index = 0; index < a.length && index < b.length; index++) {
    if (a[index] === b[index]) {
      afterDigit = DIGIT.test(a[index]);
      continue;
    }
    const aLetter = LETTER.test(a[index]);
    const bLetter = LETTER.test(b[index]);
    if (aLetter && bLetter) return a[index] < b[index] ? -1 : 1;
    if (aLetter || bLetter) return (afterDigit ? aLetter : bLetter) ? -1 : 1;
    const aNumber = digitRun(a, index);
    const bNumber = digitRun(b, index);
    if (aNumber !== bNumber) return aNumber < bNumber ? -1 : 1;
    return a[index] < b[index] ? -1 : 1;
  }
  return a.length - b.length;
}

function digitRun(characters: string[], start: number): number {
  let value = 0;
  for (let index = start; index < characters.length && DIGIT.test(characters[index]); index++) value = value * 10 + Number(characters[index]);
  return value;
}

function pairKey(pair: Pair): string {
  const key: unknown = pair.key;
  if (typeof key === 'string') return key;
  if (key && typeof key === 'object' && 'value' in key) return String(key.value);
  return String(key);
}

/** The object as the editor shows it: the text `kubectl get -o yaml` prints. */
export function objectToYaml(object: KubeObject, showManagedFields = false): string {
  return stringify(withoutManagedFields(object, showManagedFields), { lineWidth: 0, sortMapEntries: (left, right) => compareYamlKeys(pairKey(left), pairKey(right)) });
}

/** Parses one YAML document that must be a mapping (a Kubernetes object). */
export function parseYamlObject(text: string): ParsedObject {
  const document = parseDocument(text, { prettyErrors: true });
  if (document.errors.length > 0) return { ok: false, problems: document.errors.map((error) => ({ line: error.linePos?.[0].line ?? 0, column: error.linePos?.[0].col ?? 0, message: firstLine(error.message) })) };
  const value: unknown = document.toJS();
  if (!isRecord(value)) return { ok: false, problems: [{ line: 1, column: 1, message: 'the document is not a mapping (an object with apiVersion, kind, metadata)' }] };
  return { ok: true, object: value };
}

/** True when the editor text differs from what was loaded (whitespace at the ends ignored). */
export function hasUnsavedEdits(text: string, baseline: string): boolean {
  return text.trim() !== baseline.trim();
}

/**
 * The apply configuration for server-side apply of an edited object: managedFields, status and
 * the server-maintained metadata are removed so the user's field manager claims only the
 * fields they mean (conflicts with other managers then surface as 409 with causes).
 */
export function applyConfiguration(object: Record<string, unknown>): Record<string, unknown> {
  const { status: _status, ...rest } = object;
  if (!isRecord(rest.metadata)) return rest;
  const { managedFields: _managedFields, resourceVersion: _resourceVersion, creationTimestamp: _creationTimestamp, generation: _generation, selfLink: _selfLink, ...metadata } = rest.metadata;
  return { ...rest, metadata };
}

/** The body of a dry-run PUT (validation): the object without managedFields, unconditional. */
export function validationBody(object: Record<string, unknown>): Record<string, unknown> {
  if (!isRecord(object.metadata)) return object;
  const { managedFields: _managedFields, resourceVersion: _resourceVersion, ...metadata } = object.metadata;
  return { ...object, metadata };
}

function firstLine(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}
