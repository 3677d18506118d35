// Certificates of kubedesk's Ingress controller: the self-signed fallback served when no Ingress TLS
// Secret covers the requested name (ingress-nginx's "Kubernetes Ingress Controller Fake Certificate"
// plays the same part), and TLS Secrets (type kubernetes.io/tls, base64 `tls.crt`/`tls.key` in data,
// as upstream's core/v1 SecretTypeTLS describes) turned into TLS contexts.
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { createSecureContext, type SecureContext } from 'node:tls';
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';

export interface CertificatePair {
  certPem: string;
  keyPem: string;
}

export const fallbackCommonName = 'Kubedesk Ingress Controller Fake Certificate';

type X509Module = typeof import('@peculiar/x509');

let x509Module: Promise<X509Module> | undefined;

// @peculiar/x509 is slow to load and needed only here, so it is loaded on first use.
function loadX509(): Promise<X509Module> {
  x509Module ??= import('@peculiar/x509').then((x509) => {
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    return x509;
  });
  return x509Module;
}

const dayMs = 24 * 60 * 60 * 1000;

/**
 * A self-signed RSA-2048 serving certificate for the given DNS names. RSA, not ECDSA: OpenSSL keeps
 * the default context's ECDSA certificate beside an RSA one chosen by SNI and may serve the
 * default's, so users' (mostly RSA) Secrets would lose to the fallback (seen with Node 20).
 */
export async function createSelfSignedCertificate(commonName: string, dnsNames: readonly string[], validityDays = 365): Promise<CertificatePair> {
  const x509 = await loadX509();
  const algorithm = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' } as const;
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  // Backdated a little so clocks that run slightly behind still accept it.
  const notBefore = new Date(Date.now() - 5 * 60 * 1000);
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01;
  const extensions: import('@peculiar/x509').Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
  ];
  if (dnsNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(dnsNames.map((value) => ({ type: 'dns' as const, value }))));
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString('hex'),
    name: `CN=${commonName}`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + validityDays * dayMs),
    signingAlgorithm: algorithm,
    keys,
    extensions,
  });
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as unknown as webcrypto.CryptoKey));
  const keyPem = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ type: 'pkcs8', format: 'pem' }).toString();
  return { certPem: certificate.toString('pem'), keyPem };
}

/** The fallback certificate, made once per controller start (never stored). */
export function createFallbackCertificate(): Promise<CertificatePair> {
  return createSelfSignedCertificate(fallbackCommonName, ['ingress.local']);
}

/** The PEM pair of a TLS Secret, or a sentence saying why it cannot be used. */
export function certificateFromSecret(secret: KubeObject): CertificatePair | string {
  const data = isRecord(secret.data) ? secret.data : {};
  const cert = data['tls.crt'];
  const key = data['tls.key'];
  if (typeof cert !== 'string' || cert === '' || typeof key !== 'string' || key === '') return `secret ${secret.metadata.namespace}/${secret.metadata.name} has no tls.crt and tls.key`;
  return { certPem: Buffer.from(cert, 'base64').toString('utf8'), keyPem: Buffer.from(key, 'base64').toString('utf8') };
}

/** A TLS context for a Secret, or a sentence saying why the Secret cannot serve. */
export function secureContextFromSecret(secret: KubeObject): SecureContext | string {
  const pair = certificateFromSecret(secret);
  if (typeof pair === 'string') return pair;
  try {
    return createSecureContext({ cert: pair.certPem, key: pair.keyPem });
  } catch (error) {
    return `secret ${secret.metadata.namespace}/${secret.metadata.name} holds an unusable certificate or key: ${error instanceof Error ? error.message : String(error)}`;
  }
}
