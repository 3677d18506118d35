import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_AUDIENCE, ServiceAccountTokens } from './serviceAccountTokens';

describe('ServiceAccountTokens', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sa-'));
  const tokens = ServiceAccountTokens.open(dir);
  const subject = { namespace: 'team', serviceAccountName: 'default', serviceAccountUid: 'u-1', pod: { name: 'p', uid: 'pu' } };

  it('issues tokens that verify, with the upstream claims', () => {
    const { token, expirationTimestamp } = tokens.issue(subject, [API_AUDIENCE], 3600, Date.parse('2026-01-01T00:00:00Z'));
    expect(expirationTimestamp).toBe('2026-01-01T01:00:00Z');
    const verified = tokens.verify(token, Date.parse('2026-01-01T00:30:00Z'));
    expect(verified).toMatchObject({ namespace: 'team', serviceAccountName: 'default', serviceAccountUid: 'u-1', pod: { name: 'p', uid: 'pu' } });
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims.sub).toBe('system:serviceaccount:team:default');
  });

  it('rejects expired, foreign-audience and tampered tokens', () => {
    const { token } = tokens.issue(subject, [API_AUDIENCE], 600, Date.parse('2026-01-01T00:00:00Z'));
    expect(tokens.verify(token, Date.parse('2026-01-01T01:00:00Z'))).toBeUndefined();
    const other = tokens.issue(subject, ['vault'], 600).token;
    expect(tokens.verify(other)).toBeUndefined();
    const fresh = tokens.issue(subject, [API_AUDIENCE], 600).token;
    const [header, , signature] = fresh.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ iss: 'x' })).toString('base64url')}.${signature}`;
    expect(tokens.verify(forged)).toBeUndefined();
    expect(tokens.verify('not-a-jwt')).toBeUndefined();
  });

  it('judges expiry on every request of a token it verified before, and refuses a token forged from one it knows', () => {
    const issued = Date.parse('2026-01-01T00:00:00Z');
    const { token } = tokens.issue(subject, [API_AUDIENCE], 600, issued);
    expect(tokens.verify(token, issued + 1_000)).toBeDefined();
    expect(tokens.verify(token, issued + 601_000)).toBeUndefined();
    expect(tokens.verify(token, issued + 2_000)).toMatchObject({ serviceAccountName: 'default', expiresAt: issued + 600_000 });
    const [header, , signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    const widened = `${header}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 86_400 })).toString('base64url')}.${signature}`;
    expect(tokens.verify(widened, issued + 601_000)).toBeUndefined();
  });

  it('keeps its key across restarts', () => {
    const token = tokens.issue(subject, [API_AUDIENCE], 600).token;
    expect(ServiceAccountTokens.open(dir).verify(token)).toBeDefined();
  });
});
