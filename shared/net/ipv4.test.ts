import { describe, expect, it } from 'vitest';
import { cidrContains, cidrsOverlap, formatIpv4, indexedIpv4, parseCidr, parseIpv4 } from './ipv4';

describe('IPv4 arithmetic', () => {
  it.each(['10.1.2', '10.1.2.256', '10.1.2.x', '1.2.3.4.5', ''])('refuses the malformed address %j', (text) => {
    expect(parseIpv4(text)).toBeUndefined();
  });

  it('round-trips an address through its integer', () => {
    expect(formatIpv4(parseIpv4('10.123.128.7') ?? 0)).toBe('10.123.128.7');
  });

  it('clears host bits of a CIDR and treats a bare address as /32', () => {
    expect(parseCidr('10.123.129.5/17')).toEqual({ address: parseIpv4('10.123.128.0'), prefix: 17 });
    expect(parseCidr('10.0.0.1')).toEqual({ address: parseIpv4('10.0.0.1'), prefix: 32 });
    expect(parseCidr('10.0.0.0/33')).toBeUndefined();
  });

  it('tells whether ranges overlap and whether a range holds an address', () => {
    expect(cidrsOverlap(parseCidr('10.1.0.0/16')!, parseCidr('10.1.128.0/17')!)).toBe(true);
    expect(cidrsOverlap(parseCidr('10.1.0.0/17')!, parseCidr('10.1.128.0/17')!)).toBe(false);
    expect(cidrContains('10.123.128.0/17', '10.123.255.254')).toBe(true);
    expect(cidrContains('10.123.128.0/17', '10.123.0.9')).toBe(false);
  });

  it('numbers the fixed addresses from the start of the range', () => {
    expect(indexedIpv4('10.123.128.0/17', 1)).toBe('10.123.128.1');
    expect(indexedIpv4('10.123.128.0/17', 10)).toBe('10.123.128.10');
  });
});
