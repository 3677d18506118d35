// The API client of a kubeconfig context for kubedesk's client commands, built as kubectl builds
// its client from a kubeconfig: main/remote's connection of the context (client-go's transport:
// TLS, tls-server-name, proxy-url or the proxy environment, token, token file, client certificate,
// exec credential plugin, impersonation) under the cluster layer's own client (main/client's
// ApiClient over an HttpsTransport, what client-go's REST client is upstream). The command line is
// the plugin's terminal, as kubectl's is: the plugin's stderr reaches the user and an interactive
// plugin gets stdin. Errors are worded as kubectl words them.
import { ApiClient, ClientApiError, HttpsTransport, type RequestTarget } from '../client';
import { connectionFor, CredentialError, type ClientConfig, type ClusterConnection, type ExecTerminal } from '../remote';

export interface ClusterClient {
  client: ApiClient;
  /** the context's connection (for tests and diagnostics) */
  connection: ClusterConnection;
  /** another transport on the same connection, e.g. without a request timeout for binary uploads and downloads */
  transport(requestTimeoutMs: number): HttpsTransport;
  /** closes the connection's sockets, so the command can exit */
  dispose(): void;
}

export interface ClusterClientOptions {
  userAgent?: string;
  /** the command line's terminal, handed to exec plugins */
  terminal?: ExecTerminal;
  /** the environment (exec plugins' base environment; HTTPS_PROXY, NO_PROXY); default process.env */
  env?: NodeJS.ProcessEnv;
}

export function clusterClient(config: ClientConfig, options: ClusterClientOptions = {}): ClusterClient {
  const connection = connectionFor(config, { ...(options.env ? { env: options.env } : {}), ...(options.terminal ? { terminal: options.terminal } : {}) });
  // every transport shares the connection (one exec plugin run, one set of kept-alive sockets); only dispose() closes it
  const target: RequestTarget = {
    requestOptions: (method, path, headers) => connection.requestOptions(method, path, headers),
    credentialsRejected: () => connection.credentialsRejected(),
    close: () => undefined,
  };
  const userAgent = options.userAgent ?? 'kubedesk';
  const transport = (requestTimeoutMs: number) => new HttpsTransport({ target, userAgent, requestTimeoutMs });
  return { client: new ApiClient(transport(30_000)), connection, transport, dispose: () => connection.close() };
}

/**
 * An error as kubectl prints it: `Error from server (NotFound): pods "x" not found`; credentials
 * that could not be had (`Unable to connect to the server: getting credentials: exec: executable
 * x failed with exit code 1`), or why the server could not be reached.
 */
export function kubectlErrorText(error: unknown): string {
  if (error instanceof ClientApiError) return `Error from server${error.reason ? ` (${error.reason})` : ''}: ${error.message}`;
  if (error instanceof CredentialError && error.failure.startsWith('exec')) return `Unable to connect to the server: getting credentials: ${error.message}`;
  return `Unable to connect to the server: ${error instanceof Error ? error.message : String(error)}`;
}
