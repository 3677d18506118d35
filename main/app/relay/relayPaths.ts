// The paths of the UI relay (docs/architecture.md, "Other clusters: the UI relay"): which route a
// request under /ui/clusters names, read from the raw request target before anything decodes it.
// A context name is one path segment (encodeURIComponent of the kubeconfig's name); a name or an
// API path that could step outside its place (`..`, `.`, an encoded slash or backslash, NUL) is
// refused, as the UI's static files refuse them (uiRoutes.ts resolveUiFile). Only the Kubernetes
// API's own paths are relayed: the relay is not a way to fetch arbitrary pages of another server.

export const RELAY_PREFIX = '/ui/clusters';

export type RelayRoute =
  | { kind: 'list' }
  | { kind: 'status'; context: string }
  | { kind: 'settings'; context: string }
  /** `apiPath` is still percent-encoded as the client sent it; `search` is '' or starts with '?' */
  | { kind: 'api'; context: string; apiPath: string; search: string }
  | { kind: 'refused'; message: string }
  | { kind: 'not-api'; context: string; apiPath: string };

/** API paths the relay forwards: the API groups, discovery, OpenAPI, version and health, and kubedesk's image registry API. */
const API_PATH = /^\/(?:api|apis|openapi|version|healthz|livez|readyz)(?:\/|$)|^\/registry\/v2(?:\/|$)/;

/** The route of a request target (`request.url`), or undefined when it is not under /ui/clusters. */
export function parseRelayPath(target: string): RelayRoute | undefined {
  const queryAt = target.indexOf('?');
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  const search = queryAt < 0 ? '' : target.slice(queryAt);
  if (path === RELAY_PREFIX || path === `${RELAY_PREFIX}/`) return { kind: 'list' };
  if (!path.startsWith(`${RELAY_PREFIX}/`)) return undefined;
  const rest = path.slice(RELAY_PREFIX.length + 1);
  const slash = rest.indexOf('/');
  const rawContext = slash < 0 ? rest : rest.slice(0, slash);
  const apiPath = slash < 0 ? '/' : rest.slice(slash);
  const context = decodeSegment(rawContext);
  if (context === undefined || context === '' || context === '.' || context === '..' || /[/\\\0]/.test(context)) {
    return { kind: 'refused', message: `the cluster name in "${truncate(path)}" is not a valid context name` };
  }
  for (const segment of apiPath.split('/')) {
    const decoded = decodeSegment(segment);
    if (decoded === undefined || decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded)) {
      return { kind: 'refused', message: `the path "${truncate(apiPath)}" may not contain "..", "." or encoded slashes` };
    }
  }
  if (apiPath === '/-/status') return { kind: 'status', context };
  if (apiPath === '/-/settings') return { kind: 'settings', context };
  if (!API_PATH.test(apiPath)) return { kind: 'not-api', context, apiPath };
  return { kind: 'api', context, apiPath, search };
}

/** The base path the UI prefixes to a context's API paths. */
export function relayBasePath(context: string): string {
  return `${RELAY_PREFIX}/${encodeURIComponent(context)}`;
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
