// Protobuf wire-format reader for Kubernetes request bodies: varints (64-bit safe), length-delimited
// fields, fixed32/fixed64, and skipping of unknown fields. It follows the checks in the gogo-generated
// Unmarshal code Kubernetes uses (ErrIntOverflowGenerated, ErrInvalidLengthGenerated,
// io.ErrUnexpectedEOF): every read is bounds-checked and any malformed input throws
// ProtobufDecodeError, so a hostile body can neither loop forever nor read past its end.

export class ProtobufDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufDecodeError';
  }
}

export const WireType = {
  varint: 0,
  fixed64: 1,
  lengthDelimited: 2,
  startGroup: 3,
  endGroup: 4,
  fixed32: 5,
} as const;

/** A varint as two unsigned 32-bit halves, so no precision is lost before the caller picks a type. */
export interface Varint {
  low: number;
  high: number;
}

export interface FieldTag {
  fieldNumber: number;
  wireType: number;
}

const maxFieldNumber = 2 ** 29 - 1;

export class WireReader {
  private offset: number;

  constructor(
    private readonly bytes: Uint8Array,
    start = 0,
    private readonly end = bytes.length,
  ) {
    this.offset = start;
  }

  get position(): number {
    return this.offset;
  }

  atEnd(): boolean {
    return this.offset >= this.end;
  }

  readVarint(): Varint {
    let low = 0;
    let high = 0;
    // At most 10 bytes: 9 × 7 bits plus one final bit. Go clients never send more; rejecting a
    // longer or wider varint is what makes "varint overflow" an error instead of silent wrapping.
    for (let index = 0; index < 10; index += 1) {
      if (this.offset >= this.end) throw new ProtobufDecodeError('unexpected end of data in varint');
      const byte = this.bytes[this.offset];
      this.offset += 1;
      const bits = byte & 0x7f;
      if (index < 4) {
        low |= bits << (7 * index);
      } else if (index === 4) {
        low |= (bits & 0x0f) << 28;
        high |= bits >>> 4;
      } else if (index < 9) {
        high |= bits << (7 * index - 32);
      } else {
        if (bits > 1) throw new ProtobufDecodeError('varint overflows 64 bits');
        high |= bits << 31;
      }
      if ((byte & 0x80) === 0) return { low: low >>> 0, high: high >>> 0 };
    }
    throw new ProtobufDecodeError('varint overflows 64 bits');
  }

  /** A varint that must fit a non-negative safe length (field tags, lengths). */
  readLength(): number {
    const { low, high } = this.readVarint();
    if (high !== 0 || low > 0x7fffffff) throw new ProtobufDecodeError('invalid length: too large');
    return low;
  }

  readTag(): FieldTag {
    const value = this.readLength();
    const fieldNumber = value >>> 3;
    const wireType = value & 7;
    if (fieldNumber === 0 || fieldNumber > maxFieldNumber) {
      throw new ProtobufDecodeError(`illegal field number ${fieldNumber}`);
    }
    return { fieldNumber, wireType };
  }

  /** The range of a length-delimited field's payload; the reader moves past it. */
  readLengthDelimited(): { start: number; end: number } {
    const length = this.readLength();
    const start = this.offset;
    if (length > this.end - start) {
      throw new ProtobufDecodeError(`length ${length} runs past the end of the data`);
    }
    this.offset = start + length;
    return { start, end: start + length };
  }

  readBytes(): Uint8Array {
    const { start, end } = this.readLengthDelimited();
    return this.bytes.subarray(start, end);
  }

  readFixed32(): number {
    const view = this.take(4);
    return view.getUint32(0, true);
  }

  readFixed64(): Varint {
    const view = this.take(8);
    return { low: view.getUint32(0, true), high: view.getUint32(4, true) };
  }

  readDouble(): number {
    return this.take(8).getFloat64(0, true);
  }

  readFloat(): number {
    return this.take(4).getFloat32(0, true);
  }

  /** A reader over a sub-range (a nested message) of the same buffer. */
  subReader(range: { start: number; end: number }): WireReader {
    return new WireReader(this.bytes, range.start, range.end);
  }

  skipField(wireType: number): void {
    switch (wireType) {
      case WireType.varint:
        this.readVarint();
        return;
      case WireType.fixed64:
        this.take(8);
        return;
      case WireType.lengthDelimited:
        this.readLengthDelimited();
        return;
      case WireType.fixed32:
        this.take(4);
        return;
      default:
        // Groups (3, 4) are proto1-era and never produced by Kubernetes; 6 and 7 do not exist.
        throw new ProtobufDecodeError(`unsupported wire type ${wireType}`);
    }
  }

  private take(count: number): DataView {
    if (count > this.end - this.offset) throw new ProtobufDecodeError('unexpected end of data');
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.offset, count);
    this.offset += count;
    return view;
  }
}

export function varintToUint64(value: Varint): bigint {
  return (BigInt(value.high) << 32n) | BigInt(value.low);
}

/** int64 as a JS number: exact up to 2^53, rounded beyond (as JSON clients read Go's output). */
export function varintToInt64(value: Varint): number {
  if (value.high === 0) return value.low;
  return Number(BigInt.asIntN(64, varintToUint64(value)));
}

/** int32 fields are sent sign-extended to 64 bits; Go keeps the low 32 bits. */
export function varintToInt32(value: Varint): number {
  return value.low | 0;
}

export function varintToBool(value: Varint): boolean {
  return value.low !== 0 || value.high !== 0;
}
