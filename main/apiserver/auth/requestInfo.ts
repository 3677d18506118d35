// RequestInfo: what an HTTP request asks for, in the terms authorization speaks (verb, API group,
// resource, subresource, namespace, name), as upstream
// staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go derives it from the path,
// the method and the query. Non-resource requests (/version, /healthz, discovery roots) keep the
// lowercased method as verb and are matched against nonResourceURLs.

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

const API_PREFIXES = new Set(['api', 'apis']);
// Resources whose name is also their namespace: a request for a namespace is "in" that namespace.
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = { isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
  let parts = path.split('/').filter((segment) => segment !== '').map(safeDecode);
  if (parts.length < 1 || !API_PREFIXES.has(parts[0])) return info;
  info.apiPrefix = parts[0];
  parts = parts.slice(1);
  if (info.apiPrefix === 'api') {
    if (parts.length < 1) return info;
  } else {
    // /apis and /apis/<group> are discovery documents, not resources
    if (parts.length < 2) return info;
    info.apiGroup = parts[0];
    parts = parts.slice(1);
  }
  info.apiVersion = parts[0];
  parts = parts.slice(1);
  if (parts.length === 0) return info;
  info.isResourceRequest = true;

  switch (method.toUpperCase()) {
    case 'POST':
      info.verb = 'create';
      break;
    case 'GET':
    case 'HEAD':
      info.verb = 'get';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = 'delete';
      break;
    default:
      info.verb = '';
  }
  // the deprecated /watch/ path prefix
  if (parts[0] === 'watch') {
    info.verb = 'watch';
    parts = parts.slice(1);
  }

  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1];
      // /namespaces/<name>[/status|/finalize] addresses the namespace object itself
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2])) parts = parts.slice(2);
    }
  } else {
    info.namespace = '';
  }

  if (parts.length >= 3) {
    info.subresource = parts[2];
  }
  if (parts.length >= 2) info.name = parts[1];
  if (parts.length >= 1) info.resource = parts[0];

  // A list or watch selecting one object by name is authorized as if it named the object.
  if (parts.length < 2 && info.verb === 'get') {
    const watch = query.get('watch');
    info.verb = watch === 'true' || watch === '1' ? 'watch' : 'list';
  }
  if (info.verb === 'list' || info.verb === 'watch') {
    const single = singleNameFromFieldSelector(query.get('fieldSelector'));
    if (single !== undefined) info.name = single;
  }
  if (info.verb === 'delete' && parts.length < 2) info.verb = 'deletecollection';
  return info;
}

function singleNameFromFieldSelector(selector: string | null): string | undefined {
  if (!selector) return undefined;
  const terms = selector.split(',').filter((term) => term !== '');
  if (terms.length !== 1) return undefined;
  const match = /^metadata\.name(?:==|=)(.*)$/.exec(terms[0]);
  return match ? match[1] : undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
