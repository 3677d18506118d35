// The cluster's own PKI: a self-made CA and the API server's serving certificate, plus the admin
// bearer token. Follows kubeadm's layout and rules (cmd/kubeadm/app/phases/certs): a long-lived CA
// ("kubernetes-ca", here "kubedesk-ca", 10 years), a shorter-lived serving certificate whose SANs
// cover the in-cluster names of the `kubernetes` Service and the loopback addresses, renewed when it
// nears expiry. Keys are RSA 2048 by default (kubeadm's default `EncryptionAlgorithmRSA2048`), or
// ECDSA P-256 (`EncryptionAlgorithmECDSAP256`) when asked: new CAs take the requested type, and a
// serving certificate of the other type is reissued under the CA it has, so kubeconfigs stay valid.
// The listener's TLS settings (`servingTlsOptions`) also let in TLS 1.2 clients that send no
// signature_algorithms extension, such as busybox's wget. Certificates are written by the small
// DER writer (shared/pki/certificateWriter.ts), so start-up does not load @peculiar/x509, and keys
// are generated off the main thread (pkiKeys.ts) while the rest of the cluster starts.
import { X509Certificate, createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { DEFAULT_CIPHERS } from 'node:tls';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { randomSerialNumber } from '../../shared/pki/x509';
import {
  authorityKeyIdentifier, basicConstraints, commonName, keyIdentifier, keyUsage, serverAuthExtendedKeyUsage, subjectAlternativeName,
  subjectKeyIdentifier, subjectOf, writeCertificate,
} from '../../shared/pki/certificateWriter';
import { defaultServingKeyType, newKeyPair, pkiDirectory, pkiFileNames, type KeyPair, type PkiKeyStart, type ServingKeyType } from './pkiKeys';

export { pkiDirectory, pkiFileNames, type ServingKeyType } from './pkiKeys';

export interface Pki {
  caCertPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  /** Present whenever the CA key is on disk (always, for a CA this module made). */
  caKeyPem?: string;
}

export interface PkiOptions {
  /**
   * IP addresses to add to the serving certificate besides 127.0.0.1 and ::1. A promise lets the
   * CA be loaded or made while they are still being worked out (the cluster's network plan).
   */
  extraIps?: string[] | Promise<string[]>;
  /** Default `rsa`, as kubeadm. */
  keyType?: ServingKeyType;
  /** keys begun for this data dir ahead of the call (startPkiKeys), used while they last */
  keys?: PkiKeyStart;
  /** Injectable clock for tests. */
  now?: Date;
}

/** The DNS names upstream puts on the apiserver certificate (kubeadm GetAPIServerAltNames). */
export const servingDnsNames: readonly string[] = [
  'localhost',
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
];
export const servingIps: readonly string[] = ['127.0.0.1', '::1'];

const dayMs = 24 * 60 * 60 * 1000;
const caValidityDays = 3650;
// kubeadm signs leaf certificates for one year and renews them before they run out.
const servingValidityDays = 365;
const renewWithinDays = 30;
// Tolerates clocks that are slightly behind (kubeadm backdates by 5 minutes as well).
const backdateMs = 5 * 60 * 1000;

/** node's asymmetricKeyType of each key type */
const nodeKeyType: Record<ServingKeyType, string> = { rsa: 'rsa', ecdsa: 'ec' };

/**
 * The API server listener's TLS settings beside its certificate. OpenSSL 3's default security level
 * refuses SHA-1 handshake signatures, which TLS 1.2 implies for a client that sends no
 * signature_algorithms extension (RFC 5246 7.4.1.4.1) — busybox's wget, the HTTPS client of minimal
 * images, is one — so such clients got a handshake failure whatever the key type. Level 0 lets
 * them in; clients that list their algorithms (every browser, Go, OpenSSL, curl) still negotiate
 * SHA-256 or better, and the cipher list stays node's default. Upstream 1.35 (Go 1.25) refuses
 * those clients (RFC 9155); kubedesk lets pods use the tools they have.
 */
export const servingTlsOptions = { ciphers: `${DEFAULT_CIPHERS}:@SECLEVEL=0` } as const;

/**
 * Loads the CA and serving certificate from `<dataDir>/pki/`, creating what is missing. The CA is
 * kept for its whole life (clients trust it through the kubeconfig); the serving certificate is
 * reissued when it expires within 30 days, does not chain to the CA, lacks a requested SAN, or has
 * a key of another type than requested.
 */
export async function ensurePki(dataDir: string, options: PkiOptions = {}): Promise<Pki> {
  const now = options.now ?? new Date();
  const directory = pkiDirectory(dataDir);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const keyType = options.keyType ?? defaultServingKeyType;
  const early = options.keys?.dataDir === dataDir && options.keys.keyType === keyType ? options.keys.pending : [];
  const takeKeyPair = () => {
    const keys = early.shift() ?? newKeyPair(keyType);
    // awaited below, perhaps after another await: a failure meanwhile must not be reported as unhandled
    keys.catch(() => undefined);
    return keys;
  };
  const paths = {
    caCert: join(directory, pkiFileNames.caCert),
    caKey: join(directory, pkiFileNames.caKey),
    serverCert: join(directory, pkiFileNames.serverCert),
    serverKey: join(directory, pkiFileNames.serverKey),
  };

  let ca = loadKeyPair(paths.caCert, paths.caKey);
  let server = loadKeyPair(paths.serverCert, paths.serverKey);
  // Keys are generated on libuv's threads (an RSA 2048 key takes 0.1 to 0.4 s of CPU): a new
  // CA's and a new serving key side by side, while the caller opens the store and Docker makes the
  // network (or taken from those the caller began earlier).
  let servingKeys: Promise<KeyPair> | undefined;
  if (!ca || !isUsableCa(ca.certificate, now)) {
    const caKeys = takeKeyPair();
    servingKeys = takeKeyPair();
    ca = createCa(now, await caKeys);
    writePrivateFile(paths.caKey, ca.keyPem);
    writePublicFile(paths.caCert, ca.certPem);
  } else if (!server || !isUsableServingCertificate(server.certificate, ca.certificate, now, [], keyType)) {
    // not usable whatever the extra IPs: its new key need not wait for them
    servingKeys = takeKeyPair();
  }

  const extraIps = normalizeIps((await options.extraIps) ?? []);
  if (!server || !isUsableServingCertificate(server.certificate, ca.certificate, now, extraIps, keyType)) {
    const issued = createServingCertificate(ca, now, extraIps, await (servingKeys ?? takeKeyPair()));
    writePrivateFile(paths.serverKey, issued.keyPem);
    writePublicFile(paths.serverCert, issued.certPem);
    server = issued;
  }

  return { caCertPem: ca.certPem, caKeyPem: ca.keyPem, serverCertPem: server.certPem, serverKeyPem: server.keyPem };
}

/** The admin bearer token: 32 random bytes, base64url, kept in `<dataDir>/pki/admin.token`. */
export function ensureAdminToken(dataDir: string): string {
  const directory = pkiDirectory(dataDir);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const path = join(directory, pkiFileNames.adminToken);
  if (existsSync(path)) {
    const token = readFileSync(path, 'utf8').trim();
    if (token.length > 0) {
      tightenMode(path);
      return token;
    }
  }
  const token = randomBytes(32).toString('base64url');
  writePrivateFile(path, `${token}\n`);
  return token;
}

interface LoadedPair {
  certPem: string;
  keyPem: string;
  certificate: X509Certificate;
}

function loadKeyPair(certPath: string, keyPath: string): LoadedPair | undefined {
  if (!existsSync(certPath) || !existsSync(keyPath)) return undefined;
  try {
    const certPem = readFileSync(certPath, 'utf8');
    const keyPem = readFileSync(keyPath, 'utf8');
    const certificate = new X509Certificate(certPem);
    // A key that does not belong to the certificate would make every TLS handshake fail.
    const keyPublic = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
    const certPublic = certificate.publicKey.export({ type: 'spki', format: 'der' });
    if (!keyPublic.equals(certPublic)) return undefined;
    tightenMode(keyPath);
    return { certPem, keyPem, certificate };
  } catch {
    return undefined;
  }
}

function isUsableCa(certificate: X509Certificate, now: Date): boolean {
  return certificate.ca && new Date(certificate.validTo).getTime() - now.getTime() > renewWithinDays * dayMs;
}

function isUsableServingCertificate(certificate: X509Certificate, ca: X509Certificate, now: Date, extraIps: string[], keyType: ServingKeyType): boolean {
  if (certificate.publicKey.asymmetricKeyType !== nodeKeyType[keyType]) return false;
  if (new Date(certificate.validTo).getTime() - now.getTime() <= renewWithinDays * dayMs) return false;
  if (new Date(certificate.validFrom).getTime() > now.getTime() + backdateMs) return false;
  if (!certificate.checkIssued(ca) || !certificate.verify(ca.publicKey)) return false;
  for (const name of servingDnsNames) if (certificate.checkHost(name, { wildcards: false }) !== name) return false;
  for (const ip of [...servingIps, ...extraIps]) if (certificate.checkIP(ip) === undefined) return false;
  return true;
}

function createCa(now: Date, keys: KeyPair): LoadedPair {
  const name = commonName('kubedesk-ca');
  const notBefore = new Date(now.getTime() - backdateMs);
  const certPem = writeCertificate(
    {
      serialNumber: Buffer.from(randomSerialNumber(), 'hex'),
      issuer: name,
      subject: name,
      notBefore,
      notAfter: new Date(notBefore.getTime() + caValidityDays * dayMs),
      publicKey: keys.publicKey,
      extensions: [basicConstraints(true), keyUsage(['digitalSignature', 'keyCertSign', 'cRLSign']), subjectKeyIdentifier(keyIdentifier(keys.publicKey))],
    },
    keys.privateKey,
  );
  return { certPem, keyPem: privateKeyPem(keys.privateKey), certificate: new X509Certificate(certPem) };
}

/**
 * Signs a serving certificate for `keys` with the CA's key, whichever its type (an older CA may be
 * ECDSA under an RSA leaf): the writer signs with the CA key's own algorithm.
 */
function createServingCertificate(ca: LoadedPair, now: Date, extraIps: string[], keys: KeyPair): LoadedPair {
  const notBefore = new Date(now.getTime() - backdateMs);
  const caNotAfter = new Date(ca.certificate.validTo).getTime();
  const notAfter = new Date(Math.min(notBefore.getTime() + servingValidityDays * dayMs, caNotAfter));
  const certPem = writeCertificate(
    {
      serialNumber: Buffer.from(randomSerialNumber(), 'hex'),
      issuer: subjectOf(ca.certificate.raw),
      subject: commonName('kube-apiserver'),
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      extensions: [
        basicConstraints(false),
        // as kubeadm's: an RSA key also enciphers (TLS 1.2 RSA key exchange); an ECDSA key only signs
        keyUsage(keys.publicKey.asymmetricKeyType === 'rsa' ? ['digitalSignature', 'keyEncipherment'] : ['digitalSignature']),
        serverAuthExtendedKeyUsage(),
        subjectAlternativeName(servingDnsNames, [...servingIps, ...extraIps]),
        subjectKeyIdentifier(keyIdentifier(keys.publicKey)),
        authorityKeyIdentifier(keyIdentifier(ca.certificate.publicKey)),
      ],
    },
    createPrivateKey(ca.keyPem),
  );
  return { certPem, keyPem: privateKeyPem(keys.privateKey), certificate: new X509Certificate(certPem) };
}

/** PKCS#8 PEM, which Go's tls.X509KeyPair and Node's tls both accept. */
function privateKeyPem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function normalizeIps(ips: string[]): string[] {
  const unique = new Set<string>();
  for (const ip of ips) {
    if (isIP(ip) === 0) throw new Error(`invalid IP address for the serving certificate: ${JSON.stringify(ip)}`);
    if (!servingIps.includes(ip)) unique.add(ip);
  }
  return [...unique];
}

function writePrivateFile(path: string, content: string): void {
  writeAtomically(path, content, 0o600);
}

function writePublicFile(path: string, content: string): void {
  writeAtomically(path, content, 0o644);
}

function writeAtomically(path: string, content: string, mode: number): void {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, content, { mode });
  chmodSync(temporary, mode);
  renameSync(temporary, path);
}

function tightenMode(path: string): void {
  if (process.platform === 'win32') return;
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
}
