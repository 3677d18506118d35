import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../shared/kubernetes/types';
import { ClientApiError } from './errors';
import { HttpsTransport, LineSplitter, parseWatchEvent } from './transport';

async function eventually(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function selfSignedCertificate(): Promise<{ certificate: string; key: string }> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=127.0.0.1',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3_600_000),
    signingAlgorithm: algorithm,
    keys: keys as unknown as CryptoKeyPair,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }]), new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const key = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(pkcs8).toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
  return { certificate: certificate.toString('pem'), key };
}

const event = (type: string, name: string, extra = ''): string => JSON.stringify({ type, object: { kind: 'ConfigMap', metadata: { name, resourceVersion: '1' }, data: { text: `héllo 日本 ${extra}` } } }) + '\n';

describe('LineSplitter', () => {
  it('yields the same lines however the bytes are cut, multi-byte characters included', () => {
    const bytes = Buffer.from(event('ADDED', 'a') + event('MODIFIED', 'b') + '\n' + event('DELETED', 'c').trimEnd(), 'utf8');
    const expected = [event('ADDED', 'a').trim(), event('MODIFIED', 'b').trim(), event('DELETED', 'c').trim()];
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (const second of [cut, Math.min(bytes.length, cut + 3)]) {
        const splitter = new LineSplitter();
        const lines = [...splitter.push(bytes.subarray(0, cut)), ...splitter.push(bytes.subarray(cut, second)), ...splitter.push(bytes.subarray(second)), ...splitter.end()];
        expect(lines).toEqual(expected);
      }
    }
  });
});

describe('parseWatchEvent', () => {
  it.each([
    [{ type: 'ADDED', object: { metadata: {} } }, true],
    [{ type: 'ERROR', object: { kind: 'Status', code: 410 } }, true],
    [{ type: 'ADDED', object: {} }, false],
    [{ type: 'SOMETHING', object: { metadata: {} } }, false],
    [[], false],
  ])('accepts %j: %s', (value, valid) => {
    if (valid) expect(parseWatchEvent(value).type).toBe((value as { type: string }).type);
    else expect(() => parseWatchEvent(value)).toThrow();
  });
});

describe('HttpsTransport', () => {
  let server: https.Server;
  let transport: HttpsTransport;
  const seen: { method?: string; url?: string; authorization?: string; contentType?: string; body: string }[] = [];
  let streamsClosedByClient = 0;
  let serverCertificate = '';

  beforeAll(async () => {
    const { certificate, key } = await selfSignedCertificate();
    serverCertificate = certificate;
    server = https.createServer({ cert: certificate, key }, (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
        const url = new URL(req.url ?? '/', 'https://127.0.0.1');
        if (url.pathname === '/api/v1/namespaces/a/configmaps/missing') {
          res.writeHead(404, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'configmaps "missing" not found' }));
        } else if (url.pathname === '/api/v1/configmaps' && url.searchParams.get('watch') === 'true') {
          if (url.searchParams.get('resourceVersion') === 'old') {
            res.writeHead(410, { 'Content-Type': 'application/json' });
            res.end(JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' }));
            return;
          }
          res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
          res.on('close', () => {
            if (!res.writableEnded) streamsClosedByClient++;
          });
          const bytes = Buffer.from(event('ADDED', 'a') + event('MODIFIED', 'a', 'x'.repeat(70_000)) + event('DELETED', 'a'), 'utf8');
          // Cut inside a JSON object and inside a multi-byte character, flushing each piece separately.
          const cuts = [5, bytes.indexOf(Buffer.from('日')) + 1, 200, 40_000, bytes.length - 3, bytes.length];
          let start = 0;
          const writeNext = (index: number): void => {
            if (index >= cuts.length) {
              if (url.searchParams.get('timeoutSeconds') === '1') res.end();
              return;
            }
            res.write(bytes.subarray(start, cuts[index]), () => setTimeout(() => writeNext(index + 1), 2));
            start = cuts[index];
          };
          writeNext(0);
        } else if (url.pathname === '/api/v1/namespaces/a/pods/p/log') {
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          res.end('line one\nline two\n');
        } else {
          res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a' }, echo: body === '' ? null : JSON.parse(body) }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    transport = new HttpsTransport({ server: `https://127.0.0.1:${port}`, token: 'secret-token', ca: certificate });
  });

  afterAll(async () => {
    transport.dispose();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends JSON with the bearer token and query, trusting the given CA', async () => {
    const response = await transport.request({ method: 'PATCH', path: '/api/v1/namespaces/a/configmaps/c', query: { fieldManager: 'me' }, body: { data: { k: 'v' } }, contentType: 'application/merge-patch+json' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ echo: { data: { k: 'v' } } });
    expect(seen.at(-1)).toMatchObject({ method: 'PATCH', url: '/api/v1/namespaces/a/configmaps/c?fieldManager=me', authorization: 'Bearer secret-token', contentType: 'application/merge-patch+json' });
  });

  it('sends basic credentials when it has no token', async () => {
    const port = (server.address() as AddressInfo).port;
    const basic = new HttpsTransport({ server: `https://127.0.0.1:${port}`, username: 'admin', password: 'p@ss', ca: serverCertificate });
    try {
      await basic.request({ method: 'GET', path: '/api/v1/namespaces/a/configmaps/c' });
      expect(seen.at(-1)?.authorization).toBe(`Basic ${Buffer.from('admin:p@ss').toString('base64')}`);
    } finally {
      basic.dispose();
    }
  });

  it('returns error replies as status and body, and text bodies as strings', async () => {
    expect(await transport.request({ method: 'GET', path: '/api/v1/namespaces/a/configmaps/missing' })).toMatchObject({ status: 404, body: { reason: 'NotFound' } });
    expect(await transport.request({ method: 'GET', path: '/api/v1/namespaces/a/pods/p/log' })).toEqual({ status: 200, body: 'line one\nline two\n' });
  });

  it('rejects a server whose certificate it does not trust', async () => {
    const port = (server.address() as AddressInfo).port;
    const untrusting = new HttpsTransport({ server: `https://127.0.0.1:${port}` });
    await expect(untrusting.request({ method: 'GET', path: '/api/v1/namespaces' })).rejects.toThrow();
    untrusting.dispose();
  });

  it('decodes a watch stream cut at awkward places and reports its normal end', async () => {
    const events: WatchEvent[] = [];
    let done: { error?: Error } | undefined;
    transport.watch('/api/v1/configmaps', { watch: 'true', timeoutSeconds: '1' }, (e) => events.push(e), (error) => (done = { error }));
    await eventually(() => done !== undefined);
    expect(done?.error).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events[1].object.data).toEqual({ text: `héllo 日本 ${'x'.repeat(70_000)}` });
  });

  it('reports a non-2xx watch reply as a ClientApiError', async () => {
    let done: Error | undefined;
    transport.watch('/api/v1/configmaps', { watch: 'true', resourceVersion: 'old' }, () => {}, (error) => (done = error));
    await eventually(() => done !== undefined);
    expect(done).toBeInstanceOf(ClientApiError);
    expect(done).toMatchObject({ code: 410, reason: 'Expired' });
  });

  it('calls nothing after close', async () => {
    const events: WatchEvent[] = [];
    let doneCalls = 0;
    const handle = transport.watch('/api/v1/configmaps', { watch: 'true' }, (e) => events.push(e), () => doneCalls++);
    await eventually(() => events.length === 3);
    handle.close();
    await eventually(() => streamsClosedByClient === 1);
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(doneCalls).toBe(0);
  });
});
