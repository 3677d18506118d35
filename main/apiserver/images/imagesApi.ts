// The local image store API (images.kubedesk.dev/v1), kubedesk's own, served like an aggregated
// API (virtual resources of the one API server, as metrics.k8s.io is here) from the Docker daemon
// the kubelets run pods on (a LocalImageStore, main/docker/dockerImages.ts). One group, so a UI
// pointed at a remote cluster finds it absent in discovery and hides the page. Authorised by RBAC
// on the request's attributes like any resource (cluster-admin may; `view`/`edit` may not):
//
//   GET    /apis/images.kubedesk.dev/v1/images          `docker image ls`: Image objects (id, repoTags,
//                                                       repoDigests, size, dangling, the pods of this
//                                                       cluster using each and how many other containers)
//   GET    /apis/images.kubedesk.dev/v1/images/NAME     one of them (NAME = the ID without `sha256:`)
//   DELETE /apis/images.kubedesk.dev/v1/images/NAME     `docker rmi` of every tag, never forced: 409
//                                                       Conflict naming the pods when containers use it
//   POST   /apis/images.kubedesk.dev/v1/imagepulls      {spec: {image}}: starts `docker pull`; 201 with
//                                                       an ImagePull whose status sums the layers' bytes
//   GET    /apis/images.kubedesk.dev/v1/imagepulls[/NAME]  pulls of the last 10 minutes and their progress
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { IMAGES_API_VERSION, IMAGES_GROUP, IMAGES_VERSION, ImageInUseError, applyPullEvent, imageName, isDangling, podsUsing, type LocalImage, type LocalImageStore, type PullState } from '../../../shared/images/localImages';
import type { TableDef } from '../../../shared/printers/table';
import { column, cellText } from '../../../shared/printers/columns';
import { fieldErrors } from '../../registry/fieldErrors';
import { defineKind, type KindStrategy } from '../../registry/strategy';
import { ApiError } from '../apiError';
import { negotiate } from '../content';
import { json } from '../handlers/replies';
import type { ApiRequest, ApiResponse, ApiServerContext } from '../handlers/request';
import type { ResourceRegistry } from '../resourceRegistry';
import { parseIncludeObject, toTable } from '../tables';

const PULL_RETENTION_MS = 10 * 60_000;
/** Docker's reference grammar, loosely: no spaces, no uppercase repository, an optional tag or digest */
const IMAGE_REFERENCE = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[0-9a-f]{64})?$/;

interface Pull {
  name: string;
  state: PullState;
  finished?: number;
}

