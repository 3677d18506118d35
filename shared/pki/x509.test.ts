import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSelfSignedPair, randomSerialNumber, type KeyType } from './x509';

describe('self-signed certificates', () => {
  it.each([
    ['ecdsa-p256', 'ec'],
    ['rsa-2048', 'rsa'],
  ] as [KeyType, string][])('makes a %s pair signed by its own key', async (keyType, nodeKeyType) => {
    const notBefore = new Date(Date.UTC(2030, 0, 1));
    const pair = await createSelfSignedPair({
      keyType,
      subject: 'CN=test-ca',
      notBefore,
      validityDays: 10,
      extensions: (x509) => [new x509.BasicConstraintsExtension(true, undefined, true)],
    });
    const certificate = new X509Certificate(pair.certPem);
    expect(certificate.subject).toBe('CN=test-ca');
    expect(certificate.ca).toBe(true);
    expect(certificate.checkIssued(certificate)).toBe(true);
    expect(new Date(certificate.validFrom).getTime()).toBe(notBefore.getTime());
    expect(new Date(certificate.validTo).getTime()).toBe(notBefore.getTime() + 10 * 24 * 60 * 60 * 1000);
    expect(createPrivateKey(pair.keyPem).asymmetricKeyType).toBe(nodeKeyType);
    expect(certificate.checkPrivateKey(createPrivateKey(pair.keyPem))).toBe(true);
  });

  it('draws positive serial numbers of 16 octets', () => {
    for (let round = 0; round < 50; round++) {
      const serial = randomSerialNumber();
      expect(serial).toMatch(/^[0-7][0-9a-f]{31}$/);
      expect(serial.startsWith('00')).toBe(false);
    }
  });
});
