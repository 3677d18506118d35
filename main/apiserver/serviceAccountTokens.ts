// Service-account tokens: ES256 JWTs as the kube-apiserver issues them through the TokenRequest API
// (pkg/serviceaccount/claims.go, pkg/registry/core/serviceaccount/storage/token.go) and checks them
// on every request (pkg/serviceaccount/jwt.go). The signing key lives in `<data-dir>/pki/sa.key`.
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatTime } from '../../shared/kubernetes/time';
import { isRecord } from '../../shared/kubernetes/types';

export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export const API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

export interface TokenSubject {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUid: string;
  pod?: { name: string; uid: string };
  node?: { name: string; uid: string };
}

export interface VerifiedToken extends TokenSubject {
  audiences: string[];
  expiresAt: number;
}

/** Signature-checked tokens remembered (their claims); emptied when full. */
const VERIFIED_TOKENS_KEPT = 1024;

export class ServiceAccountTokens {
  private readonly publicKey: KeyObject;
  /**
   * The claims of tokens whose signature verified, by token text: a pod sends the same token on
   * every request, and an ES256 verification costs about as much CPU as the rest of a small request
   * (upstream caches token authentication results too). Expiry, audience and the other checks run
   * on every call; a token that fails the signature is not remembered.
   */
  private readonly verifiedClaims = new Map<string, Record<string, unknown>>();

  private constructor(private readonly privateKey: KeyObject) {
    this.publicKey = createPublicKey(privateKey);
  }

  /** Loads or creates the signing key in `<pkiDir>/sa.key` (mode 0600). */
  static open(pkiDir: string): ServiceAccountTokens {
    mkdirSync(pkiDir, { recursive: true, mode: 0o700 });
    const path = join(pkiDir, 'sa.key');
    if (existsSync(path)) return new ServiceAccountTokens(createPrivateKey(readFileSync(path, 'utf8')));
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    return new ServiceAccountTokens(privateKey);
  }

  issue(subject: TokenSubject, audiences: string[], expirationSeconds: number, now = Date.now()): { token: string; expirationTimestamp: string } {
    const issuedAt = Math.floor(now / 1000);
    const expires = issuedAt + expirationSeconds;
    const kubernetes: Record<string, unknown> = {
      namespace: subject.namespace,
      serviceaccount: { name: subject.serviceAccountName, uid: subject.serviceAccountUid },
    };
    if (subject.pod) kubernetes.pod = subject.pod;
    if (subject.node) kubernetes.node = subject.node;
    const claims = {
      aud: audiences,
      exp: expires,
      iat: issuedAt,
      iss: SERVICE_ACCOUNT_ISSUER,
      jti: randomUUID(),
      'kubernetes.io': kubernetes,
      nbf: issuedAt,
      sub: `system:serviceaccount:${subject.namespace}:${subject.serviceAccountName}`,
    };
    const header = { alg: 'ES256', kid: keyId(this.publicKey) };
    const body = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    const signature = sign('sha256', Buffer.from(body), { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    return { token: `${body}.${signature.toString('base64url')}`, expirationTimestamp: formatTime(expires * 1000) };
  }

  /** The token's subject if it is ours, unexpired and for the API audience; undefined otherwise. */
  verify(token: string, now = Date.now()): VerifiedToken | undefined {
    const claims = this.signedClaims(token);
    if (claims === undefined) return undefined;
    try {
      if (claims.iss !== SERVICE_ACCOUNT_ISSUER || typeof claims.exp !== 'number') return undefined;
      const seconds = Math.floor(now / 1000);
      if (claims.exp < seconds || (typeof claims.nbf === 'number' && claims.nbf > seconds + 60)) return undefined;
      const audiences = Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === 'string') : typeof claims.aud === 'string' ? [claims.aud] : [];
      if (!audiences.includes(API_AUDIENCE)) return undefined;
      const info = claims['kubernetes.io'];
      if (!isRecord(info) || typeof info.namespace !== 'string' || !isRecord(info.serviceaccount)) return undefined;
      const serviceAccount = info.serviceaccount;
      const subject: VerifiedToken = {
        namespace: info.namespace,
        serviceAccountName: String(serviceAccount.name),
        serviceAccountUid: String(serviceAccount.uid),
        audiences,
        expiresAt: claims.exp * 1000,
      };
      if (isRecord(info.pod)) subject.pod = { name: String(info.pod.name), uid: String(info.pod.uid) };
      return subject;
    } catch {
      return undefined;
    }
  }

  /** The claims of a JWT this key signed, or undefined when it is not one. */
  private signedClaims(token: string): Record<string, unknown> | undefined {
    const known = this.verifiedClaims.get(token);
    if (known !== undefined) return known;
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    try {
      const valid = verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), { key: this.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(parts[2], 'base64url'));
      if (!valid) return undefined;
      const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
      if (!isRecord(claims)) return undefined;
      if (this.verifiedClaims.size >= VERIFIED_TOKENS_KEPT) this.verifiedClaims.clear();
      this.verifiedClaims.set(token, claims);
      return claims;
    } catch {
      return undefined;
    }
  }
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

function keyId(key: KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return Buffer.from(der).toString('base64url').slice(-43);
}
