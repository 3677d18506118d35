// The cluster's own PKI: a self-made CA and the API server's serving certificate, plus the admin
// bearer token. Follows kubeadm's layout and rules (cmd/kubeadm/app/phases/certs): a long-lived CA
// ("kubernetes-ca", here "kubedesk-ca", 10 years), a shorter-lived serving certificate whose SANs
// cover the in-cluster names of the `kubernetes` Service and the loopback addresses, renewed when it
// nears expiry. Keys are ECDSA P-256 (kubeadm's `EncryptionAlgorithmECDSAP256`).
import { X509Certificate, createPrivateKey, createPublicKey, generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { randomSerialNumber } from '../../shared/pki/x509';
import {
  authorityKeyIdentifier, basicConstraints, commonName, keyIdentifier, keyUsage, serverAuthExtendedKeyUsage, subjectAlternativeName,
  subjectKeyIdentifier, subjectOf, writeCertificate,
} from '../../shared/pki/certificateWriter';

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

export const pkiFileNames = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  serverCert: 'apiserver.crt',
  serverKey: 'apiserver.key',
  adminToken: 'admin.token',
} as const;

const dayMs = 24 * 60 * 60 * 1000;
const caValidityDays = 3650;
// kubeadm signs leaf certificates for one year and renews them before they run out.
const servingValidityDays = 365;
const renewWithinDays = 30;
// Tolerates clocks that are slightly behind (kubeadm backdates by 5 minutes as well).
const backdateMs = 5 * 60 * 1000;

export function pkiDirectory(dataDir: string): string {
  return join(dataDir, 'pki');
}

/**
 * Loads the CA and serving certificate from `<dataDir>/pki/`, creating what is missing. The CA is
 * kept for its whole life (clients trust it through the kubeconfig); the serving certificate is
 * reissued when it expires within 30 days, does not chain to the CA, or lacks a requested SAN.
 */
export async function ensurePki(dataDir: string, options: PkiOptions = {}): Promise<Pki> {
  const now = options.now ?? new Date();
  const directory = pkiDirectory(dataDir);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const paths = {
    caCert: join(directory, pkiFileNames.caCert),
    caKey: join(directory, pkiFileNames.caKey),
    serverCert: join(directory, pkiFileNames.serverCert),
    serverKey: join(directory, pkiFileNames.serverKey),
  };

  let ca = loadKeyPair(paths.caCert, paths.caKey);
  if (!ca || !isUsableCa(ca.certificate, now)) {
    ca = await createCa(now);
    writePrivateFile(paths.caKey, ca.keyPem);
    writePublicFile(paths.caCert, ca.certPem);
  }

  const extraIps = normalizeIps((await options.extraIps) ?? []);
  let server = loadKeyPair(paths.serverCert, paths.serverKey);
  if (!server || !isUsableServingCertificate(server.certificate, ca.certificate, now, extraIps)) {
    const issued = await createServingCertificate(ca, now, extraIps);
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

function isUsableServingCertificate(certificate: X509Certificate, ca: X509Certificate, now: Date, extraIps: string[]): boolean {
  if (new Date(certificate.validTo).getTime() - now.getTime() <= renewWithinDays * dayMs) return false;
  if (new Date(certificate.validFrom).getTime() > now.getTime() + backdateMs) return false;
  if (!certificate.checkIssued(ca) || !certificate.verify(ca.publicKey)) return false;
  for (const name of servingDnsNames) if (certificate.checkHost(name, { wildcards: false }) !== name) return false;
  for (const ip of [...servingIps, ...extraIps]) if (certificate.checkIP(ip) === undefined) return false;
  return true;
}

async function createCa(now: Date): Promise<LoadedPair> {
  const keys = await newKeyPair();
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

async function createServingCertificate(ca: LoadedPair, now: Date, extraIps: string[]): Promise<LoadedPair> {
  const keys = await newKeyPair();
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
        keyUsage(['digitalSignature']),
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

/** An ECDSA P-256 key pair (kubeadm's `EncryptionAlgorithmECDSAP256`), made off the main thread. */
function newKeyPair(): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  return new Promise((resolve, reject) => {
    generateKeyPair('ec', { namedCurve: 'prime256v1' }, (error, publicKey, privateKey) => (error ? reject(error) : resolve({ publicKey, privateKey })));
  });
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
