// Conformance of the registry's distribution endpoints over real HTTP on 127.0.0.1: status codes,
// headers (Docker-Content-Digest, Location, Range, Docker-Upload-UUID, Link), error bodies, and
// every bad input the spec names — each leaving the store as it was.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DOCKER_MANIFEST, OCI_INDEX, OCI_MANIFEST } from './manifests';
import { byteRange, isLoopbackHost, RegistryServer } from './registryServer';
import { RegistryStorage } from './registryStorage';

let root: string;
let storage: RegistryStorage;
let server: RegistryServer;
let base: string;
let repositoryCounter = 0;
/** errors the server met that are not registry answers (a client gone mid-body) */
const serverFailures: unknown[] = [];

function sha256(data: Buffer | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** A repository name no other test uses. */
function repository(): string {
  return `conformance/repo-${++repositoryCounter}`;
}

async function call(method: string, path: string, init: { body?: Buffer | string; headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(`${base}${path}`, { method, body: typeof init.body === 'string' || init.body === undefined ? init.body : new Uint8Array(init.body), headers: init.headers, redirect: 'manual' });
}

async function errorCode(response: Response): Promise<string> {
  const body = (await response.json()) as { errors: { code: string; message: string }[] };
  expect(body.errors[0].message).toBeTypeOf('string');
  return body.errors[0].code;
}

async function pushBlob(name: string, data: Buffer | string): Promise<string> {
  const digest = sha256(data);
  const response = await call('POST', `/v2/${name}/blobs/uploads/?digest=${digest}`, { body: data, headers: { 'content-type': 'application/octet-stream' } });
  expect(response.status).toBe(201);
  return digest;
}

function imageManifest(config: { digest: string; size: number }, layers: { digest: string; size: number }[], mediaType = DOCKER_MANIFEST): string {
  return JSON.stringify({
    schemaVersion: 2,
    mediaType,
    config: { mediaType: 'application/vnd.docker.container.image.v1+json', ...config },
    layers: layers.map((layer) => ({ mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip', ...layer })),
  });
}

/** Pushes a config and one layer and a manifest naming them under the tag; returns the digests. */
async function pushImage(name: string, tag: string, layerText = `layer of ${name}:${tag}`): Promise<{ manifest: string; config: string; layer: string; body: string }> {
  const configText = JSON.stringify({ architecture: 'amd64', os: 'linux', tag });
  const config = await pushBlob(name, configText);
  const layer = await pushBlob(name, layerText);
  const body = imageManifest({ digest: config, size: configText.length }, [{ digest: layer, size: Buffer.byteLength(layerText) }]);
  const response = await call('PUT', `/v2/${name}/manifests/${tag}`, { body, headers: { 'content-type': DOCKER_MANIFEST } });
  expect(response.status).toBe(201);
  return { manifest: sha256(body), config, layer, body };
}

function uploadsOnDisk(): string[] {
  return readdirSync(join(root, 'uploads'));
}

/**
 * Sends raw HTTP without finishing the body: `reply` waits for the answer (the server must answer
 * without the rest of the body), `abort` goes away at once, as a client that died mid-upload.
 */
function rawRequest(head: string, body: Buffer, mode: 'reply' | 'abort'): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    socket.write(head);
    socket.write(body);
    if (mode === 'abort') socket.end(() => socket.destroy());
  });
}

async function until<T>(probe: () => Promise<T | undefined>, deadlineMs = 5_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'kubedesk-registry-test-'));
  storage = new RegistryStorage(root);
  server = new RegistryServer({ storage, maxBlobBytes: 1024 * 1024, garbageCollectionDelayMs: 0, garbageCollectionGraceMs: 0, onError: (error) => serverFailures.push(error) });
  const port = await server.listen(0);
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

afterEach(() => {
  // every test leaves no upload behind unless it says so
  for (const id of uploadsOnDisk()) storage.cancelUpload(id);
});

describe('the base endpoint', () => {
  it('answers GET /v2/ with 200, {} and the API version header', async () => {
    const response = await call('GET', '/v2/');
    expect(response.status).toBe(200);
    expect(response.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
    expect(await response.json()).toEqual({});
  });

  it('answers an unknown path with 404 and a distribution error body', async () => {
    const response = await call('GET', '/v3/');
    expect(response.status).toBe(404);
    expect(await errorCode(response)).toBe('NAME_UNKNOWN');
  });
});

describe('blob uploads', () => {
  it('takes a monolithic POST with the digest: 201 with Location and Docker-Content-Digest, then serves the blob', async () => {
    const name = repository();
    const data = 'monolithic blob';
    const digest = sha256(data);
    const response = await call('POST', `/v2/${name}/blobs/uploads/?digest=${digest}`, { body: data });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/v2/${name}/blobs/${digest}`);
    expect(response.headers.get('docker-content-digest')).toBe(digest);
    const head = await call('HEAD', `/v2/${name}/blobs/${digest}`);
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(data.length));
    expect(head.headers.get('docker-content-digest')).toBe(digest);
    const get = await call('GET', `/v2/${name}/blobs/${digest}`);
    expect(get.status).toBe(200);
    expect(await get.text()).toBe(data);
    expect(uploadsOnDisk()).toEqual([]);
  });

  it('takes a chunked upload: POST 202, PATCHes with Content-Range, status GET 204, PUT with the last chunk 201', async () => {
    const name = repository();
    const start = await call('POST', `/v2/${name}/blobs/uploads/`);
    expect(start.status).toBe(202);
    const location = start.headers.get('location') ?? '';
    const uuid = start.headers.get('docker-upload-uuid') ?? '';
    expect(location).toBe(`/v2/${name}/blobs/uploads/${uuid}`);
    expect(start.headers.get('range')).toBe('0-0');
    const first = await call('PATCH', location, { body: '0123456789', headers: { 'content-range': '0-9', 'content-type': 'application/octet-stream' } });
    expect(first.status).toBe(202);
    expect(first.headers.get('range')).toBe('0-9');
    expect(first.headers.get('location')).toBe(location);
    expect(first.headers.get('docker-upload-uuid')).toBe(uuid);
    const status = await call('GET', location);
    expect(status.status).toBe(204);
    expect(status.headers.get('range')).toBe('0-9');
    const digest = sha256('0123456789abcdef');
    const done = await call('PUT', `${location}?digest=${digest}`, { body: 'abcdef', headers: { 'content-range': '10-15', 'content-type': 'application/octet-stream' } });
    expect(done.status).toBe(201);
    expect(done.headers.get('location')).toBe(`/v2/${name}/blobs/${digest}`);
    expect(done.headers.get('docker-content-digest')).toBe(digest);
    expect(await (await call('GET', `/v2/${name}/blobs/${digest}`)).text()).toBe('0123456789abcdef');
    const gone = await call('GET', location);
    expect(gone.status).toBe(404);
    expect(await errorCode(gone)).toBe('BLOB_UPLOAD_UNKNOWN');
  });

  it('takes a streamed PATCH without Content-Range and a PUT without a body, as docker push sends them', async () => {
    const name = repository();
    const location = (await call('POST', `/v2/${name}/blobs/uploads/`)).headers.get('location') ?? '';
    const data = Buffer.alloc(200_000, 7);
    expect((await call('PATCH', location, { body: data })).headers.get('range')).toBe('0-199999');
    const done = await call('PUT', `${location}?digest=${sha256(data)}`);
    expect(done.status).toBe(201);
    expect((await call('HEAD', `/v2/${name}/blobs/${sha256(data)}`)).headers.get('content-length')).toBe('200000');
  });

  it('refuses a chunk that does not start where the upload ends with 416 and the Range so far', async () => {
    const name = repository();
    const location = (await call('POST', `/v2/${name}/blobs/uploads/`)).headers.get('location') ?? '';
    await call('PATCH', location, { body: '01234', headers: { 'content-range': '0-4' } });
    const response = await call('PATCH', location, { body: '89', headers: { 'content-range': '8-9' } });
    expect(response.status).toBe(416);
    expect(response.headers.get('range')).toBe('0-4');
    expect(await errorCode(response)).toBe('RANGE_INVALID');
    expect((await call('GET', location)).headers.get('range')).toBe('0-4');
  });

  it('answers a digest mismatch with 400 DIGEST_INVALID, removes the upload and stores no blob', async () => {
    const name = repository();
    const location = (await call('POST', `/v2/${name}/blobs/uploads/`)).headers.get('location') ?? '';
    await call('PATCH', location, { body: 'actual content' });
    const claimed = sha256('other content');
    const response = await call('PUT', `${location}?digest=${claimed}`);
    expect(response.status).toBe(400);
    expect(await errorCode(response)).toBe('DIGEST_INVALID');
    expect((await call('HEAD', `/v2/${name}/blobs/${claimed}`)).status).toBe(404);
    expect((await call('HEAD', `/v2/${name}/blobs/${sha256('actual content')}`)).status).toBe(404);
    expect(uploadsOnDisk()).toEqual([]);
    const monolithic = await call('POST', `/v2/${name}/blobs/uploads/?digest=${claimed}`, { body: 'actual content' });
    expect(monolithic.status).toBe(400);
    expect(await errorCode(monolithic)).toBe('DIGEST_INVALID');
    expect(uploadsOnDisk()).toEqual([]);
  });

  it('refuses malformed and unsupported digests with 400 DIGEST_INVALID', async () => {
    const name = repository();
    for (const digest of ['sha256:short', 'md5:d41d8cd98f00b204e9800998ecf8427e', 'nodigest', `sha256:${'A'.repeat(64)}`]) {
      const response = await call('POST', `/v2/${name}/blobs/uploads/?digest=${encodeURIComponent(digest)}`, { body: 'x' });
      expect(response.status, digest).toBe(400);
      expect(await errorCode(response)).toBe('DIGEST_INVALID');
    }
    const put = await call('PUT', `${(await call('POST', `/v2/${name}/blobs/uploads/`)).headers.get('location')}`);
    expect(put.status).toBe(400);
    expect(await errorCode(put)).toBe('DIGEST_INVALID');
  });

  it('accepts sha512 digests', async () => {
    const name = repository();
    const digest = `sha512:${createHash('sha512').update('sha512 blob').digest('hex')}`;
    expect((await call('POST', `/v2/${name}/blobs/uploads/?digest=${digest}`, { body: 'sha512 blob' })).status).toBe(201);
    expect(await (await call('GET', `/v2/${name}/blobs/${digest}`)).text()).toBe('sha512 blob');
  });

  it('answers an unknown upload with 404 BLOB_UPLOAD_UNKNOWN for every method', async () => {
    const name = repository();
    for (const [method, suffix] of [['GET', ''], ['PATCH', ''], ['PUT', `?digest=${sha256('x')}`], ['DELETE', '']] as const) {
      const response = await call(method, `/v2/${name}/blobs/uploads/00000000-0000-4000-8000-000000000000${suffix}`, method === 'PATCH' ? { body: 'x' } : {});
      expect(response.status, method).toBe(404);
      expect(await errorCode(response)).toBe('BLOB_UPLOAD_UNKNOWN');
    }
    const other = (await call('POST', `/v2/${name}/blobs/uploads/`)).headers.get('docker-upload-uuid');
    const elsewhere = await call('GET', `/v2/${repository()}/blobs/uploads/${other}`);
    expect(elsewhere.status).toBe(404);
  });

  it('cancels an upload with DELETE (204) and forgets it', async () => {
    const name = repository();
    const location = (await call('POST', `/v2/${name}/blobs/uploads/`)).headers.get('location') ?? '';
    await call('PATCH', location, { body: 'partial' });
    expect((await call('DELETE', location)).status).toBe(204);
    expect((await call('GET', location)).status).toBe(404);
    expect(uploadsOnDisk()).toEqual([]);
  });

  it('refuses a huge bogus Content-Length with 413 SIZE_INVALID at once, allocating nothing and keeping the upload as it was', async () => {
    const name = repository();
    const location = (await call('POST', `/v2/${name}/blobs/uploads/`)).headers.get('location') ?? '';
    await call('PATCH', location, { body: 'kept' });
    const reply = await rawRequest(`PATCH ${location} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000000000000\r\n\r\n`, Buffer.from('a few bytes'), 'reply');
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply).toContain('SIZE_INVALID');
    expect((await call('GET', location)).headers.get('range')).toBe('0-3');
    const monolithic = await rawRequest(`POST /v2/${name}/blobs/uploads/?digest=${sha256('x')} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4000000000000\r\n\r\n`, Buffer.from('x'), 'reply');
    expect(monolithic).toMatch(/^HTTP\/1\.1 413 /);
    // past what an HTTP parser takes as a number at all
    const overflow = await rawRequest(`POST /v2/${name}/blobs/uploads/?digest=${sha256('x')} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999999999999999999999\r\n\r\n`, Buffer.from('x'), 'reply');
    expect(overflow).toMatch(/^HTTP\/1\.1 400 /);
    expect(overflow).toContain('SIZE_INVALID');
    expect(uploadsOnDisk()).toHaveLength(1);
  });

  it('stops a streamed body at the size limit with 413 and cuts the upload back', async () => {
    const name = repository();
    const location = (await call('POST', `/v2/${name}/blobs/uploads/`)).headers.get('location') ?? '';
    const response = await call('PATCH', location, { body: Buffer.alloc(1024 * 1024 + 1) });
    expect(response.status).toBe(413);
    expect(await errorCode(response)).toBe('SIZE_INVALID');
    expect((await call('GET', location)).headers.get('range')).toBe('0-0');
  });

  it('keeps the bytes before a truncated chunk, so the upload resumes and completes', async () => {
    const name = repository();
    const location = (await call('POST', `/v2/${name}/blobs/uploads/`)).headers.get('location') ?? '';
    await call('PATCH', location, { body: 'first-' });
    // the client says 1000 bytes, sends 10 and goes away
    const failuresBefore = serverFailures.length;
    await rawRequest(`PATCH ${location} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n`, Buffer.from('0123456789'), 'abort');
    // the server notices the body ended early and cuts the upload back
    await until(async () => (serverFailures.length > failuresBefore ? true : undefined));
    expect((await call('GET', location)).headers.get('range')).toBe('0-5');
    const resumed = await call('PATCH', location, { body: 'second', headers: { 'content-range': '6-11' } });
    expect(resumed.status).toBe(202);
    const done = await call('PUT', `${location}?digest=${sha256('first-second')}`);
    expect(done.status).toBe(201);
    expect(await (await call('GET', `/v2/${name}/blobs/${sha256('first-second')}`)).text()).toBe('first-second');
  });

  it('mounts a blob from another repository with 201, and starts an upload (202) when it cannot', async () => {
    const source = repository();
    const target = repository();
    const digest = await pushBlob(source, 'shared layer');
    const mounted = await call('POST', `/v2/${target}/blobs/uploads/?mount=${digest}&from=${source}`);
    expect(mounted.status).toBe(201);
    expect(mounted.headers.get('location')).toBe(`/v2/${target}/blobs/${digest}`);
    expect(mounted.headers.get('docker-content-digest')).toBe(digest);
    expect((await call('HEAD', `/v2/${target}/blobs/${digest}`)).status).toBe(200);
    const unknown = await call('POST', `/v2/${target}/blobs/uploads/?mount=${sha256('never pushed')}&from=${source}`);
    expect(unknown.status).toBe(202);
    expect(unknown.headers.get('docker-upload-uuid')).toMatch(/^[0-9a-f-]{36}$/);
    const wrongSource = await call('POST', `/v2/${repository()}/blobs/uploads/?mount=${digest}&from=${repository()}`);
    expect(wrongSource.status).toBe(202);
  });

  it('serves a blob only in repositories that hold it', async () => {
    const digest = await pushBlob(repository(), 'private layer');
    const response = await call('GET', `/v2/${repository()}/blobs/${digest}`);
    expect(response.status).toBe(404);
    expect(await errorCode(response)).toBe('BLOB_UNKNOWN');
  });
});

describe('blob reads', () => {
  it('serves byte ranges with 206 and Content-Range, and 416 for a range past the end', async () => {
    const name = repository();
    const digest = await pushBlob(name, '0123456789');
    const partial = await call('GET', `/v2/${name}/blobs/${digest}`, { headers: { range: 'bytes=2-5' } });
    expect(partial.status).toBe(206);
    expect(partial.headers.get('content-range')).toBe('bytes 2-5/10');
    expect(partial.headers.get('content-length')).toBe('4');
    expect(await partial.text()).toBe('2345');
    const suffix = await call('GET', `/v2/${name}/blobs/${digest}`, { headers: { range: 'bytes=-3' } });
    expect(await suffix.text()).toBe('789');
    const open = await call('GET', `/v2/${name}/blobs/${digest}`, { headers: { range: 'bytes=7-' } });
    expect(open.headers.get('content-range')).toBe('bytes 7-9/10');
    const past = await call('GET', `/v2/${name}/blobs/${digest}`, { headers: { range: 'bytes=10-12' } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe('bytes */10');
  });

  it('deletes a blob from a repository with 202, then answers 404 BLOB_UNKNOWN', async () => {
    const name = repository();
    const digest = await pushBlob(name, 'to delete');
    expect((await call('DELETE', `/v2/${name}/blobs/${digest}`)).status).toBe(202);
    const after = await call('GET', `/v2/${name}/blobs/${digest}`);
    expect(after.status).toBe(404);
    expect(await errorCode(after)).toBe('BLOB_UNKNOWN');
    expect((await call('DELETE', `/v2/${name}/blobs/${digest}`)).status).toBe(404);
  });
});

describe('manifests', () => {
  it('stores a manifest by tag (201, Location, Docker-Content-Digest) and serves it by tag and by digest with its media type', async () => {
    const name = repository();
    const { manifest, body } = await pushImage(name, 'v1');
    for (const reference of ['v1', manifest]) {
      const response = await call('GET', `/v2/${name}/manifests/${reference}`, { headers: { accept: DOCKER_MANIFEST } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(DOCKER_MANIFEST);
      expect(response.headers.get('docker-content-digest')).toBe(manifest);
      expect(await response.text()).toBe(body);
    }
    const head = await call('HEAD', `/v2/${name}/manifests/v1`);
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(body.length));
    expect(head.headers.get('docker-content-digest')).toBe(manifest);
  });

  it('answers the Location of a PUT with the manifest digest', async () => {
    const name = repository();
    const configText = '{}';
    const config = await pushBlob(name, configText);
    const body = imageManifest({ digest: config, size: 2 }, [], OCI_MANIFEST);
    const response = await call('PUT', `/v2/${name}/manifests/${sha256(body)}`, { body, headers: { 'content-type': OCI_MANIFEST } });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/v2/${name}/manifests/${sha256(body)}`);
    expect((await call('GET', `/v2/${name}/tags/list`)).status).toBe(200);
  });

  it('refuses a manifest naming a missing blob with 400 MANIFEST_BLOB_UNKNOWN and stores nothing', async () => {
    const name = repository();
    const config = await pushBlob(name, '{"config":true}');
    const missing = sha256('never uploaded');
    const body = imageManifest({ digest: config, size: 15 }, [{ digest: missing, size: 14 }]);
    const response = await call('PUT', `/v2/${name}/manifests/latest`, { body, headers: { 'content-type': DOCKER_MANIFEST } });
    expect(response.status).toBe(400);
    const errors = ((await response.json()) as { errors: { code: string; detail: { digest: string } }[] }).errors;
    expect(errors[0]).toMatchObject({ code: 'MANIFEST_BLOB_UNKNOWN', detail: { digest: missing } });
    expect((await call('GET', `/v2/${name}/manifests/latest`)).status).toBe(404);
    expect((await call('GET', `/v2/${name}/manifests/${sha256(body)}`)).status).toBe(404);
    expect(((await (await call('GET', '/v2/_catalog')).json()) as { repositories: string[] }).repositories).not.toContain(name);
  });

  it('refuses invalid manifests with 400 MANIFEST_INVALID', async () => {
    const name = repository();
    const config = await pushBlob(name, 'cfg');
    const cases: [string, string][] = [
      ['{not json', DOCKER_MANIFEST],
      [JSON.stringify({ schemaVersion: 1, name, tag: 'x', fsLayers: [] }), 'application/vnd.docker.distribution.manifest.v1+prettyjws'],
      [imageManifest({ digest: config, size: 3 }, []), OCI_MANIFEST],
      [imageManifest({ digest: config, size: 4 }, []), DOCKER_MANIFEST],
      [JSON.stringify({ schemaVersion: 2, mediaType: DOCKER_MANIFEST, config: { mediaType: 'x', digest: 'bad', size: 1 }, layers: [] }), DOCKER_MANIFEST],
    ];
    for (const [body, contentType] of cases) {
      const response = await call('PUT', `/v2/${name}/manifests/bad`, { body, headers: { 'content-type': contentType } });
      expect(response.status, body).toBe(400);
      expect(await errorCode(response)).toBe('MANIFEST_INVALID');
    }
    expect((await call('GET', `/v2/${name}/manifests/bad`)).status).toBe(404);
  });

  it('refuses a PUT by digest whose body has another digest with 400 DIGEST_INVALID', async () => {
    const name = repository();
    const config = await pushBlob(name, 'cfg');
    const body = imageManifest({ digest: config, size: 3 }, []);
    const response = await call('PUT', `/v2/${name}/manifests/${sha256('something else')}`, { body, headers: { 'content-type': DOCKER_MANIFEST } });
    expect(response.status).toBe(400);
    expect(await errorCode(response)).toBe('DIGEST_INVALID');
  });

  it('refuses an invalid tag with 400 TAG_INVALID and a manifest over 4 MiB with 413', async () => {
    const name = repository();
    const invalid = await call('PUT', `/v2/${name}/manifests/-bad`, { body: '{}', headers: { 'content-type': DOCKER_MANIFEST } });
    expect(invalid.status).toBe(400);
    expect(await errorCode(invalid)).toBe('TAG_INVALID');
    const huge = await call('PUT', `/v2/${name}/manifests/huge`, { body: Buffer.alloc(4 * 1024 * 1024 + 1, 32), headers: { 'content-type': DOCKER_MANIFEST } });
    expect(huge.status).toBe(413);
  });

  it('stores an index whose manifests are in the repository, and refuses one naming an unknown manifest', async () => {
    const name = repository();
    const { manifest, body } = await pushImage(name, 'amd64');
    const index = JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX, manifests: [{ mediaType: DOCKER_MANIFEST, digest: manifest, size: body.length, platform: { architecture: 'amd64', os: 'linux' } }] });
    const stored = await call('PUT', `/v2/${name}/manifests/multi`, { body: index, headers: { 'content-type': OCI_INDEX } });
    expect(stored.status).toBe(201);
    expect((await call('GET', `/v2/${name}/manifests/multi`)).headers.get('content-type')).toBe(OCI_INDEX);
    const dangling = JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX, manifests: [{ mediaType: DOCKER_MANIFEST, digest: sha256('nope'), size: 4 }] });
    const refused = await call('PUT', `/v2/${name}/manifests/dangling`, { body: dangling, headers: { 'content-type': OCI_INDEX } });
    expect(refused.status).toBe(400);
    expect(await errorCode(refused)).toBe('MANIFEST_BLOB_UNKNOWN');
  });

  it('answers an unknown manifest with 404 MANIFEST_UNKNOWN', async () => {
    const name = repository();
    const response = await call('GET', `/v2/${name}/manifests/nothing`);
    expect(response.status).toBe(404);
    expect(await errorCode(response)).toBe('MANIFEST_UNKNOWN');
  });

  it('deletes a tag alone (202) and a manifest by digest with its tags, then collects the blobs no manifest names', async () => {
    const name = repository();
    const first = await pushImage(name, 'one', 'layer one');
    const second = await pushImage(name, 'two', 'layer two');
    await call('PUT', `/v2/${name}/manifests/also-two`, { body: second.body, headers: { 'content-type': DOCKER_MANIFEST } });
    expect((await call('DELETE', `/v2/${name}/manifests/also-two`)).status).toBe(202);
    expect((await call('GET', `/v2/${name}/manifests/${second.manifest}`)).status).toBe(200);
    expect((await call('DELETE', `/v2/${name}/manifests/${first.manifest}`)).status).toBe(202);
    expect((await call('GET', `/v2/${name}/manifests/one`)).status).toBe(404);
    expect(((await (await call('GET', `/v2/${name}/tags/list`)).json()) as { tags: string[] }).tags).toEqual(['two']);
    await until(async () => (storage.blobSize({ algorithm: 'sha256', encoded: first.layer.slice(7), text: first.layer }) === undefined ? true : undefined));
    expect((await call('GET', `/v2/${name}/blobs/${first.layer}`)).status).toBe(404);
    expect(await (await call('GET', `/v2/${name}/blobs/${second.layer}`)).text()).toBe('layer two');
    const again = await call('DELETE', `/v2/${name}/manifests/${first.manifest}`);
    expect(again.status).toBe(404);
    expect(await errorCode(again)).toBe('MANIFEST_UNKNOWN');
  });
});

