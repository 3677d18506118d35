import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { makeTestCertificates } from '../../../test/fixtures/testCertificates';
import { KubeconfigError } from '../../remote/kubeconfig';
import { CredentialError } from '../../remote/clusterConnection';
import { classifyFailure, connectionStateOf, hostPort, leafFingerprint, relayFailureError, withFingerprint } from './relayFailures';

const server = new URL('https://api.example.test:6443');
const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('classifyFailure', () => {
  it.each([
    ['ECONNREFUSED', 'Unreachable'],
    ['ENOTFOUND', 'Unreachable'],
    ['ETIMEDOUT', 'Unreachable'],
    ['EHOSTUNREACH', 'Unreachable'],
    ['ECONNRESET', 'Unreachable'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CertificateNotTrusted'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'CertificateNotTrusted'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'CertificateNotTrusted'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CertificateNotTrusted'],
    ['CERT_HAS_EXPIRED', 'TLSError'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'TLSError'],
    ['EPROTO', 'TLSError'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'TLSError'],
  ])('%s is %s', (code, reason) => {
    expect(classifyFailure(coded(code), server).reason).toBe(reason);
  });

  it('names host:port when the cluster cannot be reached', () => {
    expect(classifyFailure(coded('ECONNREFUSED'), server).message).toBe('cannot reach api.example.test:6443: the connection was refused (is the cluster running?) (ECONNREFUSED)');
    expect(hostPort(new URL('https://example.test'))).toBe('example.test:443');
  });

  it('maps the credential failures, with the exec plugin\'s stderr', () => {
    const failed = classifyFailure(new CredentialError('exec-failed', 'the exec plugin "aws" exited with status 1', 'token expired; run aws sso login'), server);
    expect(failed).toEqual({ reason: 'ExecPluginFailed', message: 'the exec plugin "aws" exited with status 1: token expired; run aws sso login', stderr: 'token expired; run aws sso login' });
    expect(connectionStateOf(failed)).toBe('exec-failed');
    expect(classifyFailure(new CredentialError('exec-missing', 'gke-gcloud-auth-plugin not found'), server).reason).toBe('ExecPluginMissing');
    expect(classifyFailure(new CredentialError('exec-interactive', 'needs a terminal'), server).reason).toBe('ExecPluginInteractive');
    expect(classifyFailure(new CredentialError('file-unreadable', 'cannot read ca.crt'), server).reason).toBe('CredentialsUnreadable');
    expect(classifyFailure(new CredentialError('unsupported', 'auth-provider oidc'), server).reason).toBe('Unsupported');
    expect(classifyFailure(new KubeconfigError('unable to read client-key /x/key: ENOENT'), server).reason).toBe('CredentialsUnreadable');
  });

  it('turns a failure into a 503 ServiceUnavailable Status whose first cause names it', () => {
    const status = relayFailureError({ reason: 'CertificateNotTrusted', message: 'not trusted', fingerprint: 'AB:CD' }).toStatus();
    expect(status).toMatchObject({ code: 503, reason: 'ServiceUnavailable', message: 'not trusted', details: { causes: [{ reason: 'CertificateNotTrusted', field: 'AB:CD', message: 'not trusted' }] } });
  });
});

describe('leafFingerprint', () => {
  it('reads the SHA-256 fingerprint of the certificate a server presents, trusted or not', async () => {
    const certificates = makeTestCertificates(['localhost'], ['127.0.0.1']);
    const tlsServer = https.createServer({ cert: certificates.certPem, key: certificates.keyPem }, (_request, response) => response.end());
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(`https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`);
      const expected = new X509Certificate(certificates.certPem).fingerprint256;
      expect(await leafFingerprint(url)).toBe(expected);
      const failure = await withFingerprint(classifyFailure(coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), url), url);
      expect(failure.fingerprint).toBe(expected);
      expect(failure.message).toContain(`SHA-256 fingerprint ${expected}`);
    } finally {
      tlsServer.close();
    }
  });
});
