// The local image store API through the API server, over a fake store: listing with the pods of
// this cluster, removal refused with a 409 naming the pods, Docker's own refusals passed on, pulls
// and their progress, and Status errors for bad input.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRecord } from '../../../shared/kubernetes/types';
import { ImageInUseError, removalRefusal, type LocalImage, type LocalImageStore, type PullEvent } from '../../../shared/images/localImages';
import { builtinResources } from '../../registry/resources';
import { SqliteStore } from '../../storage/sqliteStore';
import { ApiServer, type ApiReply } from '../apiServer';
import { OpenApiService } from '../openapi/openapiDocuments';
import { ResourceRegistry } from '../resourceRegistry';
import { registerImagesApi } from './imagesApi';

const CLUSTER = 'cluster-1';
const used: LocalImage = {
  id: 'sha256:aaaa',
  repoTags: ['app:dev'],
  repoDigests: [],
  size: 2_000_000,
  created: '2026-11-27T06:00:00.000Z',
  users: [
    { containerId: 'c1', state: 'running', cluster: CLUSTER, podNamespace: 'default', podName: 'web', container: 'app' },
    { containerId: 'c2', state: 'running', cluster: 'other', podNamespace: 'default', podName: 'x', container: 'app' },
  ],
};
const unused: LocalImage = { id: 'sha256:bbbb', repoTags: [], repoDigests: [], size: 10, created: '2026-11-27T05:00:00.000Z', users: [] };

class FakeImages implements LocalImageStore {
  images = [used, unused];
  removed: string[] = [];
  pulls: Array<{ reference: string; finish(error?: Error): void; emit(event: PullEvent): void }> = [];
  dockerRefusal: (Error & { statusCode?: number }) | undefined;

  async list(): Promise<LocalImage[]> {
    return this.images;
  }

  async remove(id: string): Promise<void> {
    const image = this.images.find((candidate) => candidate.id === id)!;
    const refusal = removalRefusal(image, image.users, CLUSTER);
    if (refusal) throw new ImageInUseError(refusal, image.users);
    if (this.dockerRefusal) throw this.dockerRefusal;
    this.removed.push(id);
    this.images = this.images.filter((candidate) => candidate.id !== id);
  }

  pull(reference: string, onEvent: (event: PullEvent) => void): Promise<void> {
    return new Promise((resolve, reject) => this.pulls.push({ reference, emit: onEvent, finish: (error) => (error ? reject(error) : resolve()) }));
  }
}

let store: SqliteStore;
let api: ApiServer;
let images: FakeImages;

async function request(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(path, 'https://x');
  const reply: ApiReply | { watch: unknown } = await api.handle({ method, path: url.pathname, query: url.searchParams, headers: { 'content-type': 'application/json', accept }, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)) });
  if ('watch' in reply) throw new Error('unexpected watch reply');
  const parsed: unknown = JSON.parse(reply.body.toString());
  return { status: reply.status, body: isRecord(parsed) ? parsed : {} };
}

beforeEach(() => {
  store = SqliteStore.open(':memory:');
  const registry = new ResourceRegistry(builtinResources());
  const openapi = new OpenApiService();
  openapi.setResources(registry.all());
  api = new ApiServer({ store, registry, openapi, serverAddress: () => '127.0.0.1:6443', version: { major: '1', minor: '35' } });
  images = new FakeImages();
  registerImagesApi(api, registry, { images, clusterId: CLUSTER });
});

afterEach(() => store.dispose());

const IMAGES = '/apis/images.kubedesk.dev/v1/images';
const PULLS = '/apis/images.kubedesk.dev/v1/imagepulls';

