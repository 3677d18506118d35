// The cluster DNS server (what CoreDNS with the `kubernetes` and `forward . /etc/resolv.conf`
// plugins is to a kubeadm cluster): answers names under the cluster domain from the informer caches
// (clusterRecords.ts) and forwards every other query, unchanged, to the host's resolvers: UDP with
// a 2 s timeout per upstream, TCP when the UDP answer comes back truncated, SERVFAIL when nobody
// answers. It listens on a unix socket with DNS-over-TCP framing (RFC 1035 §4.2.2: a 2-octet length
// before each message; many, pipelined, per connection), which kd-netd relays pod traffic for the
// kube-dns ClusterIP to, and on UDP/TCP ports for tests and tools. Like CoreDNS, it answers
// SERVFAIL instead of NXDOMAIN while the caches have not synced yet.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { randomInt } from 'node:crypto';
import { lstatSync, readFileSync, unlinkSync } from 'node:fs';
import { connect, createServer, isIP, type Server, type Socket } from 'node:net';
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { Disposable, SharedInformerFactory } from '../../client/informer';
import { resources } from '../../client/resources';
import { answerQuestion, isUnderDomain, defaultClusterDomain, type ClusterRecordOptions, type ClusterState } from './clusterRecords';
import { classInternet, DnsFormatError, emptyHeader, encodeMessage, errorReply, parseHeader, parseMessage, RecordType, ResponseCode, truncateForUdp, type DnsMessage, type DnsQuestion, type DnsRecord } from './dnsMessage';

export interface ClusterDnsLookup {
  services: Iterable<KubeObject>;
  endpointSlices: Iterable<KubeObject>;
  pods: Iterable<KubeObject>;
  namespaces?: Iterable<KubeObject>;
}

export interface ClusterDnsServerOptions {
  lookup: () => ClusterDnsLookup;
  /** cluster domain, default cluster.local */
  domain?: string;
  /** `ip`, `ip:port` or `[ipv6]:port`; default: the nameservers of /etc/resolv.conf */
  upstreams?: string[];
  /** while false, NXDOMAIN answers become SERVFAIL (CoreDNS does this until its informers sync) */
  hasSynced?: () => boolean;
  podMode?: ClusterRecordOptions['podMode'];
  ttl?: number;
  upstreamTimeoutMs?: number;
  /** for tests: where the default upstreams are read from */
  resolvConfPath?: string;
}

export interface ListenUnixOptions {
  /**
   * 'udp' when the peer relays UDP datagrams over this stream (answers are then cut to 512 octets,
   * or the client's EDNS size, with TC set, so the client retries over TCP); default 'tcp'.
   */
  transport?: 'udp' | 'tcp';
}

interface Upstream {
  host: string;
  port: number;
  /** until when this upstream is tried last, after it failed to answer */
  demotedUntil: number;
}

const defaultUpstreamTimeoutMs = 2_000;
const demotionMs = 30_000;
const maxChaseDepth = 8;
const ednsPayloadSize = 1232;
const maxFramesInFlight = 100;

/** Parses `host`, `host:port`, `[v6]:port` and bare IPv6 addresses; undefined when it is none of these. */
export function parseUpstream(text: string): { host: string; port: number } | undefined {
  const trimmed = text.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(trimmed);
  if (bracketed) return isIP(bracketed[1]) === 6 ? { host: bracketed[1], port: bracketed[2] ? Number(bracketed[2]) : 53 } : undefined;
  if (isIP(trimmed)) return { host: trimmed, port: 53 };
  const withPort = /^([^:]+):(\d+)$/.exec(trimmed);
  if (withPort && isIP(withPort[1]) === 4 && Number(withPort[2]) > 0 && Number(withPort[2]) < 65536) return { host: withPort[1], port: Number(withPort[2]) };
  return undefined;
}

/** The `nameserver` addresses of a resolv.conf text, in order (a zone index like `%eth0` is kept). */
export function nameserversOf(resolvConf: string): string[] {
  const result: string[] = [];
  for (const line of resolvConf.split('\n')) {
    const match = /^\s*nameserver\s+(\S+)/.exec(line);
    if (match && isIP(match[1].split('%')[0])) result.push(match[1]);
  }
  return result;
}

function defaultUpstreams(path: string): string[] {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    // no resolv.conf: glibc's default is the local resolver
  }
  const servers = nameserversOf(text);
  return servers.length > 0 ? servers : ['127.0.0.1'];
}

function hasEdns(message: DnsMessage): { size: number } | undefined {
  const opt = message.additionals.find((record) => record.type === 'OTHER' && record.code === RecordType.OPT);
  return opt ? { size: Math.max(512, opt.class) } : undefined;
}

