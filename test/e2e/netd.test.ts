// kd-netd on real Docker, without a cluster: a throwaway bridge network shaped like a cluster's
// (pod IPs from the lower half of a /16, ClusterIPs from the upper half), busybox backends, and
// kd-netd started through NetdContainer. Checks what kube-proxy's userspace proxier promised:
// round robin, ClientIP affinity, UDP sessions, no listener (connection refused) for a removed
// service, reloads without a restart, plus kubedesk's own parts: unix-socket backends (TCP, and UDP
// with DNS-over-TCP framing), half-close, and the host tunnel with its token.
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetdContainer, netdTunnelPort } from '../../main/docker/netdContainer';
import { ensureNetdImage } from '../../main/docker/netdImage';
import { netdBinaryPath } from '../../main/network/netd/netdImage';
import { busyboxImage } from '../support/images';

const run = promisify(execFile);
const suffix = randomBytes(4).toString('hex');
const prefix = `kdnetd-test-${suffix}`;
const token = randomBytes(16).toString('hex');

// A static UDP helper for busybox containers, whose nc has no UDP mode: `serve PORT NAME` answers
// every datagram with "NAME:<datagram>"; `ask IP PORT MESSAGE [COUNT]` sends COUNT datagrams from
// one socket (one proxy session) and prints each answer on a line, failing after 3 s of silence.
const udpToolSource = String.raw`
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
int main(int argc, char **argv) {
  char buffer[2048];
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (argc == 4 && strcmp(argv[1], "serve") == 0) {
    struct sockaddr_in local = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[2])) };
    if (bind(fd, (struct sockaddr *)&local, sizeof local) < 0) return perror("bind"), 1;
    for (;;) {
      struct sockaddr_in peer; socklen_t size = sizeof peer;
      ssize_t got = recvfrom(fd, buffer, sizeof buffer - 64, 0, (struct sockaddr *)&peer, &size);
      if (got < 0) continue;
      char answer[2200];
      int length = snprintf(answer, sizeof answer, "%s:%.*s", argv[3], (int)got, buffer);
      sendto(fd, answer, (size_t)length, 0, (struct sockaddr *)&peer, size);
    }
  }
  if ((argc == 5 || argc == 6) && strcmp(argv[1], "ask") == 0) {
    struct sockaddr_in remote = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[3])) };
    inet_pton(AF_INET, argv[2], &remote.sin_addr);
    if (connect(fd, (struct sockaddr *)&remote, sizeof remote) < 0) return perror("connect"), 1;
    struct timeval timeout = { .tv_sec = 3 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    int count = argc == 6 ? atoi(argv[5]) : 1;
    for (int index = 0; index < count; index++) {
      send(fd, argv[4], strlen(argv[4]), 0);
      ssize_t got = recv(fd, buffer, sizeof buffer, 0);
      if (got < 0) return perror("recv"), 1;
      printf("%.*s\n", (int)got, buffer);
    }
    return 0;
  }
  fprintf(stderr, "usage: udptool serve PORT NAME | ask IP PORT MESSAGE [COUNT]\n");
  return 2;
}
`;

interface Backend {
  name: string;
  container: string;
  ip: string;
}

const docker = new Docker();
const workDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
const runDir = join(workDir, 'run');
const servers: Server[] = [];
const containers: string[] = [];
let networkName = '';
let subnetOctet = 0;
let netd: NetdContainer | undefined;
let tunnelPort = 0;
let netdId = '';
const backends: Backend[] = [];
let client = '';

function vip(last: number): string {
  return `10.${subnetOctet}.128.${last}`;
}

