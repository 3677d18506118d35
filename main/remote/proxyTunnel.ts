// A kubeconfig cluster's proxy-url, as client-go's transport dials through it (net/http's proxy
// support, whose SOCKS5 dialer is golang.org/x/net/internal/socks): an http:// or https:// proxy
// gets `CONNECT host:port` (with Proxy-Authorization Basic when the URL has user:password; an
// https:// proxy is reached over TLS first); a socks5:// proxy gets the RFC 1928 handshake (RFC
// 1929 username/password when the URL has them) and the server's host name to resolve itself —
// kubectl sends the name, not an address, for socks5:// — and socks5h:// is taken as the same
// (kubectl refuses that scheme; curl's name for remote resolution, so it is accepted here). The
// result is a plain duplex to the target, on which the caller starts TLS to the API server (or
// speaks HTTP to an http:// server). CONNECT is used for http:// servers too, so watches and
// WebSocket upgrades pass any proxy alike.
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { CredentialError } from './clusterConnection';

export interface ProxySettings {
  protocol: 'http:' | 'https:' | 'socks5:' | 'socks5h:';
  host: string;
  port: number;
  username?: string;
  password?: string;
  /** the URL without its credentials, for messages */
  display: string;
}

/** TLS settings for an https:// proxy (client-go uses the cluster's own TLS configuration for it). */
export interface ProxyTlsOptions {
  ca?: (string | Buffer)[];
  rejectUnauthorized: boolean;
}

const defaultPorts: Record<ProxySettings['protocol'], number> = { 'http:': 80, 'https:': 443, 'socks5:': 1080, 'socks5h:': 1080 };

/** A URL's hostname without the brackets of an IPv6 address. */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Parses a proxy-url; an unknown scheme or a malformed URL is a CredentialError 'unsupported'. */
export function parseProxyUrl(text: string): ProxySettings {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CredentialError('unsupported', `proxy-url ${JSON.stringify(text)} is not a URL`);
  }
  const protocol = url.protocol;
  if (protocol !== 'http:' && protocol !== 'https:' && protocol !== 'socks5:' && protocol !== 'socks5h:') {
    throw new CredentialError('unsupported', `proxy-url scheme ${JSON.stringify(protocol.replace(/:$/, ''))} is not supported (http, https, socks5 and socks5h are)`);
  }
  if (!url.hostname) throw new CredentialError('unsupported', `proxy-url ${JSON.stringify(text)} names no host`);
  const display = `${protocol}//${url.host}`;
  return {
    protocol,
    host: unbracket(url.hostname),
    port: url.port ? Number(url.port) : defaultPorts[protocol],
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.username || url.password ? { password: decodeURIComponent(url.password) } : {}),
    display,
  };
}

/** An error reaching the target through the proxy; `code` is what a direct dial would have said where it is known. */
export class ProxyError extends Error {
  constructor(
    message: string,
    readonly code: 'ECONNREFUSED' | 'EHOSTUNREACH' | 'ENOTFOUND' | 'EPROXY',
  ) {
    super(message);
    this.name = 'ProxyError';
  }
}

/**
 * Reads a paused socket until `take` finds what it waits for (its value resolves the promise; an
 * Error rejects it; undefined waits for more), so nothing past it is consumed. The socket ending
 * or closing first rejects with `endedMessage`.
 */
function readFromSocket<T>(socket: Duplex, take: () => T | Error | undefined, endedMessage: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      socket.off('readable', attempt);
      socket.off('end', ended);
      socket.off('close', ended);
      socket.off('error', failed);
    };
    const attempt = () => {
      const result = take();
      if (result === undefined) return;
      cleanup();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const ended = () => {
      cleanup();
      reject(new ProxyError(endedMessage, 'EPROXY'));
    };
    const failed = (error: Error) => {
      cleanup();
      reject(error);
    };
    socket.on('readable', attempt);
    socket.on('end', ended);
    socket.on('close', ended);
    socket.on('error', failed);
    attempt();
  });
}

/** Waits for `count` bytes from a socket in paused mode, so nothing past them is consumed. */
function readExactly(socket: Duplex, count: number, what: string): Promise<Buffer> {
  const closed = `${what}: the proxy closed the connection`;
  return readFromSocket<Buffer>(
    socket,
    () => {
      const chunk: Buffer | null = socket.read(count);
      if (chunk === null) return undefined;
      return chunk.length < count ? new ProxyError(closed, 'EPROXY') : chunk;
    },
    closed,
  );
}

/** Reads an HTTP response head (up to the blank line); bytes after it are put back. */
function readResponseHead(socket: Duplex): Promise<string> {
  let received = Buffer.alloc(0);
  return readFromSocket<string>(
    socket,
    () => {
      let chunk: Buffer | null;
      while ((chunk = socket.read()) !== null) {
        received = Buffer.concat([received, chunk]);
        const end = received.indexOf('\r\n\r\n');
        if (end >= 0) {
          const rest = received.subarray(end + 4);
          if (rest.length > 0) socket.unshift(rest);
          return received.subarray(0, end).toString('latin1');
        }
        if (received.length > 64 * 1024) return new ProxyError('the proxy answered CONNECT with a response head over 64 KiB', 'EPROXY');
      }
      return undefined;
    },
    'the proxy closed the connection before answering CONNECT',
  );
}

