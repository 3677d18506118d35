// A ClusterConnection for contexts whose credentials are fixed in the kubeconfig: the cluster's CA
// (or insecure-skip-tls-verify), tls-server-name, a client certificate and key, a bearer token or
// basic auth — what main/cli/kubeconfig.ts clientConfigOf resolves, as client-go's transport uses
// them (rest.Config → TLS config, bearer/basic round trippers). One kept-alive agent per
// connection. Exec plugins, token-file refresh, proxies and impersonation belong to main/remote's
// connectionFor; index.ts says which one the relay uses. Also the contexts' summaries as the UI
// may see them (names and addresses, never a credential).
import http from 'node:http';
import https from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';
import { isRecord } from '../../../shared/kubernetes/types';
import type { ClientConfig, MergedKubeconfig } from '../../cli/kubeconfig';
import type { ClusterConnection, ContextSummary } from '../../remote/clusterConnection';

export function staticConnection(config: ClientConfig): ClusterConnection {
  const server = new URL(config.server);
  const secure = server.protocol === 'https:';
  const agent = secure
    ? new https.Agent({
        keepAlive: true,
        ...(config.tls.ca ? { ca: config.tls.ca } : {}),
        ...(config.tls.cert ? { cert: config.tls.cert } : {}),
        ...(config.tls.key ? { key: config.tls.key } : {}),
        rejectUnauthorized: !config.tls.insecureSkipTlsVerify,
        ...(config.tls.serverName ? { servername: config.tls.serverName } : {}),
      })
    : new http.Agent({ keepAlive: true });
  const prefix = server.pathname.replace(/\/+$/, '');
  const authorization = config.auth.token
    ? `Bearer ${config.auth.token}`
    : config.auth.username !== undefined
      ? `Basic ${Buffer.from(`${config.auth.username}:${config.auth.password ?? ''}`).toString('base64')}`
      : undefined;
  const warnings = config.tls.insecureSkipTlsVerify ? [`the context "${config.contextName}" skips verifying the server's certificate (insecure-skip-tls-verify): anyone on the network path could read and change its traffic`] : [];
  return {
    context: config.contextName,
    server,
    warnings,
    requestOptions(method: string, path: string, headers: OutgoingHttpHeaders = {}): Promise<RequestOptions> {
      return Promise.resolve({
        protocol: server.protocol,
        hostname: server.hostname.replace(/^\[|\]$/g, ''),
        port: server.port || (secure ? 443 : 80),
        method,
        path: `${prefix}${path}`,
        agent,
        headers: { ...headers, ...(authorization ? { Authorization: authorization } : {}) },
      });
    },
    credentialsRejected: () => false,
    close: () => agent.destroy(),
  };
}

/** One summary per context of the merged kubeconfig, in the kubeconfig's order. */
export function summarizeContexts(merged: MergedKubeconfig): ContextSummary[] {
  const summaries: ContextSummary[] = [];
  for (const [name, context] of merged.contexts) {
    const clusterName = text(context.value.cluster) ?? '';
    const userName = text(context.value.user) ?? '';
    const cluster = merged.clusters.get(clusterName)?.value ?? {};
    const user = merged.users.get(userName)?.value ?? {};
    const namespace = text(context.value.namespace);
    const as = text(user.as);
    const asGroups = Array.isArray(user['as-groups']) ? user['as-groups'].filter((group): group is string => typeof group === 'string') : [];
    summaries.push({
      name,
      cluster: clusterName,
      user: userName,
      server: text(cluster.server) ?? '',
      ...(namespace ? { namespace } : {}),
      insecure: cluster['insecure-skip-tls-verify'] === true,
      authKind: authKindOf(user),
      ...(as || asGroups.length > 0 ? { impersonate: { ...(as ? { user: as } : {}), ...(asGroups.length > 0 ? { groups: asGroups } : {}) } } : {}),
      current: name === merged.currentContext,
    });
  }
  return summaries;
}

function authKindOf(user: Record<string, unknown>): ContextSummary['authKind'] {
  if (isRecord(user.exec)) return 'exec';
  if (isRecord(user['auth-provider'])) return 'auth-provider';
  if (text(user['client-certificate-data']) || text(user['client-certificate'])) return 'client-certificate';
  if (text(user.token)) return 'token';
  if (text(user.tokenFile)) return 'token-file';
  if (text(user.username)) return 'basic';
  return 'none';
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
