// DockerRuntime against the real Docker daemon: the pause image built locally, a sandbox with an
// IP, containers joined to it, streams (logs, exec, attach, port-forward), limits, adoption by a new
// runtime instance, isolation between clusters. Everything created here carries a per-run cluster
// id and is removed in afterAll.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestImages } from '../../test/support/images';
import { RuntimeLabels, type ContainerConfig, type SandboxStatus, type StreamSession } from '../kubelet/runtime/containerRuntime';
import { DockerRuntime, ImagePullError, containerCreateOptions, ensurePauseImage, entrypointAndCmd, normalizeImageReference, splitImageReference } from './dockerRuntime';
import { parseCidr, cidrsOverlap } from '../../shared/net/ipv4';
import { pauseImageTag } from './pauseImage';

const clusterId = `t${randomBytes(6).toString('hex')}`;
const networkName = `kd-test-${clusterId}`;
const docker = new Docker();
const timings: Record<string, number> = {};
let runtime: DockerRuntime;
let busybox: string;
let sandbox: SandboxStatus;
let hostPort: number;
let pauseExisted = false;

async function timed<T>(label: string, action: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await action();
  } finally {
    timings[label] = Math.round(performance.now() - started);
  }
}

function containerConfig(name: string, command: string[], overrides: Partial<ContainerConfig> = {}): ContainerConfig {
  return {
    podUid: 'uid-1',
    podName: 'web',
    namespace: 'default',
    name,
    image: busybox,
    command,
    env: ['GREETING=hello'],
    mounts: [],
    stdin: false,
    stdinOnce: false,
    tty: false,
    resources: {},
    security: {},
    restartCount: 0,
    init: false,
    specHash: 'hash-1',
    labels: {},
    ...overrides,
  };
}

async function runContainer(name: string, command: string[], overrides: Partial<ContainerConfig> = {}): Promise<string> {
  const id = await runtime.createContainer(sandbox.id, containerConfig(name, command, overrides));
  await runtime.startContainer(id);
  return id;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function readAll(stream: Readable | undefined): Promise<string> {
  if (!stream) return Promise.resolve('');
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.on('end', () => resolve(text));
    stream.on('error', reject);
  });
}

async function sessionOutput(session: StreamSession): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  const [stdout, stderr, exitCode] = await Promise.all([readAll(session.stdout), readAll(session.stderr), session.exitCode]);
  return { stdout, stderr, exitCode };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

beforeAll(async () => {
  busybox = (await ensureTestImages()).busybox;
  try {
    await docker.getImage(pauseImageTag('amd64')).inspect();
    pauseExisted = true;
  } catch {
    pauseExisted = false;
  }
  runtime = new DockerRuntime({ clusterId, nodeName: 'node-1', networkName });
  await timed(pauseExisted ? 'pause image (present)' : 'pause image build', () => ensurePauseImage(docker));
  await timed('start (network)', () => runtime.start());
  hostPort = await freePort();
  sandbox = await timed('sandbox start', () =>
    runtime.runSandbox({
      podUid: 'uid-1',
      podName: 'web',
      namespace: 'default',
      attempt: 0,
      hostname: 'web',
      dns: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], options: ['ndots:5'] },
      hostNetwork: false,
      portMappings: [{ containerPort: 8080, hostPort, protocol: 'TCP' }],
      labels: { 'app.example/tier': 'web' },
    }),
  );
}, 60_000);

afterAll(async () => {
  await runtime?.removeClusterResources();
  if (!pauseExisted) {
    // Other clusters may be using it: Docker refuses to remove an image in use, which is fine.
    await docker
      .getImage(pauseImageTag('amd64'))
      .remove()
      .catch(() => undefined);
  }
  console.log('DockerRuntime timings (ms):', timings);
}, 60_000);