describe('content discovery', () => {
  it('lists the manifests whose subject a digest is (referrers), filtered by artifactType, and answers OCI-Subject on their PUT', async () => {
    const name = repository();
    const subject = await pushImage(name, 'signed');
    const empty = await pushBlob(name, '{}');
    const artifact = (artifactType: string, note: string) =>
      JSON.stringify({
        schemaVersion: 2,
        mediaType: OCI_MANIFEST,
        artifactType,
        config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: empty, size: 2 },
        layers: [],
        subject: { mediaType: DOCKER_MANIFEST, digest: subject.manifest, size: subject.body.length },
        annotations: { note },
      });
    const signature = artifact('application/vnd.example.signature', 'sig');
    const sbom = artifact('application/vnd.example.sbom', 'sbom');
    for (const body of [signature, sbom]) {
      const response = await call('PUT', `/v2/${name}/manifests/${sha256(body)}`, { body, headers: { 'content-type': OCI_MANIFEST } });
      expect(response.status).toBe(201);
      expect(response.headers.get('oci-subject')).toBe(subject.manifest);
    }
    const all = await call('GET', `/v2/${name}/referrers/${subject.manifest}`);
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe(OCI_INDEX);
    const index = (await all.json()) as { schemaVersion: number; manifests: { digest: string; artifactType: string; annotations: Record<string, string>; size: number }[] };
    expect(index.schemaVersion).toBe(2);
    expect(index.manifests.map((entry) => entry.digest).sort()).toEqual([sha256(signature), sha256(sbom)].sort());
    const filtered = await call('GET', `/v2/${name}/referrers/${subject.manifest}?artifactType=application/vnd.example.sbom`);
    expect(filtered.headers.get('oci-filters-applied')).toBe('artifactType');
    expect(((await filtered.json()) as { manifests: unknown[] }).manifests).toEqual([
      { mediaType: OCI_MANIFEST, digest: sha256(sbom), size: sbom.length, artifactType: 'application/vnd.example.sbom', annotations: { note: 'sbom' } },
    ]);
    const none = await call('GET', `/v2/${name}/referrers/${sha256('no such subject')}`);
    expect(((await none.json()) as { manifests: unknown[] }).manifests).toEqual([]);
  });

  it('lists tags with n and last, with a Link header to the next page', async () => {
    const name = repository();
    for (const tag of ['c', 'a', 'b']) await pushImage(name, tag);
    const all = await call('GET', `/v2/${name}/tags/list`);
    expect(await all.json()).toEqual({ name, tags: ['a', 'b', 'c'] });
    expect(all.headers.get('link')).toBeNull();
    const page = await call('GET', `/v2/${name}/tags/list?n=2`);
    expect(await page.json()).toEqual({ name, tags: ['a', 'b'] });
    expect(page.headers.get('link')).toBe(`</v2/${name}/tags/list?n=2&last=b>; rel="next"`);
    expect(await (await call('GET', `/v2/${name}/tags/list?n=2&last=b`)).json()).toEqual({ name, tags: ['c'] });
    const bad = await call('GET', `/v2/${name}/tags/list?n=-1`);
    expect(bad.status).toBe(400);
    expect(await errorCode(bad)).toBe('PAGINATION_NUMBER_INVALID');
  });

  it('answers the tags of an unknown repository with 404 NAME_UNKNOWN', async () => {
    const response = await call('GET', `/v2/${repository()}/tags/list`);
    expect(response.status).toBe(404);
    expect(await errorCode(response)).toBe('NAME_UNKNOWN');
  });

  it('lists repositories in the catalog, paginated', async () => {
    const names = [repository(), repository()];
    for (const name of names) await pushImage(name, 'latest');
    const catalog = (await (await call('GET', '/v2/_catalog')).json()) as { repositories: string[] };
    expect(catalog.repositories).toEqual(expect.arrayContaining(names));
    expect([...catalog.repositories].sort()).toEqual(catalog.repositories);
    const first = await call('GET', '/v2/_catalog?n=1');
    const [only] = ((await first.json()) as { repositories: string[] }).repositories;
    expect(first.headers.get('link')).toBe(`</v2/_catalog?n=1&last=${encodeURIComponent(only)}>; rel="next"`);
  });

  it('refuses an invalid repository name with 400 NAME_INVALID', async () => {
    for (const path of ['/v2/UPPER/tags/list', '/v2/a..b/manifests/latest', `/v2/${'x'.repeat(256)}/blobs/uploads/`]) {
      const response = await call(path.endsWith('uploads/') ? 'POST' : 'GET', path);
      expect(response.status, path).toBe(400);
      expect(await errorCode(response)).toBe('NAME_INVALID');
    }
  });

  it('summarises repositories with tags, digests and sizes', async () => {
    const name = repository();
    const { manifest, body } = await pushImage(name, 'sized', 'twelve bytes');
    const summary = ((await (await call('GET', '/v2/_kubedesk/repositories')).json()) as { repositories: { name: string; tags: { tag: string; digest: string; size: number }[] }[] }).repositories.find((entry) => entry.name === name);
    const configSize = JSON.stringify({ architecture: 'amd64', os: 'linux', tag: 'sized' }).length;
    expect(summary?.tags).toEqual([{ tag: 'sized', digest: manifest, mediaType: DOCKER_MANIFEST, artifactType: 'application/vnd.docker.container.image.v1+json', size: body.length + configSize + 12 }]);
  });
});