function hostPort(host: string, port: number): string {
  return net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}

async function httpConnect(socket: Duplex, proxy: ProxySettings, host: string, port: number): Promise<void> {
  const authority = hostPort(host, port);
  const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
  if (proxy.username !== undefined || proxy.password !== undefined) {
    lines.push(`Proxy-Authorization: Basic ${Buffer.from(`${proxy.username ?? ''}:${proxy.password ?? ''}`).toString('base64')}`);
  }
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  const head = await readResponseHead(socket);
  const statusLine = head.split('\r\n')[0] ?? '';
  const match = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
  if (!match) throw new ProxyError(`proxy ${proxy.display} answered CONNECT with ${JSON.stringify(statusLine.slice(0, 100))}`, 'EPROXY');
  const status = Number(match[1]);
  if (status < 200 || status > 299) {
    const code = status === 502 || status === 503 ? 'ECONNREFUSED' : 'EPROXY';
    throw new ProxyError(`proxy ${proxy.display} refused CONNECT ${authority}: ${status} ${match[2] ?? ''}`.trim(), code);
  }
}

const socksReplies: Record<number, [string, ProxyError['code']]> = {
  1: ['general SOCKS server failure', 'EPROXY'],
  2: ['connection not allowed by ruleset', 'EPROXY'],
  3: ['network unreachable', 'EHOSTUNREACH'],
  4: ['host unreachable', 'EHOSTUNREACH'],
  5: ['connection refused', 'ECONNREFUSED'],
  6: ['TTL expired', 'EHOSTUNREACH'],
  7: ['command not supported', 'EPROXY'],
  8: ['address type not supported', 'EPROXY'],
};

async function socks5Connect(socket: Duplex, proxy: ProxySettings, host: string, port: number): Promise<void> {
  const what = `SOCKS5 proxy ${proxy.display}`;
  const withPassword = proxy.username !== undefined || proxy.password !== undefined;
  socket.write(Buffer.from(withPassword ? [5, 2, 0, 2] : [5, 1, 0]));
  const [version, method] = await readExactly(socket, 2, what);
  if (version !== 5) throw new ProxyError(`${what} is not a SOCKS5 server`, 'EPROXY');
  if (method === 2 && withPassword) {
    const user = Buffer.from(proxy.username ?? '');
    const password = Buffer.from(proxy.password ?? '');
    if (user.length > 255 || password.length > 255) throw new ProxyError(`${what}: the username and password must be at most 255 bytes each`, 'EPROXY');
    socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([password.length]), password]));
    const [, status] = await readExactly(socket, 2, what);
    if (status !== 0) throw new ProxyError(`${what} rejected the username and password`, 'EPROXY');
  } else if (method !== 0) {
    throw new ProxyError(`${what} accepts none of the offered authentication methods${withPassword ? '' : ' (it may need a username and password in proxy-url)'}`, 'EPROXY');
  }
  // As Go's SOCKS5 dialer: an address is sent as one, a name is sent for the proxy to resolve.
  const address = host;
  let addressBytes: Buffer;
  if (net.isIPv4(address)) addressBytes = Buffer.from([1, ...address.split('.').map(Number)]);
  else if (net.isIPv6(address)) addressBytes = Buffer.concat([Buffer.from([4]), ipv6Bytes(address)]);
  else {
    const name = Buffer.from(address);
    if (name.length > 255) throw new ProxyError(`${what}: the host name ${host} is too long`, 'EPROXY');
    addressBytes = Buffer.concat([Buffer.from([3, name.length]), name]);
  }
  const portBytes = Buffer.alloc(2);
  portBytes.writeUInt16BE(port);
  socket.write(Buffer.concat([Buffer.from([5, 1, 0]), addressBytes, portBytes]));
  const [replyVersion, reply, , kind] = await readExactly(socket, 4, what);
  if (replyVersion !== 5) throw new ProxyError(`${what} answered the connect request with a malformed reply`, 'EPROXY');
  if (reply !== 0) {
    const [words, code] = socksReplies[reply ?? 1] ?? [`error ${reply}`, 'EPROXY' as const];
    throw new ProxyError(`${what} could not connect to ${hostPort(host, port)}: ${words}`, code);
  }
  // The bound address follows; its length depends on its type.
  const boundLength = kind === 1 ? 4 : kind === 4 ? 16 : kind === 3 ? (await readExactly(socket, 1, what))[0] ?? 0 : -1;
  if (boundLength < 0) throw new ProxyError(`${what} answered with an unknown address type ${kind}`, 'EPROXY');
  await readExactly(socket, boundLength + 2, what);
}

