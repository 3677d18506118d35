// DNS wire format (RFC 1035 §4, RFC 2782 for SRV, RFC 3596 for AAAA, RFC 6891 for OPT): parses and
// writes whole messages. Names are read by following compression pointers (only backwards, so a
// loop cannot form) and written with compression, as every resolver expects. Record types the
// cluster DNS does not interpret (OPT among them) keep their raw RDATA, so a parsed message can be
// written back unchanged. Malformed input raises DnsFormatError, which the server turns into FORMERR.

export const RecordType = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  OPT: 41,
  ANY: 255,
} as const;

export const ResponseCode = {
  NoError: 0,
  FormatError: 1,
  ServerFailure: 2,
  NameError: 3,
  NotImplemented: 4,
  Refused: 5,
} as const;

export const classInternet = 1;

export class DnsFormatError extends Error {}

export interface DnsHeader {
  id: number;
  response: boolean;
  opcode: number;
  authoritative: boolean;
  truncated: boolean;
  recursionDesired: boolean;
  recursionAvailable: boolean;
  authenticData: boolean;
  checkingDisabled: boolean;
  responseCode: number;
}

/** Names are written without the trailing dot (the root is ''); a dot inside a label is escaped as `\.`. */
export interface DnsQuestion {
  name: string;
  type: number;
  class: number;
}

interface RecordBase {
  name: string;
  class: number;
  ttl: number;
}

export type DnsRecord = RecordBase &
  (
    | { type: 'A'; address: string }
    | { type: 'AAAA'; address: string }
    | { type: 'CNAME' | 'PTR' | 'NS'; target: string }
    | { type: 'SRV'; priority: number; weight: number; port: number; target: string }
    | { type: 'SOA'; primary: string; mailbox: string; serial: number; refresh: number; retry: number; expire: number; minimum: number }
    | { type: 'TXT'; texts: string[] }
    | { type: 'OTHER'; code: number; data: Buffer }
  );

export interface DnsMessage {
  header: DnsHeader;
  questions: DnsQuestion[];
  answers: DnsRecord[];
  authorities: DnsRecord[];
  additionals: DnsRecord[];
}

const headerLength = 12;
const maxNameLength = 255;
const maxLabelLength = 63;

const namedTypeCodes: Record<string, number> = { A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, TXT: 16, AAAA: 28, SRV: 33 };

/** The numeric type of a record. */
export function recordTypeCode(record: DnsRecord): number {
  return record.type === 'OTHER' ? record.code : namedTypeCodes[record.type];
}

/** A header with every flag off. */
export function emptyHeader(id = 0): DnsHeader {
  return { id, response: false, opcode: 0, authoritative: false, truncated: false, recursionDesired: false, recursionAvailable: false, authenticData: false, checkingDisabled: false, responseCode: 0 };
}

// ---------------------------------------------------------------- names

/** Splits a presentation name into labels, honouring `\.` and `\\` escapes; '' and '.' are the root. */
export function nameLabels(name: string): string[] {
  if (name === '' || name === '.') return [];
  const labels: string[] = [];
  let current = '';
  for (let index = 0; index < name.length; index++) {
    const character = name[index];
    if (character === '\\' && index + 1 < name.length) {
      current += name[++index];
    } else if (character === '.') {
      labels.push(current);
      current = '';
    } else {
      current += character;
    }
  }
  labels.push(current);
  // a trailing dot (fully qualified) leaves one empty label at the end
  if (labels.length > 0 && labels[labels.length - 1] === '') labels.pop();
  return labels;
}

function escapeLabel(label: string): string {
  return label.replace(/[\\.]/g, (character) => `\\${character}`);
}

/** Lower-case, no trailing dot: the form names are compared in. */
export function canonicalName(name: string): string {
  return nameLabels(name).map(escapeLabel).join('.').toLowerCase();
}

// ---------------------------------------------------------------- reading

class Reader {
  offset = headerLength;
  constructor(readonly buffer: Buffer) {}

  need(count: number): void {
    if (this.offset + count > this.buffer.length) throw new DnsFormatError('message truncated');
  }

  uint8(): number {
    this.need(1);
    return this.buffer.readUInt8(this.offset++);
  }

  uint16(): number {
    this.need(2);
    const value = this.buffer.readUInt16BE(this.offset);
    this.offset += 2;
    return value;
  }

