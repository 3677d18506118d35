// Certificates of kubedesk's Ingress controller: the self-signed fallback served when no Ingress TLS
// Secret covers the requested name (ingress-nginx's "Kubernetes Ingress Controller Fake Certificate"
// plays the same part), and TLS Secrets (type kubernetes.io/tls, base64 `tls.crt`/`tls.key` in data,
// as upstream's core/v1 SecretTypeTLS describes) turned into TLS contexts.
import { createSecureContext, type SecureContext } from 'node:tls';
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { createSelfSignedPair, type PemPair } from '../../../shared/pki/x509';

export type CertificatePair = PemPair;

export const fallbackCommonName = 'Kubedesk Ingress Controller Fake Certificate';

/**
 * A self-signed RSA-2048 serving certificate for the given DNS names. RSA, not ECDSA: OpenSSL keeps
 * the default context's ECDSA certificate beside an RSA one chosen by SNI and may serve the
 * default's, so users' (mostly RSA) Secrets would lose to the fallback (seen with Node 20).
 */
export function createSelfSignedCertificate(commonName: string, dnsNames: readonly string[], validityDays = 365): Promise<CertificatePair> {
  return createSelfSignedPair({
    keyType: 'rsa-2048',
    subject: `CN=${commonName}`,
    // Backdated a little so clocks that run slightly behind still accept it.
    notBefore: new Date(Date.now() - 5 * 60 * 1000),
    validityDays,
    extensions: (x509) => {
      const extensions: import('@peculiar/x509').Extension[] = [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      ];
      if (dnsNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(dnsNames.map((value) => ({ type: 'dns' as const, value }))));
      return extensions;
    },
  });
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
