// A ClusterConnection with fixed credentials (a bearer token or a client certificate, a CA), for
// tests of code that reaches a cluster through one: unit tests point it at a local http:// server,
// end-to-end suites at a kubedesk cluster built from its kubeconfig. It counts 401 retries so tests
// can check that a caller asks credentialsRejected() once. Not the production implementation.
import http, { type OutgoingHttpHeaders } from 'node:http';
import https, { type RequestOptions } from 'node:https';
import type { ClusterConnection } from '../../main/remote/clusterConnection';

export interface StaticConnectionOptions {
  context?: string;
  server: string;
  token?: string;
  /** tokens handed out after a 401, in order (stands for an exec plugin's refreshed credential) */
  refreshedTokens?: string[];
  caPem?: string;
  certificatePem?: string;
  keyPem?: string;
}

export class StaticClusterConnection implements ClusterConnection {
  readonly context: string;
  readonly server: URL;
  readonly warnings: readonly string[] = [];
  /** how often credentialsRejected() was called */
  rejections = 0;
  private token: string | undefined;
  private readonly refreshed: string[];
  private readonly agent: http.Agent;

  constructor(private readonly options: StaticConnectionOptions) {
    this.context = options.context ?? 'test';
    this.server = new URL(options.server);
    this.token = options.token;
    this.refreshed = [...(options.refreshedTokens ?? [])];
    this.agent = this.server.protocol === 'https:' ? new https.Agent({ keepAlive: true, ca: options.caPem, cert: options.certificatePem, key: options.keyPem }) : new http.Agent({ keepAlive: true });
  }

  async requestOptions(method: string, path: string, headers: OutgoingHttpHeaders = {}): Promise<RequestOptions> {
    const prefix = this.server.pathname.replace(/\/+$/, '');
    const all: OutgoingHttpHeaders = { ...headers };
    if (this.token) all.Authorization = `Bearer ${this.token}`;
    return { protocol: this.server.protocol, hostname: this.server.hostname, port: Number(this.server.port) || (this.server.protocol === 'https:' ? 443 : 80), method, path: `${prefix}${path}`, headers: all, agent: this.agent };
  }

  credentialsRejected(): boolean {
    this.rejections += 1;
    const next = this.refreshed.shift();
    if (next === undefined) return false;
    this.token = next;
    return true;
  }

  close(): void {
    this.agent.destroy();
  }
}