describe('garbage collection', () => {
  it('keeps an unreferenced blob within the grace period and removes it after', async () => {
    const graceRoot = mkdtempSync(join(tmpdir(), 'kubedesk-registry-gc-'));
    try {
      const local = new RegistryStorage(graceRoot);
      const upload = local.startUpload('gc/app');
      await local.appendToUpload(upload, Readable.from([Buffer.from('fresh layer')]), 1024);
      const digest = { algorithm: 'sha256' as const, encoded: sha256('fresh layer').slice(7), text: sha256('fresh layer') };
      await local.completeUpload(upload, digest);
      expect(local.collectGarbage({ graceMs: 60_000 }).removedBlobs).toBe(0);
      expect(local.blobSize(digest)).toBe(11);
      expect(local.collectGarbage({ graceMs: 60_000, now: Date.now() + 120_000 })).toMatchObject({ removedBlobs: 1, freedBytes: 11 });
      expect(local.blobSize(digest)).toBeUndefined();
      expect(local.repositoryBlobSize('gc/app', digest)).toBeUndefined();
    } finally {
      rmSync(graceRoot, { recursive: true, force: true });
    }
  });

  it('does not collect on demand while an upload is in progress', async () => {
    const name = repository();
    const location = (await call('POST', `/v2/${name}/blobs/uploads/`)).headers.get('location') ?? '';
    const id = location.split('/').pop() ?? '';
    const upload = storage.upload(name, id);
    expect(upload).toBeDefined();
    // a body that has not finished arriving
    const body = new PassThrough();
    const appending = storage.appendToUpload(upload!, body, 1024);
    body.write('part');
    expect(server.collectGarbage()).toBe('uploads-in-progress');
    expect((await call('POST', '/v2/_kubedesk/garbage-collection')).status).toBe(409);
    body.end();
    await appending;
    expect(server.collectGarbage()).toMatchObject({ removedBlobs: expect.any(Number) });
  });
});

