// The web UI's local-clusters routes (docs/architecture.md, "Several local clusters"), on the
// serving cluster's origin beside the other /ui routes: `GET /ui/local-clusters`, `POST
// /ui/local-clusters` {name, nodes?} (create and start), `POST /ui/local-clusters/<name>/start|stop`
// and `DELETE /ui/local-clusters/<name>`. Only the UI session may call them (a bearer token, as
// kubectl sends, is refused: these start processes on the user's machine), and every
// state-changing call needs the server's own Origin, as cookie-authenticated API writes do.
// Errors are Kubernetes Status replies in the resource `localclusters.kubedesk.dev`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isOwnOrigin } from '../../apiserver/httpServer';
import { ApiError } from '../../apiserver/apiError';
import { fieldErrors } from '../../registry/fieldErrors';
import { isRecord } from '../../../shared/kubernetes/types';
import type { UiSessions } from '../ui/uiSessions';
import { readSmallBody, sendJson } from '../ui/uiReplies';
import { DEFAULT_CLUSTER_NAME, invalidLocalClusterName } from './localClusterNames';
import { LocalClusterError, type LocalCluster, type LocalClusters } from './localClusters';

export const LOCAL_CLUSTERS_PATH = '/ui/local-clusters';
const RESOURCE = { group: 'kubedesk.dev', resource: 'localclusters' };
const KIND = 'LocalCluster';
const MAX_BODY_BYTES = 16 * 1024;

export interface LocalClusterRoutesOptions {
  sessions: Pick<UiSessions, 'authenticate'>;
  /** the API server's TCP port: the only Origin allowed to change anything */
  port: () => number;
  clusters: LocalClusters;
  /** the serving cluster's data dir: it is marked `self`, and not stopped or deleted from its own UI */
  selfDataDir: string;
}

/** The entry the UI gets: the contract's fields plus whether it is the cluster serving the UI. */
export interface LocalClusterEntry {
  name: string;
  context: string;
  dataDir: string;
  port?: number;
  state: LocalCluster['state'];
  nodes: number;
  self: boolean;
}

/** A handler for the UI routes: answers (true) requests under /ui/local-clusters, leaves others. */
export function createLocalClusterRoutes(options: LocalClusterRoutesOptions): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    const path = new URL(request.url ?? '/', 'https://localhost').pathname;
    if (path !== LOCAL_CLUSTERS_PATH && !path.startsWith(`${LOCAL_CLUSTERS_PATH}/`)) return false;
    serve(options, request, response, path).catch((error: unknown) => {
      const failure = error instanceof ApiError ? error : ApiError.internal(error instanceof Error ? error.message : String(error));
      if (!response.headersSent) sendStatus(response, failure);
      else response.destroy();
    });
    return true;
  };
}

async function serve(options: LocalClusterRoutesOptions, request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
  const method = request.method ?? 'GET';
  if (!options.sessions.authenticate(request.headers)) {
    request.resume();
    // a bearer token (kubectl, scripts) is a known caller that may not use these routes
    throw request.headers.authorization !== undefined ? new ApiError(403, 'Forbidden', 'forbidden: the local clusters are managed from the UI session only (kubedesk cluster … on the command line)') : ApiError.unauthorized();
  }
  if (method !== 'GET' && method !== 'HEAD') {
    const origin = request.headers.origin;
    if (!isOwnOrigin(typeof origin === 'string' ? origin : undefined, options.port())) {
      request.resume();
      throw new ApiError(403, 'Forbidden', typeof origin === 'string' ? `forbidden: local clusters cannot be changed from origin "${origin}"` : 'forbidden: changing local clusters needs an Origin header');
    }
  }
  const segments = pathSegments(path.slice(LOCAL_CLUSTERS_PATH.length));
  if (segments === undefined) {
    request.resume();
    throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  }
  if (segments.length === 0) {
    if (method === 'GET' || method === 'HEAD') {
      request.resume();
      const clusters = await options.clusters.list();
      sendJson(response, 200, { clusters: clusters.map((cluster) => entryOf(cluster, options.selfDataDir)) });
      return;
    }
    if (method === 'POST') {
      const { name, nodes } = await createRequest(request);
      try {
        const created = await options.clusters.create(name, { nodes });
        sendJson(response, 201, entryOf(created, options.selfDataDir));
      } catch (error) {
        throw asApiError(error, name);
      }
      return;
    }
    request.resume();
    throw methodNotAllowed('GET, HEAD, POST');
  }
  const [name, action, ...rest] = segments;
  request.resume();
  if (rest.length > 0 || (action !== undefined && action !== 'start' && action !== 'stop')) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  if (!options.clusters.exists(name)) throw ApiError.notFound(RESOURCE, name);
  const self = options.clusters.dataDirOf(name) === options.selfDataDir;
  try {
    if (action === undefined) {
      if (method === 'GET' || method === 'HEAD') {
        const cluster = await options.clusters.get(name);
        if (!cluster) throw ApiError.notFound(RESOURCE, name);
        sendJson(response, 200, entryOf(cluster, options.selfDataDir));
        return;
      }
      if (method !== 'DELETE') throw methodNotAllowed('GET, HEAD, DELETE');
      if (name === DEFAULT_CLUSTER_NAME) throw ApiError.conflict(RESOURCE, name, 'the default cluster is not deleted this way (kubedesk reset, or Reset cluster in the desktop app)');
      if (self) throw ApiError.conflict(RESOURCE, name, 'it serves this UI; delete it from another cluster\'s UI or with kubedesk cluster delete');
      const { containersError } = await options.clusters.delete(name);
      sendJson(response, 200, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        ...(containersError ? { message: `its containers could not all be removed (is Docker running?): ${containersError}` } : {}),
        details: { name, group: RESOURCE.group, kind: RESOURCE.resource },
      });
      return;
    }
    if (method !== 'POST') throw methodNotAllowed('POST');
    if (action === 'stop' && self) throw ApiError.conflict(RESOURCE, name, 'it serves this UI; stop it from the tray or with kubedesk cluster stop');
    const result = action === 'start' ? await options.clusters.start(name) : await options.clusters.stop(name);
    sendJson(response, 200, entryOf(result, options.selfDataDir));
  } catch (error) {
    throw asApiError(error, name);
  }
}

