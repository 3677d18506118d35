// The security promises of `kubedesk serve`: it listens on loopback only, speaks only HTTPS,
// answers 401 with a Status to every request whose bearer token is not valid (as kube-apiserver's
// authentication filter does) and 403 to requests without credentials (system:anonymous, which
// RBAC lets see only the health and version endpoints), changing nothing for either, keeps its
// kubeconfig and keys at mode 0600, and edits an existing kubeconfig the way `kubectl config`
// would: its own cluster, user and context added, every other entry and byte left alone. Its serving
// certificate is RSA 2048 as kubeadm's (ECDSA P-256 with --serving-key-type ecdsa, reissued under the
// same CA when the flag changes), and busybox's wget in a pod reaches the API over HTTPS.
import { X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCommand, startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { repositoryRoot } from '../support/tools';
import { kubectlOk, until } from '../support/wait';

interface Reply {
  status: number;
  contentType: string;
  body: string;
}

/** An HTTPS request with exactly the headers given: no bearer token unless the test adds one. */
function rawRequest(cluster: TestCluster, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      new URL(path, cluster.server),
      { method, headers: { accept: 'application/json', ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) }, ca: cluster.caPem, agent: false, timeout: 15_000 },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path} timed out`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

interface ListeningSocket {
  address: string;
  port: number;
}

// /proc/net/tcp{,6} print addresses as 32-bit words in host (little-endian) byte order.
function decodeProcAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => (word.match(/../g) ?? []).reverse().map((pair) => parseInt(pair, 16)));
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${bytes.slice(12).join('.')}`;
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push(((bytes[index] << 8) | bytes[index + 1]).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** The TCP sockets the process listens on, from its socket inodes and /proc/net/tcp{,6}. */
function listeningSockets(pid: number): ListeningSocket[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch {
      // The descriptor closed while we looked.
    }
  }
  const sockets: ListeningSocket[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const lines = readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state !== '0A' || !inodes.has(inode)) continue;
      const [addressHex, portHex] = local.split(':');
      sockets.push({ address: decodeProcAddress(addressHex), port: parseInt(portHex, 16) });
    }
  }
  return sockets;
}

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}

function expectUnauthorizedStatus(reply: Reply, what: string): void {
  expect(reply.status, `${what}: ${reply.body}`).toBe(401);
  expect(reply.contentType, what).toMatch(/^application\/json/);
  expect(JSON.parse(reply.body), what).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 });
}

function expectAnonymousForbidden(reply: Reply, what: string): void {
  expect(reply.status, `${what}: ${reply.body}`).toBe(403);
  expect(reply.contentType, what).toMatch(/^application\/json/);
  expect(JSON.parse(reply.body), what).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: expect.stringContaining('User "system:anonymous" cannot') });
}

function portOf(cluster: TestCluster): number {
  return Number(new URL(cluster.server).port);
}

/** The certificate the API server presents, verified against the cluster CA as `localhost`. */
function servedCertificate(cluster: TestCluster): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: portOf(cluster), servername: 'localhost', ca: cluster.caPem }, () => {
      const certificate = socket.getPeerCertificate();
      socket.end();
      resolve(certificate);
    });
    socket.on('error', reject);
  });
}

/**
 * What busybox's wget prints in a pod for the public /version and, with the pod's service-account
 * token, for /api — over HTTPS to kubernetes.default.svc (busybox checks no certificate).
 */
async function wgetFromPod(cluster: TestCluster, name: string): Promise<string> {
  const script = [
    'wget -q -O- https://kubernetes.default.svc/version && echo " version=ok"',
    'wget -q -O- --header "Authorization: Bearer $(cat /var/run/secrets/kubernetes.io/serviceaccount/token)" https://kubernetes.default.svc/api && echo " api=ok"',
  ].join('; ');
  await kubectlOk(cluster, ['run', name, `--image=${busyboxImage}`, '--restart=Never', '--command', '--', 'sh', '-c', script]);
  await until(`pod ${name} to finish`, async () => {
    const phase = await kubectlOk(cluster, ['get', 'pod', name, '-o', 'jsonpath={.status.phase}']);
    return phase === 'Succeeded' || phase === 'Failed' ? phase : undefined;
  }, 90_000);
  return kubectlOk(cluster, ['logs', name]);
}

