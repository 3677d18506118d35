// A ClusterConnection for one context of a kubeconfig file, for end-to-end suites that reach a
// cluster the way the app's relay does: the context's server, CA (data or file), and a bearer token
// or client certificate and key (data or file). Exec plugins, proxies and impersonation are the
// production connection's business (main/remote); this reads only what a kubedesk kubeconfig holds.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { StaticClusterConnection } from '../doubles/staticClusterConnection';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entry(list: unknown, name: string, field: string): Record<string, unknown> {
  const found = Array.isArray(list) ? list.filter(isRecord).find((item) => item.name === name) : undefined;
  const value = found?.[field];
  if (!isRecord(value)) throw new Error(`the kubeconfig has no ${field} "${name}"`);
  return value;
}

export function connectionFromKubeconfig(path: string, contextName?: string): StaticClusterConnection {
  const config: unknown = parse(readFileSync(path, 'utf8'));
  if (!isRecord(config)) throw new Error(`${path} is not a kubeconfig`);
  const name = contextName ?? (typeof config['current-context'] === 'string' ? config['current-context'] : '');
  const context = entry(config.contexts, name, 'context');
  const cluster = entry(config.clusters, String(context.cluster), 'cluster');
  const user = entry(config.users, String(context.user), 'user');
  const base = dirname(path);
  const pem = (data: unknown, file: unknown): string | undefined => {
    if (typeof data === 'string') return Buffer.from(data, 'base64').toString('utf8');
    if (typeof file === 'string') return readFileSync(resolve(base, file), 'utf8');
    return undefined;
  };
  if (typeof cluster.server !== 'string') throw new Error(`cluster "${String(context.cluster)}" has no server`);
  return new StaticClusterConnection({
    context: name,
    server: cluster.server,
    caPem: pem(cluster['certificate-authority-data'], cluster['certificate-authority']),
    token: typeof user.token === 'string' ? user.token : undefined,
    certificatePem: pem(user['client-certificate-data'], user['client-certificate']),
    keyPem: pem(user['client-key-data'], user['client-key']),
  });
}
