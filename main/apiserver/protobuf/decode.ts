// Decodes `application/vnd.kubernetes.protobuf` request bodies (what kubectl's typed clients and
// helm's release storage send) into the JSON form the rest of the API server handles. Follows
// apimachinery's protobuf serializer (runtime/serializer/protobuf: "k8s\0" magic + runtime.Unknown)
// and produces what Go's encoding/json would print for the decoded object: `omitempty` zero scalars
// dropped, pointer fields kept whenever present, []byte as base64, metav1.Time as RFC 3339,
// Quantity and IntOrString in their JSON forms.

import { formatGoDuration } from '../../../shared/kubernetes/duration';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { messageSchemas, topLevelMessages, type FieldSchema } from './messages';
import {
  ProtobufDecodeError,
  WireReader,
  WireType,
  varintToBool,
  varintToInt32,
  varintToInt64,
} from './wire';

export { ProtobufDecodeError } from './wire';

export const KUBERNETES_PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

/** Prefix of every Kubernetes protobuf body ("k8s" and a zero byte). */
export const KUBERNETES_PROTOBUF_MAGIC = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);

/** Nested messages deeper than this are refused; real objects stay well under 30 levels. */
export const MAX_MESSAGE_DEPTH = 100;

/** Embedded JSON (FieldsV1, RawExtension) nested deeper than this is refused. */
const maxEmbeddedJsonDepth = 1000;

/** True for `application/vnd.kubernetes.protobuf`, with or without parameters. */
export function isKubernetesProtobufContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  return mediaType === KUBERNETES_PROTOBUF_CONTENT_TYPE;
}

/** The TypeMeta of a body, read without decoding the object (for error messages and routing). */
export function readProtobufTypeMeta(body: Uint8Array): { apiVersion: string; kind: string } {
  return readEnvelope(body).typeMeta;
}

/**
 * Decodes a whole protobuf request body into the object's JSON form (apiVersion and kind first).
 * Throws ProtobufDecodeError for a bad magic, malformed wire data, or an unregistered kind.
 */
export function decodeKubernetesProtobuf(body: Uint8Array): KubeObject | Record<string, unknown> {
  return decodeBody(body, 0);
}

interface Envelope {
  typeMeta: { apiVersion: string; kind: string };
  raw: Uint8Array;
  contentEncoding: string;
}

function decodeBody(body: Uint8Array, depth: number): Record<string, unknown> {
  const envelope = readEnvelope(body);
  const { apiVersion, kind } = envelope.typeMeta;
  if (kind === '') throw new ProtobufDecodeError("Object 'Kind' is missing in protobuf body");
  if (envelope.contentEncoding !== '') {
    throw new ProtobufDecodeError(`unsupported protobuf content encoding "${envelope.contentEncoding}"`);
  }
  const messageName = messageForKind(apiVersion, kind);
  const object = decodeMessage(new WireReader(envelope.raw), messageName, depth + 1);
  return { apiVersion, kind, ...object };
}

function messageForKind(apiVersion: string, kind: string): string {
  const direct = topLevelMessages[`${apiVersion}/${kind}`];
  if (direct !== undefined) return direct;
  // metav1.AddToGroupVersion registers DeleteOptions in every group-version, and client-go labels
  // the body with the group-version of the resource being deleted.
  if (kind === 'DeleteOptions' && apiVersion !== '') return 'meta.v1.DeleteOptions';
  throw new ProtobufDecodeError(`no kind "${kind}" is registered for version "${apiVersion}"`);
}