export function registerImagesApi(api: ApiServerContext, registry: ResourceRegistry, options: { images: LocalImageStore; clusterId: string; now?: () => number }): void {
  const [images, pulls] = imagesResourceDefs();
  const now = options.now ?? Date.now;
  const running = new Map<string, Pull>();
  const objectOf = (image: LocalImage): KubeObject => imageObject(image, options.clusterId);
  // Docker may be down (or not up yet): a 503 in Kubernetes' words, not a 500
  const listImages = (): Promise<LocalImage[]> =>
    options.images.list().catch((error: unknown) => {
      throw new ApiError(503, 'ServiceUnavailable', `the Docker daemon did not answer: ${error instanceof Error ? error.message : String(error)}`);
    });
  api.registerVirtualResource(IMAGES_GROUP, IMAGES_VERSION, images.resource, async (request, context) => {
    if (context.rest.length > 0) throw notFoundPath();
    refuseWatch(request);
    if (context.name === undefined) {
      if (request.method !== 'GET') throw ApiError.methodNotAllowed();
      return listReply(request, images, (await listImages()).map(objectOf));
    }
    const name = context.name;
    const found = (await listImages()).find((image) => imageName(image.id) === name);
    if (!found) throw ApiError.notFound({ group: IMAGES_GROUP, resource: images.resource }, name);
    if (request.method === 'GET') return itemReply(request, images, objectOf(found));
    if (request.method !== 'DELETE') throw ApiError.methodNotAllowed();
    try {
      await options.images.remove(found.id);
    } catch (error) {
      if (error instanceof ImageInUseError) throw ApiError.conflict({ group: IMAGES_GROUP, resource: images.resource }, name, error.message);
      const status = isRecord(error) && typeof error.statusCode === 'number' ? error.statusCode : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (status === 404) throw ApiError.notFound({ group: IMAGES_GROUP, resource: images.resource }, name);
      if (status === 409) throw ApiError.conflict({ group: IMAGES_GROUP, resource: images.resource }, name, message);
      throw ApiError.internal(message);
    }
    return json(200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: IMAGES_GROUP, kind: images.resource } });
  });
  api.registerVirtualResource(IMAGES_GROUP, IMAGES_VERSION, pulls.resource, async (request, context) => {
    if (context.rest.length > 0) throw notFoundPath();
    refuseWatch(request);
    for (const [name, pull] of running) if (pull.finished !== undefined && now() - pull.finished > PULL_RETENTION_MS) running.delete(name);
    if (context.name !== undefined) {
      if (request.method !== 'GET') throw ApiError.methodNotAllowed();
      const pull = running.get(context.name);
      if (!pull) throw ApiError.notFound({ group: IMAGES_GROUP, resource: pulls.resource }, context.name);
      return itemReply(request, pulls, pullObject(pull));
    }
    if (request.method === 'GET') return listReply(request, pulls, [...running.values()].map(pullObject));
    if (request.method !== 'POST') throw ApiError.methodNotAllowed();
    const image = requestedImage(request);
    const name = `pull-${randomBytes(4).toString('hex')}`;
    const pull: Pull = { name, state: { image, phase: 'Pulling', current: 0, total: 0, layers: 0, layersDone: 0, message: 'Waiting for Docker', startedAt: new Date(now()).toISOString() } };
    running.set(name, pull);
    const layers = new Map<string, { current: number; total: number; done: boolean }>();
    void options.images
      .pull(image, (event) => {
        pull.state = applyPullEvent(pull.state, layers, event);
      })
      .then(
        () => {
          pull.state = { ...pull.state, phase: 'Complete', current: pull.state.total, finishedAt: new Date(now()).toISOString() };
        },
        (error: unknown) => {
          pull.state = { ...pull.state, phase: 'Failed', message: error instanceof Error ? error.message : String(error), finishedAt: new Date(now()).toISOString() };
        },
      )
      .finally(() => {
        pull.finished = now();
      });
    return json(201, { kind: pulls.kind, apiVersion: IMAGES_API_VERSION, ...pullObject(pull) });
  });
  registry.add(images);
  registry.add(pulls);
}

/** Discovery, OpenAPI and Table metadata only: the virtual handlers answer every request. */
export function imagesResourceDefs(): [KindStrategy, KindStrategy] {
  return [
    defineKind({ group: IMAGES_GROUP, version: IMAGES_VERSION, resource: 'images', singular: 'image', kind: 'Image', namespaced: false, verbs: ['get', 'list', 'delete'], printer: IMAGE_TABLE }),
    defineKind({ group: IMAGES_GROUP, version: IMAGES_VERSION, resource: 'imagepulls', singular: 'imagepull', kind: 'ImagePull', namespaced: false, verbs: ['create', 'get', 'list'], printer: PULL_TABLE }),
  ];
}

function imageObject(image: LocalImage, clusterId: string): KubeObject {
  return {
    metadata: { name: imageName(image.id), creationTimestamp: image.created },
    id: image.id,
    repoTags: image.repoTags,
    repoDigests: image.repoDigests,
    size: image.size,
    dangling: isDangling(image),
    pods: podsUsing(image.users, clusterId).map((key) => {
      const [namespace, name] = key.split('/');
      const containers = image.users.filter((user) => user.cluster === clusterId && user.podNamespace === namespace && user.podName === name && user.container).map((user) => user.container as string);
      return { namespace, name, containers: [...new Set(containers)].sort() };
    }),
    otherContainers: image.users.filter((user) => user.cluster !== clusterId || !user.podName).length,
  };
}

