// The contexts of a merged kubeconfig as the UI may see them (`kubectl config get-contexts`): names,
// the server address, the namespace, how the user authenticates and whom it impersonates — never a
// credential, and without reading any file the kubeconfig names, so a broken context still lists.
// Sorted by name, as kubectl prints them.
import type { KubeconfigEntry, MergedKubeconfig } from './kubeconfig';
import type { ContextSummary } from './clusterConnection';
import { isRecord } from '../../shared/kubernetes/types';

function text(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The word for how a user authenticates; what client-go would use first wins. */
export function authKindOf(user: KubeconfigEntry | undefined): ContextSummary['authKind'] {
  const value = user?.value;
  if (!value) return 'none';
  if (isRecord(value.exec)) return 'exec';
  if (isRecord(value['auth-provider'])) return 'auth-provider';
  if (text(value, 'token')) return 'token';
  if (text(value, 'tokenFile')) return 'token-file';
  if (text(value, 'client-certificate-data') || text(value, 'client-certificate')) return 'client-certificate';
  if (text(value, 'username') || text(value, 'password')) return 'basic';
  return 'none';
}

function impersonationOf(user: KubeconfigEntry | undefined): ContextSummary['impersonate'] {
  const as = text(user?.value, 'as');
  const groupsValue = user?.value['as-groups'];
  const groups = Array.isArray(groupsValue) ? groupsValue.filter((group): group is string => typeof group === 'string') : [];
  if (!as && groups.length === 0) return undefined;
  return { ...(as ? { user: as } : {}), ...(groups.length > 0 ? { groups } : {}) };
}

export function listContexts(merged: MergedKubeconfig): ContextSummary[] {
  const summaries: ContextSummary[] = [];
  for (const [name, context] of merged.contexts) {
    const clusterName = text(context.value, 'cluster') ?? '';
    const userName = text(context.value, 'user') ?? '';
    const cluster = merged.clusters.get(clusterName);
    const user = userName ? merged.users.get(userName) : undefined;
    const namespace = text(context.value, 'namespace');
    const impersonate = impersonationOf(user);
    summaries.push({
      name,
      cluster: clusterName,
      user: userName,
      server: (text(cluster?.value, 'server') ?? '').replace(/\/+$/, ''),
      ...(namespace ? { namespace } : {}),
      insecure: cluster?.value['insecure-skip-tls-verify'] === true,
      authKind: authKindOf(user),
      ...(impersonate ? { impersonate } : {}),
      current: name === merged.currentContext,
    });
  }
  return summaries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