/** The UDP size a client accepts: 512, or what its OPT record advertises (capped at ours). */
function udpLimitOf(query: Buffer): number {
  try {
    const edns = hasEdns(parseMessage(query));
    return edns ? Math.min(edns.size, ednsPayloadSize) : 512;
  } catch {
    return 512;
  }
}

export class ClusterDnsServer implements Disposable {
  readonly domain: string;
  private readonly lookup: () => ClusterDnsLookup;
  private readonly upstreams: Upstream[];
  private readonly timeoutMs: number;
  private readonly recordOptions: ClusterRecordOptions;
  private readonly hasSynced: () => boolean;
  private readonly servers = new Set<Server>();
  private readonly udpSockets = new Set<UdpSocket>();
  private readonly connections = new Set<Socket>();
  private readonly pending = new Set<{ cancel(): void }>();
  private readonly unixPaths = new Set<string>();
  private disposed = false;

  constructor(options: ClusterDnsServerOptions) {
    this.lookup = options.lookup;
    this.domain = (options.domain ?? defaultClusterDomain).replace(/\.$/, '').toLowerCase();
    const upstreamTexts = options.upstreams ?? defaultUpstreams(options.resolvConfPath ?? '/etc/resolv.conf');
    this.upstreams = upstreamTexts.flatMap((text) => {
      const parsed = parseUpstream(text.split('%')[0]);
      return parsed ? [{ ...parsed, demotedUntil: 0 }] : [];
    });
    this.timeoutMs = options.upstreamTimeoutMs ?? defaultUpstreamTimeoutMs;
    this.hasSynced = options.hasSynced ?? (() => true);
    this.recordOptions = { domain: this.domain, ttl: options.ttl, podMode: options.podMode, serial: Math.floor(Date.now() / 1000) };
  }

  /** A server answering from the factory's Service, EndpointSlice, Pod and Namespace informers (started with the factory). */
  static fromInformers(factory: SharedInformerFactory, options: Omit<ClusterDnsServerOptions, 'lookup' | 'hasSynced'> = {}): ClusterDnsServer {
    const services = factory.informerFor(resources.services);
    const endpointSlices = factory.informerFor(resources.endpointslices);
    const pods = factory.informerFor(resources.pods);
    const namespaces = factory.informerFor(resources.namespaces);
    return new ClusterDnsServer({
      ...options,
      lookup: () => ({ services: services.list(), endpointSlices: endpointSlices.list(), pods: pods.list(), namespaces: namespaces.list() }),
      hasSynced: () => services.hasSynced() && endpointSlices.hasSynced() && pods.hasSynced() && namespaces.hasSynced(),
    });
  }

  /** The upstreams in the order they are tried now. */
  upstreamAddresses(): string[] {
    return this.orderedUpstreams().map((upstream) => (isIP(upstream.host) === 6 ? `[${upstream.host}]:${upstream.port}` : `${upstream.host}:${upstream.port}`));
  }

  /**
   * Answers one wire-format query. Undefined means "send nothing" (not even a header to answer, or
   * the message is itself a response). Never rejects.
   */
  async resolve(query: Buffer): Promise<Buffer | undefined> {
    try {
      return await this.resolveUnsafe(query);
    } catch {
      return errorReply(query, ResponseCode.ServerFailure);
    }
  }

  private async resolveUnsafe(query: Buffer): Promise<Buffer | undefined> {
    let header;
    try {
      header = parseHeader(query);
    } catch {
      return undefined;
    }
    if (header.response) return undefined;
    let message: DnsMessage;
    try {
      message = parseMessage(query);
    } catch (error) {
      if (error instanceof DnsFormatError) return errorReply(query, ResponseCode.FormatError);
      throw error;
    }
    if (header.opcode !== 0) return errorReply(query, ResponseCode.NotImplemented);
    if (message.questions.length !== 1) return errorReply(query, ResponseCode.FormatError);
    const question = message.questions[0];
    const state = this.state();
    const answer = answerQuestion(question, state, this.recordOptions);
    if (answer.kind === 'notMine') {
      // a name under the cluster domain is always answered here, never leaked to the host's resolvers
      if (isUnderDomain(question.name, this.domain)) return errorReply(query, ResponseCode.ServerFailure);
      return this.forward(query);
    }
    let responseCode = answer.responseCode;
    if (responseCode === ResponseCode.NameError && !this.hasSynced()) responseCode = ResponseCode.ServerFailure;
    const answers = [...answer.answers];
    let authorities = answer.authorities;
    if (answer.chase !== undefined) {
      const chased = await this.chase(answer.chase, question.type, state, 1);
      answers.push(...chased.answers);
      authorities = chased.authorities;
      responseCode = chased.responseCode;
    }
    const additionals: DnsRecord[] = [...answer.additionals];
    if (hasEdns(message)) additionals.push({ name: '', class: ednsPayloadSize, ttl: 0, type: 'OTHER', code: RecordType.OPT, data: Buffer.alloc(0) });
    return encodeMessage({
      header: { ...emptyHeader(header.id), response: true, authoritative: true, recursionDesired: header.recursionDesired, recursionAvailable: true, checkingDisabled: header.checkingDisabled, responseCode },
      questions: [question],
      answers,
      authorities,
      additionals,
    });
  }