function readEnvelope(body: Uint8Array): Envelope {
  if (body.length < KUBERNETES_PROTOBUF_MAGIC.length) {
    throw new ProtobufDecodeError('protobuf body is too short to hold the "k8s\\0" prefix');
  }
  for (let index = 0; index < KUBERNETES_PROTOBUF_MAGIC.length; index += 1) {
    if (body[index] !== KUBERNETES_PROTOBUF_MAGIC[index]) {
      throw new ProtobufDecodeError('protobuf body does not start with the "k8s\\0" prefix');
    }
  }
  const reader = new WireReader(body, KUBERNETES_PROTOBUF_MAGIC.length);
  const envelope: Envelope = { typeMeta: { apiVersion: '', kind: '' }, raw: new Uint8Array(0), contentEncoding: '' };
  while (!reader.atEnd()) {
    const { fieldNumber, wireType } = reader.readTag();
    if (wireType !== WireType.lengthDelimited || fieldNumber > 4) {
      reader.skipField(wireType);
      continue;
    }
    const bytes = reader.readBytes();
    if (fieldNumber === 1) envelope.typeMeta = readTypeMeta(bytes);
    else if (fieldNumber === 2) envelope.raw = bytes;
    else if (fieldNumber === 3) envelope.contentEncoding = utf8(bytes);
    // Field 4 (contentType) is informational; upstream decodes the raw bytes as protobuf regardless.
  }
  return envelope;
}

function readTypeMeta(bytes: Uint8Array): { apiVersion: string; kind: string } {
  const reader = new WireReader(bytes);
  const typeMeta = { apiVersion: '', kind: '' };
  while (!reader.atEnd()) {
    const { fieldNumber, wireType } = reader.readTag();
    if (wireType === WireType.lengthDelimited && (fieldNumber === 1 || fieldNumber === 2)) {
      const value = utf8(reader.readBytes());
      if (fieldNumber === 1) typeMeta.apiVersion = value;
      else typeMeta.kind = value;
    } else {
      reader.skipField(wireType);
    }
  }
  return typeMeta;
}

const textDecoder = new TextDecoder('utf-8');

// Go does not validate UTF-8 in these strings; its JSON encoder then replaces invalid sequences
// with U+FFFD, which is what a non-fatal TextDecoder does too.
function utf8(bytes: Uint8Array): string {
  return textDecoder.decode(bytes);
}

interface FieldIndex {
  byNumber: Map<number, FieldSchema>;
  isListWrapper: boolean;
}

const fieldIndexes = new Map<string, FieldIndex>();

function fieldIndex(messageName: string): FieldIndex {
  let index = fieldIndexes.get(messageName);
  if (index === undefined) {
    const fields = messageSchemas[messageName];
    if (fields === undefined) throw new ProtobufDecodeError(`no schema for protobuf message ${messageName}`);
    index = {
      byNumber: new Map(fields.map((field) => [field[0], field])),
      isListWrapper: fields.some((field) => field[3].includes('l')),
    };
    fieldIndexes.set(messageName, index);
  }
  return index;
}

/** Per-field state while a message is read: repeated fields collect, the rest keep the last value. */
type Collected = Map<number, unknown[]>;

function decodeMessage(reader: WireReader, messageName: string, depth: number): Record<string, unknown> {
  if (depth > MAX_MESSAGE_DEPTH) {
    throw new ProtobufDecodeError(`protobuf message nesting exceeds ${MAX_MESSAGE_DEPTH} levels`);
  }
  const index = fieldIndex(messageName);
  const collected: Collected = new Map();
  while (!reader.atEnd()) {
    const { fieldNumber, wireType } = reader.readTag();
    const field = index.byNumber.get(fieldNumber);
    if (field === undefined) {
      // Newer clients may send fields this table does not know; upstream skips them too.
      reader.skipField(wireType);
      continue;
    }
    const values = collected.get(fieldNumber) ?? [];
    readFieldValues(reader, wireType, field, depth, values);
    collected.set(fieldNumber, values);
  }
  return assembleMessage(index, collected);
}

function assembleMessage(index: FieldIndex, collected: Collected): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of index.byNumber.values()) {
    const values = collected.get(field[0]);
    if (values === undefined) continue;
    const [, jsonName, type, flags] = field;
    const repeated = flags.includes('r');
    if (type.startsWith('map<')) {
      const map: Record<string, unknown> = {};
      for (const entry of values) {
        const [key, value] = entry as [string, unknown];
        setOwnProperty(map, key, value);
      }
      // gogo merges repeated map fields entry by entry; an empty map is what Go prints as absent.
      if (Object.keys(map).length > 0 || !flags.includes('o')) result[jsonName] = map;
      continue;
    }
    if (repeated) {
      const items = values.filter((value) => value !== omitted);
      if (index.isListWrapper) return { [listWrapperKey]: items };
      if (items.length > 0 || !flags.includes('o')) result[jsonName] = items;
      continue;
    }
    const value = values[values.length - 1];
    if (value === omitted) continue;
    if (flags.includes('i')) {
      if (value !== null && typeof value === 'object') Object.assign(result, value);
      continue;
    }
    if (!flags.includes('p') && flags.includes('o') && isZeroScalar(value, type)) continue;
    result[jsonName] = value;
  }
  return result;
}