  uint32(): number {
    this.need(4);
    const value = this.buffer.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  bytes(count: number): Buffer {
    this.need(count);
    const value = this.buffer.subarray(this.offset, this.offset + count);
    this.offset += count;
    return value;
  }

  /** Reads a name at the cursor and moves past it (past the first pointer, when there is one). */
  name(): string {
    const { name, end } = readName(this.buffer, this.offset);
    this.offset = end;
    return name;
  }
}

function readName(buffer: Buffer, start: number): { name: string; end: number } {
  const labels: string[] = [];
  let offset = start;
  let end: number | undefined;
  let wireLength = 1;
  // every pointer must go strictly backwards, so following them always terminates
  let lowestJump = start;
  for (;;) {
    if (offset >= buffer.length) throw new DnsFormatError('name runs past the message');
    const length = buffer[offset];
    if (length === 0) {
      if (end === undefined) end = offset + 1;
      break;
    }
    const kind = length & 0xc0;
    if (kind === 0xc0) {
      if (offset + 1 >= buffer.length) throw new DnsFormatError('truncated compression pointer');
      const target = ((length & 0x3f) << 8) | buffer[offset + 1];
      if (end === undefined) end = offset + 2;
      if (target >= lowestJump) throw new DnsFormatError('compression pointer does not point backwards');
      lowestJump = target;
      offset = target;
      continue;
    }
    if (kind !== 0) throw new DnsFormatError('unsupported label type');
    if (offset + 1 + length > buffer.length) throw new DnsFormatError('label runs past the message');
    wireLength += length + 1;
    if (wireLength > maxNameLength) throw new DnsFormatError('name longer than 255 octets');
    labels.push(escapeLabel(buffer.toString('latin1', offset + 1, offset + 1 + length)));
    offset += 1 + length;
  }
  return { name: labels.join('.'), end };
}

function readIpv4(data: Buffer): string {
  if (data.length !== 4) throw new DnsFormatError('A record is not 4 octets');
  return `${data[0]}.${data[1]}.${data[2]}.${data[3]}`;
}

function readIpv6(data: Buffer): string {
  if (data.length !== 16) throw new DnsFormatError('AAAA record is not 16 octets');
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push(data.readUInt16BE(index).toString(16));
  // the longest run of two or more zero groups collapses to '::' (RFC 5952)
  let bestStart = -1;
  let bestLength = 0;
  for (let index = 0; index < 8; ) {
    if (groups[index] !== '0') {
      index++;
      continue;
    }
    let runEnd = index;
    while (runEnd < 8 && groups[runEnd] === '0') runEnd++;
    if (runEnd - index > bestLength) {
      bestStart = index;
      bestLength = runEnd - index;
    }
    index = runEnd;
  }
  if (bestLength < 2) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLength).join(':')}`;
}

function readRecord(reader: Reader): DnsRecord {
  const name = reader.name();
  const type = reader.uint16();
  const recordClass = reader.uint16();
  const ttl = reader.uint32();
  const length = reader.uint16();
  reader.need(length);
  const dataStart = reader.offset;
  const dataEnd = dataStart + length;
  const base = { name, class: recordClass, ttl };
  // names inside RDATA may point anywhere earlier in the message, so they are read from the whole buffer
  const nameInData = (offset: number): { name: string; end: number } => {
    const result = readName(reader.buffer, offset);
    if (result.end > dataEnd) throw new DnsFormatError('name runs past its record');
    return result;
  };
  let record: DnsRecord;
  switch (type) {
    case RecordType.A:
      record = { ...base, type: 'A', address: readIpv4(reader.buffer.subarray(dataStart, dataEnd)) };
      break;
    case RecordType.AAAA:
      record = { ...base, type: 'AAAA', address: readIpv6(reader.buffer.subarray(dataStart, dataEnd)) };
      break;
    case RecordType.CNAME:
    case RecordType.PTR:
    case RecordType.NS: {
      const target = nameInData(dataStart);
      if (target.end !== dataEnd) throw new DnsFormatError('trailing octets after a name');
      record = { ...base, type: type === RecordType.CNAME ? 'CNAME' : type === RecordType.PTR ? 'PTR' : 'NS', target: target.name };
      break;
    }
    case RecordType.SRV: {
      if (length < 7) throw new DnsFormatError('SRV record too short');
      const data = reader.buffer;
      const target = nameInData(dataStart + 6);
      if (target.end !== dataEnd) throw new DnsFormatError('trailing octets after a name');
      record = { ...base, type: 'SRV', priority: data.readUInt16BE(dataStart), weight: data.readUInt16BE(dataStart + 2), port: data.readUInt16BE(dataStart + 4), target: target.name };
      break;
    }
    case RecordType.SOA: {
      const primary = nameInData(dataStart);
      const mailbox = nameInData(primary.end);
      if (mailbox.end + 20 !== dataEnd) throw new DnsFormatError('SOA record has the wrong length');
      const data = reader.buffer;
      const at = mailbox.end;
      record = { ...base, type: 'SOA', primary: primary.name, mailbox: mailbox.name, serial: data.readUInt32BE(at), refresh: data.readUInt32BE(at + 4), retry: data.readUInt32BE(at + 8), expire: data.readUInt32BE(at + 12), minimum: data.readUInt32BE(at + 16) };
      break;
    }
    case RecordType.TXT: {
      const texts: string[] = [];
      let offset = dataStart;
      while (offset < dataEnd) {
        const textLength = reader.buffer[offset];
        if (offset + 1 + textLength > dataEnd) throw new DnsFormatError('TXT string runs past its record');
        texts.push(reader.buffer.toString('latin1', offset + 1, offset + 1 + textLength));
        offset += 1 + textLength;
      }
      record = { ...base, type: 'TXT', texts };
      break;
    }
    default:
      record = { ...base, type: 'OTHER', code: type, data: Buffer.from(reader.buffer.subarray(dataStart, dataEnd)) };
  }
  reader.offset = dataEnd;
  return record;
}

/** Reads only the 12-octet header; throws DnsFormatError when there is not even that. */
export function parseHeader(buffer: Buffer): DnsHeader {
  if (buffer.length < headerLength) throw new DnsFormatError('message shorter than a header');
  const flags = buffer.readUInt16BE(2);
  return {
    id: buffer.readUInt16BE(0),
    response: (flags & 0x8000) !== 0,
    opcode: (flags >> 11) & 0xf,
    authoritative: (flags & 0x0400) !== 0,
    truncated: (flags & 0x0200) !== 0,
    recursionDesired: (flags & 0x0100) !== 0,
    recursionAvailable: (flags & 0x0080) !== 0,
    authenticData: (flags & 0x0020) !== 0,
    checkingDisabled: (flags & 0x0010) !== 0,
    responseCode: flags & 0xf,
  };
}

/** Parses a whole message; throws DnsFormatError on anything malformed (never another error). */
export function parseMessage(buffer: Buffer): DnsMessage {
  const header = parseHeader(buffer);
  const counts = [buffer.readUInt16BE(4), buffer.readUInt16BE(6), buffer.readUInt16BE(8), buffer.readUInt16BE(10)];
  const reader = new Reader(buffer);
  const questions: DnsQuestion[] = [];
  for (let index = 0; index < counts[0]; index++) questions.push({ name: reader.name(), type: reader.uint16(), class: reader.uint16() });
  const sections: DnsRecord[][] = [[], [], []];
  for (let section = 0; section < 3; section++) {
    for (let index = 0; index < counts[section + 1]; index++) sections[section].push(readRecord(reader));
  }
  // trailing octets after the last record are tolerated, as most servers do
  return { header, questions, answers: sections[0], authorities: sections[1], additionals: sections[2] };
}

// ---------------------------------------------------------------- writing

class Writer {
  private buffer = Buffer.alloc(512);
  length = 0;
  private readonly names = new Map<string, number>();

  private reserve(count: number): void {
    if (this.length + count <= this.buffer.length) return;
    const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + count));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  uint8(value: number): void {
    this.reserve(1);
    this.buffer.writeUInt8(value & 0xff, this.length++);
  }

  uint16(value: number): void {
    this.reserve(2);
    this.buffer.writeUInt16BE(value & 0xffff, this.length);
    this.length += 2;
  }

  uint32(value: number): void {
    this.reserve(4);
    this.buffer.writeUInt32BE(value >>> 0, this.length);
    this.length += 4;
  }

  bytes(value: Buffer): void {
    this.reserve(value.length);
    value.copy(this.buffer, this.length);
    this.length += value.length;
  }

  setUint16(offset: number, value: number): void {
    this.buffer.writeUInt16BE(value & 0xffff, offset);
  }

  /**
   * Writes a name, pointing at an earlier copy of its longest known suffix. Suffixes are keyed with
   * their exact case so an answer repeats the question's spelling (resolvers using 0x20 mixed-case
   * checks compare it octet for octet).
   */
  name(name: string, compress = true): void {
    const labels = nameLabels(name);
    let wireLength = 1;
    for (const label of labels) {
      const encoded = Buffer.from(label, 'latin1');
      if (encoded.length === 0 || encoded.length > maxLabelLength) throw new DnsFormatError(`invalid label in name ${JSON.stringify(name)}`);
      wireLength += encoded.length + 1;
    }
    if (wireLength > maxNameLength) throw new DnsFormatError(`name longer than 255 octets: ${name}`);
    for (let index = 0; index < labels.length; index++) {
      const suffix = labels.slice(index).map(escapeLabel).join('.');
      const known = compress ? this.names.get(suffix) : undefined;
      if (known !== undefined) {
        this.uint16(0xc000 | known);
        return;
      }
      if (this.length < 0x4000) this.names.set(suffix, this.length);
      const encoded = Buffer.from(labels[index], 'latin1');
      this.uint8(encoded.length);
      this.bytes(encoded);
    }
    this.uint8(0);
  }

  result(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }
}

function ipv4Bytes(address: string): Buffer {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) throw new DnsFormatError(`not an IPv4 address: ${address}`);
  return Buffer.from(parts.map(Number));
}

function ipv6Bytes(address: string): Buffer {
  const halves = address.split('::');
  if (halves.length > 2) throw new DnsFormatError(`not an IPv6 address: ${address}`);
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) throw new DnsFormatError(`not an IPv6 address: ${address}`);
    return parseInt(group, 16);
  }));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) throw new DnsFormatError(`not an IPv6 address: ${address}`);
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const bytes = Buffer.alloc(16);
  groups.forEach((group, index) => bytes.writeUInt16BE(group, index * 2));
  return bytes;
}

function writeRecord(writer: Writer, record: DnsRecord): void {
  writer.name(record.name);
  writer.uint16(recordTypeCode(record));
  writer.uint16(record.class);
  writer.uint32(record.ttl);
  const lengthAt = writer.length;
  writer.uint16(0);
  const start = writer.length;
  switch (record.type) {
    case 'A':
      writer.bytes(ipv4Bytes(record.address));
      break;
    case 'AAAA':
      writer.bytes(ipv6Bytes(record.address));
      break;
    case 'CNAME':
    case 'PTR':
    case 'NS':
      writer.name(record.target);
      break;
    case 'SRV':
      writer.uint16(record.priority);
      writer.uint16(record.weight);
      writer.uint16(record.port);
      // RFC 2782: the SRV target must not be compressed
      writer.name(record.target, false);
      break;
    case 'SOA':
      writer.name(record.primary);
      writer.name(record.mailbox);
      for (const value of [record.serial, record.refresh, record.retry, record.expire, record.minimum]) writer.uint32(value);
      break;
    case 'TXT':
      for (const text of record.texts) {
        const encoded = Buffer.from(text, 'latin1');
        if (encoded.length > 255) throw new DnsFormatError('TXT string longer than 255 octets');
        writer.uint8(encoded.length);
        writer.bytes(encoded);
      }
      break;
    case 'OTHER':
      writer.bytes(record.data);
      break;
  }
  writer.setUint16(lengthAt, writer.length - start);
}

/** Writes a message with name compression; throws DnsFormatError on names or addresses that cannot be encoded. */
export function encodeMessage(message: DnsMessage): Buffer {
  const writer = new Writer();
  const header = message.header;
  writer.uint16(header.id);
  let flags = (header.opcode & 0xf) << 11 | (header.responseCode & 0xf);
  if (header.response) flags |= 0x8000;
  if (header.authoritative) flags |= 0x0400;
  if (header.truncated) flags |= 0x0200;
  if (header.recursionDesired) flags |= 0x0100;
  if (header.recursionAvailable) flags |= 0x0080;
  if (header.authenticData) flags |= 0x0020;
  if (header.checkingDisabled) flags |= 0x0010;
  writer.uint16(flags);
  writer.uint16(message.questions.length);
  writer.uint16(message.answers.length);
  writer.uint16(message.authorities.length);
  writer.uint16(message.additionals.length);
  for (const question of message.questions) {
    writer.name(question.name);
    writer.uint16(question.type);
    writer.uint16(question.class);
  }
  for (const record of [...message.answers, ...message.authorities, ...message.additionals]) writeRecord(writer, record);
  return writer.result();
}

/**
 * The reply a server gives when it cannot read a query: the query's id and opcode, no sections, and
 * the response code (FORMERR by default). Undefined when there is not even a header to answer.
 */
export function errorReply(query: Buffer, responseCode: number = ResponseCode.FormatError): Buffer | undefined {
  if (query.length < headerLength) return undefined;
  const reply = Buffer.alloc(headerLength);
  reply.writeUInt16BE(query.readUInt16BE(0), 0);
  const queryFlags = query.readUInt16BE(2);
  // QR set, opcode and RD copied, RA set (this server recurses through its upstreams)
  reply.writeUInt16BE(0x8000 | (queryFlags & 0x7800) | (queryFlags & 0x0100) | 0x0080 | (responseCode & 0xf), 2);
  return reply;
}

/** Returns `message` cut down for a UDP client: if longer than `limit`, just the header and question with TC set. */
export function truncateForUdp(message: Buffer, limit: number): Buffer {
  if (message.length <= limit) return message;
  try {
    const parsed = parseMessage(message);
    return encodeMessage({ header: { ...parsed.header, truncated: true }, questions: parsed.questions, answers: [], authorities: [], additionals: [] });
  } catch {
    const header = Buffer.from(message.subarray(0, headerLength));
    header.writeUInt16BE(header.readUInt16BE(2) | 0x0200, 2);
    header.fill(0, 4);
    return header;
  }
}
