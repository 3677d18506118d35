// The cluster PKI's key pairs (pki.ts): RSA 2048, kubeadm's default `EncryptionAlgorithmRSA2048`,
// or ECDSA P-256 (`EncryptionAlgorithmECDSAP256`), made on libuv's threads. An RSA key takes 0.1 to
// 0.4 s of CPU (a random search for primes), so `kubedesk serve` begins the two keys a fresh data dir needs (its
// CA's and the serving certificate's) from the entry chunk, before the rest of the bundle loads:
// this module is small and imports only node's own modules for that reason.
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** `kubedesk serve --serving-key-type`: the key of the serving certificate (and of a new CA). */
export type ServingKeyType = 'rsa' | 'ecdsa';
export const defaultServingKeyType: ServingKeyType = 'rsa';

export interface KeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
}

export const pkiFileNames = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  serverCert: 'apiserver.crt',
  serverKey: 'apiserver.key',
  adminToken: 'admin.token',
} as const;

export function pkiDirectory(dataDir: string): string {
  return join(dataDir, 'pki');
}

/** An RSA 2048 (exponent 65537) or ECDSA P-256 key pair, made off the main thread. */
export function newKeyPair(keyType: ServingKeyType): Promise<KeyPair> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, publicKey: KeyObject, privateKey: KeyObject) => (error ? reject(error) : resolve({ publicKey, privateKey }));
    if (keyType === 'rsa') generateKeyPair('rsa', { modulusLength: 2048, publicExponent: 0x10001 }, done);
    else generateKeyPair('ec', { namedCurve: 'prime256v1' }, done);
  });
}

/** Key pairs begun for one data dir before ensurePki runs there; it takes them in order. */
export interface PkiKeyStart {
  dataDir: string;
  keyType: ServingKeyType;
  pending: Promise<KeyPair>[];
}

/**
 * Begins the keys ensurePki will make for a data dir that has no CA yet: the CA's and the serving
 * certificate's (a certificate left from another CA is reissued). Undefined when the CA is on
 * disk: a restart reuses its keys, and ensurePki makes what it still needs itself.
 */
export function startPkiKeys(dataDir: string, keyType: ServingKeyType): PkiKeyStart | undefined {
  const directory = pkiDirectory(dataDir);
  if (existsSync(join(directory, pkiFileNames.caCert)) && existsSync(join(directory, pkiFileNames.caKey))) return undefined;
  const pending = [newKeyPair(keyType), newKeyPair(keyType)];
  // taken and awaited by ensurePki; a failure must not be reported as unhandled before that
  for (const keys of pending) keys.catch(() => undefined);
  return { dataDir, keyType, pending };
}
