// A small X.509 v3 certificate writer (RFC 5280, DER) on node:crypto for the cluster's own RSA 2048
// and ECDSA P-256 certificates — the CA and the API server's serving certificate, shaped as
// kubeadm's pkiutil makes them — with the fields and encodings @peculiar/x509 writes for them
// (PrintableString common names, UTCTime before 2050, key identifiers per RFC 5280 §4.2.1.2
// method 1), so certificates from either verify against each other. Signatures are
// sha256WithRSAEncryption (RFC 4055: PKCS #1 v1.5, NULL parameters) for an RSA signing key and
// ecdsa-with-SHA256 (RFC 5758: no parameters) for a P-256 one, as Go's x509 picks for those keys.
// It spares start-up loading that library, which stays for what needs more (CSRs, the Ingress
// controller's fallback certificate). Only what these certificates use is encoded.
import { createHash, sign, type KeyObject } from 'node:crypto';
import { parseIpv4 } from '../net/ipv4';

// ---------------------------------------------------------------------------------------------
// DER

function length(size: number): Buffer {
  if (size < 0x80) return Buffer.from([size]);
  const bytes: number[] = [];
  for (let rest = size; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

function sequence(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

/** A non-negative INTEGER from its big-endian magnitude, in the minimal two's-complement form. */
function unsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  return tlv(0x02, trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes: number[] = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const base128: number[] = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) base128.unshift(0x80 | (rest & 0x7f));
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function octetString(content: Buffer): Buffer {
  return tlv(0x04, content);
}

function bitString(content: Buffer, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
}

const TRUE = Buffer.from([0x01, 0x01, 0xff]);

function time(date: Date): Buffer {
  const iso = date.toISOString();
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  // RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** A Name of one common name (`CN=…`): a PrintableString when it can be one, else UTF8String. */
export function commonName(name: string): Buffer {
  const value = PRINTABLE.test(name) ? tlv(0x13, Buffer.from(name, 'ascii')) : tlv(0x0c, Buffer.from(name, 'utf8'));
  return sequence(set(sequence(objectIdentifier('2.5.4.3'), value)));
}

interface Element {
  tag: number;
  /** the whole element, tag and length included */
  raw: Buffer;
  content: Buffer;
}

function readElement(der: Buffer, offset: number): Element {
  const tag = der[offset];
  let size = der[offset + 1];
  let header = 2;
  if (size & 0x80) {
    const count = size & 0x7f;
    size = 0;
    for (let index = 0; index < count; index++) size = size * 256 + der[offset + 2 + index];
    header += count;
  }
  if (offset + header + size > der.length) throw new Error('truncated DER');
  return { tag, raw: der.subarray(offset, offset + header + size), content: der.subarray(offset + header, offset + header + size) };
}

function children(element: Element): Element[] {
  const out: Element[] = [];
  for (let offset = 0; offset < element.content.length; ) {
    const child = readElement(element.content, offset);
    out.push(child);
    offset += child.raw.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Certificates

/** An extension: its OID, whether it is critical, and its DER value. */
export interface CertificateExtension {
  oid: string;
  critical: boolean;
  value: Buffer;
}

export const keyUsages = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const;

export function basicConstraints(ca: boolean): CertificateExtension {
  // cA defaults to FALSE, which DER leaves out
  return { oid: '2.5.29.19', critical: true, value: ca ? sequence(TRUE) : sequence() };
}

export function keyUsage(usages: (keyof typeof keyUsages)[]): CertificateExtension {
  let bits = 0;
  for (const usage of usages) bits |= 0x80 >> keyUsages[usage];
  // one byte suffices for these usages; DER counts the unused trailing bits
  let unused = 0;
  while (unused < 7 && !(bits & (1 << unused))) unused++;
  return { oid: '2.5.29.15', critical: true, value: bitString(Buffer.from([bits]), unused) };
}

export function serverAuthExtendedKeyUsage(): CertificateExtension {
  return { oid: '2.5.29.37', critical: false, value: sequence(objectIdentifier('1.3.6.1.5.5.7.3.1')) };
}

/** DNS names ([2] IA5String) and IP addresses ([7], 4 or 16 octets), in that order. */
export function subjectAlternativeName(dnsNames: readonly string[], ips: readonly string[]): CertificateExtension {
  const names = [...dnsNames.map((name) => tlv(0x82, Buffer.from(name, 'ascii'))), ...ips.map((ip) => tlv(0x87, ipOctets(ip)))];
  return { oid: '2.5.29.17', critical: false, value: sequence(...names) };
}

/** The 4 octets of an IPv4 address or the 16 of an IPv6 one (`::` and a dotted IPv4 tail allowed). */
export function ipOctets(ip: string): Buffer {
  if (!ip.includes(':')) {
    const value = parseIpv4(ip);
    if (value === undefined) throw new Error(`not an IP address: ${ip}`);
    const octets = Buffer.alloc(4);
    octets.writeUInt32BE(value);
    return octets;
  }
  // a dotted IPv4 tail (::ffff:10.0.0.1) is two more 16-bit groups
  const lastColon = ip.lastIndexOf(':');
  const last = ip.slice(lastColon + 1);
  let text = ip;
  if (last.includes('.')) {
    const v4 = ipOctets(last);
    text = `${ip.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) throw new Error(`not an IP address: ${ip}`);
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) throw new Error(`not an IP address: ${ip}`);
    return parseInt(group, 16);
  }));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - rest.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) throw new Error(`not an IP address: ${ip}`);
  const words = [...head, ...new Array<number>(missing).fill(0), ...rest];
  const octets = Buffer.alloc(16);
  words.forEach((word, index) => octets.writeUInt16BE(word, index * 2));
  return octets;
}

export function subjectKeyIdentifier(keyId: Buffer): CertificateExtension {
  return { oid: '2.5.29.14', critical: false, value: octetString(keyId) };
}

export function authorityKeyIdentifier(keyId: Buffer): CertificateExtension {
  return { oid: '2.5.29.35', critical: false, value: sequence(tlv(0x80, keyId)) };
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits of the key's SubjectPublicKeyInfo. */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = readElement(publicKey.export({ type: 'spki', format: 'der' }), 0);
  const [, bits] = children(spki);
  return createHash('sha1').update(bits.content.subarray(1)).digest();
}

/** The subject Name of a DER certificate, exactly as encoded (a certificate it signs names it so). */
export function subjectOf(certificateDer: Buffer): Buffer {
  const [tbs] = children(readElement(certificateDer, 0));
  const fields = children(tbs);
  // [0] version, serialNumber, signature, issuer, validity, subject
  const offset = fields[0].tag === 0xa0 ? 1 : 0;
  return fields[offset + 4].raw;
}

export interface CertificateFields {
  /** positive serial number, big-endian */
  serialNumber: Buffer;
  issuer: Buffer;
  subject: Buffer;
  notBefore: Date;
  notAfter: Date;
  publicKey: KeyObject;
  extensions: CertificateExtension[];
}

const NULL = Buffer.from([0x05, 0x00]);
const ECDSA_WITH_SHA256 = sequence(objectIdentifier('1.2.840.10045.4.3.2'));
const SHA256_WITH_RSA_ENCRYPTION = sequence(objectIdentifier('1.2.840.113549.1.1.11'), NULL);

/** The AlgorithmIdentifier a key signs with: SHA-256 with its own algorithm. */
function signatureAlgorithm(signingKey: KeyObject): Buffer {
  if (signingKey.asymmetricKeyType === 'rsa') return SHA256_WITH_RSA_ENCRYPTION;
  if (signingKey.asymmetricKeyType === 'ec' && signingKey.asymmetricKeyDetails?.namedCurve === 'prime256v1') return ECDSA_WITH_SHA256;
  const details = signingKey.asymmetricKeyDetails?.namedCurve ?? signingKey.asymmetricKeyType ?? 'unknown';
  throw new Error(`the certificate writer signs with RSA or ECDSA P-256 keys, not ${details}`);
}

/**
 * The certificate signed with an RSA key (sha256WithRSAEncryption) or an ECDSA P-256 key
 * (ecdsa-with-SHA256), as PEM.
 */
export function writeCertificate(fields: CertificateFields, signingKey: KeyObject): string {
  const algorithm = signatureAlgorithm(signingKey);
  const extensions = fields.extensions.map((extension) =>
    sequence(objectIdentifier(extension.oid), ...(extension.critical ? [TRUE] : []), octetString(extension.value)),
  );
  const tbs = sequence(
    tlv(0xa0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(fields.serialNumber),
    algorithm,
    fields.issuer,
    sequence(time(fields.notBefore), time(fields.notAfter)),
    fields.subject,
    fields.publicKey.export({ type: 'spki', format: 'der' }),
    ...(extensions.length ? [tlv(0xa3, sequence(...extensions))] : []),
  );
  // node signs ECDSA as a DER Ecdsa-Sig-Value, which is what X.509 carries, and RSA with PKCS #1
  // v1.5 padding (its default for RSA keys), as sha256WithRSAEncryption means
  const signature = sign('sha256', tbs, signingKey);
  const der = sequence(tbs, algorithm, bitString(signature));
  const base64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE-----\n${base64}${base64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
}
