import { X509Certificate } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCertificates, type TestCertificates } from '../../test/fixtures/testCertificates';
import { startConnectProxy, startSocks5Proxy, type TestProxy } from '../../test/fixtures/testProxies';
import { clientConfigOf, loadKubeconfig, type ClientConfig } from './kubeconfig';
import { CredentialError, type ClusterConnection } from './clusterConnection';
import { connectionFor, connectionForContext, escapeHeaderKey, serverCertificate, type ConnectionOptions } from './connection';

let certificates: TestCertificates;
/** a server certificate for api.internal only, for tls-server-name */
let internalCertificates: TestCertificates;
let dir: string;
const servers: (http.Server | https.Server)[] = [];
const proxies: TestProxy[] = [];
let serverPort: number;
let mutualPort: number;
let internalPort: number;
let plainPort: number;

interface Seen {
  status: number;
  path: string;
  authorization?: string;
  /** every request header as sent, lower-case names, repeated headers in order */
  raw: [string, string][];
  /** the common name of the client certificate */
  client?: string;
}

/** Answers with what it saw; /secure needs a bearer token in `accepted`. */
function handler(accepted: Set<string>) {
  return (request: http.IncomingMessage, response: http.ServerResponse) => {
    const raw: [string, string][] = [];
    for (let index = 0; index < request.rawHeaders.length; index += 2) raw.push([(request.rawHeaders[index] ?? '').toLowerCase(), request.rawHeaders[index + 1] ?? '']);
    const socket = request.socket as TLSSocket;
    const peer = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
    const client = peer && typeof peer.subject?.CN === 'string' ? peer.subject.CN : undefined;
    const token = request.headers.authorization?.replace(/^Bearer /, '');
    const status = request.url?.includes('/secure') && !(token && accepted.has(token)) ? 401 : 200;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status, path: request.url, authorization: request.headers.authorization, raw, ...(client ? { client } : {}) }));
  };
}

