// Client-certificate authentication, as kube-apiserver's x509 authenticator with --client-ca-file
// (staging/src/k8s.io/apiserver/pkg/authentication/request/x509): a certificate the TLS handshake
// verified against the cluster CA for client use names the user by its subject's Common Name and
// the groups by its Organizations (plus system:authenticated). Certificates come from the
// kube-apiserver-client signer (CertificateSigningRequests) or from whoever holds the CA key. A
// certificate that does not verify authenticates nobody; with no other credential the request is
// refused (401), as upstream's union authenticator fails on the x509 error.
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from '../httpServer';

export type CertificateIdentity = { user: UserInfo } | { invalid: string } | undefined;

interface PeerSocket {
  authorized?: boolean;
  authorizationError?: Error | string | null;
  getPeerCertificate?: TLSSocket['getPeerCertificate'];
}

function values(field: string | string[] | undefined): string[] {
  if (field === undefined) return [];
  return (Array.isArray(field) ? field : [field]).filter((value) => value !== '');
}

/** Who the client certificate of this connection names; undefined when it presented none. */
export function certificateIdentity(socket: unknown): CertificateIdentity {
  const peer = socket as PeerSocket;
  if (typeof peer?.getPeerCertificate !== 'function') return undefined;
  const certificate = peer.getPeerCertificate();
  if (!certificate || Object.keys(certificate).length === 0) return undefined;
  if (!peer.authorized) return { invalid: `verifying certificate failed: ${String(peer.authorizationError ?? 'not signed by the cluster CA')}` };
  const subject = (certificate.subject ?? {}) as unknown as Record<string, string | string[] | undefined>;
  const [name] = values(subject.CN);
  if (!name) return { invalid: 'the client certificate has no Common Name' };
  const groups = [...new Set([...values(subject.O), 'system:authenticated'])];
  return { user: { name, groups } };
}