describe('requests from web pages', () => {
  it('refuses a Host that is not loopback (DNS rebinding) and an Origin of a web page with 403 DENIED', async () => {
    const rebound = await rawRequest('GET /v2/_catalog HTTP/1.1\r\nHost: attacker.example:5000\r\n\r\n', Buffer.alloc(0), 'reply');
    expect(rebound).toMatch(/^HTTP\/1\.1 403 /);
    expect(rebound).toContain('DENIED');
    const posted = await call('POST', `/v2/${repository()}/blobs/uploads/?digest=${sha256('x')}`, { body: 'x', headers: { origin: 'https://attacker.example', 'content-type': 'text/plain' } });
    expect(posted.status).toBe(403);
    expect(await errorCode(posted)).toBe('DENIED');
    expect((await call('GET', '/v2/', { headers: { origin: 'http://localhost:3000' } })).status).toBe(200);
  });

  it.each([
    ['localhost:5000', true],
    ['127.0.0.1:5000', true],
    ['127.1.2.3', true],
    ['[::1]:5000', true],
    ['registry.localhost:5000', true],
    ['attacker.example', false],
    ['localhost.attacker.example', false],
    [undefined, false],
  ])('judges the Host %s as loopback: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('authentication', () => {
  it('asks for the token with a Basic challenge and lets docker login credentials and bearer tokens in', async () => {
    const secured = new RegistryServer({ storage, token: 's3cret' });
    const port = await secured.listen(0);
    try {
      const denied = await fetch(`http://127.0.0.1:${port}/v2/`);
      expect(denied.status).toBe(401);
      expect(denied.headers.get('www-authenticate')).toBe('Basic realm="kubedesk registry"');
      expect(await errorCode(denied)).toBe('UNAUTHORIZED');
      const basic = `Basic ${Buffer.from('anyone:s3cret').toString('base64')}`;
      expect((await fetch(`http://127.0.0.1:${port}/v2/`, { headers: { authorization: basic } })).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/v2/_catalog`, { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);
      const wrong = `Basic ${Buffer.from('anyone:guess').toString('base64')}`;
      expect((await fetch(`http://127.0.0.1:${port}/v2/`, { headers: { authorization: wrong } })).status).toBe(401);
    } finally {
      await secured.close();
    }
  });
});

describe('byteRange', () => {
  it.each([
    [undefined, 10, undefined],
    ['bytes=0-0', 10, { start: 0, end: 0 }],
    ['bytes=5-100', 10, { start: 5, end: 9 }],
    ['bytes=-4', 10, { start: 6, end: 9 }],
    ['bytes=10-', 10, 'unsatisfiable'],
    ['bytes=4-2', 10, 'unsatisfiable'],
    ['bytes=0-1,4-5', 10, undefined],
    ['items=0-1', 10, undefined],
  ])('reads %s of %i bytes as %j', (header, size, expected) => {
    expect(byteRange(header, size)).toEqual(expected);
  });
});