function ipv6Bytes(address: string): Buffer {
  const groupsOf = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16) || 0];
          // an embedded IPv4 tail (::ffff:1.2.3.4) is two groups
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = address.split('::');
  const left = groupsOf(head);
  const right = tail === undefined ? [] : groupsOf(tail);
  const all = [...left, ...new Array<number>(Math.max(0, 8 - left.length - right.length)).fill(0), ...right];
  const bytes = Buffer.alloc(16);
  all.slice(0, 8).forEach((group, index) => bytes.writeUInt16BE(group, index * 2));
  return bytes;
}

function connected(socket: net.Socket | tls.TLSSocket, event: 'connect' | 'secureConnect', proxy: ProxySettings): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => {
      socket.off(event, done);
      reject(new ProxyError(`proxy ${proxy.display}: ${error.message}`, 'code' in error && (error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EHOSTUNREACH') ? error.code : 'EPROXY'));
    };
    const done = () => {
      socket.off('error', failed);
      resolve();
    };
    socket.once(event, done);
    socket.once('error', failed);
  });
}

/** A connection to host:port through the proxy, ready for the caller's TLS or HTTP. */
export async function openTunnel(proxy: ProxySettings, host: string, port: number, proxyTls: ProxyTlsOptions, timeoutMs = 30_000): Promise<Duplex> {
  const target = unbracket(host);
  let socket: net.Socket;
  if (proxy.protocol === 'https:') {
    socket = tls.connect({
      host: proxy.host,
      port: proxy.port,
      ...(net.isIP(proxy.host) === 0 ? { servername: proxy.host } : {}),
      ...(proxyTls.ca ? { ca: [...tls.rootCertificates, ...proxyTls.ca] } : {}),
      rejectUnauthorized: proxyTls.rejectUnauthorized,
    });
  } else {
    socket = net.connect({ host: proxy.host, port: proxy.port });
  }
  socket.setTimeout(timeoutMs, () => socket.destroy(new ProxyError(`proxy ${proxy.display} did not complete the connection to ${hostPort(target, port)} within ${Math.round(timeoutMs / 1000)} s`, 'EPROXY')));
  try {
    await connected(socket, proxy.protocol === 'https:' ? 'secureConnect' : 'connect', proxy);
    if (proxy.protocol === 'socks5:' || proxy.protocol === 'socks5h:') await socks5Connect(socket, proxy, target, port);
    else await httpConnect(socket, proxy, target, port);
  } catch (error) {
    socket.destroy();
    throw error;
  }
  socket.setTimeout(0);
  return socket;
}

function isLoopback(host: string): boolean {
  if (net.isIPv4(host)) return host.startsWith('127.');
  return host === '::1';
}

/**
 * The proxy a client-go client takes from the environment when the kubeconfig names none (Go's
 * net/http ProxyFromEnvironment): HTTPS_PROXY for an https:// server, HTTP_PROXY for http://
 * (upper or lower case; a value without a scheme is http://), never for localhost or a loopback
 * address, and not for a host NO_PROXY lists — `*`, an IP, a CIDR, a domain (matching it and its
 * subdomains; a leading dot matches subdomains only), each optionally with `:port`.
 */
export function proxyFromEnvironment(server: URL, env: NodeJS.ProcessEnv): string | undefined {
  const read = (name: string) => env[name] || env[name.toLowerCase()] || undefined;
  const value = server.protocol === 'https:' ? read('HTTPS_PROXY') : read('HTTP_PROXY');
  if (!value) return undefined;
  const host = unbracket(server.hostname).toLowerCase();
  if (host === 'localhost' || isLoopback(host)) return undefined;
  const port = server.port || (server.protocol === 'https:' ? '443' : '80');
  for (const raw of (read('NO_PROXY') ?? '').split(',')) {
    let entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return undefined;
    if (entry.includes('/')) {
      const [address = '', bits = ''] = entry.split('/');
      const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : undefined;
      if (!family || net.isIP(host) === 0) continue;
      const list = new net.BlockList();
      try {
        list.addSubnet(address, Number(bits), family);
      } catch {
        continue;
      }
      if (list.check(host, net.isIPv4(host) ? 'ipv4' : 'ipv6')) return undefined;
      continue;
    }
    let entryPort: string | undefined;
    const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
    if (withPort) {
      entry = withPort[1] ?? '';
      entryPort = withPort[2];
    }
    entry = unbracket(entry);
    if (entryPort && entryPort !== port) continue;
    if (net.isIP(entry) !== 0) {
      if (entry === host) return undefined;
      continue;
    }
    if (entry.startsWith('*.')) entry = entry.slice(1);
    if (entry.startsWith('.')) {
      if (host.endsWith(entry)) return undefined;
    } else if (host === entry || host.endsWith(`.${entry}`)) {
      return undefined;
    }
  }
  return value.includes('://') ? value : `http://${value}`;
}
