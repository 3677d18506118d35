// Certificate pinning for the desktop window: the window talks only to kubedesk's own API server on
// loopback, so it trusts exactly one issuer, the cluster's CA (main/apiserver/pki.ts), instead of the
// system roots. Mirrors how kubectl trusts a kubeconfig's certificate-authority-data alone (client-go
// transport: a custom RootCAs pool replaces the system pool), plus a hostname check like Go's
// x509.Certificate.VerifyHostname.
import { X509Certificate } from 'node:crypto';

/** Hosts the window may reach over TLS: the cluster listens on loopback only. */
const loopbackHosts: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Chromium's verification results (net/base/net_error_list.h): 0 OK, -2 failed. */
export const certificateVerdict = { accept: 0, reject: -2 } as const;

/**
 * True when `certificatePem` is a currently valid certificate for `hostname` (a loopback name)
 * issued and signed by the CA in `caPem`. Anything unparsable is rejected.
 */
export function isPinnedCertificate(hostname: string, certificatePem: string, caPem: string | undefined, now: Date = new Date()): boolean {
  if (!caPem || !loopbackHosts.has(hostname)) return false;
  try {
    const ca = new X509Certificate(caPem);
    const certificate = new X509Certificate(certificatePem);
    if (!ca.ca) return false;
    if (!certificate.checkIssued(ca) || !certificate.verify(ca.publicKey)) return false;
    const time = now.getTime();
    if (time < Date.parse(certificate.validFrom) || time > Date.parse(certificate.validTo)) return false;
    const bare = hostname.replace(/^\[(.*)\]$/, '$1');
    return bare === 'localhost' ? certificate.checkHost(bare, { wildcards: false }) === bare : certificate.checkIP(bare) !== undefined;
  } catch {
    return false;
  }
}

export interface CertificateVerifyRequest {
  hostname: string;
  certificate: { data: string };
}

/**
 * A `session.setCertificateVerifyProc` callback that accepts only certificates pinned to the CA
 * `currentCaPem()` returns (the CA changes when the cluster is reset, so it is read per request).
 */
export function pinnedCertificateVerifier(currentCaPem: () => string | undefined): (request: CertificateVerifyRequest, callback: (verificationResult: number) => void) => void {
  return (request, callback) => {
    callback(isPinnedCertificate(request.hostname, request.certificate.data, currentCaPem()) ? certificateVerdict.accept : certificateVerdict.reject);
  };
}
