// Holds main/remote to the real kubectl (.tools/kubectl): one kubeconfig context — an exec plugin
// with provideClusterInfo, a cluster extension, tls-server-name, a proxy-url and every kind of
// impersonation — used by kubectl and by connectionFor against the same recording server, through
// the same CONNECT proxy: the headers the server sees and the KUBERNETES_EXEC_INFO the plugin
// gets must be the same; and a SOCKS5 proxy must be asked for the same target the same way.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runKubectl } from '../../test/fixtures/kubectl';
import { makeTestCertificates } from '../../test/fixtures/testCertificates';
import { startConnectProxy, startSocks5Proxy, type TestProxy } from '../../test/fixtures/testProxies';
import { clientConfigOf, loadKubeconfig } from './kubeconfig';
import { connectionFor } from './connection';

let dir: string;
let server: https.Server;
let proxy: TestProxy;
const seen: [string, string][][] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kd-parity-'));
  const certificates = makeTestCertificates(['localhost'], ['127.0.0.1']);
  writeFileSync(join(dir, 'ca.crt'), certificates.caPem);
  server = https.createServer({ cert: certificates.certPem, key: certificates.keyPem }, (request, response) => {
    const headers: [string, string][] = [];
    for (let index = 0; index < request.rawHeaders.length; index += 2) headers.push([(request.rawHeaders[index] ?? '').toLowerCase(), request.rawHeaders[index + 1] ?? '']);
    seen.push(headers);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy = await startConnectProxy({ hosts: { 'cluster.test': '127.0.0.1' } });
}, 30_000);

afterAll(async () => {
  await proxy.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

it('sends what kubectl sends and gives the exec plugin what kubectl gives it', async () => {
  const plugin = join(dir, 'plugin');
  writeFileSync(
    plugin,
    `#!${process.execPath}
const fs = require('fs');
fs.appendFileSync(process.env.INFO_LOG, process.env.KUBERNETES_EXEC_INFO + '\\n');
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'plugin-token', expirationTimestamp: '2099-01-01T00:00:00Z' } }));
`,
  );
  chmodSync(plugin, 0o755);
  const infoLog = join(dir, 'info.log');
  const port = (server.address() as AddressInfo).port;
  const kubeconfig = join(dir, 'config');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'remote',
      clusters: [
        {
          name: 'remote',
          cluster: {
            server: `https://cluster.test:${port}`,
            'certificate-authority': 'ca.crt',
            'tls-server-name': 'localhost',
            'proxy-url': proxy.url,
            extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { audience: 'parity', nested: { list: [1, 2] } } }],
          },
        },
      ],
      users: [
        {
          name: 'sso',
          user: {
            exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './plugin', args: ['get-token'], env: [{ name: 'INFO_LOG', value: infoLog }], interactiveMode: 'Never', provideClusterInfo: true },
            as: 'jane',
            'as-uid': 'uid-1',
            'as-groups': ['developers', 'viewers'],
            'as-user-extra': { scopes: ['view', 'edit'], 'example.com/team ä': ['blue'] },
          },
        },
      ],
      contexts: [{ name: 'remote', context: { cluster: 'remote', user: 'sso' } }],
    }),
  );
  const kubectl = await runKubectl(['get', '--raw', '/api/v1/namespaces'], { kubeconfig, home: dir });
  expect(kubectl.stderr).toBe('');
  expect(kubectl.code).toBe(0);

  const connection = connectionFor(clientConfigOf(loadKubeconfig([kubeconfig], true)));
  const options = await connection.requestOptions('GET', '/api/v1/namespaces', { accept: 'application/json' });
  await new Promise<void>((resolve, reject) => {
    const request = https.request(options, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    request.on('error', reject);
    request.end();
  });
  connection.close();

  expect(seen).toHaveLength(2);
  const credentials = (headers: [string, string][]) => headers.filter(([name]) => name === 'authorization' || name.startsWith('impersonate-')).sort((a, b) => (a.join('\n') < b.join('\n') ? -1 : 1));
  expect(credentials(seen[1] ?? [])).toEqual(credentials(seen[0] ?? []));
  expect(credentials(seen[0] ?? [])).toContainEqual(['authorization', 'Bearer plugin-token']);
  const [fromKubectl, fromKubedesk] = readFileSync(infoLog, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as unknown);
  expect(fromKubectl).toMatchObject({ spec: { interactive: false, cluster: { 'proxy-url': proxy.url, config: { audience: 'parity' } } } });
  expect(fromKubedesk).toEqual(fromKubectl);
  expect(proxy.targets).toEqual([`cluster.test:${port}`, `cluster.test:${port}`]);
});

it('hands a SOCKS5 proxy the server’s name as kubectl does', async () => {
  const socks = await startSocks5Proxy({ hosts: { 'cluster.test': '127.0.0.1' } });
  try {
    const port = (server.address() as AddressInfo).port;
    const kubeconfig = join(dir, 'socks-config');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'socks',
        clusters: [{ name: 'socks', cluster: { server: `https://cluster.test:${port}`, 'certificate-authority': 'ca.crt', 'tls-server-name': 'localhost', 'proxy-url': socks.url } }],
        users: [{ name: 'socks', user: { token: 'static' } }],
        contexts: [{ name: 'socks', context: { cluster: 'socks', user: 'socks' } }],
      }),
    );
    const kubectl = await runKubectl(['get', '--raw', '/api/v1/namespaces'], { kubeconfig, home: dir });
    expect(kubectl.stderr).toBe('');
    const connection = connectionFor(clientConfigOf(loadKubeconfig([kubeconfig], true)));
    const options = await connection.requestOptions('GET', '/api/v1/namespaces');
    await new Promise<void>((resolve, reject) => {
      const request = https.request(options, (response) => {
        response.resume();
        response.on('end', resolve);
      });
      request.on('error', reject);
      request.end();
    });
    connection.close();
    expect(socks.targets).toEqual([`cluster.test:${port}`, `cluster.test:${port}`]);
    expect(socks.addressTypes).toEqual(['domain', 'domain']);
  } finally {
    await socks.close();
  }
});