/** Marks a value Go's JSON encoding would leave out entirely (zero Time, empty FieldsV1, …). */
const omitted = Symbol('omitted');

/** Key under which a list-wrapper message (Go named slice type) hands its list to the parent. */
const listWrapperKey = '\u0000list';

function isZeroScalar(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
    case 'bytes':
      return value === '';
    case 'int32':
    case 'int64':
    case 'double':
      return value === 0;
    case 'bool':
      return value === false;
    case 'intstr.IntOrString':
      // Deviation from Go, which prints a zero non-pointer IntOrString as 0: upstream treats that
      // value as "unset" (ServicePort.targetPort defaulting), and so do consumers of this output.
      return value === 0;
    default:
      return false;
  }
}

function readFieldValues(
  reader: WireReader,
  wireType: number,
  field: FieldSchema,
  depth: number,
  into: unknown[],
): void {
  const type = field[2];
  if (type.startsWith('map<')) {
    expectWireType(wireType, WireType.lengthDelimited, field);
    const valueType = type.slice('map<string,'.length, -1);
    into.push(readMapEntry(reader.subReader(reader.readLengthDelimited()), valueType, field, depth));
    return;
  }
  if (isPackable(type) && wireType === WireType.lengthDelimited && field[3].includes('r')) {
    // Packed repeated scalars: proto2 gogo output is unpacked, but both forms are valid protobuf.
    const packed = reader.subReader(reader.readLengthDelimited());
    while (!packed.atEnd()) into.push(readScalar(packed, scalarWireType(type), type, field));
    return;
  }
  into.push(readValue(reader, wireType, type, field, depth));
}

function readMapEntry(entry: WireReader, valueType: string, field: FieldSchema, depth: number): [string, unknown] {
  let key = '';
  let value: unknown;
  while (!entry.atEnd()) {
    const { fieldNumber, wireType } = entry.readTag();
    if (fieldNumber === 1) {
      expectWireType(wireType, WireType.lengthDelimited, field);
      key = utf8(entry.readBytes());
    } else if (fieldNumber === 2) {
      value = readValue(entry, wireType, valueType, field, depth);
    } else {
      entry.skipField(wireType);
    }
  }
  if (value === undefined) value = zeroValue(valueType, depth);
  if (value === omitted) value = null;
  return [key, value];
}

function zeroValue(type: string, depth: number): unknown {
  switch (type) {
    case 'string':
    case 'bytes':
      return '';
    case 'int32':
    case 'int64':
    case 'double':
      return 0;
    case 'bool':
      return false;
    default:
      return decodeMessageValue(new Uint8Array(0), type, depth);
  }
}

function isPackable(type: string): boolean {
  return type === 'int32' || type === 'int64' || type === 'bool' || type === 'double';
}

function scalarWireType(type: string): number {
  return type === 'double' ? WireType.fixed64 : WireType.varint;
}

function readValue(reader: WireReader, wireType: number, type: string, field: FieldSchema, depth: number): unknown {
  switch (type) {
    case 'string':
      expectWireType(wireType, WireType.lengthDelimited, field);
      return utf8(reader.readBytes());
    case 'bytes':
      expectWireType(wireType, WireType.lengthDelimited, field);
      return Buffer.from(reader.readBytes()).toString('base64');
    case 'int32':
    case 'int64':
    case 'bool':
    case 'double':
      return readScalar(reader, wireType, type, field);
    default:
      expectWireType(wireType, WireType.lengthDelimited, field);
      return decodeMessageValue(reader.readBytes(), type, depth);
  }
}