/** The decoded path segments, or undefined when one is not valid percent-encoding. */
function pathSegments(rest: string): string[] | undefined {
  try {
    return rest
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

function entryOf(cluster: LocalCluster, selfDataDir: string): LocalClusterEntry {
  const entry: LocalClusterEntry = { name: cluster.name, context: cluster.context, dataDir: cluster.dataDir, state: cluster.state, nodes: cluster.nodes, self: cluster.dataDir === selfDataDir };
  if (cluster.port !== undefined) entry.port = cluster.port;
  return entry;
}

/** The create body: {name, nodes?}, checked field by field as a Kubernetes strategy would. */
async function createRequest(request: IncomingMessage): Promise<{ name: string; nodes?: number }> {
  const contentType = (typeof request.headers['content-type'] === 'string' ? request.headers['content-type'] : '').split(';')[0].trim().toLowerCase();
  if (contentType !== 'application/json') {
    request.resume();
    throw new ApiError(415, 'UnsupportedMediaType', `the body must be application/json (got ${contentType || 'none'})`);
  }
  const body = await readSmallBody(request, MAX_BODY_BYTES);
  if (body === undefined) throw new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw ApiError.badRequest('the body must be a JSON object {"name": "…", "nodes": N}');
  }
  if (!isRecord(parsed)) throw ApiError.badRequest('the body must be a JSON object {"name": "…", "nodes": N}');
  const { name, nodes } = parsed;
  const nameText = typeof name === 'string' ? name : '';
  const errors = [];
  if (typeof name !== 'string' || name === '') errors.push(fieldErrors.required('name', 'name is required'));
  else {
    const problem = invalidLocalClusterName(name);
    if (problem) errors.push(fieldErrors.invalid('name', name, problem));
  }
  if (nodes !== undefined && (typeof nodes !== 'number' || !Number.isInteger(nodes) || nodes < 1 || nodes > 50)) errors.push(fieldErrors.invalid('nodes', nodes, 'must be a whole number from 1 to 50'));
  if (errors.length > 0) throw ApiError.invalid(KIND, RESOURCE.group, nameText, errors);
  return typeof nodes === 'number' ? { name: nameText, nodes } : { name: nameText };
}

function asApiError(error: unknown, name: string): unknown {
  if (!(error instanceof LocalClusterError)) return error;
  switch (error.reason) {
    case 'AlreadyExists':
      return ApiError.alreadyExists(RESOURCE, name);
    case 'NotFound':
      return ApiError.notFound(RESOURCE, name);
    case 'Invalid':
      return ApiError.invalid(KIND, RESOURCE.group, name, [fieldErrors.invalid('name', name, error.message)]);
    case 'Conflict':
      return ApiError.conflict(RESOURCE, name, error.message);
    case 'Failed':
      return ApiError.internal(error.message);
  }
}

/** 405 with the methods the path allows, for the Allow header. */
class MethodNotAllowed extends ApiError {
  constructor(readonly allow: string) {
    super(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  }
}

function methodNotAllowed(allow: string): ApiError {
  return new MethodNotAllowed(allow);
}

function sendStatus(response: ServerResponse, error: ApiError): void {
  sendJson(response, error.code, error.toStatus(), error instanceof MethodNotAllowed ? { Allow: error.allow } : {});
}