describe('a fresh cluster', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startCluster();
  });

  afterAll(async () => {
    await cluster?.destroy();
  });

  it('listens on loopback only', () => {
    const pid = cluster.pid();
    expect(pid).toBeDefined();
    const sockets = listeningSockets(pid ?? 0);
    expect(sockets.map((socket) => socket.port)).toContain(portOf(cluster));
    expect(sockets.filter((socket) => !isLoopback(socket.address))).toEqual([]);
    expect(new URL(cluster.server).hostname).toBe('127.0.0.1');
  });

  it('agrees with ss about what it listens on', async () => {
    const result = await runCommand('ss', ['-Hltnp']);
    if (result.code !== 0) return; // ss is a cross-check only; /proc above is authoritative.
    const ours = result.stdout.split('\n').filter((line) => line.includes(`pid=${cluster.pid() ?? -1},`));
    expect(ours.length).toBeGreaterThan(0);
    for (const line of ours) expect(line, line).toMatch(/\s(127\.\d+\.\d+\.\d+|\[::1\]|\[::ffff:127\.\d+\.\d+\.\d+\]):\d+\s/);
  });

  it('refuses connections on the other interfaces of this machine', async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .filter((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')
      .map((entry) => entry?.address ?? '');
    for (const address of external) {
      const outcome = await new Promise<string>((resolve) => {
        const socket = connect({ host: address, port: portOf(cluster), timeout: 3_000 });
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('timeout', () => {
          socket.destroy();
          resolve('timeout');
        });
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
      expect(outcome, `${address}:${portOf(cluster)}`).not.toBe('connected');
    }
  });

  it('speaks only HTTPS: a plain HTTP request gets no API answer', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const outgoing = httpRequest(
        { host: '127.0.0.1', port: portOf(cluster), path: '/api/v1/namespaces', headers: { authorization: `Bearer ${cluster.token}` }, timeout: 10_000, agent: false },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve(`HTTP ${response.statusCode ?? 0}: ${body.slice(0, 200)}`));
          response.on('error', (error) => resolve(`error ${error.message}`));
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('timed out')));
      outgoing.on('error', (error) => resolve(`error ${error.message}`));
      outgoing.end();
    });
    expect(outcome).not.toMatch(/^HTTP 2\d\d/);
    expect(outcome).not.toContain('NamespaceList');
  });

  it('answers API requests with a bearer token that is not valid with 401 and a Status', async () => {
    const wrong: Array<[string, Record<string, string>]> = [
      ['a wrong bearer token', { authorization: 'Bearer not-the-token' }],
      ['the token with a character added', { authorization: `Bearer ${cluster.token}x` }],
      ['the token cut short', { authorization: `Bearer ${cluster.token.slice(0, -1)}` }],
    ];
    for (const [what, headers] of wrong) {
      expectUnauthorizedStatus(await rawRequest(cluster, 'GET', '/api/v1/namespaces', headers), `GET namespaces with ${what}`);
    }
  });

  it('answers API requests without credentials as system:anonymous, with 403 and a Status', async () => {
    const none: Array<[string, Record<string, string>]> = [
      ['no Authorization header', {}],
      ['an empty bearer token', { authorization: 'Bearer ' }],
      ['basic credentials', { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` }],
      ['the token without the Bearer scheme', { authorization: cluster.token }],
    ];
    for (const [what, headers] of none) {
      expectAnonymousForbidden(await rawRequest(cluster, 'GET', '/api/v1/namespaces', headers), `GET namespaces with ${what}`);
    }
    const paths = ['/api', '/apis', '/api/v1', '/apis/apps/v1/deployments', '/api/v1/namespaces/default/pods', '/openapi/v2', '/api/v1/namespaces?watch=true', '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0'];
    for (const path of paths) expectAnonymousForbidden(await rawRequest(cluster, 'GET', path), `GET ${path}`);
  });

  it('refuses writes without valid credentials and leaves the state alone', async () => {
    const configMap = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'intruder' }, data: { a: 'b' } });
    expectAnonymousForbidden(await rawRequest(cluster, 'POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/json' }, configMap), 'POST a configmap');
    expectUnauthorizedStatus(await rawRequest(cluster, 'PUT', '/api/v1/namespaces/default/configmaps/intruder', { 'content-type': 'application/json', authorization: 'Bearer wrong' }, configMap), 'PUT a configmap');
    expectAnonymousForbidden(await rawRequest(cluster, 'PATCH', '/api/v1/namespaces/default', { 'content-type': 'application/merge-patch+json' }, '{"metadata":{"labels":{"owned":"yes"}}}'), 'PATCH a namespace');
    expectAnonymousForbidden(await rawRequest(cluster, 'DELETE', '/api/v1/namespaces/kube-public'), 'DELETE a namespace');
    expect((await cluster.request('GET', '/api/v1/namespaces/default/configmaps/intruder')).status).toBe(404);
    const namespace = await cluster.request('GET', '/api/v1/namespaces/default');
    expect(namespace.status).toBe(200);
    expect(JSON.parse(namespace.body)).not.toHaveProperty('metadata.labels.owned');
    const publicNamespace = await cluster.request('GET', '/api/v1/namespaces/kube-public');
    expect(JSON.parse(publicNamespace.body)).not.toHaveProperty('metadata.deletionTimestamp');
  });

  it('refuses a streaming upgrade (exec) without a token, and with a wrong one', async () => {
    const upgrade = {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'),
      'sec-websocket-protocol': 'v5.channel.k8s.io',
    };
    const path = '/api/v1/namespaces/default/pods/anything/exec?command=sh&stdout=true';
    const anonymous = await rawRequest(cluster, 'GET', path, upgrade).catch((error: unknown) => ({ status: 0, contentType: '', body: String(error) }));
    expect(anonymous.status, anonymous.body).toBe(403);
    const wrong = await rawRequest(cluster, 'GET', path, { ...upgrade, authorization: 'Bearer wrong' }).catch((error: unknown) => ({ status: 0, contentType: '', body: String(error) }));
    expect(wrong.status, wrong.body).toBe(401);
  });

  it('answers the health and version endpoints without a token', async () => {
    for (const path of ['/livez', '/readyz', '/healthz']) {
      const reply = await rawRequest(cluster, 'GET', path);
      expect(reply.status, path).toBe(200);
      expect(reply.body.trim(), path).toBe('ok');
    }
    const version = await rawRequest(cluster, 'GET', '/version');
    expect(version.status).toBe(200);
    expect(JSON.parse(version.body)).toMatchObject({ major: '1', gitVersion: expect.stringMatching(/^v1\.35\./) });
  });

  it('accepts the admin token from the kubeconfig', async () => {
    const reply = await rawRequest(cluster, 'GET', '/api/v1/namespaces', { authorization: `Bearer ${cluster.token}` });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ kind: 'NamespaceList' });
  });

  it('presents an RSA 2048 serving certificate, the one in its data dir, signed by the cluster CA', async () => {
    const served = await servedCertificate(cluster);
    expect(served.bits).toBe(2048);
    expect(served.asn1Curve).toBeUndefined();
    const onDisk = new X509Certificate(readFileSync(join(cluster.dataDir, 'pki', 'apiserver.crt')));
    expect(served.raw.equals(onDisk.raw)).toBe(true);
    expect(onDisk.checkIssued(new X509Certificate(cluster.caPem))).toBe(true);
  });

  it("lets busybox's wget in a pod reach the API over HTTPS", async () => {
    const output = await wgetFromPod(cluster, 'wget-rsa');
    expect(output).toMatch(/"gitVersion":"v1\.35\.[^"]*".*\} version=ok/);
    expect(output).toMatch(/"kind":"APIVersions".* api=ok/);
  });

  it('writes the kubeconfig, the keys and the token with mode 0600', () => {
    expect((statSync(cluster.kubeconfig).mode & 0o777).toString(8)).toBe('600');
    for (const file of ['ca.key', 'apiserver.key', 'admin.token']) {
      expect((statSync(join(cluster.dataDir, 'pki', file)).mode & 0o777).toString(8), file).toBe('600');
    }
    expect(readFileSync(join(cluster.dataDir, 'pki', 'admin.token'), 'utf8').trim()).toBe(cluster.token);
  });
});

describe('a cluster started with --serving-key-type ecdsa', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startCluster({ extraArgs: ['--serving-key-type', 'ecdsa'] });
  });

  afterAll(async () => {
    await cluster?.destroy();
  });

  it('presents an ECDSA P-256 serving certificate under an ECDSA CA', async () => {
    const served = await servedCertificate(cluster);
    expect(served.asn1Curve).toBe('prime256v1');
    expect(new X509Certificate(cluster.caPem).publicKey.asymmetricKeyType).toBe('ec');
  });

  it("lets busybox's wget reach the API with it too: busybox can do ECDSA once SHA-1 handshake signatures are allowed", async () => {
    const output = await wgetFromPod(cluster, 'wget-ecdsa');
    expect(output).toContain(' version=ok');
    expect(output).toContain(' api=ok');
  });

  it('gets an RSA serving certificate under the same CA when restarted without the flag, and the kubeconfig still works', async () => {
    const caBefore = cluster.caPem;
    await cluster.restart({ extraArgs: [] });
    expect(cluster.caPem).toBe(caBefore);
    const served = await servedCertificate(cluster);
    expect(served.bits).toBe(2048);
    expect(await kubectlOk(cluster, ['get', 'namespace', 'default', '-o', 'name'])).toBe('namespace/default\n');
  });
});

const existingKubeconfig = `# My kubeconfig: hand-edited, keep these comments.
apiVersion: v1
kind: Config
preferences:
  colors: true # an inline comment
current-context: work
clusters:
  # the production cluster
  - name: work
    cluster:
      server: https://127.0.0.1:1
      certificate-authority-data: ${Buffer.from('-----BEGIN CERTIFICATE-----\nnot really\n-----END CERTIFICATE-----\n').toString('base64')}
  - name: lab
    cluster:
      server: "https://127.0.0.1:2"
      insecure-skip-tls-verify: true
contexts:
  - name: work
    context:
      cluster: work
      user: alice
      namespace: payments
  - name: lab
    context: {cluster: lab, user: bob}   # flow style, on purpose
users:
  - name: alice
    user:
      token: alice-token-0123456789
  - name: bob
    user:
      username: bob
      password: 'hunter2'
extensions:
  - name: my-extension
    extension:
      anything: goes
`;

interface NamedEntry {
  name: string;
  [key: string]: unknown;
}

function entries(config: unknown, list: 'clusters' | 'contexts' | 'users'): NamedEntry[] {
  const value = (config as Record<string, unknown>)[list];
  return Array.isArray(value) ? (value as NamedEntry[]) : [];
}

/** Each line of `original` appears in `edited`, in the same order (entries may be added between). */
function missingLines(original: string, edited: string): string[] {
  const editedLines = edited.split('\n');
  const missing: string[] = [];
  let position = 0;
  for (const line of original.split('\n')) {
    if (line === '') continue;
    const found = editedLines.indexOf(line, position);
    if (found === -1) missing.push(line);
    else position = found + 1;
  }
  return missing;
}

describe('an existing kubeconfig with other clusters, users and contexts', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startCluster({ kubeconfigContent: existingKubeconfig });
  });

  afterAll(async () => {
    await cluster?.destroy();
  });

  it('keeps every other entry, comment and the current context as they were', () => {
    const edited = readFileSync(cluster.kubeconfig, 'utf8');
    const before: unknown = parse(existingKubeconfig);
    const after: unknown = parse(edited);
    for (const list of ['clusters', 'contexts', 'users'] as const) {
      expect(entries(after, list).filter((entry) => entry.name !== 'kubedesk'), list).toEqual(entries(before, list));
      expect(entries(after, list).map((entry) => entry.name), list).toContain('kubedesk');
    }
    expect(after).toMatchObject({ 'current-context': 'work', preferences: { colors: true }, extensions: [{ name: 'my-extension', extension: { anything: 'goes' } }] });
    expect(missingLines(existingKubeconfig, edited)).toEqual([]);
  });

  it('adds a kubedesk context that works and leaves kubectl on the current one', async () => {
    const current = await cluster.kubectl(['config', 'current-context']);
    expect(current.stdout.trim()).toBe('work');
    const namespaces = await cluster.kubectl(['--context', 'kubedesk', 'get', 'ns', 'default', '-o', 'name']);
    expect(namespaces.code, namespaces.stderr).toBe(0);
    expect(namespaces.stdout.trim()).toBe('namespace/default');
  });

  it('tells the user how to switch to the kubedesk context', () => {
    expect(cluster.logs()).toContain('kubectl config use-context kubedesk');
  });

  it('keeps the edited kubeconfig at mode 0600', () => {
    expect((statSync(cluster.kubeconfig).mode & 0o777).toString(8)).toBe('600');
  });

  it('leaves the same entries after a restart, without duplicating its own', async () => {
    await cluster.restart();
    const after: unknown = parse(readFileSync(cluster.kubeconfig, 'utf8'));
    for (const list of ['clusters', 'contexts', 'users'] as const) {
      expect(entries(after, list).filter((entry) => entry.name === 'kubedesk'), list).toHaveLength(1);
      expect(entries(after, list).filter((entry) => entry.name !== 'kubedesk'), list).toEqual(entries(parse(existingKubeconfig), list));
    }
    expect(after).toMatchObject({ 'current-context': 'work' });
  });

  it('removes only its own entries on reset', async () => {
    await cluster.stop();
    const reset = await runCommand(process.execPath, [join(repositoryRoot, 'bin', 'kubedesk.mjs'), 'reset', '--data-dir', cluster.dataDir, '--kubeconfig', cluster.kubeconfig], { timeoutMs: 120_000 });
    expect(reset.code, reset.stderr).toBe(0);
    const edited = readFileSync(cluster.kubeconfig, 'utf8');
    const after: unknown = parse(edited);
    for (const list of ['clusters', 'contexts', 'users'] as const) expect(entries(after, list), list).toEqual(entries(parse(existingKubeconfig), list));
    expect(after).toMatchObject({ 'current-context': 'work' });
    expect(missingLines(existingKubeconfig, edited)).toEqual([]);
  });
});