function pullObject(pull: Pull): KubeObject {
  return { metadata: { name: pull.name, creationTimestamp: pull.state.startedAt }, spec: { image: pull.state.image }, status: { ...pull.state } };
}

function requestedImage(request: ApiRequest): string {
  let body: unknown = request.parsedBody;
  if (body === undefined && request.body) {
    try {
      body = JSON.parse(request.body.toString('utf8'));
    } catch {
      throw ApiError.badRequest('the request body is not JSON');
    }
  }
  const spec = isRecord(body) && isRecord(body.spec) ? body.spec : undefined;
  const image = spec && typeof spec.image === 'string' ? spec.image.trim() : '';
  if (!image) throw ApiError.invalid('ImagePull', IMAGES_GROUP, '', [fieldErrors.required('spec.image')]);
  if (!IMAGE_REFERENCE.test(image)) throw ApiError.invalid('ImagePull', IMAGES_GROUP, '', [fieldErrors.invalid('spec.image', image, 'not a valid image reference (repository[:tag][@digest], lowercase)')]);
  return image;
}

function refuseWatch(request: ApiRequest): void {
  const watch = request.query.get('watch');
  if (watch === 'true' || watch === '1') throw ApiError.methodNotAllowed('images cannot be watched');
}

function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

function listReply(request: ApiRequest, def: KindStrategy, items: KubeObject[]): ApiResponse {
  const negotiated = negotiate(request.headers['accept']);
  const objects = items.map((item) => ({ kind: def.kind, apiVersion: IMAGES_API_VERSION, ...item }));
  if (negotiated.shape === 'table') return json(200, toTable(def, objects, { includeObject: parseIncludeObject(request.query.get('includeObject')), listMeta: {}, tableVersion: negotiated.tableVersion }));
  return json(200, { kind: def.listKind, apiVersion: IMAGES_API_VERSION, metadata: {}, items });
}

function itemReply(request: ApiRequest, def: KindStrategy, item: KubeObject): ApiResponse {
  const object = { kind: def.kind, apiVersion: IMAGES_API_VERSION, ...item };
  const negotiated = negotiate(request.headers['accept']);
  if (negotiated.shape === 'table') return json(200, toTable(def, [object], { includeObject: parseIncludeObject(request.query.get('includeObject')), listMeta: {}, tableVersion: negotiated.tableVersion }));
  return json(200, object);
}

/** `kubectl get images.images.kubedesk.dev`: as `docker image ls` plus the pods. */
const IMAGE_TABLE: TableDef = {
  columns: [
    column('Name', 'string', 'the image ID without sha256:', { format: 'name' }),
    column('Tags', 'string', 'repository:tag'),
    column('Size', 'string', 'bytes'),
    column('Pods', 'string', 'pods of this cluster using the image'),
    column('Created', 'string', 'when the image was built', { format: 'date-time' }),
  ],
  row(object) {
    const tags = Array.isArray(object.repoTags) ? object.repoTags.join(',') : '';
    const pods = Array.isArray(object.pods) ? object.pods.filter(isRecord).map((pod) => `${cellText(pod.namespace)}/${cellText(pod.name)}`).join(',') : '';
    return [object.metadata.name ?? '', tags || '<none>', cellText(object.size), pods || '<none>', object.metadata.creationTimestamp ?? ''];
  },
};

const PULL_TABLE: TableDef = {
  columns: [
    column('Name', 'string', 'the pull', { format: 'name' }),
    column('Image', 'string', 'what is pulled'),
    column('Phase', 'string', 'Pulling, Complete or Failed'),
    column('Message', 'string', "Docker's last status"),
  ],
  row(object) {
    const status = isRecord(object.status) ? object.status : {};
    const spec = isRecord(object.spec) ? object.spec : {};
    return [object.metadata.name ?? '', cellText(spec.image), cellText(status.phase), cellText(status.message)];
  },
};
