// Names and places of local clusters (docs/architecture.md, "Several local clusters"): the default
// cluster lives in the kubedesk root (~/.kubedesk) with the context `kubedesk`; a named one in
// <root>/clusters/NAME with the context `kubedesk-NAME`, as kind names its contexts `kind-NAME`.
// A name is a DNS-1123 label (upstream apimachinery's IsDNS1123Label, the rule for a Namespace's
// name), so it is safe in a path, a context name and a Docker label. Small on purpose: the entry
// point's argument parser imports it before the rest of the bundle loads.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The default cluster's name in listings; never a directory under clusters/. */
export const DEFAULT_CLUSTER_NAME = 'default';
export const DEFAULT_CONTEXT_NAME = 'kubedesk';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL_MAX_LENGTH = 63;

/**
 * Why `name` cannot name a local cluster, in upstream's words for a DNS-1123 label, or undefined
 * when it can. `default` is the unnamed cluster's, so it is refused too.
 */
export function invalidLocalClusterName(name: string): string | undefined {
  if (name === DEFAULT_CLUSTER_NAME) return '"default" is the default cluster\'s name (kubedesk serve without --name)';
  if (name.length > DNS1123_LABEL_MAX_LENGTH) return `must be no more than ${DNS1123_LABEL_MAX_LENGTH} characters`;
  if (!DNS1123_LABEL.test(name)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  }
  return undefined;
}

/** The kubedesk root: KUBEDESK_HOME when set, else ~/.kubedesk (the default cluster's data dir). */
export function kubedeskRoot(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.KUBEDESK_HOME?.trim();
  return fromEnv ? resolve(fromEnv) : join(homedir(), '.kubedesk');
}

export function localClustersDirectory(root: string): string {
  return join(root, 'clusters');
}

export function localClusterDataDir(root: string, name: string): string {
  return name === DEFAULT_CLUSTER_NAME ? root : join(localClustersDirectory(root), name);
}

/** The kubeconfig context (and cluster and user entry) of a local cluster. */
export function contextNameFor(name: string): string {
  return name === DEFAULT_CLUSTER_NAME ? DEFAULT_CONTEXT_NAME : `${DEFAULT_CONTEXT_NAME}-${name}`;
}
