import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSelfSignedPair, generateKeyPair, keyAlgorithms, loadX509 } from '../../shared/pki/x509';
import { validateCertificateSigningRequest } from '../registry/validation/certificates';
import { clientUsageProblem, signCertificateRequest } from './certificateSigner';

async function certificateRequest(subject: string): Promise<string> {
  const x509 = await loadX509();
  const keys = await generateKeyPair('ecdsa-p256');
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: keyAlgorithms['ecdsa-p256'].signing });
  return csr.toString('pem');
}

describe('signCertificateRequest', () => {
  it('issues a client certificate for the request subject, signed by the cluster CA', async () => {
    const pki = await createSelfSignedPair({
      keyType: 'ecdsa-p256',
      subject: 'CN=test-ca',
      notBefore: new Date('2029-01-01T00:00:00Z'),
      validityDays: 3650,
      extensions: (x509) => [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
    });
    const requestPem = await certificateRequest('CN=jane,O=developers');
    const object = {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'jane' },
      spec: { request: Buffer.from(requestPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], expirationSeconds: 86400 },
    };
    expect(validateCertificateSigningRequest(object)).toEqual([]);
    const now = new Date('2030-01-01T00:00:00Z');
    const certPem = await signCertificateRequest(pki, { requestPem, usages: ['client auth'], expirationSeconds: 86400, now });
    const certificate = new X509Certificate(certPem);
    const ca = new X509Certificate(pki.certPem);
    expect(certificate.checkIssued(ca)).toBe(true);
    expect(certificate.verify(ca.publicKey)).toBe(true);
    expect(certificate.subject).toBe('CN=jane\nO=developers');
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(new Date(certificate.validTo).getTime()).toBe(now.getTime() + 86400_000);
    expect(createPrivateKey(pki.keyPem).asymmetricKeyType).toBe('ec');
  });

  it.each([
    { usages: ['client auth', 'digital signature'], problem: undefined },
    { usages: ['server auth'], problem: 'invalid usage for client certificate: server auth' },
    { usages: ['digital signature'], problem: 'missing required usages: client auth' },
  ])('checks the usages $usages for the client signer', ({ usages, problem }) => {
    expect(clientUsageProblem(usages)).toBe(problem);
  });
});

describe('validateCertificateSigningRequest', () => {
  const csr = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'x' },
    spec: { request: Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n').toString('base64'), signerName: 'example.com/signer', usages: ['client auth'], ...spec },
    status,
  });

  it.each([
    { name: 'a request that is not a CSR', object: csr({ request: Buffer.from('hello').toString('base64') }), field: 'spec.request', detail: expect.stringContaining('PEM block type must be CERTIFICATE REQUEST') },
    { name: 'no usages', object: csr({ usages: [] }), field: 'spec.usages', detail: 'Required value' },
    { name: 'an unknown usage', object: csr({ usages: ['flying'] }), field: 'spec.usages[0]', detail: expect.stringContaining('Unsupported value: "flying": supported values: "signing", "digital signature"') },
    { name: 'a duplicate usage', object: csr({ usages: ['client auth', 'client auth'] }), field: 'spec.usages[1]', detail: 'Duplicate value: "client auth"' },
    { name: 'no signer', object: csr({ signerName: '' }), field: 'spec.signerName', detail: 'Required value' },
    { name: 'a signer without a path', object: csr({ signerName: 'example.com' }), field: 'spec.signerName', detail: "Invalid value: \"example.com\": must be a fully qualified domain and path of the form 'example.com/signer-name'" },
    { name: 'a short duration', object: csr({ expirationSeconds: 60 }), field: 'spec.expirationSeconds', detail: 'Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)' },
    { name: 'approved and denied together', object: csr({}, { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] }), field: 'status.conditions', detail: 'Invalid value: "Approved": Approved and Denied conditions are mutually exclusive' },
  ])('rejects $name', ({ object, field, detail }) => {
    expect(validateCertificateSigningRequest(object)).toContainEqual(expect.objectContaining({ field, detail }));
  });
});
