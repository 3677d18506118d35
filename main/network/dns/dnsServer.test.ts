import { execFile } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { ApiClient } from '../../client/apiClient';
import { FakeTransport } from '../../../test/doubles/fakeTransport';
import { SharedInformerFactory } from '../../client/informer';
import { resources } from '../../client/resources';
import { classInternet, emptyHeader, encodeMessage, parseMessage, RecordType, type DnsMessage, type DnsRecord } from './dnsMessage';
import { ClusterDnsServer, nameserversOf, parseUpstream } from './dnsServer';

const services: KubeObject[] = [
  { metadata: { namespace: 'default', name: 'web' }, spec: { clusterIP: '10.96.128.7', ports: [{ name: 'http', port: 80 }] } },
  { metadata: { namespace: 'default', name: 'ext' }, spec: { type: 'ExternalName', externalName: 'www.example.com' } },
  { metadata: { namespace: 'default', name: 'alias' }, spec: { type: 'ExternalName', externalName: 'web.default.svc.cluster.local' } },
];
const lookup = (): { services: KubeObject[]; endpointSlices: KubeObject[]; pods: KubeObject[] } => ({ services, endpointSlices: [], pods: [] });

function query(name: string, type: number = RecordType.A, id = 4242, withEdns = false): Buffer {
  const additionals: DnsRecord[] = withEdns ? [{ name: '', class: 4096, ttl: 0, type: 'OTHER', code: RecordType.OPT, data: Buffer.alloc(0) }] : [];
  return encodeMessage({ header: { ...emptyHeader(id), recursionDesired: true }, questions: [{ name, type, class: classInternet }], answers: [], authorities: [], additionals });
}

function addresses(message: DnsMessage): string[] {
  return message.answers.flatMap((record) => (record.type === 'A' ? [record.address] : record.type === 'CNAME' ? [`CNAME ${record.target}`] : []));
}

interface FakeUpstream {
  address: string;
  questions: string[];
  close(): void;
}

/**
 * A resolver on 127.0.0.1 (UDP and TCP on one port): www.example.com → 192.0.2.53; big.example.com
 * is truncated over UDP and complete over TCP; everything else NXDOMAIN.
 */
async function startFakeUpstream(): Promise<FakeUpstream> {
  const questions: string[] = [];
  const reply = (raw: Buffer, overUdp: boolean): Buffer => {
    const request = parseMessage(raw);
    const question = request.questions[0];
    questions.push(`${overUdp ? 'udp' : 'tcp'} ${question.name}`);
    const answers: DnsRecord[] = [];
    let truncated = false;
    let responseCode = 0;
    if (question.name === 'www.example.com') answers.push({ name: question.name, class: 1, ttl: 300, type: 'A', address: '192.0.2.53' });
    else if (question.name === 'big.example.com') {
      if (overUdp) truncated = true;
      else for (let index = 1; index <= 40; index++) answers.push({ name: question.name, class: 1, ttl: 300, type: 'A', address: `192.0.2.${index}` });
    } else responseCode = 3;
    return encodeMessage({ header: { ...request.header, response: true, recursionAvailable: true, truncated, responseCode }, questions: request.questions, answers, authorities: [], additionals: [] });
  };
  for (let attempt = 0; ; attempt++) {
    const udp = createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const port = udp.address().port;
    udp.on('message', (message, remote) => udp.send(reply(message, true), remote.port, remote.address));
    const tcp = createServer((connection) => {
      let buffered = Buffer.alloc(0);
      connection.on('data', (chunk) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
          const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
          buffered = buffered.subarray(2 + message.length);
          const answer = reply(message, false);
          const prefix = Buffer.alloc(2);
          prefix.writeUInt16BE(answer.length);
          connection.write(Buffer.concat([prefix, answer]));
        }
      });
    });
    const listening = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!listening) {
      udp.close();
      if (attempt > 10) throw new Error('no port free for UDP and TCP');
      continue;
    }
    return { address: `127.0.0.1:${port}`, questions, close: () => (udp.close(), tcp.close()) };
  }
}