  private state(): ClusterState {
    const state = this.lookup();
    // iterables may be one-shot generators; every lookup walks them several times
    return { services: [...state.services], endpointSlices: [...state.endpointSlices], pods: [...state.pods], namespaces: state.namespaces ? [...state.namespaces] : undefined };
  }

  /** Resolves an ExternalName target: in the cluster when it points back in, else through the upstreams. */
  private async chase(target: string, type: number, state: ClusterState, depth: number): Promise<{ answers: DnsRecord[]; authorities: DnsRecord[]; responseCode: number }> {
    const question: DnsQuestion = { name: target, type, class: classInternet };
    const inside = answerQuestion(question, state, this.recordOptions);
    if (inside.kind === 'answer') {
      if (inside.chase !== undefined && depth < maxChaseDepth) {
        const next = await this.chase(inside.chase, type, state, depth + 1);
        return { answers: [...inside.answers, ...next.answers], authorities: next.authorities, responseCode: next.responseCode };
      }
      return { answers: inside.answers, authorities: inside.authorities, responseCode: inside.responseCode };
    }
    const query = encodeMessage({ header: { ...emptyHeader(randomInt(0x10000)), recursionDesired: true }, questions: [question], answers: [], authorities: [], additionals: [] });
    try {
      const reply = parseMessage(await this.forward(query));
      const code = reply.header.responseCode;
      if (code !== ResponseCode.NoError && code !== ResponseCode.NameError) return { answers: [], authorities: [], responseCode: ResponseCode.NoError };
      return { answers: reply.answers, authorities: reply.authorities, responseCode: code };
    } catch {
      // the CNAME alone is still a correct (if unhelpful) answer
      return { answers: [], authorities: [], responseCode: ResponseCode.NoError };
    }
  }

  private orderedUpstreams(): Upstream[] {
    const now = Date.now();
    return [...this.upstreams.filter((upstream) => upstream.demotedUntil <= now), ...this.upstreams.filter((upstream) => upstream.demotedUntil > now)];
  }

  /** Sends the query to each upstream in turn until one answers; SERVFAIL when none does. */
  private async forward(query: Buffer): Promise<Buffer> {
    const originalId = query.readUInt16BE(0);
    // a fresh id per forward, so answers meant for another query (or spoofed ones) never match
    const outgoing = Buffer.from(query);
    const id = randomInt(0x10000);
    outgoing.writeUInt16BE(id, 0);
    for (const upstream of this.orderedUpstreams()) {
      if (this.disposed) break;
      let reply = await this.exchangeUdp(upstream, outgoing, id);
      if (reply && (reply.readUInt16BE(2) & 0x0200) !== 0) {
        reply = (await this.exchangeTcp(upstream, outgoing, id)) ?? reply;
      }
      if (!reply) {
        upstream.demotedUntil = Date.now() + demotionMs;
        continue;
      }
      upstream.demotedUntil = 0;
      const result = Buffer.from(reply);
      result.writeUInt16BE(originalId, 0);
      return result;
    }
    return errorReply(query, ResponseCode.ServerFailure) ?? Buffer.alloc(0);
  }

  private exchangeUdp(upstream: Upstream, query: Buffer, id: number): Promise<Buffer | undefined> {
    return new Promise((resolve) => {
      const socket = createSocket(isIP(upstream.host) === 6 ? 'udp6' : 'udp4');
      const finish = (reply: Buffer | undefined): void => {
        clearTimeout(timer);
        this.pending.delete(entry);
        try {
          socket.close();
        } catch {
          // already closed
        }
        resolve(reply);
      };
      const entry = { cancel: () => finish(undefined) };
      this.pending.add(entry);
      const timer = setTimeout(() => finish(undefined), this.timeoutMs);
      socket.on('error', () => finish(undefined));
      socket.on('message', (reply, remote) => {
        if (remote.port !== upstream.port || reply.length < 12 || reply.readUInt16BE(0) !== id || (reply.readUInt16BE(2) & 0x8000) === 0) return;
        finish(reply);
      });
      socket.send(query, upstream.port, upstream.host, (error) => {
        if (error) finish(undefined);
      });
    });
  }