/** Upgrades with a protocol of its own that echoes what it receives. */
function echoUpgrades(server: http.Server): void {
  server.on('upgrade', (request: http.IncomingMessage, socket: import('node:stream').Duplex) => {
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\nX-Authorization: ${request.headers.authorization ?? ''}\r\n\r\n`);
    socket.pipe(socket);
  });
}

const acceptedTokens = new Set(['good']);

async function listen(server: http.Server | https.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  certificates = makeTestCertificates(['localhost', 'cluster.test'], ['127.0.0.1'], 'alice');
  internalCertificates = makeTestCertificates(['api.internal']);
  dir = mkdtempSync(join(tmpdir(), 'kd-remote-'));
  const server = https.createServer({ cert: certificates.certPem, key: certificates.keyPem }, handler(acceptedTokens));
  echoUpgrades(server);
  serverPort = await listen(server);
  mutualPort = await listen(https.createServer({ cert: certificates.certPem, key: certificates.keyPem, ca: certificates.caPem, requestCert: true, rejectUnauthorized: true }, handler(acceptedTokens)));
  internalPort = await listen(https.createServer({ cert: internalCertificates.certPem, key: internalCertificates.keyPem }, handler(acceptedTokens)));
  const plain = http.createServer(handler(acceptedTokens));
  echoUpgrades(plain);
  plainPort = await listen(plain);
}, 30_000);

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  rmSync(dir, { recursive: true, force: true });
});

const base64 = (text: string) => Buffer.from(text).toString('base64');
let configCount = 0;

/** Writes a one-context kubeconfig (JSON is YAML) in its own folder and resolves its context. */
function configOf(cluster: Record<string, unknown>, user: Record<string, unknown>, files: Record<string, string> = {}): ClientConfig {
  const folder = join(dir, `config-${++configCount}`);
  mkdirSync(folder, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(folder, name, '..'), { recursive: true });
    writeFileSync(join(folder, name), content);
  }
  const document = { apiVersion: 'v1', kind: 'Config', 'current-context': 'test', clusters: [{ name: 'c', cluster }], users: [{ name: 'u', user }], contexts: [{ name: 'test', context: { cluster: 'c', user: 'u' } }] };
  const file = join(folder, 'config');
  writeFileSync(file, JSON.stringify(document));
  return clientConfigOf(loadKubeconfig([file], true), { context: 'test' });
}

const trusted = () => ({ server: `https://127.0.0.1:${serverPort}`, 'certificate-authority-data': base64(certificates.caPem) });

function open(config: ClientConfig, options: ConnectionOptions = {}): ClusterConnection {
  const connection = connectionFor(config, options);
  afterAllClose.push(connection);
  return connection;
}
const afterAllClose: ClusterConnection[] = [];
afterAll(() => afterAllClose.forEach((connection) => connection.close()));

async function get(connection: ClusterConnection, path = '/api/v1/namespaces', headers: http.OutgoingHttpHeaders = {}): Promise<Seen> {
  const options = await connection.requestOptions('GET', path, { accept: 'application/json', ...headers });
  return new Promise((resolve, reject) => {
    const request = (options.protocol === 'http:' ? http : https).request(options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** Upgrades to the servers' echo protocol and returns what comes back for `message`, and the Authorization the server saw. */
async function upgrade(connection: ClusterConnection, message: string): Promise<{ echoed: string; authorization: string }> {
  const options = await connection.requestOptions('GET', '/echo', { connection: 'Upgrade', upgrade: 'echo' });
  return new Promise((resolve, reject) => {
    const request = (options.protocol === 'http:' ? http : https).request(options);
    request.on('upgrade', (response, socket) => {
      socket.once('data', (chunk: Buffer) => {
        socket.destroy();
        resolve({ echoed: chunk.toString(), authorization: String(response.headers['x-authorization'] ?? '') });
      });
      socket.write(message);
    });
    request.on('response', (response) => reject(new Error(`no upgrade: ${response.statusCode}`)));
    request.on('error', reject);
    request.end();
  });
}

async function credentialError(promise: Promise<unknown>): Promise<CredentialError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CredentialError) return error;
    throw error;
  }
  throw new Error('no CredentialError was thrown');
}

describe('TLS and static credentials', () => {
  it('trusts the server through the context’s CA and sends its bearer token under the server’s path prefix', async () => {
    const connection = open(configOf({ ...trusted(), server: `https://127.0.0.1:${serverPort}/prefix/` }, { token: 'good' }));
    const seen = await get(connection, '/api/v1/secure');
    expect(seen).toMatchObject({ status: 200, path: '/prefix/api/v1/secure', authorization: 'Bearer good' });
    expect(connection.warnings).toEqual([]);
    expect(connection.credentialsRejected()).toBe(false);
  });

  it('refuses a server whose certificate the context does not trust', async () => {
    const connection = open(configOf({ server: `https://127.0.0.1:${serverPort}` }, { token: 'good' }));
    await expect(get(connection)).rejects.toMatchObject({ code: expect.stringMatching(/SELF_SIGNED|UNABLE_TO_VERIFY/) });
  });

  it('sends basic credentials, and never the caller’s own Authorization or Impersonate headers', async () => {
    const connection = open(configOf(trusted(), { username: 'admin', password: 'p@ss' }));
    const seen = await get(connection, '/api', { Authorization: 'Bearer from-the-ui', 'Impersonate-User': 'root' });
    expect(seen.authorization).toBe(`Basic ${base64('admin:p@ss')}`);
    expect(seen.raw.filter(([name]) => name.startsWith('impersonate-'))).toEqual([]);
  });

  it('presents the context’s client certificate to a server that requires one', async () => {
    const withCertificate = open(configOf({ ...trusted(), server: `https://127.0.0.1:${mutualPort}` }, { 'client-certificate': 'certs/alice.crt', 'client-key': 'certs/alice.key' }, { 'certs/alice.crt': certificates.client?.certPem ?? '', 'certs/alice.key': certificates.client?.keyPem ?? '' }));
    expect(await get(withCertificate)).toMatchObject({ status: 200, client: 'alice' });
    const without = open(configOf({ ...trusted(), server: `https://127.0.0.1:${mutualPort}` }, { token: 'good' }));
    await expect(get(without)).rejects.toThrow();
  });

  it('checks the server’s certificate against tls-server-name instead of the address', async () => {
    const cluster = { server: `https://127.0.0.1:${internalPort}`, 'certificate-authority-data': base64(internalCertificates.caPem) };
    await expect(get(open(configOf(cluster, { token: 'good' })))).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(await get(open(configOf({ ...cluster, 'tls-server-name': 'api.internal' }, { token: 'good' })))).toMatchObject({ status: 200 });
  });

  it('reads the certificate of a server it does not trust, for its SHA-256 fingerprint, directly and through a proxy', async () => {
    const expected = new X509Certificate(certificates.certPem).fingerprint256;
    const untrusted = configOf({ server: `https://127.0.0.1:${serverPort}` }, { token: 'good' });
    expect(await serverCertificate(untrusted)).toMatchObject({ fingerprint: expected, subject: 'localhost', issuer: 'webhook-test-ca' });
    expect(expected).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const connect = await startConnectProxy({ hosts: { 'cluster.test': '127.0.0.1' } });
    proxies.push(connect);
    expect((await serverCertificate(configOf({ server: `https://cluster.test:${serverPort}`, 'proxy-url': connect.url }, { token: 'good' }))).fingerprint).toBe(expected);
  });

  it('skips verification with insecure-skip-tls-verify, and says so in its warnings', async () => {
    const connection = open(configOf({ server: `https://127.0.0.1:${serverPort}`, 'insecure-skip-tls-verify': true }, { token: 'good' }));
    expect(await get(connection)).toMatchObject({ status: 200 });
    expect(connection.warnings).toEqual([expect.stringContaining('insecure-skip-tls-verify is set for cluster "c"')]);
  });

  it('reaches an http:// server and warns that it is plain text', async () => {
    const connection = open(configOf({ server: `http://127.0.0.1:${plainPort}` }, { token: 'good' }));
    expect(await get(connection)).toMatchObject({ status: 200, authorization: 'Bearer good' });
    expect(connection.warnings).toEqual([expect.stringContaining('plain HTTP')]);
  });

  it('re-reads a token file when it changes and after the server rejects its token', async () => {
    const config = configOf(trusted(), { tokenFile: 'token' }, { token: 'first-token\n' });
    const tokenFile = config.tokenFile ?? '';
    let reads = 0;
    const connection = open(config, { readFile: (path) => ((reads += 1), Promise.resolve(readFileSync(path))) });
    expect((await get(connection)).authorization).toBe('Bearer first-token');
    expect((await get(connection)).authorization).toBe('Bearer first-token');
    expect(reads).toBe(1);
    writeFileSync(tokenFile, 'second-token-rotated\n');
    expect((await get(connection)).authorization).toBe('Bearer second-token-rotated');
    expect(connection.credentialsRejected()).toBe(true);
    expect((await get(connection)).authorization).toBe('Bearer second-token-rotated');
    expect(reads).toBe(3);
    rmSync(tokenFile);
    expect(await credentialError(get(connection))).toMatchObject({ failure: 'file-unreadable', message: expect.stringContaining(tokenFile) });
  });

  it('sends Impersonate-User, -Uid, one -Group per group and percent-escaped -Extra keys', async () => {
    const connection = open(configOf(trusted(), { token: 'good', as: 'jane', 'as-uid': '1234', 'as-groups': ['developers', 'viewers'], 'as-user-extra': { scopes: ['view', 'edit'], 'example.com/team ä': ['blue'] } }));
    const seen = await get(connection);
    expect(seen.raw.filter(([name]) => name.startsWith('impersonate-'))).toEqual([
      ['impersonate-user', 'jane'],
      ['impersonate-uid', '1234'],
      ['impersonate-group', 'developers'],
      ['impersonate-group', 'viewers'],
      ['impersonate-extra-scopes', 'view'],
      ['impersonate-extra-scopes', 'edit'],
      ['impersonate-extra-example.com%2fteam%20%c3%a4', 'blue'], // header names arrive in lower case here
    ]);
    expect(escapeHeaderKey('example.com/team ä%')).toBe('example.com%2Fteam%20%C3%A4%25');
  });

  it('refuses an auth-provider, an unknown proxy scheme and an unreadable CA by name, without throwing on creation', async () => {
    expect(await credentialError(open(configOf(trusted(), { 'auth-provider': { name: 'oidc', config: {} } })).requestOptions('GET', '/api'))).toMatchObject({ failure: 'unsupported', message: expect.stringContaining('auth-provider "oidc"') });
    expect(await credentialError(open(configOf({ ...trusted(), 'proxy-url': 'ftp://proxy:21' }, { token: 'good' })).requestOptions('GET', '/api'))).toMatchObject({ failure: 'unsupported', message: expect.stringContaining('"ftp"') });
    const file = join(dir, 'unreadable-ca');
    writeFileSync(file, JSON.stringify({ clusters: [{ name: 'c', cluster: { server: 'https://10.0.0.1:6443', 'certificate-authority': 'missing/ca.crt' } }], users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'test', context: { cluster: 'c', user: 'u' } }] }));
    const broken = connectionForContext(loadKubeconfig([file], true), 'test');
    expect(broken.server.host).toBe('10.0.0.1:6443');
    expect(await credentialError(broken.requestOptions('GET', '/api'))).toMatchObject({ failure: 'file-unreadable', message: expect.stringContaining('missing/ca.crt') });
  });
});

/** An exec plugin (a node script) that counts its runs in COUNT_FILE, saves KUBERNETES_EXEC_INFO in INFO_FILE and prints a token, or CERT/KEY, with EXPIRES. */
function writePlugin(path: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(
    path,
    `#!${process.execPath}
const fs = require('fs');
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
fs.appendFileSync(process.env.COUNT_FILE, 'x');
const run = fs.readFileSync(process.env.COUNT_FILE, 'utf8').length;
if (process.env.INFO_FILE) fs.writeFileSync(process.env.INFO_FILE, process.env.KUBERNETES_EXEC_INFO);
if (process.env.FAIL) { process.stderr.write(process.env.FAIL + '\\n'); process.exit(3); }
const status = process.env.CERT ? { clientCertificateData: process.env.CERT, clientKeyData: process.env.KEY } : { token: 'exec-token-' + run };
if (process.env.EXPIRES) status.expirationTimestamp = process.env.EXPIRES;
process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status }));
`,
  );
  chmodSync(path, 0o755);
}

describe('exec credential plugins', () => {
  const runsOf = (file: string) => readFileSync(file, 'utf8').length;

  it('runs a v1 plugin once for many waiting requests, caches its token until it expires, and again after a 401', async () => {
    const plugin = join(dir, 'bin', 'plugin-v1');
    writePlugin(plugin);
    const count = join(dir, 'count-v1');
    const info = join(dir, 'info-v1');
    let now = Date.parse('2030-01-01T00:00:00Z') - 60_000;
    const config = configOf(trusted(), {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: plugin,
        interactiveMode: 'Never',
        env: [
          { name: 'COUNT_FILE', value: count },
          { name: 'INFO_FILE', value: info },
          { name: 'EXPIRES', value: '2030-01-01T00:00:00Z' },
        ],
      },
    });
    const connection = open(config, { now: () => now });
    const seen = await Promise.all(Array.from({ length: 6 }, () => get(connection)));
    expect(seen.map((item) => item.authorization)).toEqual(Array(6).fill('Bearer exec-token-1'));
    expect(runsOf(count)).toBe(1);
    expect(JSON.parse(readFileSync(info, 'utf8'))).toEqual({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: false } });
    expect((await get(connection)).authorization).toBe('Bearer exec-token-1');
    now = Date.parse('2030-01-01T00:00:01Z');
    expect((await get(connection)).authorization).toBe('Bearer exec-token-2');
    expect(connection.credentialsRejected()).toBe(true);
    expect(await upgrade(connection, 'hello')).toEqual({ echoed: 'hello', authorization: 'Bearer exec-token-3' });
    expect(runsOf(count)).toBe(3);
  });

  it('runs a v1beta1 plugin named relative to the kubeconfig, gives it the cluster, and uses its client certificate', async () => {
    const count = join(dir, 'count-v1beta1');
    const info = join(dir, 'info-v1beta1');
    const cluster = { ...trusted(), server: `https://127.0.0.1:${mutualPort}`, 'tls-server-name': 'localhost', extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { audience: 'kubedesk-test' } }] };
    const config = configOf(cluster, {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        command: './bin/plugin',
        provideClusterInfo: true,
        env: [
          { name: 'COUNT_FILE', value: count },
          { name: 'INFO_FILE', value: info },
          { name: 'CERT', value: certificates.client?.certPem ?? '' },
          { name: 'KEY', value: certificates.client?.keyPem ?? '' },
        ],
      },
    });
    writePlugin(config.exec?.command ?? '');
    expect(config.exec?.command).toBe(join(dir, `config-${configCount}`, 'bin', 'plugin'));
    const connection = open(config);
    expect(await get(connection)).toMatchObject({ status: 200, client: 'alice' });
    expect(await get(connection)).toMatchObject({ status: 200, client: 'alice' });
    expect(runsOf(count)).toBe(1);
    expect(JSON.parse(readFileSync(info, 'utf8'))).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server: `https://127.0.0.1:${mutualPort}`, 'tls-server-name': 'localhost', 'certificate-authority-data': base64(certificates.caPem), config: { audience: 'kubedesk-test' } } },
    });
    connection.credentialsRejected();
    expect(await get(connection)).toMatchObject({ client: 'alice' });
    expect(runsOf(count)).toBe(2);
  });

  it('says the plugin is missing, with its install hint', async () => {
    const connection = open(configOf(trusted(), { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'kubedesk-no-such-plugin', interactiveMode: 'IfAvailable', installHint: 'install it with: brew install no-such-plugin' } }));
    const error = await credentialError(get(connection));
    expect(error).toMatchObject({ failure: 'exec-missing', message: 'exec: executable kubedesk-no-such-plugin not found\n\nIt looks like you are trying to use a client-go credential plugin that is not installed.\n\ninstall it with: brew install no-such-plugin' });
  });

  it('reports a failing plugin with its stderr, and runs it again on the next request', async () => {
    const plugin = join(dir, 'bin', 'plugin-failing');
    writePlugin(plugin);
    const count = join(dir, 'count-failing');
    const connection = open(configOf(trusted(), { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never', env: [{ name: 'COUNT_FILE', value: count }, { name: 'FAIL', value: 'error: the SSO session has expired; run `login`' }] } }));
    const error = await credentialError(get(connection));
    expect(error).toMatchObject({ failure: 'exec-failed', stderr: 'error: the SSO session has expired; run `login`', message: expect.stringContaining('failed with exit code 3') });
    await credentialError(get(connection));
    expect(runsOf(count)).toBe(2);
  });

  it('refuses a plugin that prints no credential, and one that would need a terminal without running it', async () => {
    const silent = join(dir, 'bin', 'silent');
    mkdirSync(join(silent, '..'), { recursive: true });
    writeFileSync(silent, `#!${process.execPath}\nprocess.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: {} }));\n`);
    chmodSync(silent, 0o755);
    expect(await credentialError(get(open(configOf(trusted(), { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: silent, interactiveMode: 'Never' } }))))).toMatchObject({ failure: 'exec-failed', message: expect.stringContaining("didn't return a token or cert/key pair") });
    let spawned = 0;
    const spawn = (() => {
      spawned += 1;
      throw new Error('the plugin must not run');
    }) as unknown as typeof import('node:child_process').spawn;
    const interactive = open(configOf(trusted(), { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: silent, interactiveMode: 'Always' } }), { spawn });
    expect(await credentialError(get(interactive))).toMatchObject({ failure: 'exec-interactive', message: expect.stringContaining('needs a terminal') });
    expect(await credentialError(get(open(configOf(trusted(), { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: silent } }), { spawn })))).toMatchObject({ failure: 'unsupported', message: 'interactiveMode must be specified for u to use exec authentication plugin' });
    expect(spawned).toBe(0);
  });

  it('kills a plugin that does not finish in time', async () => {
    const slow = join(dir, 'bin', 'slow');
    writeFileSync(slow, '#!/bin/sh\necho waiting for the browser >&2\nexec sleep 60\n');
    chmodSync(slow, 0o755);
    const connection = open(configOf(trusted(), { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: slow, interactiveMode: 'IfAvailable' } }), { timeoutMs: 1000 });
    expect(await credentialError(get(connection))).toMatchObject({ failure: 'exec-failed', message: expect.stringContaining('did not finish within'), stderr: 'waiting for the browser' });
  });
});