describe('the images API', () => {
  it('lists images (items without kind, as upstream lists) with the pods of this cluster using them and counts the other containers', async () => {
    const reply = await request('GET', IMAGES);
    expect(reply.status).toBe(200);
    expect(reply.body.kind).toBe('ImageList');
    expect(reply.body.items).toEqual([
      { metadata: { name: 'aaaa', creationTimestamp: used.created }, id: 'sha256:aaaa', repoTags: ['app:dev'], repoDigests: [], size: 2_000_000, dangling: false, pods: [{ namespace: 'default', name: 'web', containers: ['app'] }], otherContainers: 1 },
      { metadata: { name: 'bbbb', creationTimestamp: unused.created }, id: 'sha256:bbbb', repoTags: [], repoDigests: [], size: 10, dangling: true, pods: [], otherContainers: 0 },
    ]);
  });

  it('prints a table for kubectl get', async () => {
    const reply = await request('GET', IMAGES, undefined, 'application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(reply.body.kind).toBe('Table');
    expect((reply.body.rows as Array<{ cells: unknown[] }>).map((row) => row.cells)).toEqual([
      ['aaaa', 'app:dev', '2000000', 'default/web', used.created],
      ['bbbb', '<none>', '10', '<none>', unused.created],
    ]);
  });

  it('is discoverable as kubedesk group with its verbs', async () => {
    const reply = await request('GET', '/apis/images.kubedesk.dev/v1');
    expect((reply.body.resources as Array<Record<string, unknown>>).map((resource) => [resource.name, resource.verbs])).toEqual([
      ['images', ['get', 'list', 'delete']],
      ['imagepulls', ['create', 'get', 'list']],
    ]);
  });

  it('removes an unused image', async () => {
    const reply = await request('DELETE', `${IMAGES}/bbbb`);
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe('Success');
    expect(images.removed).toEqual(['sha256:bbbb']);
  });

  it('refuses to remove an image in use with a Conflict naming the pods', async () => {
    const reply = await request('DELETE', `${IMAGES}/aaaa`);
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ reason: 'Conflict', message: 'Operation cannot be fulfilled on images.images.kubedesk.dev "aaaa": image "app:dev" is in use by pod default/web and 1 other container; delete those pods first' });
    expect(images.removed).toEqual([]);
  });

  it('passes on Docker refusing a removal as a Conflict in its words', async () => {
    images.dockerRefusal = Object.assign(new Error('conflict: unable to delete bbbb (cannot be forced) - image has dependent child images'), { statusCode: 409 });
    const reply = await request('DELETE', `${IMAGES}/bbbb`);
    expect(reply.status).toBe(409);
    expect(String(reply.body.message)).toContain('image has dependent child images');
  });

  it('answers ServiceUnavailable while Docker does not answer', async () => {
    images.list = async () => {
      throw new Error('connect ENOENT /var/run/docker.sock');
    };
    expect((await request('GET', IMAGES)).body).toMatchObject({ code: 503, reason: 'ServiceUnavailable', message: 'the Docker daemon did not answer: connect ENOENT /var/run/docker.sock' });
  });

  it('answers NotFound for an unknown image and refuses writes it does not serve', async () => {
    expect((await request('GET', `${IMAGES}/cccc`)).body).toMatchObject({ code: 404, reason: 'NotFound', message: 'images.images.kubedesk.dev "cccc" not found' });
    expect((await request('POST', IMAGES, {})).status).toBe(405);
    expect((await request('GET', `${IMAGES}?watch=true`)).status).toBe(405);
  });

  it('starts a pull and reports its progress summed over the layers until it completes', async () => {
    const created = await request('POST', PULLS, { spec: { image: 'busybox:1.36' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'ImagePull', spec: { image: 'busybox:1.36' }, status: { phase: 'Pulling' } });
    const name = (created.body.metadata as { name: string }).name;
    const [pull] = images.pulls;
    expect(pull.reference).toBe('busybox:1.36');
    pull.emit({ id: '0123456789ab', status: 'Downloading', current: 500, total: 1000 });
    expect((await request('GET', `${PULLS}/${name}`)).body.status).toMatchObject({ phase: 'Pulling', current: 500, total: 1000, layers: 1, layersDone: 0 });
    pull.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await request('GET', `${PULLS}/${name}`)).body.status).toMatchObject({ phase: 'Complete', current: 1000, total: 1000 });
    expect(((await request('GET', PULLS)).body.items as unknown[]).length).toBe(1);
  });

  it('reports a failed pull with the reason', async () => {
    const created = await request('POST', PULLS, { spec: { image: 'nowhere/app:1' } });
    images.pulls[0].finish(new Error('pull access denied for nowhere/app'));
    await new Promise((resolve) => setImmediate(resolve));
    expect((await request('GET', `${PULLS}/${(created.body.metadata as { name: string }).name}`)).body.status).toMatchObject({ phase: 'Failed', message: 'pull access denied for nowhere/app' });
  });

  it('refuses a pull without an image or with an invalid reference, naming the field', async () => {
    expect((await request('POST', PULLS, { spec: {} })).body).toMatchObject({ code: 422, reason: 'Invalid', details: { causes: [{ field: 'spec.image', message: 'Required value' }] } });
    expect((await request('POST', PULLS, { spec: { image: 'Bad Name' } })).body).toMatchObject({ code: 422, reason: 'Invalid', details: { causes: [{ field: 'spec.image' }] } });
    expect(images.pulls).toEqual([]);
  });
});
