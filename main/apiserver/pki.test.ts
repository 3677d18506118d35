// Tests for the cluster PKI: the serving certificate must verify against the CA through a real TLS
// handshake (by DNS name and by IP, as kubectl connects), keys stay private, files are reused, the
// key type follows the option, keys begun ahead of the call are used, and the listener's TLS
// settings let in a client that sends no signature_algorithms (busybox's wget).
import { X509Certificate, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureAdminToken, ensurePki, pkiFileNames, servingTlsOptions, type Pki } from './pki';
import { startPkiKeys } from './pkiKeys';

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'kubedesk-pki-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

async function handshake(pki: Pki, connectHost: string, servername: string | undefined): Promise<string> {
  const server = createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (_request, response) => {
    response.end('ok');
  });
  const host = connectHost === '::1' ? '::1' : '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<string>((resolve, reject) => {
      const outgoing = request(
        { host: connectHost, port, path: '/', ca: pki.caCertPem, servername, agent: false },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve(body));
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('ensurePki', () => {
  it.each([
    { connectHost: '127.0.0.1', servername: 'localhost' },
    { connectHost: '127.0.0.1', servername: 'kubernetes.default.svc' },
    { connectHost: '127.0.0.1', servername: undefined },
    { connectHost: 'localhost', servername: undefined },
  ])('issues a serving certificate that verifies against the CA when connecting to $connectHost as $servername', async ({ connectHost, servername }) => {
    const pki = await ensurePki(dataDir);
    expect(await handshake(pki, connectHost, servername)).toBe('ok');
  });

  it('rejects the handshake for a name that is not on the certificate', async () => {
    const pki = await ensurePki(dataDir);
    await expect(handshake(pki, '127.0.0.1', 'example.com')).rejects.toThrow(/altnames|Hostname/);
  });

  it('makes an RSA 2048 CA and serving certificate by default, as kubeadm', async () => {
    const pki = await ensurePki(dataDir);
    for (const pem of [pki.caCertPem, pki.serverCertPem]) {
      const certificate = new X509Certificate(pem);
      expect(certificate.publicKey.asymmetricKeyType).toBe('rsa');
      expect(certificate.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    }
  });

  it('makes an ECDSA P-256 CA named kubedesk-ca that is valid for ten years when asked for ECDSA', async () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const pki = await ensurePki(dataDir, { now, keyType: 'ecdsa' });
    const ca = new X509Certificate(pki.caCertPem);
    expect(ca.ca).toBe(true);
    expect(ca.subject).toBe('CN=kubedesk-ca');
    expect(ca.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(new X509Certificate(pki.serverCertPem).publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const years = (new Date(ca.validTo).getTime() - now.getTime()) / (365 * 24 * 3600 * 1000);
    expect(years).toBeGreaterThan(9.9);
    expect(years).toBeLessThan(10.1);
  });

  it('puts the in-cluster names, loopback addresses and extra IPs on the serving certificate', async () => {
    const pki = await ensurePki(dataDir, { extraIps: ['10.96.0.1'] });
    const serving = new X509Certificate(pki.serverCertPem);
    expect(serving.ca).toBe(false);
    for (const name of ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local']) {
      expect(serving.checkHost(name)).toBe(name);
    }
    for (const ip of ['127.0.0.1', '::1', '10.96.0.1']) expect(serving.checkIP(ip)).toBe(ip);
    expect(serving.checkIssued(new X509Certificate(pki.caCertPem))).toBe(true);
  });

  it('writes private keys with mode 0600', async () => {
    await ensurePki(dataDir);
    for (const file of [pkiFileNames.caKey, pkiFileNames.serverKey]) {
      expect(statSync(join(dataDir, 'pki', file)).mode & 0o777).toBe(0o600);
    }
  });

  it('reuses the stored certificates on a second call, writing no file', async () => {
    const first = await ensurePki(dataDir);
    const files = readdirSync(join(dataDir, 'pki'));
    const written = (): number[] => files.map((file) => statSync(join(dataDir, 'pki', file)).mtimeMs);
    const before = written();
    const second = await ensurePki(dataDir);
    expect(written()).toEqual(before);
    expect(readdirSync(join(dataDir, 'pki'))).toEqual(files);
    expect(second).toEqual(first);
  });

  it('reissues only the serving certificate when it expires within 30 days', async () => {
    const first = await ensurePki(dataDir, { now: new Date('2030-01-01T00:00:00Z') });
    const soonAfter = await ensurePki(dataDir, { now: new Date('2030-11-01T00:00:00Z') });
    expect(soonAfter.serverCertPem).toBe(first.serverCertPem);
    const nearExpiry = await ensurePki(dataDir, { now: new Date('2030-12-15T00:00:00Z') });
    expect(nearExpiry.caCertPem).toBe(first.caCertPem);
    expect(nearExpiry.serverCertPem).not.toBe(first.serverCertPem);
    expect(new X509Certificate(nearExpiry.serverCertPem).checkIssued(new X509Certificate(first.caCertPem))).toBe(true);
  });

  it('reissues the serving certificate when a requested IP is missing from it', async () => {
    const first = await ensurePki(dataDir);
    const second = await ensurePki(dataDir, { extraIps: ['192.168.5.5'] });
    expect(second.serverCertPem).not.toBe(first.serverCertPem);
    expect(new X509Certificate(second.serverCertPem).checkIP('192.168.5.5')).toBe('192.168.5.5');
  });

  it('replaces a serving key that no longer matches its certificate', async () => {
    const first = await ensurePki(dataDir);
    const other = mkdtempSync(join(tmpdir(), 'kubedesk-pki-other-'));
    try {
      const foreign = await ensurePki(other);
      writeFileSync(join(dataDir, 'pki', pkiFileNames.serverKey), foreign.serverKeyPem);
      const repaired = await ensurePki(dataDir);
      expect(repaired.caCertPem).toBe(first.caCertPem);
      expect(await handshake(repaired, '127.0.0.1', 'localhost')).toBe('ok');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('reissues an ECDSA serving certificate as RSA under the same ECDSA CA, which still verifies it', async () => {
    const old = await ensurePki(dataDir, { keyType: 'ecdsa' });
    const upgraded = await ensurePki(dataDir);
    expect(upgraded.caCertPem).toBe(old.caCertPem);
    expect(upgraded.caKeyPem).toBe(old.caKeyPem);
    const serving = new X509Certificate(upgraded.serverCertPem);
    expect(serving.publicKey.asymmetricKeyType).toBe('rsa');
    expect(serving.checkIssued(new X509Certificate(old.caCertPem))).toBe(true);
    expect(serving.verify(new X509Certificate(old.caCertPem).publicKey)).toBe(true);
    expect(await handshake(upgraded, '127.0.0.1', 'kubernetes.default.svc')).toBe('ok');
    // asking for ECDSA again goes back, still under the same CA
    const back = await ensurePki(dataDir, { keyType: 'ecdsa' });
    expect(back.caCertPem).toBe(old.caCertPem);
    expect(new X509Certificate(back.serverCertPem).publicKey.asymmetricKeyType).toBe('ec');
    expect(await ensurePki(dataDir, { keyType: 'ecdsa' })).toEqual(back);
  });

  it('refuses an extra IP that is not an IP address', async () => {
    await expect(ensurePki(dataDir, { extraIps: ['not-an-ip'] })).rejects.toThrow(/invalid IP/);
  });
});

describe('ensurePki with keys begun ahead (startPkiKeys)', () => {
  const spki = (pem: string) => new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' }).toString('hex');

  it.each(['rsa', 'ecdsa'] as const)('makes a fresh %s CA and serving certificate from the two keys begun for the data dir, in that order', async (keyType) => {
    const begun = startPkiKeys(dataDir, keyType);
    expect(begun?.pending).toHaveLength(2);
    const [caKeys, servingKeys] = await Promise.all(begun?.pending ?? []);
    const pki = await ensurePki(dataDir, { keyType, keys: begun });
    expect(spki(pki.caCertPem)).toBe(caKeys.publicKey.export({ type: 'spki', format: 'der' }).toString('hex'));
    expect(spki(pki.serverCertPem)).toBe(servingKeys.publicKey.export({ type: 'spki', format: 'der' }).toString('hex'));
    expect(begun?.pending).toHaveLength(0);
    expect(new X509Certificate(pki.serverCertPem).verify(new X509Certificate(pki.caCertPem).publicKey)).toBe(true);
  });

  it('begins no keys for a data dir that has its CA', async () => {
    await ensurePki(dataDir, { keyType: 'ecdsa' });
    expect(startPkiKeys(dataDir, 'ecdsa')).toBeUndefined();
  });

  it('makes keys of its own when those begun are of another type or for another data dir', async () => {
    const ecdsaKeys = startPkiKeys(dataDir, 'ecdsa');
    const otherDir = startPkiKeys(join(dataDir, 'other'), 'rsa');
    const pki = await ensurePki(dataDir, { keyType: 'rsa', keys: ecdsaKeys });
    expect(new X509Certificate(pki.caCertPem).publicKey.asymmetricKeyType).toBe('rsa');
    expect(ecdsaKeys?.pending).toHaveLength(2);
    rmSync(join(dataDir, 'pki'), { recursive: true });
    await ensurePki(dataDir, { keyType: 'rsa', keys: otherDir });
    expect(otherDir?.pending).toHaveLength(2);
  });
});

describe('ensureAdminToken', () => {
  it('creates a 32-byte base64url token with mode 0600 and returns the same token later', () => {
    const token = ensureAdminToken(dataDir);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const path = join(dataDir, 'pki', pkiFileNames.adminToken);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8').trim()).toBe(token);
    expect(ensureAdminToken(dataDir)).toBe(token);
  });
});

/**
 * A TLS 1.2 ClientHello as busybox's wget sends it: ECDHE and RSA key-exchange AES suites, server
 * name and supported groups, and no signature_algorithms extension.
 */
function clientHelloWithoutSignatureAlgorithms(serverName: string): Buffer {
  const u16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
  const u24 = (value: number) => Buffer.from([value >> 16, (value >> 8) & 0xff, value & 0xff]);
  const withLength16 = (body: Buffer) => Buffer.concat([u16(body.length), body]);
  const extension = (type: number, body: Buffer) => Buffer.concat([u16(type), withLength16(body)]);
  const suites = [0xc023, 0xc027, 0xc02b, 0xc02f, 0x003c, 0x003d, 0x009c, 0x00ff];
  const name = Buffer.from(serverName);
  const extensions = Buffer.concat([
    extension(0x0000, withLength16(Buffer.concat([Buffer.from([0]), withLength16(name)]))),
    extension(0x000a, withLength16(Buffer.concat([u16(0x0017), u16(0x001d)]))),
  ]);
  const hello = Buffer.concat([u16(0x0303), randomBytes(32), Buffer.from([0]), withLength16(Buffer.concat(suites.map(u16))), Buffer.from([1, 0]), withLength16(extensions)]);
  const handshake = Buffer.concat([Buffer.from([1]), u24(hello.length), hello]);
  return Buffer.concat([Buffer.from([0x16, 0x03, 0x03]), withLength16(handshake)]);
}

/** What a server answers that ClientHello with: `ServerHello` or `alert`. */
async function firstAnswer(pki: Pki, tlsOptions: Record<string, unknown>): Promise<string> {
  const server = createServer({ ...tlsOptions, cert: pki.serverCertPem, key: pki.serverKeyPem });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(clientHelloWithoutSignatureAlgorithms('kubernetes.default.svc')));
      socket.once('data', (data: Buffer) => {
        socket.destroy();
        resolve(data[0] === 0x16 && data[5] === 0x02 ? 'ServerHello' : data[0] === 0x15 ? 'alert' : `record ${data[0]}`);
      });
      socket.once('error', reject);
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('servingTlsOptions', () => {
  it.each(['rsa', 'ecdsa'] as const)('lets a TLS 1.2 client without signature_algorithms (busybox wget) complete the hello with an %s key', async (keyType) => {
    const pki = await ensurePki(dataDir, { keyType });
    expect(await firstAnswer(pki, servingTlsOptions)).toBe('ServerHello');
  });

  it.each(['rsa', 'ecdsa'] as const)("is needed: node's defaults refuse that client with an %s key", async (keyType) => {
    const pki = await ensurePki(dataDir, { keyType });
    expect(await firstAnswer(pki, {})).toBe('alert');
  });
});
