// Reading the user's kubeconfig as kubectl reads it (client-go tools/clientcmd: loader.go
// ClientConfigLoadingRules.Load, merged_client_builder.go, client_config.go, validation.go), for
// main/remote's connections (the app's relay) and kubedesk's client commands (`kubedesk why`, …):
// - `--kubeconfig FILE` reads that file only (it must exist); otherwise every file in KUBECONFIG
//   (the OS path-list separator), skipping missing ones, else ~/.kube/config;
// - files merge as clientcmd merges them: the first file to define a cluster, user or context name
//   wins (entries are never merged field by field), and the first file that sets current-context
//   sets it;
// - relative paths in a file (certificate-authority, client-certificate, client-key, tokenFile)
//   are relative to that file's folder;
// - `--context` picks the context (else current-context); `--cluster`/`--user` override its parts;
//   the namespace is `-n`, else the context's, else "default";
// - kubectl's other global flags override the chosen cluster and user as clientcmd's
//   ConfigOverrides do (client_config.go getCluster/getAuthInfo): `--server` (which also drops the
//   kubeconfig's tls-server-name unless `--tls-server-name` is given), `--tls-server-name`,
//   `--insecure-skip-tls-verify` (which drops the kubeconfig's CA), `--token`, `--as`,
//   `--as-group` (repeatable) and `--as-uid`;
// - errors use clientcmd's words ("context was not found for specified context: x");
// - clientConfigOf describes everything a context asks for — token, tokenFile (the path is kept so
//   the token can be re-read when it rotates), basic credentials, client certificate, an exec
//   credential plugin (its command resolved against the kubeconfig's folder when it names a path,
//   as clientcmd's ResolveLocalPaths does), auth-provider (named, not run), proxy-url,
//   tls-server-name, insecure-skip-tls-verify and impersonation (as, as-uid, as-groups,
//   as-user-extra) — for ./connection.ts, which uses every one of them.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { parse } from 'yaml';
import { isRecord } from '../../shared/kubernetes/types';

/** The kubectl flags that choose the configuration, and those that override parts of it (clientcmd's ConfigOverrides). */
export interface KubeconfigFlags {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  /** --server/-s */
  server?: string;
  /** --tls-server-name */
  tlsServerName?: string;
  /** --insecure-skip-tls-verify */
  insecureSkipTlsVerify?: boolean;
  /** --token */
  token?: string;
  /** --as */
  as?: string;
  /** --as-group, each one given */
  asGroups?: string[];
  /** --as-uid */
  asUid?: string;
}

export interface KubeconfigEnvironment {
  env?: NodeJS.ProcessEnv;
  /** the home folder (~/.kube/config); default os.homedir() */
  home?: string;
  /** resolves a relative --kubeconfig or KUBECONFIG entry; default process.cwd() */
  cwd?: string;
}

/** Everything a client needs to reach the cluster of one context. */
export interface ClientConfig {
  contextName: string;
  clusterName: string;
  userName: string;
  server: string;
  namespace: string;
  /** the namespace came from -n or the context, not the "default" fallback */
  namespaceExplicit: boolean;
  tls: {
    ca?: Buffer;
    cert?: Buffer;
    key?: Buffer;
    insecureSkipTlsVerify: boolean;
    serverName?: string;
  };
  auth: {
    token?: string;
    username?: string;
    password?: string;
  };
  /** the absolute path of the user's tokenFile when the token was read from it (re-read when it changes) */
  tokenFile?: string;
  /** the user's exec credential plugin */
  exec?: ExecConfig;
  /** the name of the user's auth-provider (gcp, oidc, azure…): described, never run */
  authProvider?: string;
  /** the cluster's proxy-url (http, https, socks5 or socks5h) */
  proxyUrl?: string;
  /** whom the user acts as (Impersonate-* headers) */
  impersonate?: Impersonation;
  /** the kubeconfig files that were read, in precedence order */
  files: string[];
}

/** A user's exec credential plugin (clientcmd's ExecConfig). */
export interface ExecConfig {
  /** the kubeconfig user whose plugin it is (for messages) */
  userName: string;
  /** client.authentication.k8s.io/v1 or v1beta1 (others are refused when the plugin would run) */
  apiVersion: string;
  /** the command: a name looked up on PATH, or an absolute path (a relative path in the kubeconfig is resolved against its folder) */
  command: string;
  args: string[];
  /** added to the app's environment */
  env: { name: string; value: string }[];
  /** Never, IfAvailable or Always; v1beta1 defaults to IfAvailable, v1 requires it ('' when absent) */
  interactiveMode: string;
  /** pass the cluster's details to the plugin in KUBERNETES_EXEC_INFO */
  provideClusterInfo: boolean;
  /** the user-facing hint printed when the command is missing */
  installHint?: string;
  /** the cluster's `client.authentication.k8s.io/exec` extension, handed to the plugin as spec.cluster.config */
  clusterConfig?: unknown;
}

