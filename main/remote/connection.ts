// A kubeconfig context's connection to its cluster, built as client-go builds a rest.Config's
// transport (rest/transport.go, transport/transport.go, transport/round_trippers.go): one
// keep-alive agent holding the TLS settings (the context's CA, client certificate and key,
// tls-server-name as the name the certificate is checked against, insecure-skip-tls-verify), with
// the proxy tunnel as its connection factory so plain requests, watches and WebSocket upgrades all
// pass it (the cluster's proxy-url, else HTTPS_PROXY/HTTP_PROXY and NO_PROXY from the environment
// as Go's ProxyFromEnvironment reads them); then per request the Authorization header (a bearer
// token — inline, from a tokenFile re-read when the file changes, or from an exec plugin — else
// Basic credentials) and the impersonation headers (Impersonate-User, -Uid, one Impersonate-Group
// per group, Impersonate-Extra-<key> with the key percent-escaped). An exec plugin's client
// certificate replaces the agent (and closes its connections, as client-go does when the
// certificate rotates).
import { readFile as fsReadFile, stat } from 'node:fs/promises';
import http from 'node:http';
import type { OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { clientConfigOf, KubeconfigError, type ClientConfig, type MergedKubeconfig } from './kubeconfig';
import { CredentialError, type ClusterConnection } from './clusterConnection';
import { ExecCredentialCache, type ExecPluginOptions } from './execCredential';
import { openTunnel, parseProxyUrl, proxyFromEnvironment, unbracket, type ProxySettings } from './proxyTunnel';

export interface ConnectionOptions extends ExecPluginOptions {
  /** reads a token file; default fs.promises.readFile */
  readFile?: (path: string) => Promise<Buffer>;
  /** how long a proxy may take to open its tunnel; default 30 s */
  proxyTimeoutMs?: number;
}

/** A token file, re-read whenever it changed (client-go's cached file token source re-reads it periodically). */
class TokenFileSource {
  private token: string | undefined;
  private signature = '';

  constructor(
    private readonly path: string,
    private readonly readFile: (path: string) => Promise<Buffer>,
  ) {}

  async get(): Promise<string> {
    let signature: string;
    try {
      const info = await stat(this.path);
      signature = `${info.ino}:${info.size}:${info.mtimeMs}`;
    } catch (error) {
      throw new CredentialError('file-unreadable', `unable to read tokenFile ${this.path}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (this.token === undefined || signature !== this.signature) {
      let text: string;
      try {
        text = (await this.readFile(this.path)).toString('utf8').trim();
      } catch (error) {
        throw new CredentialError('file-unreadable', `unable to read tokenFile ${this.path}: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (text === '') throw new CredentialError('file-unreadable', `tokenFile ${this.path} is empty`);
      this.token = text;
      this.signature = signature;
    }
    return this.token;
  }

  invalidate(): void {
    this.token = undefined;
  }
}

/** client-go's headerKeyEscape: a user-extra key becomes a legal header name, other bytes %XX. */
export function escapeHeaderKey(key: string): string {
  let escaped = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const character = String.fromCharCode(byte);
    if (/^[A-Za-z0-9!#$&'*+\-.^_`|~]$/.test(character)) escaped += character;
    else escaped += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return escaped;
}

/** The Impersonate-* headers of a context's as, as-uid, as-groups and as-user-extra. */
export function impersonationHeaders(impersonate: ClientConfig['impersonate']): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  if (!impersonate?.user) return headers;
  headers['impersonate-user'] = impersonate.user;
  if (impersonate.uid) headers['impersonate-uid'] = impersonate.uid;
  if (impersonate.groups && impersonate.groups.length > 0) headers['impersonate-group'] = [...impersonate.groups];
  for (const [key, values] of Object.entries(impersonate.extra ?? {})) headers[`impersonate-extra-${escapeHeaderKey(key)}`] = [...values];
  return headers;
}

const droppedHeader = /^(authorization|impersonate-.*|proxy-authorization)$/i;

interface ClientCertificate {
  certificate: Buffer;
  key: Buffer;
}

/** client-go's choice: the cluster's proxy-url, else the environment's HTTPS_PROXY/HTTP_PROXY and NO_PROXY. */
function proxyOf(config: ClientConfig, server: URL, options: ConnectionOptions): ProxySettings | undefined {
  const proxyUrl = config.proxyUrl ?? proxyFromEnvironment(server, options.env ?? process.env);
  return proxyUrl ? parseProxyUrl(proxyUrl) : undefined;
}

class Connection implements ClusterConnection {
  readonly context: string;
  readonly server: URL;
  readonly warnings: string[] = [];
  private readonly secure: boolean;
  private readonly setupError: CredentialError | undefined;
  private readonly proxy: ProxySettings | undefined;
  private readonly tokenFile: TokenFileSource | undefined;
  private readonly exec: ExecCredentialCache | undefined;
  private agent: http.Agent | undefined;
  /** the exec plugin's certificate the current agent holds */
  private agentCertificate: ClientCertificate | undefined;
  private closed = false;

  constructor(
    private readonly config: ClientConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.context = config.contextName;
    let server: URL;
    let setupError: CredentialError | undefined;
    try {
      server = new URL(config.server);
    } catch {
      server = new URL('https://invalid.invalid');
      setupError = new CredentialError('unsupported', `the server ${JSON.stringify(config.server)} of cluster "${config.clusterName}" is not a URL`);
    }
    this.server = server;
    this.secure = server.protocol === 'https:';
    if (!setupError && !this.secure && server.protocol !== 'http:') setupError = new CredentialError('unsupported', `the server ${config.server} of cluster "${config.clusterName}" is neither https:// nor http://`);
    if (!setupError) {
      try {
        this.proxy = proxyOf(config, server, options);
      } catch (error) {
        setupError = error instanceof CredentialError ? error : new CredentialError('unsupported', String(error));
      }
    }
    if (config.authProvider && !config.exec) {
      setupError ??= new CredentialError(
        'unsupported',
        `user "${config.userName}" gets its credentials from the auth-provider "${config.authProvider}", which kubedesk does not run (kubectl no longer runs the built-in gcp and azure providers either); switch the user to the provider's exec plugin (e.g. gke-gcloud-auth-plugin or kubelogin)`,
      );
    }
    this.setupError = setupError;
    if (config.tokenFile) this.tokenFile = new TokenFileSource(config.tokenFile, options.readFile ?? ((path) => fsReadFile(path)));
    if (config.exec) {
      this.exec = new ExecCredentialCache(
        config.exec,
        {
          server: config.server,
          ...(config.tls.serverName ? { tlsServerName: config.tls.serverName } : {}),
          insecureSkipTlsVerify: config.tls.insecureSkipTlsVerify,
          ...(config.tls.ca ? { ca: config.tls.ca } : {}),
          ...(config.proxyUrl ? { proxyUrl: config.proxyUrl } : {}),
        },
        options,
      );
    }
    if (this.secure && config.tls.insecureSkipTlsVerify) {
      this.warnings.push(`insecure-skip-tls-verify is set for cluster "${config.clusterName}": the server's certificate is not checked, so anyone on the network path could pose as the cluster`);
    }
    if (server.protocol === 'http:') this.warnings.push(`the cluster "${config.clusterName}" is reached over plain HTTP: requests and credentials cross the network unencrypted`);
  }

  async requestOptions(method: string, path: string, headers: OutgoingHttpHeaders = {}): Promise<RequestOptions> {
    if (this.setupError) throw this.setupError;
    if (this.closed) throw new Error(`the connection to context "${this.context}" is closed`);
    const outgoing: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) if (!droppedHeader.test(name) && value !== undefined) outgoing[name] = value;
    const { auth } = this.config;
    let authorization: string | undefined;
    // client-go: an inline token (or one read from tokenFile) is the bearer; the exec plugin's token
    // is used only when no other Authorization is set; Basic credentials come last.
    if (this.tokenFile) authorization = `Bearer ${await this.tokenFile.get()}`;
    else if (auth.token) authorization = `Bearer ${auth.token}`;
    let execCertificate: ClientCertificate | undefined;
    if (this.exec) {
      const credential = await this.exec.get();
      if (!authorization && credential.token) authorization = `Bearer ${credential.token}`;
      if (credential.certificate && credential.key) execCertificate = { certificate: credential.certificate, key: credential.key };
    }
    if (!authorization && auth.username !== undefined && auth.password !== undefined) authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    if (authorization) outgoing.authorization = authorization;
    Object.assign(outgoing, impersonationHeaders(this.config.impersonate));
    const prefix = this.server.pathname.replace(/\/+$/, '');
    return {
      protocol: this.server.protocol,
      hostname: unbracket(this.server.hostname),
      port: Number(this.server.port) || (this.secure ? 443 : 80),
      method,
      path: prefix + (path.startsWith('/') ? path : `/${path}`),
      headers: outgoing,
      agent: this.agentFor(execCertificate),
    };
  }

  credentialsRejected(): boolean {
    let refreshable = false;
    if (this.exec) {
      this.exec.invalidate();
      refreshable = true;
    }
    if (this.tokenFile) {
      this.tokenFile.invalidate();
      refreshable = true;
    }
    return refreshable;
  }

  close(): void {
    this.closed = true;
    this.agent?.destroy();
    this.agent = undefined;
  }

  private agentFor(execCertificate: ClientCertificate | undefined): http.Agent {
    const same = (a: ClientCertificate | undefined, b: ClientCertificate | undefined) => a === b || (a !== undefined && b !== undefined && a.certificate.equals(b.certificate) && a.key.equals(b.key));
    if (this.agent && same(this.agentCertificate, execCertificate)) return this.agent;
    this.agent?.destroy();
    this.agentCertificate = execCertificate;
    this.agent = this.makeAgent(execCertificate);
    return this.agent;
  }

  private makeAgent(execCertificate: ClientCertificate | undefined): http.Agent {
    const { tls: settings } = this.config;
    const proxy = this.proxy;
    const proxyTls = { ...(settings.ca ? { ca: [settings.ca] } : {}), rejectUnauthorized: !settings.insecureSkipTlsVerify };
    const timeoutMs = this.options.proxyTimeoutMs;
    const tunnel = (options: http.ClientRequestArgs, callback: ((error: Error | null, stream: Duplex) => void) | undefined, wrap: (socket: Duplex) => Duplex): undefined => {
      if (!proxy) throw new Error('no proxy');
      const host = String(options.hostname ?? options.host ?? this.server.hostname);
      const port = Number(options.port) || (this.secure ? 443 : 80);
      openTunnel(proxy, host, port, proxyTls, timeoutMs).then(
        (socket) => callback?.(null, wrap(socket)),
        (error: unknown) => callback?.(error instanceof Error ? error : new Error(String(error)), undefined as unknown as Duplex),
      );
      return undefined;
    };
    if (!this.secure) {
      const agent = new http.Agent({ keepAlive: true });
      if (proxy) agent.createConnection = (options, callback) => tunnel(options, callback, (socket) => socket);
      return agent;
    }
    const certificate = execCertificate?.certificate ?? settings.cert;
    const key = execCertificate?.key ?? settings.key;
    const agent = new https.Agent({
      keepAlive: true,
      ...(settings.ca ? { ca: settings.ca } : {}),
      ...(certificate && key ? { cert: certificate, key } : {}),
      ...(settings.serverName ? { servername: settings.serverName } : {}),
      rejectUnauthorized: !settings.insecureSkipTlsVerify,
    });
    if (proxy) {
      agent.createConnection = (options, callback) =>
        tunnel(options, callback, (socket) => {
          const { path: _path, socketPath: _socketPath, ...tlsOptions } = options as https.RequestOptions & { socketPath?: string };
          return tls.connect({ ...(tlsOptions as tls.ConnectionOptions), socket });
        });
    }
    return agent;
  }
}

/** The connection of a resolved context (clientConfigOf). It never throws: what cannot work is a CredentialError from requestOptions. */
export function connectionFor(config: ClientConfig, options: ConnectionOptions = {}): ClusterConnection {
  return new Connection(config, options);
}

/** The certificate an https:// server presents, read without trusting it. */
export interface ServerCertificate {
  /** SHA-256 of the leaf certificate, as `AB:CD:…` */
  fingerprint: string;
  subject: string;
  issuer: string;
  validTo: string;
}

/**
 * Connects to the context's server (through its proxy) without checking the certificate and returns
 * the one it presents, for a "certificate not trusted" message that names its SHA-256 fingerprint.
 * Nothing is sent over the connection.
 */
export async function serverCertificate(config: ClientConfig, options: ConnectionOptions = {}, timeoutMs = 10_000): Promise<ServerCertificate> {
  const server = new URL(config.server);
  if (server.protocol !== 'https:') throw new Error(`the server ${config.server} does not use TLS`);
  const host = unbracket(server.hostname);
  const port = Number(server.port) || 443;
  const proxy = proxyOf(config, server, options);
  const servername = config.tls.serverName ?? (isIP(host) === 0 ? host : undefined);
  const base = { ...(servername ? { servername } : {}), rejectUnauthorized: false };
  const socket = proxy
    ? tls.connect({ ...base, socket: await openTunnel(proxy, host, port, { ...(config.tls.ca ? { ca: [config.tls.ca] } : {}), rejectUnauthorized: !config.tls.insecureSkipTlsVerify }, options.proxyTimeoutMs) })
    : tls.connect({ ...base, host, port });
  return new Promise((resolve, reject) => {
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`${host}:${port} did not complete a TLS handshake within ${Math.round(timeoutMs / 1000)} s`)));
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerCertificate();
      socket.destroy();
      if (!certificate || !certificate.fingerprint256) {
        reject(new Error(`${host}:${port} presented no certificate`));
        return;
      }
      const name = (part: unknown) => (part && typeof part === 'object' && 'CN' in part ? String(part.CN) : '');
      resolve({ fingerprint: certificate.fingerprint256, subject: name(certificate.subject), issuer: name(certificate.issuer), validTo: certificate.valid_to });
    });
  });
}

