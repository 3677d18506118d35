import { X509Certificate, generateKeyPairSync, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  authorityKeyIdentifier, basicConstraints, commonName, ipOctets, keyIdentifier, keyUsage, serverAuthExtendedKeyUsage,
  subjectAlternativeName, subjectKeyIdentifier, subjectOf, writeCertificate,
} from './certificateWriter';

beforeAll(() => {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
});

const day = 24 * 60 * 60 * 1000;

function ecKeys() {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

function rsaKeys() {
  return generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
}

function writeCa(notBefore = new Date('2026-01-01T00:00:00Z'), days = 3650, keys = ecKeys()) {
  const name = commonName('kubedesk-ca');
  const certPem = writeCertificate(
    {
      serialNumber: Buffer.from('4b90377c50fe1a72a494c059a443dfc0', 'hex'),
      issuer: name,
      subject: name,
      notBefore,
      notAfter: new Date(notBefore.getTime() + days * day),
      publicKey: keys.publicKey,
      extensions: [basicConstraints(true), keyUsage(['digitalSignature', 'keyCertSign', 'cRLSign']), subjectKeyIdentifier(keyIdentifier(keys.publicKey))],
    },
    keys.privateKey,
  );
  return { keys, certPem, certificate: new X509Certificate(certPem) };
}

describe('writeCertificate', () => {
  it('writes a self-signed CA that OpenSSL and @peculiar/x509 read as written', async () => {
    const ca = writeCa();
    expect(ca.certificate.ca).toBe(true);
    expect(ca.certificate.subject).toBe('CN=kubedesk-ca');
    expect(ca.certificate.serialNumber).toBe('4B90377C50FE1A72A494C059A443DFC0');
    expect(new Date(ca.certificate.validFrom).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(ca.certificate.verify(ca.certificate.publicKey)).toBe(true);

    const parsed = new x509.X509Certificate(ca.certPem);
    expect(parsed.getExtension(x509.BasicConstraintsExtension)).toMatchObject({ ca: true, critical: true });
    expect(parsed.getExtension(x509.KeyUsagesExtension)?.usages).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign);
    const expected = await x509.SubjectKeyIdentifierExtension.create(await parsed.publicKey.export());
    expect(parsed.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId).toBe(expected.keyId);
    expect(await parsed.verify({ signatureOnly: true })).toBe(true);
  });

  it('writes a serving certificate that chains to the CA, with its names, usages and key identifiers', async () => {
    const ca = writeCa();
    const keys = ecKeys();
    const certPem = writeCertificate(
      {
        serialNumber: Buffer.from([0x01, 0x02]),
        issuer: subjectOf(ca.certificate.raw),
        subject: commonName('kube-apiserver'),
        notBefore: new Date('2026-01-01T00:00:00Z'),
        notAfter: new Date('2027-01-01T00:00:00Z'),
        publicKey: keys.publicKey,
        extensions: [
          basicConstraints(false),
          keyUsage(['digitalSignature']),
          serverAuthExtendedKeyUsage(),
          subjectAlternativeName(['localhost', 'kubernetes.default.svc'], ['127.0.0.1', '::1', '10.96.0.1']),
          subjectKeyIdentifier(keyIdentifier(keys.publicKey)),
          authorityKeyIdentifier(keyIdentifier(ca.certificate.publicKey)),
        ],
      },
      ca.keys.privateKey,
    );
    const certificate = new X509Certificate(certPem);
    expect(certificate.checkIssued(ca.certificate)).toBe(true);
    expect(certificate.verify(ca.certificate.publicKey)).toBe(true);
    expect(certificate.ca).toBe(false);
    expect(certificate.subjectAltName).toBe('DNS:localhost, DNS:kubernetes.default.svc, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:10.96.0.1');
    expect(certificate.checkIP('10.96.0.1')).toBe('10.96.0.1');
    expect(certificate.checkHost('kubernetes.default.svc')).toBe('kubernetes.default.svc');

    const parsed = new x509.X509Certificate(certPem);
    expect(parsed.getExtension(x509.BasicConstraintsExtension)).toMatchObject({ ca: false, critical: true });
    expect(parsed.getExtension(x509.KeyUsagesExtension)?.usages).toBe(x509.KeyUsageFlags.digitalSignature);
    expect(parsed.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([x509.ExtendedKeyUsage.serverAuth]);
    const caSki = new x509.X509Certificate(ca.certPem).getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
    expect(parsed.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId).toBe(caSki);
    expect(parsed.issuer).toBe('CN=kubedesk-ca');
  });

  it.each([
    ['an RSA CA', rsaKeys],
    ['an ECDSA P-256 CA', ecKeys],
  ])('writes an RSA 2048 serving certificate signed by %s that OpenSSL and @peculiar/x509 verify', async (_, caKeys) => {
    const ca = writeCa(undefined, undefined, caKeys());
    const keys = rsaKeys();
    const certPem = writeCertificate(
      {
        serialNumber: Buffer.from([0x2a]),
        issuer: subjectOf(ca.certificate.raw),
        subject: commonName('kube-apiserver'),
        notBefore: new Date('2026-01-01T00:00:00Z'),
        notAfter: new Date('2027-01-01T00:00:00Z'),
        publicKey: keys.publicKey,
        extensions: [basicConstraints(false), keyUsage(['digitalSignature', 'keyEncipherment']), subjectKeyIdentifier(keyIdentifier(keys.publicKey))],
      },
      ca.keys.privateKey,
    );
    const certificate = new X509Certificate(certPem);
    expect(certificate.verify(ca.certificate.publicKey)).toBe(true);
    expect(certificate.publicKey.asymmetricKeyType).toBe('rsa');
    expect(certificate.publicKey.asymmetricKeyDetails).toMatchObject({ modulusLength: 2048, publicExponent: 65537n });

    const parsed = new x509.X509Certificate(certPem);
    expect(await parsed.verify({ publicKey: new x509.X509Certificate(ca.certPem).publicKey, signatureOnly: true })).toBe(true);
    expect(parsed.getExtension(x509.KeyUsagesExtension)?.usages).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
    // the signature algorithm follows the CA's key: sha256WithRSAEncryption with NULL parameters
    // (RFC 4055), or ecdsa-with-SHA256 with none (RFC 5758), in the TBSCertificate and outside it
    const algorithm = ca.keys.privateKey.asymmetricKeyType === 'rsa' ? '300d06092a864886f70d01010b0500' : '300a06082a8648ce3d040302';
    expect(Buffer.from(certificate.raw).toString('hex').split(algorithm)).toHaveLength(3);
    expect(parsed.signatureAlgorithm).toMatchObject(
      ca.keys.privateKey.asymmetricKeyType === 'rsa' ? { name: 'RSASSA-PKCS1-v1_5', hash: { name: 'SHA-256' } } : { name: 'ECDSA', hash: { name: 'SHA-256' } },
    );
  });

  it.each([
    ['an Ed25519 key', () => generateKeyPairSync('ed25519')],
    ['an ECDSA P-384 key', () => generateKeyPairSync('ec', { namedCurve: 'secp384r1' })],
  ])('refuses to sign with %s', (_, makeKeys) => {
    const keys = makeKeys();
    const fields = { serialNumber: Buffer.from([1]), issuer: commonName('ca'), subject: commonName('ca'), notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2027-01-01T00:00:00Z'), publicKey: keys.publicKey, extensions: [] };
    expect(() => writeCertificate(fields, keys.privateKey)).toThrow('the certificate writer signs with RSA or ECDSA P-256 keys');
  });

  it('writes dates from 2050 as GeneralizedTime and long contents with long-form lengths', () => {
    const ca = writeCa(new Date('2049-06-01T12:34:56Z'), 3650);
    expect(new Date(ca.certificate.validTo).toISOString()).toBe('2059-05-30T12:34:56.000Z');
    const keys = ecKeys();
    const names = Array.from({ length: 40 }, (_, index) => `name-${index}.kubedesk.test`);
    const certPem = writeCertificate(
      { serialNumber: Buffer.from([0x80]), issuer: commonName('ca'), subject: commonName('Ünïcode name'), notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2026-02-01T00:00:00Z'), publicKey: keys.publicKey, extensions: [subjectAlternativeName(names, [])] },
      keys.privateKey,
    );
    const certificate = new X509Certificate(certPem);
    expect(certificate.subjectAltName?.split(', ')).toHaveLength(40);
    // 0x80 needs a leading zero to stay positive
    expect(certificate.serialNumber).toBe('80');
    expect(certificate.subject).toBe('CN=Ünïcode name');
  });
});

describe('ipOctets', () => {
  it.each([
    ['127.0.0.1', '7f000001'],
    ['10.96.0.10', '0a60000a'],
    ['::1', '00000000000000000000000000000001'],
    ['fd00::a:1', 'fd0000000000000000000000000a0001'],
    ['2001:db8:0:0:0:0:0:1', '20010db8000000000000000000000001'],
    ['::ffff:10.0.0.1', '00000000000000000000ffff0a000001'],
    ['::', '00000000000000000000000000000000'],
  ])('encodes %s', (ip, hex) => {
    expect(ipOctets(ip).toString('hex')).toBe(hex);
  });

  it.each(['1.2.3', '1.2.3.256', '1::2::3', '1:2:3:4:5:6:7:8:9', 'g::1', 'host'])('refuses %s', (ip) => {
    expect(() => ipOctets(ip)).toThrow('not an IP address');
  });
});