function readScalar(reader: WireReader, wireType: number, type: string, field: FieldSchema): number | boolean {
  if (type === 'double') {
    expectWireType(wireType, WireType.fixed64, field);
    return reader.readDouble();
  }
  expectWireType(wireType, WireType.varint, field);
  const varint = reader.readVarint();
  if (type === 'bool') return varintToBool(varint);
  if (type === 'int32') return varintToInt32(varint);
  return varintToInt64(varint);
}

function expectWireType(actual: number, expected: number, field: FieldSchema): void {
  if (actual !== expected) {
    throw new ProtobufDecodeError(`wrong wire type ${actual} for field ${field[1]} (${field[0]})`);
  }
}

function decodeMessageValue(bytes: Uint8Array, type: string, depth: number): unknown {
  switch (type) {
    case 'meta.v1.Time':
      return decodeTime(bytes, false);
    case 'meta.v1.MicroTime':
      return decodeTime(bytes, true);
    case 'meta.v1.Duration':
      return formatGoDuration(readSingleVarintField(bytes, 1, 'Duration'));
    case 'resource.Quantity':
      return decodeQuantity(bytes);
    case 'intstr.IntOrString':
      return decodeIntOrString(bytes);
    case 'meta.v1.FieldsV1':
      return decodeEmbeddedJson(readSingleBytesField(bytes, 1), 'FieldsV1', depth);
    case 'runtime.RawExtension':
      return decodeEmbeddedJson(readSingleBytesField(bytes, 1), 'RawExtension', depth);
    case 'apiextensions.v1.JSON': {
      // apiextensions JSON.MarshalJSON: the raw bytes, or null
      const value = decodeEmbeddedJson(readSingleBytesField(bytes, 1), 'JSON', depth);
      return value === omitted ? null : value;
    }
    case 'apiextensions.v1.JSONSchemaPropsOrArray':
    case 'apiextensions.v1.JSONSchemaPropsOrBool':
    case 'apiextensions.v1.JSONSchemaPropsOrStringArray':
      return schemaAlternative(type, decodeMessage(new WireReader(bytes), type, depth + 1));
    default: {
      const message = decodeMessage(new WireReader(bytes), type, depth + 1);
      if (listWrapperKey in message) return message[listWrapperKey];
      return fieldIndex(type).isListWrapper ? [] : message;
    }
  }
}

/**
 * The JSON forms of apiextensions' JSONSchemaPropsOr* (their MarshalJSON): a list of schemas or the
 * schema; the schema or a boolean; a list of property names or the schema.
 */
function schemaAlternative(type: string, message: Record<string, unknown>): unknown {
  switch (type) {
    case 'apiextensions.v1.JSONSchemaPropsOrArray':
      return Array.isArray(message.jSONSchemas) && message.jSONSchemas.length > 0 ? message.jSONSchemas : (message.schema ?? null);
    case 'apiextensions.v1.JSONSchemaPropsOrBool':
      return message.schema ?? message.allows === true;
    default:
      return Array.isArray(message.property) && message.property.length > 0 ? message.property : (message.schema ?? null);
  }
}

/** Go's Time/MicroTime: an empty message is the zero time, which Go's JSON prints as null. */
function decodeTime(bytes: Uint8Array, micro: boolean): string | typeof omitted {
  if (bytes.length === 0) return omitted;
  const reader = new WireReader(bytes);
  let seconds = 0;
  let nanos = 0;
  while (!reader.atEnd()) {
    const { fieldNumber, wireType } = reader.readTag();
    if (fieldNumber === 1 && wireType === WireType.varint) seconds = varintToInt64(reader.readVarint());
    else if (fieldNumber === 2 && wireType === WireType.varint) nanos = varintToInt32(reader.readVarint());
    else reader.skipField(wireType);
  }
  // Go's RFC 3339 marshalling fails outside years 0000–9999; so does this.
  if (seconds < -62167219200 || seconds > 253402300799) {
    throw new ProtobufDecodeError(`timestamp ${seconds} is outside years 0000-9999`);
  }
  const date = new Date(seconds * 1000);
  const base = formatUtcSeconds(date);
  if (!micro) return `${base}Z`; // metav1.Time drops nanos (time_proto.go).
  const micros = Math.trunc(Math.min(Math.max(nanos, 0), 999_999_999) / 1000);
  return `${base}.${String(micros).padStart(6, '0')}Z`;
}

