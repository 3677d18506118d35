// The contract between the credentials of one kubeconfig context (main/remote) and those that
// reach its cluster — kubedesk's relay (main/app/relay) and its client commands (main/cli, as a
// main/client RequestTarget): how a cluster is reached exactly as client-go would with that
// context — CA, client certificate, bearer token or token file, exec credential plugin,
// proxy-url, tls-server-name, insecure-skip-tls-verify, impersonation. The renderer never sees
// any of it: it asks the relay, the relay asks a ClusterConnection for request options.
import type { OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';

/** Why a connection could not be made before any byte reached the server. */
export type CredentialFailure =
  /** the exec plugin's command is not on PATH (or not executable) */
  | 'exec-missing'
  /** the exec plugin exited non-zero, timed out or printed no valid ExecCredential */
  | 'exec-failed'
  /** the plugin needs a terminal (interactiveMode Always) and the app has none */
  | 'exec-interactive'
  /** a file the context names (CA, certificate, key, token file) cannot be read */
  | 'file-unreadable'
  /** the kubeconfig asks for something not supported (auth-provider, unknown proxy scheme…) */
  | 'unsupported';

export class CredentialError extends Error {
  constructor(
    readonly failure: CredentialFailure,
    message: string,
    /** the exec plugin's stderr (trimmed), shown to the user as it is */
    readonly stderr?: string,
  ) {
    super(message);
    this.name = 'CredentialError';
  }
}

export type { ContextSummary } from '../../shared/clusters';

/** Reaches one context's cluster with that context's credentials. */
export interface ClusterConnection {
  readonly context: string;
  /** the server URL (a path in it is a prefix every request path goes under) */
  readonly server: URL;
  /**
   * Options for node:https (or node:http for an http:// server) `request()` of `path` (an API
   * path such as `/api/v1/pods?watch=1`, without the server's own path prefix: this adds it):
   * host, port, the full path, the agent (TLS settings and the proxy tunnel, kept alive and
   * reused), `headers` plus Authorization and Impersonate-User/-Group. Runs the exec plugin when
   * its cached credential is missing or expired. Throws CredentialError.
   */
  requestOptions(method: string, path: string, headers?: OutgoingHttpHeaders): Promise<RequestOptions>;
  /**
   * The server answered 401 to credentials from requestOptions. Forgets cached exec-plugin and
   * token-file credentials (client-go re-runs the plugin on 401). True when fresh credentials may
   * succeed, so the caller retries once.
   */
  credentialsRejected(): boolean;
  /** Plain-words warnings about this connection (insecure-skip-tls-verify…). */
  readonly warnings: readonly string[];
  /** Closes kept-alive sockets. */
  close(): void;
}