async function dockerCli(args: string[], timeout = 60_000): Promise<string> {
  const { stdout } = await run('docker', args, { timeout, maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

/** Runs a shell command in the client container; never rejects. */
async function inClient(script: string, timeout = 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('docker', ['exec', client, 'sh', '-c', script], { timeout, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: unknown; stdout?: unknown; stderr?: unknown };
    return { code: typeof failure.code === 'number' ? failure.code : -1, stdout: String(failure.stdout ?? ''), stderr: String(failure.stderr ?? '') };
  }
}

async function eventually<T>(attempt: () => Promise<T | undefined>, what: string, deadlineMs = 20_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const result = await attempt();
      if (result !== undefined) return result;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function writeConfig(services: string[]): void {
  const lines = [`token ${token}`, `range 10.${subnetOctet}.128.0/17`, `tunnel ${netdTunnelPort}`, 'this line is malformed and must be skipped', ...services];
  // Written whole and renamed, as the host's writer should, so netd never reads half a file.
  const temporary = join(runDir, 'netd.conf.tmp');
  writeFileSync(temporary, lines.join('\n') + '\n');
  renameSync(temporary, join(runDir, 'netd.conf'));
}

function names(output: string): string[] {
  return output
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

async function wgetMany(target: string, count: number): Promise<string[]> {
  const result = await inClient(`for i in $(seq ${count}); do timeout 3 wget -qO- http://${target}/ || echo FAILED; done`);
  return names(result.stdout);
}

/** Opens the tunnel and sends the CONNECT line; resolves the socket and netd's answer line. */
function openTunnel(target: string, secret: string): Promise<{ socket: Socket; answer: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: tunnelPort });
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const newline = received.indexOf(10);
      if (newline < 0) return;
      socket.off('data', onData);
      socket.pause();
      resolve({ socket, answer: received.subarray(0, newline).toString(), rest: received.subarray(newline + 1) });
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('connect', () => socket.write(`CONNECT ${target} ${secret}\n`));
  });
}

function readAll(socket: Socket, initial: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts = [initial];
    socket.on('data', (chunk: Buffer) => parts.push(chunk));
    socket.once('end', () => resolve(Buffer.concat(parts).toString()));
    socket.once('error', reject);
    socket.resume();
  });
}

function listenUnix(name: string, onConnection: (socket: Socket) => void): Promise<void> {
  const server = createServer(onConnection);
  servers.push(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(join(runDir, name), () => resolve());
  });
}

async function createNetwork(): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt++) {
    const octet = 200 + Math.floor(Math.random() * 50);
    const name = `${prefix}-net`;
    try {
      await dockerCli(['network', 'create', '--driver', 'bridge', '--subnet', `10.${octet}.0.0/16`, '--ip-range', `10.${octet}.0.0/17`, '--label', 'dev.kubedesk.test=netd', name]);
      networkName = name;
      subnetOctet = octet;
      return;
    } catch (error) {
      if (!/overlap|in use/i.test(String(error))) throw error;
    }
  }
  throw new Error('no free 10.2xx.0.0/16 for the test network');
}

async function startContainer(name: string, command: string, mounts: string[] = []): Promise<string> {
  const id = await dockerCli([
    'run', '-d', '--init', '--name', name, '--network', networkName, '--label', 'dev.kubedesk.test=netd',
    ...mounts.flatMap((mount) => ['-v', mount]),
    busyboxImage, 'sh', '-c', command,
  ]);
  containers.push(name);
  return id;
}

beforeAll(async () => {
  const build = spawnSync(process.execPath, ['scripts/buildNetd.mjs'], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`scripts/buildNetd.mjs failed: ${build.stderr}`);
  const toolSource = join(workDir, 'udptool.c');
  writeFileSync(toolSource, udpToolSource);
  const udpTool = join(workDir, 'udptool');
  const compile = spawnSync('cc', ['-O2', '-static', '-o', udpTool, toolSource], { encoding: 'utf8' });
  if (compile.status !== 0) throw new Error(`compiling the UDP helper failed: ${compile.stderr}`);
  mkdirSync(runDir, { recursive: true });
  chmodSync(runDir, 0o755);

  // Host services on unix sockets, as the API server and cluster DNS will be.
  await listenUnix('web.sock', (socket) => {
    socket.once('data', () => socket.end('HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nunix-web\n'));
  });
  await listenUnix('count.sock', (socket) => {
    // Answers only after the client's half-close, with the number of bytes it sent.
    let bytes = 0;
    socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
    socket.on('end', () => socket.end(`got ${bytes}\n`));
  });
  await listenUnix('dns.sock', (socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const message = pending.subarray(2, 2 + pending.readUInt16BE(0));
        pending = pending.subarray(2 + message.length);
        const answer = Buffer.from(`unix:${message.toString()}`);
        const header = Buffer.alloc(2);
        header.writeUInt16BE(answer.length);
        socket.write(Buffer.concat([header, answer]));
      }
    });
  });

  await createNetwork();
  const tool = `${udpTool}:/udptool:ro`;
  await Promise.all(
    ['b1', 'b2', 'b3'].map((name) =>
      startContainer(`${prefix}-${name}`, `mkdir -p /www && echo ${name} > /www/index.html && (/udptool serve 5353 ${name} &) && exec httpd -f -p 8080 -h /www`, [tool]),
    ),
  );
  await startContainer(`${prefix}-client`, 'exec sleep 100000', [tool]);
  client = `${prefix}-client`;
  for (const name of ['b1', 'b2', 'b3']) {
    const container = `${prefix}-${name}`;
    const ip = await dockerCli(['inspect', '--format', `{{(index .NetworkSettings.Networks "${networkName}").IPAddress}}`, container]);
    backends.push({ name, container, ip });
  }
  for (const backend of backends) {
    await eventually(async () => ((await inClient(`timeout 3 wget -qO- http://${backend.ip}:8080/`)).stdout.trim() === backend.name ? true : undefined), `${backend.name} to serve`);
  }

  writeConfig(initialServices());
  const image = await ensureNetdImage(docker, netdBinaryPath());
  netd = new NetdContainer({ docker, clusterId: `netdtest${suffix}`, networkName, runDir, image });
  const endpoint = await netd.ensureRunning();
  tunnelPort = endpoint.tunnelPort;
  netdId = endpoint.containerId;
  await eventually(async () => ((await wgetMany(`${vip(1)}:80`, 1))[0]?.startsWith('b') ? true : undefined), 'netd to serve the first service');
}, 180_000);