function formatUtcSeconds(date: Date): string {
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  return (
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  );
}

function readSingleVarintField(bytes: Uint8Array, wanted: number, name: string): number {
  const reader = new WireReader(bytes);
  let value = 0;
  while (!reader.atEnd()) {
    const { fieldNumber, wireType } = reader.readTag();
    if (fieldNumber === wanted) {
      if (wireType !== WireType.varint) throw new ProtobufDecodeError(`wrong wire type ${wireType} in ${name}`);
      value = varintToInt64(reader.readVarint());
    } else {
      reader.skipField(wireType);
    }
  }
  return value;
}

function readSingleBytesField(bytes: Uint8Array, wanted: number): Uint8Array | undefined {
  const reader = new WireReader(bytes);
  let value: Uint8Array | undefined;
  while (!reader.atEnd()) {
    const { fieldNumber, wireType } = reader.readTag();
    if (fieldNumber === wanted && wireType === WireType.lengthDelimited) value = reader.readBytes();
    else reader.skipField(wireType);
  }
  return value;
}

/** resource.Quantity is marshalled as its canonical string in field 1; the zero Quantity is "0". */
function decodeQuantity(bytes: Uint8Array): string {
  const raw = readSingleBytesField(bytes, 1);
  const value = raw === undefined ? '' : utf8(raw);
  return value === '' ? '0' : value;
}

/** intstr.IntOrString {1: type (0 int, 1 string), 2: intVal, 3: strVal}. */
function decodeIntOrString(bytes: Uint8Array): number | string {
  const reader = new WireReader(bytes);
  let kind = 0;
  let intValue = 0;
  let stringValue = '';
  while (!reader.atEnd()) {
    const { fieldNumber, wireType } = reader.readTag();
    if (fieldNumber === 1 && wireType === WireType.varint) kind = varintToInt64(reader.readVarint());
    else if (fieldNumber === 2 && wireType === WireType.varint) intValue = varintToInt32(reader.readVarint());
    else if (fieldNumber === 3 && wireType === WireType.lengthDelimited) stringValue = utf8(reader.readBytes());
    else reader.skipField(wireType);
  }
  if (kind === 0) return intValue;
  if (kind === 1) return stringValue;
  throw new ProtobufDecodeError(`impossible IntOrString type ${kind}`);
}

/**
 * FieldsV1 and RawExtension carry raw bytes that Go's JSON encoder copies verbatim, so they must
 * be JSON (a RawExtension may also hold a nested "k8s\0" protobuf object, decoded recursively).
 */
function decodeEmbeddedJson(raw: Uint8Array | undefined, name: string, depth: number): unknown {
  if (raw === undefined || raw.length === 0) return omitted;
  if (name === 'RawExtension' && startsWithMagic(raw)) return decodeBody(raw, depth + 1);
  const text = utf8(raw);
  checkJsonDepth(text, name);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProtobufDecodeError(`${name} does not hold valid JSON`);
  }
}

function startsWithMagic(bytes: Uint8Array): boolean {
  return KUBERNETES_PROTOBUF_MAGIC.every((byte, index) => bytes[index] === byte);
}

// JSON.parse itself copes with deep nesting, but whoever walks or re-serializes the result
// recursively would not, so the nesting is bounded before parsing.
function checkJsonDepth(text: string, name: string): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') {
      inString = true;
    } else if (character === '{' || character === '[') {
      depth += 1;
      if (depth > maxEmbeddedJsonDepth) throw new ProtobufDecodeError(`${name} JSON is nested too deeply`);
    } else if (character === '}' || character === ']') {
      depth -= 1;
    }
  }
}

/** Map keys come from the client: define them as own data properties so "__proto__" stays a key. */
function setOwnProperty(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