  private exchangeTcp(upstream: Upstream, query: Buffer, id: number): Promise<Buffer | undefined> {
    return new Promise((resolve) => {
      const socket = connect({ host: upstream.host, port: upstream.port });
      let received = Buffer.alloc(0);
      const finish = (reply: Buffer | undefined): void => {
        clearTimeout(timer);
        this.pending.delete(entry);
        socket.destroy();
        resolve(reply);
      };
      const entry = { cancel: () => finish(undefined) };
      this.pending.add(entry);
      const timer = setTimeout(() => finish(undefined), this.timeoutMs);
      socket.on('error', () => finish(undefined));
      socket.on('close', () => finish(undefined));
      socket.on('connect', () => socket.write(Buffer.concat([lengthPrefix(query.length), query])));
      socket.on('data', (chunk) => {
        received = Buffer.concat([received, chunk]);
        while (received.length >= 2) {
          const length = received.readUInt16BE(0);
          if (received.length < 2 + length) return;
          const reply = received.subarray(2, 2 + length);
          received = received.subarray(2 + length);
          if (reply.length >= 12 && reply.readUInt16BE(0) === id) return finish(Buffer.from(reply));
        }
      });
    });
  }

  /** Serves DNS-over-TCP framing on a unix stream socket (a stale socket file is replaced). */
  listenUnix(path: string, options: ListenUnixOptions = {}): Promise<void> {
    try {
      if (lstatSync(path).isSocket()) unlinkSync(path);
    } catch {
      // nothing there yet
    }
    const server = this.streamServer(options.transport ?? 'tcp');
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        this.unixPaths.add(path);
        resolve();
      });
    });
  }

  /** Serves DNS over TCP; resolves with the bound port (pass 0 for any). */
  listenTcp(host: string, port: number): Promise<number> {
    const server = this.streamServer('tcp');
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  /** Serves DNS over UDP; resolves with the bound port (pass 0 for any). */
  listenUdp(host: string, port: number): Promise<number> {
    const socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
    this.udpSockets.add(socket);
    socket.on('message', (query, remote) => {
      void this.resolve(query).then((reply) => {
        if (!reply || this.disposed) return;
        socket.send(truncateForUdp(reply, udpLimitOf(query)), remote.port, remote.address, () => undefined);
      });
    });
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, host, () => {
        socket.off('error', reject);
        // a send to a vanished client must not bring the process down
        socket.on('error', () => undefined);
        resolve(socket.address().port);
      });
    });
  }

  private streamServer(transport: 'udp' | 'tcp'): Server {
    const server = createServer((connection) => this.serveStream(connection, transport));
    this.servers.add(server);
    return server;
  }

  /** One connection: frames are answered concurrently, each reply written as soon as it is ready (RFC 7766 §6.2.1.1). */
  private serveStream(connection: Socket, transport: 'udp' | 'tcp'): void {
    if (this.disposed) {
      connection.destroy();
      return;
    }
    this.connections.add(connection);
    let buffered = Buffer.alloc(0);
    let inFlight = 0;
    connection.on('error', () => undefined);
    connection.on('close', () => this.connections.delete(connection));
    const drain = (): void => {
      while (buffered.length >= 2 && inFlight < maxFramesInFlight) {
        const length = buffered.readUInt16BE(0);
        if (buffered.length < 2 + length) break;
        const query = Buffer.from(buffered.subarray(2, 2 + length));
        buffered = buffered.subarray(2 + length);
        inFlight++;
        void this.resolve(query).then((reply) => {
          inFlight--;
          if (reply && reply.length > 0 && !connection.destroyed) {
            const body = transport === 'udp' ? truncateForUdp(reply, udpLimitOf(query)) : reply;
            connection.write(Buffer.concat([lengthPrefix(body.length), body]));
          }
          if (connection.isPaused()) connection.resume();
          drain();
        });
      }
      // too many unanswered queries on one connection: stop reading until some are answered
      if (inFlight >= maxFramesInFlight) connection.pause();
    };
    connection.on('data', (chunk) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      drain();
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const entry of [...this.pending]) entry.cancel();
    for (const server of this.servers) server.close();
    for (const connection of this.connections) connection.destroy();
    for (const socket of this.udpSockets) {
      try {
        socket.close();
      } catch {
        // already closed
      }
    }
    for (const path of this.unixPaths) {
      try {
        if (lstatSync(path).isSocket()) unlinkSync(path);
      } catch {
        // already gone
      }
    }
    this.servers.clear();
    this.connections.clear();
    this.udpSockets.clear();
    this.unixPaths.clear();
  }
}

function lengthPrefix(length: number): Buffer {
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16BE(length, 0);
  return prefix;
}