afterAll(async () => {
  for (const server of servers) server.close();
  if (netd) await netd.remove().catch(() => undefined);
  for (const container of containers) await dockerCli(['rm', '-f', container]).catch(() => undefined);
  if (networkName) await dockerCli(['network', 'rm', networkName]).catch(() => undefined);
  rmSync(workDir, { recursive: true, force: true });
}, 120_000);

function initialServices(): string[] {
  const [b1, b2, b3] = backends;
  return [
    `service ${vip(1)} 80 tcp 0 ${b1.ip}:8080 ${b2.ip}:8080 ${b3.ip}:8080`,
    `service ${vip(2)} 80 tcp 10800 ${b1.ip}:8080 ${b2.ip}:8080 ${b3.ip}:8080`,
    `service ${vip(3)} 53 udp 0 ${b1.ip}:5353 ${b2.ip}:5353`,
    `service ${vip(4)} 80 tcp 0 unix:/run/kubedesk/web.sock`,
    `service ${vip(5)} 53 udp 0 unix:/run/kubedesk/dns.sock`,
    `service ${vip(7)} 80 tcp 0 unix:/run/kubedesk/count.sock`,
    `service ${vip(8)} 80 tcp 0`,
    // The first backend refuses connections; netd must move on to the next.
    `service ${vip(11)} 80 tcp 0 ${b1.ip}:9999 ${b2.ip}:8080`,
  ];
}

