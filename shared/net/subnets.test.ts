// Subnet arithmetic for the cluster network: overlap checks, the seeded choice of a free /16 and
// its split into a pod half (Docker's ip-range) and a Service half.
import { describe, expect, it } from 'vitest';
import { chooseSubnet, splitSubnet } from './subnets';
import { cidrsOverlap, parseCidr, type Cidr } from './ipv4';

function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!parsed) throw new Error(`bad cidr ${text}`);
  return parsed;
}

describe('cluster network subnets', () => {
  it.each([
    ['10.0.0.0/8', '10.100.0.0/16', true],
    ['10.100.3.4/32', '10.100.0.0/16', true],
    ['10.101.0.0/16', '10.100.0.0/16', false],
    ['172.17.0.0/16', '10.100.0.0/16', false],
  ])('%s overlaps %s: %s', (first, second, expected) => {
    expect(cidrsOverlap(cidr(first), cidr(second))).toBe(expected);
  });

  it('chooses the same subnet for the same seed and skips used ones, ignoring default routes', () => {
    const first = chooseSubnet([cidr('0.0.0.0/0')], 'cluster-a');
    expect(first).toMatch(/^10\.(1\d\d|2[0-4]\d)\.0\.0\/16$/);
    expect(chooseSubnet([], 'cluster-a')).toBe(first);
    const second = chooseSubnet([cidr(first ?? '')], 'cluster-a');
    expect(second).not.toBe(first);
    expect(chooseSubnet([cidr('10.0.0.0/8')], 'cluster-a')).toBeUndefined();
  });

  it('splits a /16 into the pod and Service halves', () => {
    expect(splitSubnet('10.123.0.0/16')).toEqual({ gateway: '10.123.0.1', podRange: '10.123.0.0/17', serviceRange: '10.123.128.0/17' });
  });
});