export interface Impersonation {
  user?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export class KubeconfigError extends Error {}

export interface KubeconfigEntry {
  value: Record<string, unknown>;
  /** the file that defined it: relative paths in it are relative to this file's folder */
  file: string;
}

/** The merged kubeconfig: named entries (first definition wins) and the current context. */
export interface MergedKubeconfig {
  files: string[];
  currentContext: string;
  clusters: Map<string, KubeconfigEntry>;
  users: Map<string, KubeconfigEntry>;
  contexts: Map<string, KubeconfigEntry>;
}

/** The files kubectl would read, in precedence order, and whether they were named explicitly. */
export function kubeconfigFiles(flags: KubeconfigFlags, environment: KubeconfigEnvironment = {}): { files: string[]; explicit: boolean } {
  const env = environment.env ?? process.env;
  const cwd = environment.cwd ?? process.cwd();
  if (flags.kubeconfig) return { files: [resolve(cwd, flags.kubeconfig)], explicit: true };
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter((entry) => entry.trim() !== '');
  if (fromEnv.length > 0) return { files: [...new Set(fromEnv.map((entry) => resolve(cwd, entry)))], explicit: false };
  return { files: [join(environment.home ?? homedir(), '.kube', 'config')], explicit: false };
}

function namedEntries(list: unknown, field: string): { name: string; value: Record<string, unknown> }[] {
  if (!Array.isArray(list)) return [];
  const result: { name: string; value: Record<string, unknown> }[] = [];
  for (const item of list) {
    if (!isRecord(item) || typeof item.name !== 'string') continue;
    result.push({ name: item.name, value: isRecord(item[field]) ? item[field] : {} });
  }
  return result;
}

/** Reads and merges kubeconfig files as clientcmd does; a missing file is an error only when named explicitly. */
export function loadKubeconfig(files: string[], explicit: boolean): MergedKubeconfig {
  const merged: MergedKubeconfig = { files: [], currentContext: '', clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const file of files) {
    if (!existsSync(file)) {
      if (explicit) throw new KubeconfigError(`stat ${file}: no such file or directory`);
      continue;
    }
    let document: unknown;
    try {
      document = parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new KubeconfigError(`error loading config file "${file}": ${error instanceof Error ? error.message : String(error)}`);
    }
    merged.files.push(file);
    if (document === null || document === undefined) continue;
    if (!isRecord(document)) throw new KubeconfigError(`error loading config file "${file}": not a kubeconfig (a YAML mapping is expected)`);
    if (!merged.currentContext && typeof document['current-context'] === 'string') merged.currentContext = document['current-context'];
    for (const [list, field, target] of [
      ['clusters', 'cluster', merged.clusters],
      ['users', 'user', merged.users],
      ['contexts', 'context', merged.contexts],
    ] as const) {
      for (const entry of namedEntries(document[list], field)) if (!target.has(entry.name)) target.set(entry.name, { value: entry.value, file });
    }
  }
  return merged;
}

function text(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A `*-data` field (base64) or the file its sibling names (relative to the kubeconfig's folder). */
function material(entry: KubeconfigEntry, dataKey: string, fileKey: string): Buffer | undefined {
  const data = text(entry.value, dataKey);
  if (data) return Buffer.from(data, 'base64');
  const path = text(entry.value, fileKey);
  if (!path) return undefined;
  const full = resolve(dirname(entry.file), path);
  try {
    return readFileSync(full);
  } catch (error) {
    throw new KubeconfigError(`unable to read ${fileKey} ${full}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The configuration of the context kubectl's flags and environment choose (loading rules, merge, overrides). */
export function resolveClientConfig(flags: KubeconfigFlags = {}, environment: KubeconfigEnvironment = {}): ClientConfig {
  const { files, explicit } = kubeconfigFiles(flags, environment);
  const merged = loadKubeconfig(files, explicit);
  return clientConfigOf(merged, flags);
}

function textList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((item): item is string => typeof item === 'string');
}

/** The user's exec stanza, its command resolved against the folder of the kubeconfig that names it. */
function execConfigOf(userName: string, user: KubeconfigEntry, exec: Record<string, unknown>, cluster: KubeconfigEntry): ExecConfig {
  let command = typeof exec.command === 'string' ? exec.command : '';
  if (command && !isAbsolute(command) && (command.includes('/') || command.includes(sep))) command = resolve(dirname(user.file), command);
  const env: { name: string; value: string }[] = [];
  if (Array.isArray(exec.env)) {
    for (const item of exec.env) if (isRecord(item) && typeof item.name === 'string') env.push({ name: item.name, value: typeof item.value === 'string' ? item.value : '' });
  }
  const apiVersion = typeof exec.apiVersion === 'string' ? exec.apiVersion : '';
  let interactiveMode = typeof exec.interactiveMode === 'string' ? exec.interactiveMode : '';
  // clientcmd's defaulting: only the beta versions default to IfAvailable; v1 must say.
  if (!interactiveMode && apiVersion !== 'client.authentication.k8s.io/v1') interactiveMode = 'IfAvailable';
  let clusterConfig: unknown;
  if (Array.isArray(cluster.value.extensions)) {
    for (const extension of cluster.value.extensions) {
      if (isRecord(extension) && extension.name === 'client.authentication.k8s.io/exec') clusterConfig = extension.extension;
    }
  }
  const installHint = text(exec, 'installHint');
  return {
    userName,
    apiVersion,
    command,
    args: textList(exec.args) ?? [],
    env,
    interactiveMode,
    provideClusterInfo: exec.provideClusterInfo === true,
    ...(installHint ? { installHint } : {}),
    ...(clusterConfig !== undefined ? { clusterConfig } : {}),
  };
}

/** as, as-uid, as-groups, as-user-extra; clientcmd refuses groups, uid or extra without a user. */
function impersonationOf(userName: string, value: Record<string, unknown>): Impersonation | undefined {
  const user = text(value, 'as');
  const uid = text(value, 'as-uid');
  const groups = textList(value['as-groups']) ?? [];
  const extra: Record<string, string[]> = {};
  if (isRecord(value['as-user-extra'])) {
    for (const [key, values] of Object.entries(value['as-user-extra'])) {
      const list = textList(values) ?? (typeof values === 'string' ? [values] : []);
      if (list.length > 0) extra[key] = list;
    }
  }
  const hasExtra = Object.keys(extra).length > 0;
  if (!user && (uid || groups.length > 0 || hasExtra)) throw new KubeconfigError(`requesting uid, groups or user-extra for ${userName} without impersonating a user`);
  if (!user) return undefined;
  return { user, ...(uid ? { uid } : {}), ...(groups.length > 0 ? { groups } : {}), ...(hasExtra ? { extra } : {}) };
}

/** The cluster entry after --server, --tls-server-name and --insecure-skip-tls-verify (clientcmd's getCluster). */
function clusterWithOverrides(cluster: KubeconfigEntry, flags: KubeconfigFlags): KubeconfigEntry {
  if (!flags.server && !flags.tlsServerName && !flags.insecureSkipTlsVerify) return cluster;
  const value = { ...cluster.value };
  if (flags.server) value.server = flags.server;
  // a --server given on the command line drops the kubeconfig's tls-server-name unless --tls-server-name is given too
  if (flags.server || flags.tlsServerName) {
    delete value['tls-server-name'];
    if (flags.tlsServerName) value['tls-server-name'] = flags.tlsServerName;
  }
  // --insecure-skip-tls-verify without a CA of its own drops the kubeconfig's CA (else the two would conflict)
  if (flags.insecureSkipTlsVerify) {
    value['insecure-skip-tls-verify'] = true;
    delete value['certificate-authority'];
    delete value['certificate-authority-data'];
  }
  return { value, file: cluster.file };
}

/** The user entry after --token, --as, --as-group and --as-uid (clientcmd's getAuthInfo); a user made of flags alone when the context names none. */
function userWithOverrides(user: KubeconfigEntry | undefined, flags: KubeconfigFlags): KubeconfigEntry | undefined {
  const groups = flags.asGroups ?? [];
  if (!flags.token && !flags.as && groups.length === 0 && !flags.asUid) return user;
  const value = { ...(user?.value ?? {}) };
  if (flags.token) {
    value.token = flags.token;
    delete value.tokenFile;
  }
  if (flags.as) value.as = flags.as;
  if (groups.length > 0) value['as-groups'] = [...groups];
  if (flags.asUid) value['as-uid'] = flags.asUid;
  return { value, file: user?.file ?? '' };
}

export function clientConfigOf(merged: MergedKubeconfig, flags: KubeconfigFlags = {}): ClientConfig {
  const contextName = flags.context || merged.currentContext;
  if (!contextName && !flags.cluster && !flags.server) {
    if (merged.contexts.size === 0 && merged.clusters.size === 0) throw new KubeconfigError('invalid configuration: no configuration has been provided, try setting KUBECONFIG or --kubeconfig');
    throw new KubeconfigError('current-context is not set; choose a context with --context (kubectl config get-contexts lists them)');
  }
  const context = contextName ? merged.contexts.get(contextName) : undefined;
  if (contextName && !context) throw new KubeconfigError(`context was not found for specified context: ${contextName}`);
  const contextValue = context?.value ?? {};
  const clusterName = flags.cluster || text(contextValue, 'cluster') || '';
  const userName = flags.user || text(contextValue, 'user') || '';
  let cluster = merged.clusters.get(clusterName);
  if (!cluster) {
    // clientcmd: a cluster named by --cluster must exist; --server alone makes one
    if (flags.cluster) throw new KubeconfigError(`no server found for cluster "${clusterName}"`);
    if (!flags.server) throw new KubeconfigError(`cluster "${clusterName}" was not found for context "${contextName}"`);
    cluster = { value: {}, file: '' };
  }
  cluster = clusterWithOverrides(cluster, flags);
  const server = text(cluster.value, 'server');
  if (!server) throw new KubeconfigError(`no server found for cluster "${clusterName}"`);
  let user: KubeconfigEntry | undefined;
  if (userName) {
    user = merged.users.get(userName);
    if (!user) {
      if (flags.user) throw new KubeconfigError(`auth info "${userName}" does not exist`);
      throw new KubeconfigError(`user "${userName}" was not found for context "${contextName}"`);
    }
  }
  user = userWithOverrides(user, flags);
  const contextNamespace = text(contextValue, 'namespace');
  const namespace = flags.namespace || contextNamespace || 'default';
  let token: string | undefined;
  let tokenFilePath: string | undefined;
  if (user) {
    token = text(user.value, 'token');
    const tokenFile = text(user.value, 'tokenFile');
    // clientcmd: an inline token wins; a tokenFile is read (and later re-read) only without one.
    if (!token && tokenFile) {
      const path = resolve(dirname(user.file), tokenFile);
      tokenFilePath = path;
      try {
        token = readFileSync(path, 'utf8').trim();
      } catch (error) {
        throw new KubeconfigError(`unable to read tokenFile ${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  const username = user ? text(user.value, 'username') : undefined;
  const password = user ? text(user.value, 'password') : undefined;
  const cert = user ? material(user, 'client-certificate-data', 'client-certificate') : undefined;
  const key = user ? material(user, 'client-key-data', 'client-key') : undefined;
  if ((cert === undefined) !== (key === undefined)) throw new KubeconfigError(`user "${userName}": client-certificate and client-key must be given together`);
  const serverName = text(cluster.value, 'tls-server-name');
  const ca = material(cluster, 'certificate-authority-data', 'certificate-authority');
  const exec = user && isRecord(user.value.exec) ? execConfigOf(userName, user, user.value.exec, cluster) : undefined;
  // clientcmd's validation and rest.Config's TLS checks, in kubectl's words
  if (ca && cluster.value['insecure-skip-tls-verify'] === true) throw new KubeconfigError('specifying a root certificates file with the insecure flag is not allowed');
  const authProviderValue = user ? user.value['auth-provider'] : undefined;
  const authProvider = isRecord(authProviderValue) ? (text(authProviderValue, 'name') ?? 'unnamed') : undefined;
  const proxyUrl = text(cluster.value, 'proxy-url');
  const impersonate = user ? impersonationOf(userName, user.value) : undefined;
  return {
    contextName,
    clusterName,
    userName,
    server: server.replace(/\/+$/, ''),
    namespace,
    namespaceExplicit: Boolean(flags.namespace || contextNamespace),
    tls: { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}), insecureSkipTlsVerify: cluster.value['insecure-skip-tls-verify'] === true, ...(serverName ? { serverName } : {}) },
    auth: { ...(token ? { token } : {}), ...(username ? { username } : {}), ...(password ? { password } : {}) },
    ...(tokenFilePath ? { tokenFile: tokenFilePath } : {}),
    ...(exec ? { exec } : {}),
    ...(authProvider ? { authProvider } : {}),
    ...(proxyUrl ? { proxyUrl } : {}),
    ...(impersonate ? { impersonate } : {}),
    files: merged.files,
  };
}
