// X.509 building blocks on @peculiar/x509 for kubedesk's own certificates (the cluster CA and API
// server certificate, the Ingress controller's fallback): key pairs, RFC 5280 serial numbers,
// PKCS#8 PEM private keys and self-signed certificates, as kubeadm's pkiutil makes them.
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';

export type X509Module = typeof import('@peculiar/x509');

let x509Module: Promise<X509Module> | undefined;

// @peculiar/x509 takes ~150 ms to load and most starts find their certificates on disk already,
// so it is loaded on first use.
export function loadX509(): Promise<X509Module> {
  x509Module ??= import('@peculiar/x509').then((loaded) => {
    // a CommonJS package: a bundle's chunk may offer it as the default export only
    const x509 = 'cryptoProvider' in loaded ? loaded : (loaded as unknown as { default: X509Module }).default;
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    return x509;
  });
  return x509Module;
}

/** ECDSA P-256 is kubeadm's `EncryptionAlgorithmECDSAP256`; RSA-2048 is its RSA default. */
export type KeyType = 'ecdsa-p256' | 'rsa-2048';

const rsaAlgorithm = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' } as const;

/** WebCrypto algorithms per key type: `key` for generating and importing, `signing` for signing. */
export const keyAlgorithms = {
  'ecdsa-p256': { key: { name: 'ECDSA', namedCurve: 'P-256' }, signing: { name: 'ECDSA', hash: 'SHA-256' } },
  'rsa-2048': { key: rsaAlgorithm, signing: rsaAlgorithm },
} as const;

export async function generateKeyPair(type: KeyType): Promise<CryptoKeyPair> {
  const pair = await webcrypto.subtle.generateKey(keyAlgorithms[type].key, true, ['sign', 'verify']);
  return pair as unknown as CryptoKeyPair;
}

/** PKCS#8 PEM, which Go's tls.X509KeyPair and Node's tls both accept for EC and RSA keys. */
export async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key as unknown as webcrypto.CryptoKey));
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ type: 'pkcs8', format: 'pem' }).toString();
}

// RFC 5280 wants a positive serial of at most 20 octets; Go rejects negative ones.
export function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return bytes.toString('hex');
}

export interface SelfSignedOptions {
  keyType: KeyType;
  /** Distinguished name, e.g. `CN=kubedesk-ca`. */
  subject: string;
  notBefore: Date;
  validityDays: number;
  extensions(x509: X509Module, keys: CryptoKeyPair): Promise<import('@peculiar/x509').Extension[]> | import('@peculiar/x509').Extension[];
}

export interface PemPair {
  certPem: string;
  keyPem: string;
}

/** A new key pair and a certificate signed by its own key. */
export async function createSelfSignedPair(options: SelfSignedOptions): Promise<PemPair> {
  const x509 = await loadX509();
  const keys = await generateKeyPair(options.keyType);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialNumber(),
    name: options.subject,
    notBefore: options.notBefore,
    notAfter: new Date(options.notBefore.getTime() + options.validityDays * 24 * 60 * 60 * 1000),
    signingAlgorithm: keyAlgorithms[options.keyType].signing,
    keys,
    extensions: await options.extensions(x509, keys),
  });
  return { certPem: certificate.toString('pem'), keyPem: await exportPrivateKeyPem(keys.privateKey) };
}