describe('kd-netd', () => {
  it('spreads connections over every backend round robin', async () => {
    const answers = await wgetMany(`${vip(1)}:80`, 6);
    expect(answers).toHaveLength(6);
    expect(new Set(answers)).toEqual(new Set(['b1', 'b2', 'b3']));
  });

  it('tries the next backend when one refuses the connection', async () => {
    expect(await wgetMany(`${vip(11)}:80`, 4)).toEqual(['b2', 'b2', 'b2', 'b2']);
  });

  it('serves 50 concurrent connections', async () => {
    const result = await inClient(`for i in $(seq 50); do (timeout 5 wget -qO- http://${vip(1)}:80/ || echo FAILED) & done; wait`);
    const answers = names(result.stdout);
    expect(answers).toHaveLength(50);
    expect(answers.filter((answer) => !/^b[123]$/.test(answer))).toEqual([]);
  });

  it('keeps a client on one backend with ClientIP affinity', async () => {
    const answers = await wgetMany(`${vip(2)}:80`, 6);
    expect(answers).toHaveLength(6);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toMatch(/^b[123]$/);
  });

  it('relays UDP datagrams and answers from the service address, one session per client socket', async () => {
    const session = await inClient(`/udptool ask ${vip(3)} 53 hello 3`);
    expect(session.code).toBe(0);
    const answers = names(session.stdout);
    expect(answers).toHaveLength(3);
    expect(new Set(answers).size).toBe(1);
    const seen = new Set<string>();
    for (let index = 0; index < 4; index++) seen.add(names((await inClient(`/udptool ask ${vip(3)} 53 ping`)).stdout)[0] ?? '');
    expect(seen).toEqual(new Set(['b1:ping', 'b2:ping']));
  });

  it('proxies TCP to a unix socket backend on the host', async () => {
    expect(await wgetMany(`${vip(4)}:80`, 2)).toEqual(['unix-web', 'unix-web']);
  });

  it('carries UDP to a unix socket backend framed with a 2-byte length', async () => {
    const session = await inClient(`/udptool ask ${vip(5)} 53 query 3`);
    expect(session.code).toBe(0);
    expect(names(session.stdout)).toEqual(['unix:query', 'unix:query', 'unix:query']);
  });

  it('refuses connections to a service without backends', async () => {
    const result = await inClient(`timeout 3 wget -qO- http://${vip(8)}:80/`);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/refused/i);
  });

  it('sends the clients of a restricted service (NetworkPolicy) only to backends that allow them, and drops the rest unanswered', async () => {
    const [b1, b2, b3] = backends;
    const clientIp = await dockerCli(['inspect', '--format', `{{(index .NetworkSettings.Networks "${networkName}").IPAddress}}`, client]);
    writeConfig([
      ...initialServices(),
      `service ${vip(12)} 80 tcp 0 ${b1.ip}:8080 ${b2.ip}:8080 ${b3.ip}:8080`,
      `allow ${vip(12)} 80 tcp ${b2.ip}:8080 10.${subnetOctet}.0.250 ${clientIp}`,
      `allow ${vip(12)} 80 tcp ${b3.ip}:8080 10.${subnetOctet}.0.250`,
      `service ${vip(13)} 80 tcp 0 ${b1.ip}:8080`,
      `allow ${vip(13)} 80 tcp ${b1.ip}:8080 10.${subnetOctet}.0.250`,
      `service ${vip(14)} 53 udp 0 ${b1.ip}:5353 ${b2.ip}:5353`,
      `allow ${vip(14)} 53 udp ${b1.ip}:5353 ${clientIp}`,
      `allow ${vip(14)} 53 udp ${b2.ip}:5353`,
    ]);
    await netd?.reload();
    await eventually(async () => ((await wgetMany(`${vip(12)}:80`, 1))[0] === 'b2' ? true : undefined), 'the restricted service');
    expect(await wgetMany(`${vip(12)}:80`, 6)).toEqual(['b2', 'b2', 'b2', 'b2', 'b2', 'b2']);
    const seen = new Set<string>();
    for (let index = 0; index < 4; index++) seen.add(names((await inClient(`/udptool ask ${vip(14)} 53 ping`)).stdout)[0] ?? '');
    expect(seen).toEqual(new Set(['b1:ping']));
    // no backend takes this client: its SYN is dropped by netd's own packet filter, not refused
    const denied = await inClient(`timeout 2 wget -qO- http://${vip(13)}:80/; echo exit=$?`);
    expect(denied.stdout).toContain('exit=143');
    expect(denied.stderr).not.toMatch(/refused/i);
    const logs = await run('docker', ['logs', netdId]);
    expect(logs.stderr).toMatch(/\d+ restricted by NetworkPolicy/);
    expect(logs.stderr).toMatch(/packet filter: 8 rules/);
    // lifting the restriction opens every backend again and empties the filter
    writeConfig(initialServices());
    await netd?.reload();
    await eventually(async () => ((await run('docker', ['logs', '--tail', '3', netdId])).stderr.includes('packet filter: 0 rules') ? true : undefined), 'the filter emptied');
  });

  it('opens a connection through the host tunnel with the right token', async () => {
    const [b1] = backends;
    const { socket, answer, rest } = await openTunnel(`${b1.ip}:8080`, token);
    expect(answer).toBe('OK');
    socket.write('GET / HTTP/1.0\r\n\r\n');
    const response = await readAll(socket, rest);
    expect(response).toMatch(/^HTTP\/1\.[01] 200/);
    expect(response.trim().endsWith('b1')).toBe(true);
  });

  it('refuses the tunnel with a wrong token', async () => {
    const [b1] = backends;
    const { socket, answer } = await openTunnel(`${b1.ip}:8080`, 'bad' + token);
    socket.destroy();
    expect(answer).toBe('ERR bad token');
  });

  it('passes a half-close through the tunnel and a service to a unix backend, and still carries the answer back', async () => {
    const { socket, answer, rest } = await openTunnel(`${vip(7)}:80`, token);
    expect(answer).toBe('OK');
    socket.end('twelve bytes');
    expect(await readAll(socket, rest)).toBe('got 12\n');
  });

  it('relays a large upload and the answer through the tunnel without losing bytes', async () => {
    const { socket, answer, rest } = await openTunnel(`${vip(7)}:80`, token);
    expect(answer).toBe('OK');
    const size = 8 * 1024 * 1024 + 7;
    socket.end(Buffer.alloc(size, 0x61));
    expect(await readAll(socket, rest)).toBe(`got ${size}\n`);
  });

  it('reloads on SIGHUP: adds and removes services and swaps backends without restarting', async () => {
    const [b1, b2, b3] = backends;
    const services = initialServices().filter((line) => !line.includes(` ${vip(1)} `) && !line.includes(` ${vip(2)} `));
    services.push(`service ${vip(2)} 80 tcp 10800 ${b3.ip}:8080`);
    services.push(`service ${vip(6)} 80 tcp 0 ${b1.ip}:8080 ${b2.ip}:8080`);
    writeConfig(services);
    await netd?.reload();
    await eventually(async () => ((await wgetMany(`${vip(6)}:80`, 1))[0]?.startsWith('b') ? true : undefined), 'the added service');
    const removed = await inClient(`timeout 3 wget -qO- http://${vip(1)}:80/`);
    expect(removed.code).not.toBe(0);
    expect(removed.stderr).toMatch(/refused/i);
    expect(new Set(await wgetMany(`${vip(2)}:80`, 3))).toEqual(new Set(['b3']));
    expect(new Set(await wgetMany(`${vip(6)}:80`, 4))).toEqual(new Set(['b1', 'b2']));
    const state = JSON.parse(await dockerCli(['inspect', '--format', '{{json .State}}', netdId])) as { Running: boolean; Pid: number; StartedAt: string };
    expect(state.Running).toBe(true);
    expect(await netd?.isRunning()).toBe(true);
    const logs = await run('docker', ['logs', netdId]);
    expect(logs.stderr).toMatch(/reloaded .*netd\.conf: \d+ services/);
    expect(logs.stderr).toMatch(/line skipped: this line is malformed/);
  });

  it('notices a changed config file without a signal', async () => {
    const [b1] = backends;
    writeConfig([...initialServices(), `service ${vip(9)} 80 tcp 0 ${b1.ip}:8080`]);
    await eventually(async () => ((await wgetMany(`${vip(9)}:80`, 1))[0] === 'b1' ? true : undefined), 'the service added by editing the file', 10_000);
  });

  it('adopts the running container instead of starting another', async () => {
    const endpoint = await netd?.ensureRunning();
    expect(endpoint?.containerId).toBe(netdId);
    expect(endpoint?.tunnelPort).toBe(tunnelPort);
  });

  it('exits promptly on SIGTERM with status 0, and ensureRunning then starts a fresh container', async () => {
    const started = performance.now();
    await dockerCli(['stop', '-t', '10', netdId]);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(await dockerCli(['inspect', '--format', '{{.State.ExitCode}}', netdId])).toBe('0');
    expect(await netd?.isRunning()).toBe(false);
    const endpoint = await netd?.ensureRunning();
    expect(endpoint?.containerId).not.toBe(netdId);
    netdId = endpoint?.containerId ?? '';
    tunnelPort = endpoint?.tunnelPort ?? 0;
    await eventually(async () => ((await wgetMany(`${vip(4)}:80`, 1))[0] === 'unix-web' ? true : undefined), 'the new netd to serve');
  });

  it('serves 200 sequential requests through a service address', async () => {
    const [b1] = backends;
    writeConfig([...initialServices(), `service ${vip(10)} 80 tcp 0 ${b1.ip}:8080`]);
    await netd?.reload();
    await eventually(async () => ((await wgetMany(`${vip(10)}:80`, 1))[0] === 'b1' ? true : undefined), 'the benchmark service');
    const loop = (target: string) => `for i in $(seq 200); do wget -qO- http://${target}/ >/dev/null || echo FAILED; done`;
    const timed = async (target: string) => {
      const started = performance.now();
      const result = await inClient(loop(target), 120_000);
      return { ms: Math.round(performance.now() - started), failures: (result.stdout.match(/FAILED/g) ?? []).length };
    };
    const direct = await timed(`${b1.ip}:8080`);
    const proxied = await timed(`${vip(10)}:80`);
    console.log(`200 sequential wget from one busybox container: direct ${direct.ms} ms, through kd-netd ${proxied.ms} ms`);
    expect(direct.failures).toBe(0);
    expect(proxied.failures).toBe(0);
  });
});