describe('DockerRuntime on the real Docker daemon', () => {
  it('builds the pause image and starts a sandbox with an IP in the lower half of the cluster subnet', async () => {
    const { network, pauseImage } = await runtime.start();
    expect(pauseImage).toMatch(/^kubedesk\/pause:[0-9a-f]{12}$/);
    expect(network.subnet).toMatch(/^10\.\d+\.0\.0\/16$/);
    expect(network.serviceRange).toMatch(/^10\.\d+\.128\.0\/17$/);
    const podRange = parseCidr(network.podRange);
    const ip = parseCidr(`${sandbox.ip}/32`);
    expect(sandbox.state).toBe('ready');
    expect(podRange && ip && cidrsOverlap(podRange, ip)).toBe(true);

    const info = await docker.getContainer(sandbox.id).inspect();
    expect(info.Name).toBe(`/kd-${clusterId.slice(0, 8)}_k8s_POD_web_default_uid-1_0`);
    expect(info.Config.Hostname).toBe('web');
    expect(info.HostConfig.Init).toBe(true);
    expect(info.HostConfig.IpcMode).toBe('shareable');
    expect(info.HostConfig.Dns).toEqual(['10.96.0.10']);
    expect(info.HostConfig.DnsOptions).toEqual(['ndots:5']);
    expect(info.HostConfig.PortBindings).toEqual({ '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: String(hostPort) }] });
    expect(info.Config.Labels).toMatchObject({ [RuntimeLabels.cluster]: clusterId, [RuntimeLabels.node]: 'node-1', [RuntimeLabels.type]: 'podsandbox', 'app.example/tier': 'web' });
  });

  it('runs httpd in a container joined to the sandbox and reaches it from the host through portForward and the hostPort', async () => {
    const id = await timed('container create + start', () =>
      runContainer('httpd', ['sh', '-c', 'mkdir -p /www && echo "hello $GREETING" > /www/index.html && exec httpd -f -p 8080 -h /www']),
    );
    const page = await until('httpd answers through portForward', async () => {
      const socket = await runtime.portForward(sandbox.id, 8080);
      socket.end('GET / HTTP/1.0\r\nHost: web\r\n\r\n');
      const response = await readAll(socket);
      return response.includes('200 OK') ? response : undefined;
    });
    expect(page).toContain('hello hello');
    const viaHostPort = await fetch(`http://127.0.0.1:${hostPort}/`);
    expect(await viaHostPort.text()).toBe('hello hello\n');
    const info = await docker.getContainer(id).inspect();
    expect(info.HostConfig.NetworkMode).toBe(`container:${sandbox.id}`);
    expect(info.HostConfig.RestartPolicy?.Name).toBe('no');
    expect(info.Config.Hostname).toBe('web');
  });

  it('follows logs to the end with RFC 3339 timestamps, merging stdout and stderr', async () => {
    const id = await runContainer('logger', ['sh', '-c', 'for i in 1 2 3; do echo line$i; sleep 0.1; done; echo oops >&2']);
    const followed = await readAll(await runtime.logs(id, { follow: true, timestamps: true }));
    const lines = followed.trim().split('\n');
    expect(lines.map((line) => line.replace(/^\S+ /, ''))).toEqual(['line1', 'line2', 'line3', 'oops']);
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z /);
    expect(await readAll(await runtime.logs(id, { follow: false, timestamps: false, tailLines: 2 }))).toBe('line3\noops\n');
    expect(await readAll(await runtime.logs(id, { follow: false, timestamps: false, limitBytes: 8 }))).toBe('line1\nli');
  });

  it('runs exec with separate stdout and stderr and reports exit code 3', async () => {
    const id = await runContainer('shell', ['sleep', '600']);
    const session = await timed('exec round trip', async () =>
      sessionOutput(await runtime.exec(id, ['sh', '-c', 'echo out; echo err >&2; exit 3'], { stdin: false, stdout: true, stderr: true, tty: false })),
    );
    expect(session).toEqual({ stdout: 'out\n', stderr: 'err\n', exitCode: 3 });

    const echo = await runtime.exec(id, ['cat'], { stdin: true, stdout: true, stderr: true, tty: false });
    echo.stdin?.end('hello through stdin\n');
    expect(await sessionOutput(echo)).toEqual({ stdout: 'hello through stdin\n', stderr: '', exitCode: 0 });

    const tty = await runtime.exec(id, ['sh', '-c', 'echo tty-out; echo tty-err >&2'], { stdin: false, stdout: true, stderr: true, tty: true });
    expect(tty.stderr).toBeUndefined();
    const ttyOutput = await sessionOutput(tty);
    expect(ttyOutput.stdout).toBe('tty-out\r\ntty-err\r\n');
  });

  it('returns execSync output and exit codes and gives up at the timeout', async () => {
    const id = (await runtime.listContainers()).find((container) => container.name === 'shell')?.id ?? '';
    expect(await runtime.execSync(id, ['sh', '-c', 'echo hi; echo there >&2; exit 2'], 5_000)).toEqual({ exitCode: 2, stdout: 'hi\n', stderr: 'there\n', timedOut: false });
    const started = Date.now();
    const result = await runtime.execSync(id, ['sleep', '5'], 300);
    expect(result.timedOut).toBe(true);
    // it gave up before the command would have ended
    expect(Date.now() - started).toBeLessThan(4_500);
  });

  it('attaches to a container with stdin and gets its output and exit code', async () => {
    const id = await runContainer('reader', ['sh', '-c', 'read line; echo got:$line; exit 7'], { stdin: true, stdinOnce: true });
    const session = await runtime.attach(id, { stdin: true, stdout: true, stderr: true, tty: false });
    session.stdin?.write('abc\n');
    const output = await sessionOutput(session);
    expect(output).toEqual({ stdout: 'got:abc\n', stderr: '', exitCode: 7 });
  });

  it('sets entrypoint, cmd, limits, user and capabilities as Kubernetes specifies', async () => {
    const id = await runtime.createContainer(
      sandbox.id,
      containerConfig('limited', ['sleep'], {
        args: ['600'],
        workingDir: '/tmp',
        resources: { cpuMillis: 500, cpuRequestMillis: 250, memoryLimitBytes: 64 * 1024 * 1024 },
        security: { runAsUser: 1000, runAsGroup: 3000, supplementalGroups: [4000], capabilitiesDrop: ['ALL'], capabilitiesAdd: ['NET_BIND_SERVICE'], readOnlyRootFilesystem: true },
        tmpfs: { '/cache': 'size=1m' },
      }),
    );
    const info = await docker.getContainer(id).inspect();
    expect(info.Config.Entrypoint).toEqual(['sleep']);
    expect(info.Config.Cmd).toEqual(['600']);
    expect(info.Config.WorkingDir).toBe('/tmp');
    expect(info.Config.User).toBe('1000:3000');
    expect(info.HostConfig).toMatchObject({ NanoCpus: 500_000_000, CpuShares: 256, Memory: 64 * 1024 * 1024, MemorySwap: 64 * 1024 * 1024, GroupAdd: ['4000'], CapDrop: ['ALL'], CapAdd: ['NET_BIND_SERVICE'], ReadonlyRootfs: true, Tmpfs: { '/cache': 'size=1m' } });
    await runtime.startContainer(id);
    const ids = await runtime.execSync(id, ['id'], 5_000);
    expect(ids.stdout).toContain('uid=1000 gid=3000');

    // `command` without `args` must not inherit the image's CMD (busybox image: CMD ["sh"]).
    const noArgs = await runtime.createContainer(sandbox.id, containerConfig('no-args', ['echo']));
    expect((await docker.getContainer(noArgs).inspect()).Config.Cmd).toBeNull();
    const stats = await until('stats of a running container', async () => {
      const sample = await runtime.stats(id);
      return sample && sample.memoryWorkingSetBytes > 0 ? sample : undefined;
    });
    expect(stats.cpuUsageNanoSeconds).toBeGreaterThan(0);
  });

  it('reads a termination message from an exited container and reports its exit', async () => {
    const id = await runContainer('finisher', ['sh', '-c', 'printf "bye now" > /tmp/termination-log; exit 1'], { terminationMessagePath: '/tmp/termination-log' });
    const status = await until('the container exits', async () => {
      const current = await runtime.containerStatus(id);
      return current?.state === 'exited' ? current : undefined;
    });
    expect(status).toMatchObject({ exitCode: 1, reason: 'Error', name: 'finisher', podUid: 'uid-1', sandboxId: sandbox.id, restartCount: 0, specHash: 'hash-1' });
    expect(status.imageId).toMatch(/^docker:\/\/sha256:[0-9a-f]{64}$/);
    // Docker records StartedAt after runc returns, so a process this short may finish "before" it started.
    expect(status.startedAt).toBeInstanceOf(Date);
    expect(status.finishedAt).toBeInstanceOf(Date);
    expect(await runtime.readFile(id, '/tmp/termination-log', 1024)).toBe('bye now');
    expect(await runtime.readFile(id, '/tmp/termination-log', 3)).toBe('bye');
    expect(await runtime.readFile(id, '/tmp/absent', 1024)).toBeUndefined();
  });

  it('reports OOMKilled when a container exceeds its memory limit', async () => {
    const id = await runContainer('hog', ['sh', '-c', 'tail /dev/zero'], { resources: { memoryLimitBytes: 16 * 1024 * 1024 } });
    const status = await until('the container is OOM-killed', async () => {
      const current = await runtime.containerStatus(id);
      return current?.state === 'exited' ? current : undefined;
    });
    expect(status).toMatchObject({ reason: 'OOMKilled', exitCode: 137 });
  });

  it('stops a container with SIGTERM (143) quickly and kills one that ignores it (137) after the timeout', async () => {
    const polite = await runContainer('polite', ['sh', '-c', 'trap "exit 143" TERM; while :; do sleep 0.05; done']);
    const stubborn = await runContainer('stubborn', ['sleep', '600']);
    await timed('stop with SIGTERM handled', () => runtime.stopContainer(polite, 5));
    await timed('stop with SIGKILL after 1 s', () => runtime.stopContainer(stubborn, 1));
    expect((await runtime.containerStatus(polite))?.exitCode).toBe(143);
    expect((await runtime.containerStatus(stubborn))?.exitCode).toBe(137);
    // handled SIGTERM: the stop did not wait out the 5 s grace period
    expect(timings['stop with SIGTERM handled']).toBeLessThan(4_000);
    expect(timings['stop with SIGKILL after 1 s']).toBeGreaterThanOrEqual(900);
  });

  it('lets a new runtime with the same cluster and node adopt the containers, and hides them from other clusters and nodes', async () => {
    const adopted = new DockerRuntime({ clusterId, nodeName: 'node-1', networkName });
    const mine = await runtime.listContainers();
    const theirs = await adopted.listContainers();
    expect(theirs.map((container) => container.id).sort()).toEqual(mine.map((container) => container.id).sort());
    expect(theirs.map((container) => container.name)).toEqual(expect.arrayContaining(['httpd', 'logger', 'shell', 'reader', 'finisher']));
    expect((await adopted.listSandboxes()).map((entry) => entry.id)).toEqual([sandbox.id]);
    expect((await adopted.listSandboxes())[0]).toMatchObject({ podUid: 'uid-1', podName: 'web', namespace: 'default', attempt: 0, state: 'ready', ip: sandbox.ip });

    const otherCluster = new DockerRuntime({ clusterId: `${clusterId}x`, nodeName: 'node-1', networkName: `${networkName}x` });
    expect(await otherCluster.listContainers()).toEqual([]);
    expect(await otherCluster.listSandboxes()).toEqual([]);
    expect(await otherCluster.containerStatus(mine[0].id)).toBeUndefined();
    const otherNode = new DockerRuntime({ clusterId, nodeName: 'node-2', networkName });
    expect(await otherNode.listContainers()).toEqual([]);
  });

  it('runs a program in the sandbox network namespace with CAP_NET_ADMIN, which app containers lack', async () => {
    const repository = join(__dirname, '..', '..');
    execFileSync(process.execPath, [join(repository, 'scripts', 'buildNetd.mjs')], { stdio: 'inherit' });
    const executablePath = join(repository, 'dist', 'netd', `kd-netpol-linux-${process.arch === 'arm64' ? 'arm64' : 'amd64'}`);
    // never run there: nothing to undo
    expect(await runtime.runInSandboxNetwork(sandbox.id, { executablePath, args: ['apply'], onlyIfUsedBefore: true })).toBeUndefined();
    const applied = await timed('kd-netpol apply (exec)', () =>
      runtime.runInSandboxNetwork(sandbox.id, { executablePath, args: ['apply', 'policy input drop', 'accept input in lo', 'accept input proto tcp dport 8080'] }),
    );
    expect(applied).toEqual({ exitCode: 0, stdout: '', stderr: '', timedOut: false });
    const dumped = await runtime.runInSandboxNetwork(sandbox.id, { executablePath, args: ['dump'], onlyIfUsedBefore: true });
    expect(dumped?.stdout).toContain(':INPUT DROP [');
    expect(dumped?.stdout).toContain('-A INPUT -p tcp -m tcp --dport 8080 -j ACCEPT\n');
    // the app container shares the namespace but may not change it
    const app = await runContainer('netadmin', ['sleep', '600']);
    const refused = await runtime.execSync(app, ['ip', 'route', 'add', '10.254.0.0/16', 'dev', 'lo'], 10_000);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toMatch(/not permitted/i);
    const cleared = await runtime.runInSandboxNetwork(sandbox.id, { executablePath, args: ['apply'], onlyIfUsedBefore: true });
    expect(cleared?.exitCode).toBe(0);
    const open = await runtime.runInSandboxNetwork(sandbox.id, { executablePath, args: ['dump'] });
    expect(open?.stdout).toBe('*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n');
    const bad = await runtime.runInSandboxNetwork(sandbox.id, { executablePath, args: ['apply', 'accept sideways'] });
    expect(bad).toMatchObject({ exitCode: 2, stderr: 'kd-netpol: rule 1 "accept sideways": expected a chain: input, forward or output\n' });

    // a sandbox made without the capability (before kubedesk added it) is reached through a helper container
    const { pauseImage } = await runtime.start();
    const old = await docker.createContainer({
      name: `kd-${clusterId.slice(0, 8)}_k8s_POD_old_default_uid-old_0`,
      Image: pauseImage,
      Labels: { [RuntimeLabels.cluster]: clusterId, [RuntimeLabels.node]: 'node-1', [RuntimeLabels.type]: 'podsandbox', [RuntimeLabels.podUid]: 'uid-old' },
      HostConfig: { NetworkMode: networkName, Init: true },
    });
    await old.start();
    const helped = await timed('kd-netpol apply (helper container)', () => runtime.runInSandboxNetwork(old.id, { executablePath, args: ['apply', 'policy output drop', 'accept output out lo'] }));
    expect(helped).toEqual({ exitCode: 0, stdout: '', stderr: '', timedOut: false });
    const helpedDump = await runtime.runInSandboxNetwork(old.id, { executablePath, args: ['dump'] });
    expect(helpedDump?.stdout).toContain(':OUTPUT DROP [');
    expect(helpedDump?.stdout).toContain('-A OUTPUT -o lo -j ACCEPT\n');
    const helpers = await docker.listContainers({ all: true, filters: { label: [`${RuntimeLabels.cluster}=${clusterId}`, `${RuntimeLabels.type}=network-helper`] } });
    expect(helpers).toEqual([]);
    await runtime.removeSandbox(old.id);
  });

  it('puts a container in a target container\'s processes, the sandbox\'s, or the host\'s namespaces', async () => {
    const target = await runContainer('pid-target', ['sleep', '601']);
    const debug = await runContainer('pid-debugger', ['sleep', '602'], { namespaces: { pid: 'target', targetId: target, ipc: 'pod' } });
    expect((await docker.getContainer(debug).inspect()).HostConfig).toMatchObject({ PidMode: `container:${target}`, IpcMode: `container:${sandbox.id}`, NetworkMode: `container:${sandbox.id}` });
    const seen = await runtime.execSync(debug, ['ps', '-o', 'args'], 5_000);
    expect(seen.stdout).toContain('sleep 601');
    expect(seen.stdout).toContain('sleep 602');
    // a container with processes of its own sees neither
    const own = await runContainer('pid-own', ['sleep', '605']);
    const ownView = (await runtime.execSync(own, ['ps', '-o', 'args'], 5_000)).stdout;
    expect(ownView).toContain('sleep 605');
    expect(ownView).not.toContain('sleep 601');

    const shared = await runContainer('pid-shared', ['sleep', '603'], { namespaces: { pid: 'pod', ipc: 'pod' } });
    expect((await runtime.execSync(shared, ['ps', '-o', 'args'], 5_000)).stdout).toContain('/pause');

    const hostSandbox = await runtime.runSandbox({ podUid: 'uid-node', podName: 'node-debugger', namespace: 'default', attempt: 0, hostname: 'node', hostNetwork: true, hostPID: true, hostIPC: true, portMappings: [], labels: {} });
    try {
      expect((await docker.getContainer(hostSandbox.id).inspect()).HostConfig).toMatchObject({ NetworkMode: 'host', PidMode: 'host', IpcMode: 'host' });
      const onHost = await runtime.createContainer(hostSandbox.id, containerConfig('node-shell', ['sleep', '604'], { podUid: 'uid-node', podName: 'node-debugger', namespaces: { pid: 'node', ipc: 'node' } }));
      await runtime.startContainer(onHost);
      expect((await docker.getContainer(onHost).inspect()).HostConfig).toMatchObject({ PidMode: 'host', IpcMode: 'host', NetworkMode: `container:${hostSandbox.id}` });
      // the host's processes include this cluster's other containers
      expect((await runtime.execSync(onHost, ['ps', '-o', 'args'], 5_000)).stdout).toContain('sleep 601');
    } finally {
      for (const container of await runtime.listContainers()) if (container.podUid === 'uid-node') await runtime.removeContainer(container.id);
      await runtime.removeSandbox(hostSandbox.id);
    }
    for (const id of [debug, shared, own, target]) await runtime.removeContainer(id);
  });

  it('stops the sandbox fast thanks to docker-init', async () => {
    await timed('sandbox stop', () => runtime.stopSandbox(sandbox.id, 10));
    // docker-init passed SIGTERM on: the stop did not wait out the 10 s grace period for SIGKILL
    expect(timings['sandbox stop']).toBeLessThan(8_000);
    expect((await runtime.listSandboxes())[0].state).toBe('notready');
  });

  it('answers image status and fails a pull fast with the registry message', async () => {
    expect((await runtime.imageStatus(busybox))?.id).toMatch(/^sha256:/);
    expect(await runtime.imageStatus('kubedesk-test/absent')).toBeUndefined();
    const started = Date.now();
    const failure = await runtime.pullImage('kubedesk-test/absent:1', undefined, () => undefined).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ImagePullError);
    // Offline: "Get https://registry-1.docker.io/v2/: dial tcp: lookup …"; online: "pull access denied …".
    expect(String(failure)).toMatch(/Error response from daemon: \S.+/);
    await expect(runtime.exec(sandbox.id, ['true'], { stdin: false, stdout: true, stderr: true, tty: false })).rejects.toThrow(/is not running/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('reports the engine', async () => {
    expect(await runtime.ping()).toBe(true);
    const info = await runtime.info();
    expect(info.runtimeName).toBe('docker');
    expect(info.runtimeVersion).toMatch(/^\d+\./);
    expect(info.cpus).toBeGreaterThan(0);
    expect(await new DockerRuntime({ clusterId, nodeName: 'n', networkName, socketPath: '/nonexistent/docker.sock' }).ping()).toBe(false);
  });
});

describe('DockerRuntime against a daemon that stops answering', () => {
  it('aborts a pull that reports no progress and reports ping false on a hung daemon', async () => {
    const socketPath = join(mkdtempSync(join(tmpdir(), 'kubedesk-hung-docker-')), 'docker.sock');
    const server = createHttpServer((request, response) => {
      // Accept the pull, send one progress event, then go silent; hang every other request.
      if (request.url?.startsWith('/images/create')) {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.write('{"status":"Pulling from library/slow"}\n');
      }
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const hung = new DockerRuntime({ clusterId, nodeName: 'node-1', networkName, socketPath, pullInactivityTimeoutMs: 300 });
      const progress: string[] = [];
      const started = Date.now();
      await expect(hung.pullImage('slow', undefined, (event) => progress.push(event.status))).rejects.toThrow('Error response from daemon: no progress from Docker for 0.3 s');
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(progress).toEqual(['Pulling from library/slow']);
      expect(await hung.ping()).toBe(false);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('containerCreateOptions', () => {
  const base: ContainerConfig = {
    podUid: 'uid-1', podName: 'web', namespace: 'default', name: 'debugger', image: 'busybox', env: [], mounts: [], stdin: true, stdinOnce: false, tty: true,
    resources: {}, security: {}, restartCount: 0, init: false, specHash: 'h', labels: {},
  };
  const create = (overrides: Partial<ContainerConfig>) => containerCreateOptions('c1', 'sandbox-1', { ...base, ...overrides }, { [RuntimeLabels.cluster]: 'c1' });

  it.each([
    ['its own processes and the sandbox IPC by default', {}, { NetworkMode: 'container:sandbox-1', IpcMode: 'container:sandbox-1' }, ['PidMode']],
    ['the sandbox processes (shareProcessNamespace)', { namespaces: { pid: 'pod', ipc: 'pod' } }, { PidMode: 'container:sandbox-1', IpcMode: 'container:sandbox-1' }, []],
    ['a target container\'s processes', { namespaces: { pid: 'target', targetId: 'app-7', ipc: 'pod' } }, { PidMode: 'container:app-7' }, []],
    ['the host processes and IPC', { namespaces: { pid: 'node', ipc: 'node' } }, { PidMode: 'host', IpcMode: 'host', NetworkMode: 'container:sandbox-1' }, []],
    ['privileged (the sysadmin profile)', { security: { privileged: true } }, { Privileged: true }, ['SecurityOpt']],
    ['added capabilities (general, netadmin)', { security: { capabilitiesAdd: ['NET_ADMIN', 'NET_RAW'] } }, { CapAdd: ['NET_ADMIN', 'NET_RAW'], Privileged: false }, ['CapDrop']],
    [
      'the restricted profile: drop all, no_new_privs, the default seccomp',
      { security: { capabilitiesDrop: ['ALL'], noNewPrivileges: true, seccomp: 'RuntimeDefault' } },
      { CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges:true'] },
      ['CapAdd'],
    ],
    ['seccomp Unconfined', { security: { seccomp: 'Unconfined' } }, { SecurityOpt: ['seccomp=unconfined'] }, []],
  ] as Array<[string, Partial<ContainerConfig>, Record<string, unknown>, string[]]>)('%s', (_name, overrides, expected, absent) => {
    const hostConfig = create(overrides).HostConfig as Record<string, unknown>;
    expect(hostConfig).toMatchObject(expected);
    for (const key of absent) expect(hostConfig).not.toHaveProperty(key);
  });

  it('keeps stdin open for attach without closing it after the first client, with a tty and the adoption labels', () => {
    const options = create({});
    expect(options).toMatchObject({ name: 'kd-c1_k8s_debugger_web_default_uid-1_0', Image: 'busybox', OpenStdin: true, StdinOnce: false, Tty: true, AttachStdin: true });
    expect(options.Labels).toMatchObject({ [RuntimeLabels.cluster]: 'c1', [RuntimeLabels.containerName]: 'debugger', [RuntimeLabels.sandboxId]: 'sandbox-1', [RuntimeLabels.init]: 'false', [RuntimeLabels.restartCount]: '0' });
  });
});

describe('image references and command mapping', () => {
  it.each([
    ['busybox', 'busybox:latest'],
    ['busybox:1.36', 'busybox:1.36'],
    ['localhost:5000/app', 'localhost:5000/app:latest'],
    ['localhost:5000/app:v1', 'localhost:5000/app:v1'],
    ['repo/app@sha256:abc', 'repo/app@sha256:abc'],
  ])('normalizes %s to %s', (reference, expected) => {
    expect(normalizeImageReference(reference)).toBe(expected);
  });

  it('splits references into repository and tag or digest', () => {
    expect(splitImageReference('localhost:5000/app')).toEqual({ repository: 'localhost:5000/app', tag: 'latest' });
    expect(splitImageReference('repo/app@sha256:abc')).toEqual({ repository: 'repo/app', tag: 'sha256:abc' });
  });

  it.each([
    [undefined, undefined, {}],
    [['sh'], undefined, { Entrypoint: ['sh'] }],
    [undefined, ['-c', 'x'], { Cmd: ['-c', 'x'] }],
    [['sh'], ['-c', 'x'], { Entrypoint: ['sh'], Cmd: ['-c', 'x'] }],
    [[], [], {}],
  ])('maps command %j and args %j', (command, args, expected) => {
    expect(entrypointAndCmd(command, args)).toEqual(expected);
  });
});
