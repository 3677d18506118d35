// The API client of a kubeconfig context (./kubeconfig.ts) for kubedesk's client commands: the
// cluster layer's own client (main/client: HttpsTransport + ApiClient, what client-go is upstream)
// given the context's server, CA, tls-server-name and credentials, as kubectl builds a rest.Config
// from a kubeconfig. Errors are worded as kubectl words them.
import { ApiClient, ClientApiError, HttpsTransport } from '../client';
import type { ClientConfig } from './kubeconfig';

export interface ClusterClient {
  client: ApiClient;
  /** closes idle connections, so the command can exit */
  dispose(): void;
}

export function clusterClient(config: ClientConfig, userAgent = 'kubedesk'): ClusterClient {
  const transport = clusterTransport(config, userAgent);
  return { client: new ApiClient(transport), dispose: () => transport.dispose() };
}

/** The HTTPS transport of a context, for what is not an object (binary uploads and downloads). */
export function clusterTransport(config: ClientConfig, userAgent = 'kubedesk', requestTimeoutMs = 30_000): HttpsTransport {
  return new HttpsTransport({
    server: config.server,
    ...(config.tls.ca ? { ca: config.tls.ca } : {}),
    ...(config.tls.cert ? { certificate: config.tls.cert } : {}),
    ...(config.tls.key ? { key: config.tls.key } : {}),
    insecureSkipTlsVerify: config.tls.insecureSkipTlsVerify,
    ...(config.tls.serverName ? { serverName: config.tls.serverName } : {}),
    ...(config.auth.token ? { token: config.auth.token } : {}),
    ...(config.auth.username !== undefined ? { username: config.auth.username } : {}),
    ...(config.auth.password !== undefined ? { password: config.auth.password } : {}),
    userAgent,
    requestTimeoutMs,
  });
}

/** An error as kubectl prints it: `Error from server (NotFound): pods "x" not found`, or why the server could not be reached. */
export function kubectlErrorText(error: unknown): string {
  if (error instanceof ClientApiError) return `Error from server${error.reason ? ` (${error.reason})` : ''}: ${error.message}`;
  return `Unable to connect to the server: ${error instanceof Error ? error.message : String(error)}`;
}
