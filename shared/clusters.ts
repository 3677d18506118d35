// What the app's UI relay tells the page about the user's kubeconfig contexts (GET /ui/clusters)
// and one context's connection (GET /ui/clusters/<context>/-/status): names, addresses and states
// in plain words, never a credential. The main process (main/remote, main/app/relay) writes these
// shapes, the renderer reads them: one definition for both sides.

export type AuthKind = 'client-certificate' | 'token' | 'token-file' | 'exec' | 'basic' | 'auth-provider' | 'none';

/** One kubeconfig context as the UI may see it: names and addresses, never a secret. */
export interface ContextSummary {
  name: string;
  cluster: string;
  user: string;
  server: string;
  /** the context's namespace, when it sets one */
  namespace?: string;
  /** insecure-skip-tls-verify is set: the UI shows a warning */
  insecure: boolean;
  /** how the user authenticates, for the UI's words (never the credential itself) */
  authKind: AuthKind;
  /** impersonation the context asks for (as / as-groups) */
  impersonate?: { user?: string; groups?: string[] };
  /** this is the merged kubeconfig's current-context */
  current: boolean;
}

/** One entry of GET /ui/clusters. */
export interface ClusterEntry extends ContextSummary {
  /** the cluster that serves the page */
  self: boolean;
  /** '' for the serving cluster, else `/ui/clusters/<encoded name>` */
  basePath: string;
  /** kubedesk refuses the UI's writes to this cluster */
  readOnly: boolean;
}

export type ClusterState = 'connected' | 'unreachable' | 'certificate-not-trusted' | 'unauthorized' | 'exec-failed' | 'error';

/** GET <basePath>/-/status: how the relay found the context. */
export interface ClusterStatus {
  state: ClusterState;
  message: string;
  /** an untrusted server certificate's SHA-256 fingerprint, `AB:CD:…` */
  fingerprint?: string;
  /** what a failing exec credential plugin printed on stderr */
  stderr?: string;
  /** who the context signs in as (SelfSubjectReview) */
  user?: { username: string; groups: string[] };
  /** the server is a kubedesk cluster (serves history.kubedesk.dev) */
  kubedesk: boolean;
  warnings: string[];
}
