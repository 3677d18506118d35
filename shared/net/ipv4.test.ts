import { describe, expect, it } from 'vitest';
import { cidrContains, cidrsOverlap, formatCidr, formatIpv4, indexedIpv4, parseCidr, parseIpv4, subtractCidrs, type Cidr } from './ipv4';

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

describe('subtractCidrs (an ipBlock without its except blocks)', () => {
  const cidr = (text: string): Cidr => {
    const parsed = parseCidr(text);
    if (!parsed) throw new Error(text);
    return parsed;
  };
  const cases: Array<{ name: string; block: string; except: string[]; expected: string[] }> = [
    { name: 'nothing excluded keeps the block', block: '10.0.0.0/8', except: [], expected: ['10.0.0.0/8'] },
    { name: 'an exclusion outside the block changes nothing', block: '10.0.0.0/8', except: ['192.168.0.0/16'], expected: ['10.0.0.0/8'] },
    { name: 'excluding the whole block leaves nothing', block: '10.1.0.0/16', except: ['10.0.0.0/8'], expected: [] },
    { name: 'excluding one half leaves the other', block: '10.0.0.0/24', except: ['10.0.0.128/25'], expected: ['10.0.0.0/25'] },
    {
      name: 'excluding one address leaves one block per bit',
      block: '10.0.0.0/30',
      except: ['10.0.0.2/32'],
      expected: ['10.0.0.0/31', '10.0.0.3/32'],
    },
    {
      name: 'everything but a /8',
      block: '0.0.0.0/0',
      except: ['10.0.0.0/8'],
      expected: ['0.0.0.0/5', '8.0.0.0/7', '11.0.0.0/8', '12.0.0.0/6', '16.0.0.0/4', '32.0.0.0/3', '64.0.0.0/2', '128.0.0.0/1'],
    },
    {
      name: 'two exclusions',
      block: '10.0.0.0/29',
      except: ['10.0.0.1/32', '10.0.0.6/31'],
      expected: ['10.0.0.0/32', '10.0.0.2/31', '10.0.0.4/31'],
    },
  ];
  for (const { name, block, except, expected } of cases) {
    it(name, () => {
      expect(subtractCidrs(cidr(block), except.map(cidr)).map(formatCidr)).toEqual(expected);
    });
  }
});
