import { describe, expect, it } from 'vitest';
import { certificateIdentity } from './clientCertificates';

const socket = (authorized: boolean, subject: Record<string, string | string[]> | undefined, authorizationError?: string) => ({
  authorized,
  authorizationError,
  getPeerCertificate: () => (subject ? { subject } : {}),
});

describe('certificateIdentity', () => {
  it('names the user by the Common Name and the groups by the Organizations, plus system:authenticated', () => {
    expect(certificateIdentity(socket(true, { CN: 'jane', O: ['developers', 'qa'] }))).toEqual({ user: { name: 'jane', groups: ['developers', 'qa', 'system:authenticated'] } });
    expect(certificateIdentity(socket(true, { CN: 'ops', O: 'admins' }))).toEqual({ user: { name: 'ops', groups: ['admins', 'system:authenticated'] } });
    expect(certificateIdentity(socket(true, { CN: 'solo' }))).toEqual({ user: { name: 'solo', groups: ['system:authenticated'] } });
  });

  it('authenticates nobody with a certificate the handshake did not verify, saying why', () => {
    expect(certificateIdentity(socket(false, { CN: 'mallory', O: 'system:masters' }, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'))).toEqual({ invalid: 'verifying certificate failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  });

  it('refuses a verified certificate without a Common Name', () => {
    expect(certificateIdentity(socket(true, { O: 'developers' }))).toEqual({ invalid: 'the client certificate has no Common Name' });
  });

  it('is undefined when no certificate was presented or the connection is not TLS', () => {
    expect(certificateIdentity(socket(false, undefined))).toBeUndefined();
    expect(certificateIdentity({})).toBeUndefined();
    expect(certificateIdentity(undefined)).toBeUndefined();
  });
});
