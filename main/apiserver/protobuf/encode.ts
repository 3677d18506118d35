// Protobuf encoder used by the tests of this folder: a low-level wire writer for hand-built (and
// deliberately broken) bodies, and a schema-driven encoder that turns a Kubernetes JSON object into
// the "k8s\0" + runtime.Unknown body client-go would send (apimachinery runtime/serializer/protobuf).
// It emits only the fields present in the JSON, unlike Go, which also writes zero non-pointer fields.

import { messageSchemas, topLevelMessages, type FieldSchema } from './messages';
import { WireType } from './wire';

export class ProtobufWriter {
  private readonly chunks: number[] = [];

  varint(value: number | bigint): this {
    // Negative integers go out as 64-bit two's complement, as Go writes int32/int64.
    let remaining = BigInt.asUintN(64, BigInt(value));
    while (remaining >= 0x80n) {
      this.chunks.push(Number(remaining & 0x7fn) | 0x80);
      remaining >>= 7n;
    }
    this.chunks.push(Number(remaining));
    return this;
  }

  tag(fieldNumber: number, wireType: number): this {
    return this.varint(fieldNumber * 8 + wireType);
  }

  raw(bytes: Uint8Array | readonly number[]): this {
    for (const byte of bytes) this.chunks.push(byte);
    return this;
  }

  varintField(fieldNumber: number, value: number | bigint | boolean): this {
    return this.tag(fieldNumber, WireType.varint).varint(typeof value === 'boolean' ? Number(value) : value);
  }

  bytesField(fieldNumber: number, bytes: Uint8Array): this {
    return this.tag(fieldNumber, WireType.lengthDelimited).varint(bytes.length).raw(bytes);
  }

  stringField(fieldNumber: number, value: string): this {
    return this.bytesField(fieldNumber, new TextEncoder().encode(value));
  }

  messageField(fieldNumber: number, build: (writer: ProtobufWriter) => void): this {
    const inner = new ProtobufWriter();
    build(inner);
    return this.bytesField(fieldNumber, inner.finish());
  }

  doubleField(fieldNumber: number, value: number): this {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, value, true);
    return this.tag(fieldNumber, WireType.fixed64).raw(new Uint8Array(view.buffer));
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.chunks);
  }
}

/** Wraps an object message in the "k8s\0" + runtime.Unknown envelope. */
export function wrapInEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const envelope = new ProtobufWriter()
    .raw([0x6b, 0x38, 0x73, 0x00])
    .messageField(1, (typeMeta) => typeMeta.stringField(1, apiVersion).stringField(2, kind))
    .bytesField(2, raw)
    .stringField(3, '')
    .stringField(4, '');
  return envelope.finish();
}

/** Encodes a Kubernetes JSON object (apiVersion and kind required) as a protobuf request body. */
export function encodeKubernetesProtobuf(object: Record<string, unknown>): Uint8Array {
  const apiVersion = String(object.apiVersion ?? '');
  const kind = String(object.kind ?? '');
  const messageName =
    topLevelMessages[`${apiVersion}/${kind}`] ?? (kind === 'DeleteOptions' ? 'meta.v1.DeleteOptions' : undefined);
  if (messageName === undefined) throw new Error(`no message for ${apiVersion}/${kind}`);
  return wrapInEnvelope(apiVersion, kind, encodeMessage(object, messageName));
}

export function encodeMessage(object: Record<string, unknown>, messageName: string): Uint8Array {
  const writer = new ProtobufWriter();
  writeMessageFields(writer, object, messageName);
  return writer.finish();
}

function writeMessageFields(writer: ProtobufWriter, object: Record<string, unknown>, messageName: string): void {
  const fields = messageSchemas[messageName];
  if (fields === undefined) throw new Error(`no schema for ${messageName}`);
  for (const field of fields) {
    const [fieldNumber, jsonName, type, flags] = field;
    if (flags.includes('i')) {
      const inner = encodeMessage(object, type);
      if (inner.length > 0) writer.bytesField(fieldNumber, inner);
      continue;
    }
    const value = object[jsonName];
    if (value === undefined || value === null) continue;
    if (type.startsWith('map<')) {
      writeMap(writer, field, value);
    } else if (flags.includes('r')) {
      if (!Array.isArray(value)) throw new Error(`${jsonName} must be a list`);
      for (const item of value) writeValue(writer, fieldNumber, type, item);
    } else {
      writeValue(writer, fieldNumber, type, value);
    }
  }
}

function writeMap(writer: ProtobufWriter, field: FieldSchema, value: unknown): void {
  if (typeof value !== 'object' || value === null) throw new Error(`${field[1]} must be a map`);
  const valueType = field[2].slice('map<string,'.length, -1);
  for (const [key, entryValue] of Object.entries(value)) {
    writer.messageField(field[0], (entry) => {
      entry.stringField(1, key);
      writeValue(entry, 2, valueType, entryValue);
    });
  }
}

function writeValue(writer: ProtobufWriter, fieldNumber: number, type: string, value: unknown): void {
  switch (type) {
    case 'string':
      writer.stringField(fieldNumber, String(value));
      return;
    case 'bytes':
      writer.bytesField(fieldNumber, Buffer.from(String(value), 'base64'));
      return;
    case 'int32':
    case 'int64':
      writer.varintField(fieldNumber, Number(value));
      return;
    case 'bool':
      writer.varintField(fieldNumber, Boolean(value));
      return;
    case 'double':
      writer.doubleField(fieldNumber, Number(value));
      return;
    case 'meta.v1.Time':
    case 'meta.v1.MicroTime': {
      const text = String(value);
      const seconds = Math.floor(Date.parse(text) / 1000);
      const fraction = /\.(\d+)/.exec(text)?.[1] ?? '';
      const nanos = Number(fraction.padEnd(9, '0').slice(0, 9));
      writer.messageField(fieldNumber, (time) => {
        time.varintField(1, seconds);
        if (type === 'meta.v1.MicroTime') time.varintField(2, nanos);
      });
      return;
    }
    case 'resource.Quantity':
      writer.messageField(fieldNumber, (quantity) => quantity.stringField(1, String(value)));
      return;
    case 'intstr.IntOrString':
      writer.messageField(fieldNumber, (intOrString) => {
        if (typeof value === 'number') intOrString.varintField(1, 0).varintField(2, value);
        else intOrString.varintField(1, 1).stringField(3, String(value));
      });
      return;
    case 'meta.v1.FieldsV1':
    case 'runtime.RawExtension':
      writer.messageField(fieldNumber, (holder) => holder.stringField(1, JSON.stringify(value)));
      return;
    default:
      writer.messageField(fieldNumber, (message) => {
        const fields = messageSchemas[type];
        if (fields?.some((field) => field[3].includes('l'))) {
          for (const item of value as unknown[]) message.stringField(1, String(item));
        } else {
          writeMessageFields(message, value as Record<string, unknown>, type);
        }
      });
  }
}