describe('proxy-url', () => {
  async function proxy(started: Promise<TestProxy>): Promise<TestProxy> {
    const value = await started;
    proxies.push(value);
    return value;
  }
  const byName = () => ({ ...trusted(), server: `https://cluster.test:${serverPort}` });
  const hosts = { 'cluster.test': '127.0.0.1' };

  it('tunnels requests and upgrades through an HTTP CONNECT proxy, with Proxy-Authorization', async () => {
    const connect = await proxy(startConnectProxy({ hosts, credentials: { username: 'proxy user', password: 'secret' } }));
    const url = connect.url.replace('http://', 'http://proxy%20user:secret@');
    const connection = open(configOf({ ...byName(), 'proxy-url': url }, { token: 'good' }));
    expect(await get(connection)).toMatchObject({ status: 200, authorization: 'Bearer good' });
    expect(await upgrade(connection, 'through the proxy')).toEqual({ echoed: 'through the proxy', authorization: 'Bearer good' });
    // the request's kept-alive tunnel carried the upgrade too
    expect(connect.targets).toEqual([`cluster.test:${serverPort}`]);
    const refused = open(configOf({ ...byName(), 'proxy-url': connect.url }, { token: 'good' }));
    await expect(get(refused)).rejects.toThrow(/refused CONNECT cluster\.test:\d+: 407/);
  });

  it('reaches an https:// proxy over TLS, and an http:// server through it', async () => {
    const secure = await proxy(startConnectProxy({ hosts, tls: certificates }));
    expect(secure.url.startsWith('https://')).toBe(true);
    const connection = open(configOf({ ...byName(), 'proxy-url': secure.url }, { token: 'good' }));
    expect(await get(connection)).toMatchObject({ status: 200 });
    const plain = open(configOf({ server: `http://cluster.test:${plainPort}`, 'certificate-authority-data': base64(certificates.caPem), 'proxy-url': secure.url }, { token: 'good' }));
    expect(await get(plain)).toMatchObject({ status: 200, authorization: 'Bearer good' });
    expect(await upgrade(plain, 'plain')).toMatchObject({ echoed: 'plain' });
    expect(secure.targets).toEqual([`cluster.test:${serverPort}`, `cluster.test:${plainPort}`]);
  });

  it('sends the server’s name to a SOCKS5 proxy to resolve, as kubectl does, with a username and password', async () => {
    const socks = await proxy(startSocks5Proxy({ hosts, credentials: { username: 'u', password: 'p' } }));
    const byAddress = open(configOf({ ...trusted(), 'proxy-url': socks.url }, { token: 'good' }));
    expect(await get(byAddress)).toMatchObject({ status: 200 });
    const byName5 = open(configOf({ ...byName(), 'proxy-url': socks.url }, { token: 'good' }));
    expect(await get(byName5)).toMatchObject({ status: 200 });
    const byName5h = open(configOf({ ...byName(), 'proxy-url': socks.url.replace('socks5://', 'socks5h://') }, { token: 'good' }));
    expect(await get(byName5h)).toMatchObject({ status: 200 });
    expect(await upgrade(byName5h, 'socks')).toMatchObject({ echoed: 'socks' });
    expect(socks.targets).toEqual([`127.0.0.1:${serverPort}`, `cluster.test:${serverPort}`, `cluster.test:${serverPort}`]);
    expect(socks.addressTypes).toEqual(['ipv4', 'domain', 'domain']);
    const unknown = open(configOf({ ...byName(), server: `https://nowhere.test:${serverPort}`, 'proxy-url': socks.url }, { token: 'good' }));
    await expect(get(unknown)).rejects.toMatchObject({ code: 'EHOSTUNREACH', message: expect.stringContaining(`could not connect to nowhere.test:${serverPort}: host unreachable`) });
    const wrongPassword = open(configOf({ ...byName(), 'proxy-url': socks.url.replace('u:p@', 'u:wrong@') }, { token: 'good' }));
    await expect(get(wrongPassword)).rejects.toThrow('rejected the username and password');
  });

  it('takes HTTPS_PROXY from the environment when the kubeconfig names no proxy, except for NO_PROXY hosts', async () => {
    const connect = await proxy(startConnectProxy({ hosts }));
    const viaEnvironment = open(configOf(byName(), { token: 'good' }), { env: { HTTPS_PROXY: connect.url, NO_PROXY: 'other.example' } });
    expect(await get(viaEnvironment)).toMatchObject({ status: 200 });
    expect(connect.targets).toEqual([`cluster.test:${serverPort}`]);
    const excluded = open(configOf(byName(), { token: 'good' }), { env: { HTTPS_PROXY: connect.url, NO_PROXY: '.test' } });
    await expect(get(excluded)).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/) });
    expect(connect.targets).toHaveLength(1);
  });

  it('says which target a SOCKS5 proxy could not reach, and when the proxy itself is down', async () => {
    const socks = await proxy(startSocks5Proxy({}));
    const connection = open(configOf({ ...trusted(), server: 'https://127.0.0.1:1', 'proxy-url': socks.url }, { token: 'good' }));
    await expect(get(connection)).rejects.toMatchObject({ code: 'ECONNREFUSED', message: expect.stringContaining('could not connect to 127.0.0.1:1: connection refused') });
    const proxyDown = open(configOf({ ...trusted(), 'proxy-url': 'http://127.0.0.1:1' }, { token: 'good' }));
    await expect(get(proxyDown)).rejects.toMatchObject({ code: 'ECONNREFUSED', message: expect.stringContaining('proxy http://127.0.0.1:1: connect ECONNREFUSED') });
  });
});
