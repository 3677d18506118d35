// kd-netpol's rule encoding without a kernel: `kd-netpol encode RULE...` builds the same ipt_entry
// blob `apply` hands to the kernel and prints it back in iptables-save's format, so each rule's
// text, its encoding and the decoder are checked together. (The kernel's side — apply, then dump
// from a real network namespace — is exercised by main/docker/dockerRuntime.test.ts.)
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { netpolBinaryPath } from './netdImage';

let binary = '';

beforeAll(() => {
  execFileSync(process.execPath, [join(__dirname, '..', '..', '..', 'scripts', 'buildNetd.mjs')], { stdio: 'inherit' });
  binary = netpolBinaryPath();
});

function encode(rules: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(binary, ['encode', ...rules], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const emptyTable = ['*filter', ':INPUT ACCEPT [0:0]', ':FORWARD ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', 'COMMIT'];

describe('kd-netpol encode', () => {
  it.each([
    { name: 'no rules is an open table', rules: [], lines: emptyTable },
    {
      name: 'policies and the always-allowed rules of an isolated pod',
      rules: ['policy input drop', 'policy output drop', 'accept input state established,related', 'accept input in lo', 'accept output out lo', 'accept output dst 10.1.128.0/17'],
      lines: [
        '*filter',
        ':INPUT DROP [0:0]',
        ':FORWARD ACCEPT [0:0]',
        ':OUTPUT DROP [0:0]',
        '-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
        '-A INPUT -i lo -j ACCEPT',
        '-A OUTPUT -o lo -j ACCEPT',
        '-A OUTPUT -d 10.1.128.0/17 -j ACCEPT',
        'COMMIT',
      ],
    },
    {
      name: 'an address without a prefix is a /32, and host bits are cleared',
      rules: ['accept input src 10.1.0.7', 'accept output dst 192.168.1.77/24'],
      lines: ['*filter', ':INPUT ACCEPT [0:0]', ':FORWARD ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', '-A INPUT -s 10.1.0.7/32 -j ACCEPT', '-A OUTPUT -d 192.168.1.0/24 -j ACCEPT', 'COMMIT'],
    },
    {
      name: 'ports and ranges per protocol, and a protocol without ports',
      rules: ['accept input src 10.1.0.7 proto tcp dport 80', 'accept input proto udp dport 53', 'accept input proto tcp dport 8000-8100', 'accept input proto sctp dport 9', 'accept input proto udp'],
      lines: [
        '*filter',
        ':INPUT ACCEPT [0:0]',
        ':FORWARD ACCEPT [0:0]',
        ':OUTPUT ACCEPT [0:0]',
        '-A INPUT -s 10.1.0.7/32 -p tcp -m tcp --dport 80 -j ACCEPT',
        '-A INPUT -p udp -m udp --dport 53 -j ACCEPT',
        '-A INPUT -p tcp -m tcp --dport 8000:8100 -j ACCEPT',
        '-A INPUT -p sctp -m sctp --dport 9 -j ACCEPT',
        '-A INPUT -p udp -j ACCEPT',
        'COMMIT',
      ],
    },
    {
      name: 'drop rules keep their order within a chain (kd-netd: allowed clients, then the rest)',
      rules: ['accept input src 10.1.0.5 dst 10.1.128.9 proto tcp dport 80', 'drop input dst 10.1.128.9 proto tcp dport 80', 'accept input state established,related'],
      lines: [
        '*filter',
        ':INPUT ACCEPT [0:0]',
        ':FORWARD ACCEPT [0:0]',
        ':OUTPUT ACCEPT [0:0]',
        '-A INPUT -s 10.1.0.5/32 -d 10.1.128.9/32 -p tcp -m tcp --dport 80 -j ACCEPT',
        '-A INPUT -d 10.1.128.9/32 -p tcp -m tcp --dport 80 -j DROP',
        '-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
        'COMMIT',
      ],
    },
  ])('$name', ({ rules, lines }) => {
    const result = encode(rules);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toEqual(lines);
  });

  it.each([
    { rule: 'allow input', message: 'a rule starts with accept, drop or policy' },
    { rule: 'accept sideways', message: 'expected a chain: input, forward or output' },
    { rule: 'accept input dport 80', message: 'dport needs proto tcp, udp or sctp' },
    { rule: 'accept input proto icmp', message: 'proto must be tcp, udp, sctp or all' },
    { rule: 'accept input src 10.1.0.300', message: 'bad src (expected a.b.c.d[/n])' },
    { rule: 'accept input proto tcp dport 90-80', message: 'bad dport (expected PORT or LOW-HIGH)' },
    { rule: 'accept input out eth0', message: '`out` is not available in the input chain' },
    { rule: 'accept input src', message: 'an option lacks its value' },
    { rule: 'policy input reject', message: 'expected: policy <input|forward|output> <accept|drop>' },
  ])('refuses "$rule": $message', ({ rule, message }) => {
    const result = encode(['accept input in lo', rule]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`kd-netpol: rule 2 "${rule}": ${message}\n`);
  });
});
