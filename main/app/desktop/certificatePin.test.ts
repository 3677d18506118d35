import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePki, type Pki } from '../../apiserver/pki';
import { createSelfSignedPair } from '../../../shared/pki/x509';
import { certificateVerdict, isPinnedCertificate, pinnedCertificateVerifier } from './certificatePin';

let directories: string[] = [];
let ours: Pki;
let otherCluster: Pki;
let selfSignedLoopback: string;

beforeAll(async () => {
  directories = [mkdtempSync(join(tmpdir(), 'kd-pin-')), mkdtempSync(join(tmpdir(), 'kd-pin-'))];
  ours = await ensurePki(directories[0]);
  otherCluster = await ensurePki(directories[1]);
  // a foreign certificate that names 127.0.0.1 but was made by someone else
  selfSignedLoopback = (
    await createSelfSignedPair({
      keyType: 'ecdsa-p256',
      subject: 'CN=kube-apiserver',
      notBefore: new Date(Date.now() - 60_000),
      validityDays: 30,
      extensions: (x509) => [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }, { type: 'dns', value: 'localhost' }])],
    })
  ).certPem;
});

afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

describe('certificate pinning to the cluster CA', () => {
  it.each(['127.0.0.1', 'localhost', '[::1]', '::1'])('accepts our serving certificate for %s', (hostname) => {
    expect(isPinnedCertificate(hostname, ours.serverCertPem, ours.caCertPem)).toBe(true);
  });

  it.each([
    ['a certificate of another kubedesk CA', () => otherCluster.serverCertPem, '127.0.0.1'],
    ['a self-signed certificate for 127.0.0.1', () => selfSignedLoopback, '127.0.0.1'],
    ['the CA certificate itself', () => ours.caCertPem, '127.0.0.1'],
    ['our certificate for a host that is not loopback', () => ours.serverCertPem, 'example.com'],
    ['our certificate for a loopback address it does not name', () => ours.serverCertPem, '127.0.0.2'],
    ['garbage', () => 'not a certificate', '127.0.0.1'],
  ])('rejects %s', (_name, certificate, hostname) => {
    expect(isPinnedCertificate(hostname, certificate(), ours.caCertPem)).toBe(false);
  });

  it('rejects everything while no CA is known', () => {
    expect(isPinnedCertificate('127.0.0.1', ours.serverCertPem, undefined)).toBe(false);
  });

  it('rejects our certificate once it has expired', () => {
    expect(isPinnedCertificate('127.0.0.1', ours.serverCertPem, ours.caCertPem, new Date(Date.now() + 400 * 24 * 3600 * 1000))).toBe(false);
  });

  it('answers Electron with 0 for ours and -2 for foreign certificates, reading the CA per request', () => {
    let ca: string | undefined = ours.caCertPem;
    const verify = pinnedCertificateVerifier(() => ca);
    const results: number[] = [];
    verify({ hostname: '127.0.0.1', certificate: { data: ours.serverCertPem } }, (result) => results.push(result));
    verify({ hostname: '127.0.0.1', certificate: { data: selfSignedLoopback } }, (result) => results.push(result));
    ca = otherCluster.caCertPem;
    verify({ hostname: '127.0.0.1', certificate: { data: ours.serverCertPem } }, (result) => results.push(result));
    expect(results).toEqual([certificateVerdict.accept, certificateVerdict.reject, certificateVerdict.reject]);
  });
});
