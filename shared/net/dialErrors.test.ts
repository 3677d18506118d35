import { describe, expect, it } from 'vitest';
import { dialErrorText, socketErrorText } from './dialErrors';

function failure(code: string, message = `${code} happened`): Error {
  return Object.assign(new Error(message), { code });
}

describe('dial error texts', () => {
  it.each([
    ['ECONNREFUSED', 'dial tcp 10.0.0.5:8080: connect: connection refused'],
    ['EHOSTUNREACH', 'dial tcp 10.0.0.5:8080: connect: no route to host'],
    ['ENETUNREACH', 'dial tcp 10.0.0.5:8080: connect: network is unreachable'],
    ['ETIMEDOUT', 'dial tcp 10.0.0.5:8080: i/o timeout'],
    ['ECONNRESET', 'read tcp 10.0.0.5:8080: read: connection reset by peer'],
  ])('words %s as Go does whoever dials', (code, text) => {
    expect(socketErrorText(failure(code), '10.0.0.5:8080')).toBe(text);
    expect(dialErrorText(failure(code), '10.0.0.5:8080')).toBe(text);
  });

  it('leaves other errors to the caller in socketErrorText', () => {
    expect(socketErrorText(failure('EPIPE'), '10.0.0.5:8080')).toBeUndefined();
    expect(socketErrorText('not an error', '10.0.0.5:8080')).toBeUndefined();
  });

  it.each([
    [failure('ENOTFOUND'), 'db.example:5432', 'dial tcp: lookup db.example: no such host'],
    [failure('EAI_AGAIN'), '[fd00::1]:80', 'dial tcp: lookup fd00::1: no such host'],
    [failure('EPROTO', 'bad protocol'), '10.0.0.5:80', 'dial tcp 10.0.0.5:80: bad protocol'],
    ['plain text', '10.0.0.5:80', 'dial tcp 10.0.0.5:80: plain text'],
  ])('words a failed dial of %s to %s as "%s"', (error, address, text) => {
    expect(dialErrorText(error, address)).toBe(text);
  });
});