/** A connection that refuses every request with `error` (a context whose configuration cannot be used). */
function failedConnection(context: string, server: string, error: CredentialError): ClusterConnection {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    url = new URL('https://invalid.invalid');
  }
  return {
    context,
    server: url,
    warnings: [],
    requestOptions: () => Promise.reject(error),
    credentialsRejected: () => false,
    close: () => undefined,
  };
}

/**
 * The connection of one context of a merged kubeconfig. A context whose files cannot be read (CA,
 * certificate, key, token file) or that is not complete answers every request with a CredentialError
 * ('file-unreadable', else 'unsupported') instead of throwing here, so a list of contexts always builds.
 */
export function connectionForContext(merged: MergedKubeconfig, context: string, options: ConnectionOptions = {}): ClusterConnection {
  try {
    return connectionFor(clientConfigOf(merged, { context }), options);
  } catch (error) {
    if (!(error instanceof KubeconfigError)) throw error;
    const clusterName = merged.contexts.get(context)?.value.cluster;
    const server = typeof clusterName === 'string' ? merged.clusters.get(clusterName)?.value.server : undefined;
    const failure = error.message.startsWith('unable to read') ? 'file-unreadable' : 'unsupported';
    return failedConnection(context, typeof server === 'string' ? server : '', new CredentialError(failure, error.message));
  }
}
