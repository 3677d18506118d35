// Why the relay could not reach a context's cluster, in the words the UI shows: a Kubernetes
// Status (503 ServiceUnavailable) whose first cause names the failure — Unreachable (refused, DNS,
// timeout: the message names host:port), CertificateNotTrusted (with the SHA-256 fingerprint of the
// server's leaf certificate, so the user can compare it before trusting it), TLSError, the exec
// credential plugin's failures (its stderr as it printed it), CredentialsUnreadable and
// Unsupported. Only errors raised before the server answered get here; the server's own answers
// are relayed as they are. Node's error codes are OpenSSL's verify results
// (X509_V_ERR_* without the prefix) and libuv's errno names.
import { connect as tlsConnect } from 'node:tls';
import { ApiError } from '../../apiserver/apiError';
import { KubeconfigError } from '../../remote/kubeconfig';
import { CredentialError } from '../../remote/clusterConnection';

export type RelayFailureReason =
  | 'Unreachable'
  | 'CertificateNotTrusted'
  | 'TLSError'
  | 'ExecPluginMissing'
  | 'ExecPluginFailed'
  | 'ExecPluginInteractive'
  | 'CredentialsUnreadable'
  | 'Unsupported';

export interface RelayFailure {
  reason: RelayFailureReason;
  message: string;
  /** CertificateNotTrusted: the leaf certificate's SHA-256 fingerprint, `AB:CD:…` */
  fingerprint?: string;
  /** the exec plugin's stderr */
  stderr?: string;
}

/** The connection state /-/status reports for a failure. */
export type { ClusterState as ConnectionState } from '../../../shared/clusters';
import type { ClusterState as ConnectionState } from '../../../shared/clusters';

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'ECONNABORTED', 'EPIPE', 'EADDRNOTAVAIL', 'ESOCKETTIMEDOUT']);
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** host:port of a server URL, with the scheme's default port. */
export function hostPort(server: URL): string {
  const port = server.port || (server.protocol === 'http:' ? '80' : '443');
  return `${server.hostname}:${port}`;
}

/** What went wrong before the server answered (the fingerprint is added by withFingerprint). */
export function classifyFailure(error: unknown, server: URL): RelayFailure {
  if (error instanceof CredentialError) {
    switch (error.failure) {
      case 'exec-missing':
        return { reason: 'ExecPluginMissing', message: error.message };
      case 'exec-failed':
        return { reason: 'ExecPluginFailed', message: error.stderr ? `${error.message}: ${error.stderr}` : error.message, ...(error.stderr ? { stderr: error.stderr } : {}) };
      case 'exec-interactive':
        return { reason: 'ExecPluginInteractive', message: error.message };
      case 'file-unreadable':
        return { reason: 'CredentialsUnreadable', message: error.message };
      case 'unsupported':
        return { reason: 'Unsupported', message: error.message };
    }
  }
  if (error instanceof KubeconfigError) {
    return /unable to read|no such file|EACCES/.test(error.message) ? { reason: 'CredentialsUnreadable', message: error.message } : { reason: 'Unsupported', message: error.message };
  }
  const code = errorCode(error) ?? '';
  const where = hostPort(server);
  if (UNREACHABLE.has(code)) return { reason: 'Unreachable', message: `cannot reach ${where}: ${unreachableWords(code)} (${code})` };
  if (UNTRUSTED.has(code)) return { reason: 'CertificateNotTrusted', message: `the certificate of ${where} is not signed by a certificate authority the kubeconfig trusts (${code})` };
  if (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.startsWith('CERT_') || code === 'EPROTO' || code.includes('CERT')) {
    return { reason: 'TLSError', message: `TLS with ${where} failed: ${errorMessage(error)}` };
  }
  return { reason: 'Unreachable', message: `cannot reach ${where}: ${errorMessage(error)}` };
}

function unreachableWords(code: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'the connection was refused (is the cluster running?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return 'the connection timed out';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ECONNABORTED':
      return 'the connection was closed before the server answered';
    default:
      return 'the network cannot get there';
  }
}

/**
 * CertificateNotTrusted gets the leaf's fingerprint (read without verifying, then the socket is
 * closed) — by `probe` when given (the relay reads it the way the context connects, through its
 * proxy-url), else straight from the server.
 */
export async function withFingerprint(failure: RelayFailure, server: URL, serverName?: string, probe: () => Promise<string | undefined> = () => leafFingerprint(server, serverName)): Promise<RelayFailure> {
  if (failure.reason !== 'CertificateNotTrusted' || failure.fingerprint) return failure;
  const fingerprint = await probe();
  if (!fingerprint) return failure;
  return { ...failure, fingerprint, message: `${failure.message}; the server's certificate has SHA-256 fingerprint ${fingerprint}` };
}

/** The SHA-256 fingerprint (`AB:CD:…`) of the certificate a TLS server presents, or undefined. */
export function leafFingerprint(server: URL, serverName?: string, timeoutMs = 5000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const host = server.hostname.replace(/^\[|\]$/g, '');
    const name = serverName ?? (/^[\d.]+$|:/.test(host) ? undefined : host);
    const socket = tlsConnect({ host, port: Number(server.port || 443), rejectUnauthorized: false, ...(name ? { servername: name } : {}) });
    const finish = (value: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerCertificate();
      finish(certificate && typeof certificate.fingerprint256 === 'string' && certificate.fingerprint256 !== '' ? certificate.fingerprint256.toUpperCase() : undefined);
    });
    socket.once('error', () => finish(undefined));
  });
}

/** The 503 Status the UI shows. */
export function relayFailureError(failure: RelayFailure): ApiError {
  return new ApiError(503, 'ServiceUnavailable', failure.message, {
    causes: [{ reason: failure.reason, message: failure.message, ...(failure.fingerprint ? { field: failure.fingerprint } : {}) }],
  });
}

export function connectionStateOf(failure: RelayFailure): ConnectionState {
  switch (failure.reason) {
    case 'Unreachable':
      return 'unreachable';
    case 'CertificateNotTrusted':
      return 'certificate-not-trusted';
    case 'ExecPluginMissing':
    case 'ExecPluginFailed':
    case 'ExecPluginInteractive':
      return 'exec-failed';
    default:
      return 'error';
  }
}
