// Test helper: a client certificate for a user of a test cluster, issued the way a cluster admin
// issues one — an openssl key and CSR with CN=user and O=groups, a CertificateSigningRequest for the
// kube-apiserver-client signer, `kubectl certificate approve`, the certificate from its status — and a
// kubeconfig that authenticates with it (no token).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { TestCluster } from './cluster';
import { kubectlOk, until } from './wait';

export interface ClientCertificate {
  certPem: string;
  keyPem: string;
}

/** A key and a PKCS#10 request for `/CN=user/O=group…`, made with the openssl CLI. */
export function certificateRequest(user: string, groups: string[] = []): { keyPem: string; csrPem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kd-client-cert-'));
  try {
    const subject = `/CN=${user}${groups.map((group) => `/O=${group}`).join('')}`;
    execFileSync('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', subject], { cwd: dir, stdio: 'pipe' });
    return { keyPem: readFileSync(join(dir, 'client.key'), 'utf8'), csrPem: readFileSync(join(dir, 'client.csr'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Issues a certificate for `user` in `groups` through an approved CertificateSigningRequest. */
export async function issueClientCertificate(cluster: TestCluster, user: string, groups: string[] = []): Promise<ClientCertificate> {
  const { keyPem, csrPem } = certificateRequest(user, groups);
  const name = `client-${user.replace(/[^a-z0-9-]/g, '-')}-${Date.now()}`;
  const csr = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], expirationSeconds: 86_400 },
  };
  await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify(csr));
  await kubectlOk(cluster, ['certificate', 'approve', name]);
  const certificate = await until(`the certificate of CSR ${name}`, async () => {
    const text = await kubectlOk(cluster, ['get', 'csr', name, '-o', 'jsonpath={.status.certificate}']);
    return text ? Buffer.from(text, 'base64').toString('utf8') : undefined;
  });
  return { certPem: certificate, keyPem };
}

/** Writes a kubeconfig reaching `cluster` as the certificate's user; returns its path. */
export function certificateKubeconfig(cluster: TestCluster, certificate: ClientCertificate, file: string, contextName = 'by-certificate'): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: contextName, cluster: { server: cluster.server, 'certificate-authority-data': Buffer.from(cluster.caPem).toString('base64') } }],
    users: [{ name: contextName, user: { 'client-certificate-data': Buffer.from(certificate.certPem).toString('base64'), 'client-key-data': Buffer.from(certificate.keyPem).toString('base64') } }],
    contexts: [{ name: contextName, context: { cluster: contextName, user: contextName } }],
    'current-context': contextName,
  };
  writeFileSync(file, stringify(config), { mode: 0o600 });
  return file;
}