/** A UDP socket that swallows every query, to make the server time out and move on. */
async function startSilentUpstream(): Promise<{ address: string; received: () => number; close(): void }> {
  const socket = createSocket('udp4');
  let received = 0;
  socket.on('message', () => received++);
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { address: `127.0.0.1:${socket.address().port}`, received: () => received, close: () => socket.close() };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function server(options: Partial<ConstructorParameters<typeof ClusterDnsServer>[0]> = {}): ClusterDnsServer {
  const created = new ClusterDnsServer({ lookup, upstreams: [], upstreamTimeoutMs: 300, ...options });
  cleanups.push(() => created.dispose());
  return created;
}

async function resolveParsed(dns: ClusterDnsServer, raw: Buffer): Promise<DnsMessage> {
  const reply = await dns.resolve(raw);
  if (!reply) throw new Error('no reply');
  return parseMessage(reply);
}

describe('ClusterDnsServer.resolve', () => {
  it('answers a cluster name authoritatively with the query id and RD echoed', async () => {
    const reply = await resolveParsed(server(), query('web.default.svc.cluster.local', RecordType.A, 777));
    expect(reply.header).toMatchObject({ id: 777, response: true, authoritative: true, recursionDesired: true, recursionAvailable: true, responseCode: 0 });
    expect(addresses(reply)).toEqual(['10.96.128.7']);
    expect(reply.answers[0].ttl).toBe(5);
  });

  it('answers NXDOMAIN with an SOA and never forwards cluster names', async () => {
    const upstream = await startFakeUpstream();
    cleanups.push(upstream.close);
    const reply = await resolveParsed(server({ upstreams: [upstream.address] }), query('www.google.com.default.svc.cluster.local'));
    expect(reply.header.responseCode).toBe(3);
    expect(reply.authorities.map((record) => record.type)).toEqual(['SOA']);
    expect(upstream.questions).toEqual([]);
  });

  it('answers SERVFAIL instead of NXDOMAIN until the caches have synced', async () => {
    const reply = await resolveParsed(server({ hasSynced: () => false }), query('nope.default.svc.cluster.local'));
    expect(reply.header.responseCode).toBe(2);
  });

  it('echoes an OPT record when the query carried one', async () => {
    const reply = await resolveParsed(server(), query('web.default.svc.cluster.local', RecordType.A, 1, true));
    expect(reply.additionals).toEqual([{ name: '', class: 1232, ttl: 0, type: 'OTHER', code: RecordType.OPT, data: Buffer.alloc(0) }]);
  });

  it('forwards outside names to the upstream and restores the query id', async () => {
    const upstream = await startFakeUpstream();
    cleanups.push(upstream.close);
    const reply = await resolveParsed(server({ upstreams: [upstream.address] }), query('www.example.com', RecordType.A, 31337));
    expect(reply.header.id).toBe(31337);
    expect(addresses(reply)).toEqual(['192.0.2.53']);
    expect(upstream.questions).toEqual(['udp www.example.com']);
  });

  it('moves on to the next upstream when one does not answer, and demotes it', async () => {
    const silent = await startSilentUpstream();
    cleanups.push(silent.close);
    const upstream = await startFakeUpstream();
    cleanups.push(upstream.close);
    const dns = server({ upstreams: [silent.address, upstream.address] });
    expect(addresses(await resolveParsed(dns, query('www.example.com')))).toEqual(['192.0.2.53']);
    expect(silent.received()).toBe(1);
    expect(dns.upstreamAddresses()).toEqual([upstream.address, silent.address]);
  });

  it('retries over TCP when the UDP answer is truncated', async () => {
    const upstream = await startFakeUpstream();
    cleanups.push(upstream.close);
    const reply = await resolveParsed(server({ upstreams: [upstream.address] }), query('big.example.com'));
    expect(reply.header.truncated).toBe(false);
    expect(reply.answers).toHaveLength(40);
    expect(upstream.questions).toEqual(['udp big.example.com', 'tcp big.example.com']);
  });

  it('answers SERVFAIL when no upstream answers', async () => {
    const silent = await startSilentUpstream();
    cleanups.push(silent.close);
    const reply = await resolveParsed(server({ upstreams: [silent.address] }), query('www.example.com', RecordType.A, 9));
    expect(reply.header).toMatchObject({ id: 9, responseCode: 2 });
  });

  it('follows an ExternalName CNAME through the upstream', async () => {
    const upstream = await startFakeUpstream();
    cleanups.push(upstream.close);
    const reply = await resolveParsed(server({ upstreams: [upstream.address] }), query('ext.default.svc.cluster.local'));
    expect(reply.header.responseCode).toBe(0);
    expect(addresses(reply)).toEqual(['CNAME www.example.com', '192.0.2.53']);
  });

  it('follows an ExternalName that points back into the cluster without asking the upstream', async () => {
    const upstream = await startFakeUpstream();
    cleanups.push(upstream.close);
    const reply = await resolveParsed(server({ upstreams: [upstream.address] }), query('alias.default.svc.cluster.local'));
    expect(addresses(reply)).toEqual(['CNAME web.default.svc.cluster.local', '10.96.128.7']);
    expect(upstream.questions).toEqual([]);
  });

  it.each<[string, Buffer, number | undefined]>([
    ['a message shorter than a header is dropped', Buffer.from([1, 2, 3]), undefined],
    ['a response is dropped', Buffer.from([0, 1, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0]), undefined],
    ['a broken question gets FORMERR', Buffer.from([0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 9, 0x61]), 1],
    ['no question gets FORMERR', Buffer.from([0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 1],
    ['a NOTIFY gets NOTIMP', Buffer.from([0, 1, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 4],
  ])('%s', async (_description, raw, code) => {
    const reply = await server().resolve(raw);
    if (code === undefined) expect(reply).toBeUndefined();
    else expect(reply && parseMessage(reply).header.responseCode).toBe(code);
  });

  it('never rejects on random input', async () => {
    const dns = server();
    let seed = 99;
    const random = (limit: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % limit;
    };
    const valid = query('web.default.svc.cluster.local', RecordType.SRV);
    for (let round = 0; round < 300; round++) {
      const raw = round % 2 === 0 ? Buffer.from(Array.from({ length: random(60) }, () => random(256))) : Buffer.from(valid);
      if (round % 2 === 1) for (let flips = random(3); flips >= 0; flips--) raw[random(raw.length)] = random(256);
      // a random query is not a response, so it is not silently dropped
      if (raw.length > 2) raw[2] &= 0x7f;
      // resolve() must settle for every input; a rejection fails the test here
      await dns.resolve(raw);
    }
  });
});

describe('ClusterDnsServer listeners', () => {
  it('answers over UDP on 127.0.0.1', async () => {
    const dns = server();
    const port = await dns.listenUdp('127.0.0.1', 0);
    const client: UdpSocket = createSocket('udp4');
    cleanups.push(() => client.close());
    const reply = await new Promise<Buffer>((resolve) => {
      client.once('message', resolve);
      client.send(query('web.default.svc.cluster.local'), port, '127.0.0.1');
    });
    expect(addresses(parseMessage(reply))).toEqual(['10.96.128.7']);
  });

  it('answers pipelined queries on a unix socket, even when frames are split across writes', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'kd-dns-'));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const path = join(directory, 'dns.sock');
    const dns = server();
    await dns.listenUnix(path);
    const frame = (message: Buffer): Buffer => Buffer.concat([Buffer.from([message.length >> 8, message.length & 0xff]), message]);
    const stream = Buffer.concat([frame(query('web.default.svc.cluster.local', RecordType.A, 1)), frame(query('nope.default.svc.cluster.local', RecordType.A, 2)), frame(query('_http._tcp.web.default.svc.cluster.local', RecordType.SRV, 3))]);
    const socket = connect(path);
    cleanups.push(() => socket.destroy());
    const replies = await new Promise<DnsMessage[]>((resolve, reject) => {
      let buffered = Buffer.alloc(0);
      const result: DnsMessage[] = [];
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
          result.push(parseMessage(buffered.subarray(2, 2 + buffered.readUInt16BE(0))));
          buffered = buffered.subarray(2 + buffered.readUInt16BE(0));
        }
        if (result.length === 3) resolve(result);
      });
      socket.on('connect', () => {
        // the first frame split in the middle of its length prefix, the rest in one write
        socket.write(stream.subarray(0, 1));
        setImmediate(() => socket.write(stream.subarray(1)));
      });
    });
    const byId = new Map(replies.map((reply) => [reply.header.id, reply]));
    expect(addresses(byId.get(1) as DnsMessage)).toEqual(['10.96.128.7']);
    expect(byId.get(2)?.header.responseCode).toBe(3);
    expect(byId.get(3)?.answers.map((record) => record.type)).toEqual(['SRV']);
    dns.dispose();
    expect(existsSync(path)).toBe(false);
  });

  it('answers over TCP', async () => {
    const dns = server();
    const port = await dns.listenTcp('127.0.0.1', 0);
    const socket = connect(port, '127.0.0.1');
    cleanups.push(() => socket.destroy());
    const message = query('web.default.svc.cluster.local', RecordType.A, 5);
    socket.write(Buffer.concat([Buffer.from([0, message.length]), message]));
    const reply = await new Promise<Buffer>((resolve) => {
      let buffered = Buffer.alloc(0);
      socket.on('data', (chunk) => {
        buffered = Buffer.concat([buffered, chunk]);
        if (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) resolve(buffered.subarray(2));
      });
    });
    expect(addresses(parseMessage(reply))).toEqual(['10.96.128.7']);
  });

  it.skipIf(!existsSync('/usr/bin/busybox'))('is understood by busybox nslookup', async () => {
    const upstream = await startFakeUpstream();
    cleanups.push(upstream.close);
    const dns = server({ upstreams: [upstream.address] });
    const port = await dns.listenUdp('127.0.0.1', 0);
    const run = (name: string): Promise<string> =>
      new Promise((resolve) => execFile('/usr/bin/busybox', ['nslookup', '-type=a', name, `127.0.0.1:${port}`], { timeout: 10_000 }, (_error, stdout, stderr) => resolve(`${stdout}${stderr}`)));
    expect(await run('web.default.svc.cluster.local')).toMatch(/Address: 10\.96\.128\.7/);
    expect(await run('www.example.com')).toMatch(/Address: 192\.0\.2\.53/);
    expect(await run('nope.default.svc.cluster.local')).toMatch(/NXDOMAIN/);
  });

  it('answers from informer caches once the factory has synced', async () => {
    const transport = new FakeTransport();
    transport.seed(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    transport.seed(resources.services, { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name: 'db' }, spec: { clusterIP: 'None' } });
    transport.seed(resources.endpointslices, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'default', name: 'db-1', labels: { 'kubernetes.io/service-name': 'db' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.1.0.5'], hostname: 'db-0', conditions: { ready: true } }],
    });
    const factory = new SharedInformerFactory(new ApiClient(transport));
    cleanups.push(() => factory.dispose());
    const dns = ClusterDnsServer.fromInformers(factory, { upstreams: [] });
    cleanups.push(() => dns.dispose());
    expect((await resolveParsed(dns, query('db-0.db.default.svc.cluster.local'))).header.responseCode).toBe(2);
    factory.start();
    await factory.waitForCacheSync();
    expect(addresses(await resolveParsed(dns, query('db-0.db.default.svc.cluster.local')))).toEqual(['10.1.0.5']);
    expect((await resolveParsed(dns, query('default.svc.cluster.local'))).header.responseCode).toBe(0);
  });

  it('cuts answers to 512 octets on a unix socket that carries UDP datagrams', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'kd-dns-'));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const many: KubeObject[] = [{ metadata: { namespace: 'default', name: 'wide' }, spec: { clusterIP: 'None' } }, {
      metadata: { namespace: 'default', name: 'wide-1', labels: { 'kubernetes.io/service-name': 'wide' } },
      addressType: 'IPv4',
      endpoints: Array.from({ length: 60 }, (_, index) => ({ addresses: [`10.1.0.${index + 1}`], conditions: { ready: true } })),
    }];
    const dns = server({ lookup: () => ({ services: [many[0]], endpointSlices: [many[1]], pods: [] }) });
    await dns.listenUnix(join(directory, 'udp.sock'), { transport: 'udp' });
    await dns.listenUnix(join(directory, 'tcp.sock'));
    const ask = (path: string): Promise<DnsMessage> =>
      new Promise((resolve, reject) => {
        const socket = connect(path);
        cleanups.push(() => socket.destroy());
        let buffered = Buffer.alloc(0);
        socket.on('error', reject);
        socket.on('data', (chunk) => {
          buffered = Buffer.concat([buffered, chunk]);
          if (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) resolve(parseMessage(buffered.subarray(2, 2 + buffered.readUInt16BE(0))));
        });
        const message = query('wide.default.svc.cluster.local');
        socket.write(Buffer.concat([Buffer.from([0, message.length]), message]));
      });
    const overUdp = await ask(join(directory, 'udp.sock'));
    expect(overUdp.header.truncated).toBe(true);
    expect(overUdp.answers).toEqual([]);
    const overTcp = await ask(join(directory, 'tcp.sock'));
    expect(overTcp.answers).toHaveLength(60);
  });

  it('reads nameservers from resolv.conf text and parses upstream addresses', () => {
    expect(nameserversOf('# comment\nnameserver 10.0.0.2\nsearch x\nnameserver fe80::1%eth0\nnameserver bogus\n')).toEqual(['10.0.0.2', 'fe80::1%eth0']);
    expect(parseUpstream('10.0.0.2')).toEqual({ host: '10.0.0.2', port: 53 });
    expect(parseUpstream('127.0.0.1:5353')).toEqual({ host: '127.0.0.1', port: 5353 });
    expect(parseUpstream('[::1]:53')).toEqual({ host: '::1', port: 53 });
    expect(parseUpstream('::1')).toEqual({ host: '::1', port: 53 });
    expect(parseUpstream('example.com')).toBeUndefined();
  });
});
