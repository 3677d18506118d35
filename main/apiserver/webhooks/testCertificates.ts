// Test helper: a throwaway CA and a serving certificate for the given DNS names and IPs, made with
// the openssl CLI (as a webhook author would), for tests that serve admission webhooks over TLS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export function makeTestCertificates(dnsNames: string[], ips: string[] = []): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'kd-webhook-cert-'));
  try {
    const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=webhook-test-ca');
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${dnsNames[0] ?? 'localhost'}`);
    const san = [...dnsNames.map((name) => `DNS:${name}`), ...ips.map((ip) => `IP:${ip}`)].join(',');
    writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);
    run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'ext.cnf');
    return { caPem: readFileSync(join(dir, 'ca.crt'), 'utf8'), certPem: readFileSync(join(dir, 'server.crt'), 'utf8'), keyPem: readFileSync(join(dir, 'server.key'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
