// The pod lifecycle on Docker, driven by the real kubectl 1.35 against one real `kubedesk serve`:
// the pod lifecycle as a user meets it: crash loops, image pull failures, restarts after `docker kill`,
// restart policies, init containers, probes, volumes and env, resources and QoS, securityContext and
// graceful deletion. Expected texts are upstream's (kubectl's printers and describers, the kubelet's
// event reasons and messages), so a real cluster would pass the same assertions.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { backgroundKubectl, type BackgroundCommand } from '../support/processes';
import { kubectlOk, kubectlState, until } from '../support/wait';

const run = promisify(execFile);

let cluster: TestCluster;
let hostDirectory: string;
let markerDirectory: string;
let podWatch: BackgroundCommand | undefined;

/** STATUS values that `kubectl get pods -w` printed for each pod, consecutive repeats folded. */
const statusTimeline = new Map<string, string[]>();

const ok = (...args: string[]) => kubectlOk(cluster, args);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Matches one line of the Events table of `kubectl describe`. kubectl 1.35 puts the event's
 * involvedObject.fieldPath (`spec.containers{app}: `) in front of the message.
 */
function eventLine(type: 'Normal' | 'Warning', reason: string, message: string): RegExp {
  return new RegExp(`^\\s+${type}\\s+${reason}\\s+.*\\s+kubelet\\s+(?:spec\\.(?:initC|c)ontainers\\{[^}]+\\}: )?${escapeRegExp(message)}`, 'm');
}

/** Waits like until(), adding the pod's `kubectl describe` to a timeout so failures explain themselves. */
function untilPod<T>(podName: string, what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000, intervalMs = 500): Promise<T> {
  return until(what, probe, timeoutMs, intervalMs, kubectlState(cluster, ['describe', 'pod', podName]));
}

interface PodRow {
  ready: string;
  status: string;
  restarts: number;
}

/** One pod's line of `kubectl get pod NAME` (NAME READY STATUS RESTARTS AGE). */
async function podRow(name: string): Promise<PodRow> {
  const line = (await ok('get', 'pod', name, '--no-headers')).trim();
  return parseRow(line).row;
}

function parseRow(line: string): { name: string; row: PodRow } {
  // RESTARTS reads `2 (5s ago)` once a container restarted, so the fields are taken from the left.
  const [name = '', ready = '', status = '', restarts = ''] = line.trim().split(/\s+/);
  return { name, row: { ready, status, restarts: Number.parseInt(restarts, 10) } };
}

function recordWatchOutput(): void {
  if (!podWatch) return;
  statusTimeline.clear();
  for (const line of podWatch.output().split('\n')) {
    if (!line.trim() || line.startsWith('NAME ')) continue;
    const { name, row } = parseRow(line);
    const seen = statusTimeline.get(name) ?? [];
    if (seen.at(-1) !== row.status) seen.push(row.status);
    statusTimeline.set(name, seen);
  }
}

function timelineOf(name: string): string[] {
  recordWatchOutput();
  return statusTimeline.get(name) ?? [];
}

interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  containerID?: string;
  state?: Record<string, Record<string, unknown>>;
  lastState?: Record<string, Record<string, unknown>>;
}

interface PodJson {
  metadata: { uid: string; name: string };
  spec: { nodeName?: string };
  status: {
    phase?: string;
    podIP?: string;
    qosClass?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

async function getPod(name: string): Promise<PodJson> {
  const reply = await cluster.request('GET', `/api/v1/namespaces/default/pods/${name}`);
  if (reply.status !== 200) throw new Error(`GET pod ${name}: ${reply.status} ${reply.body}`);
  return JSON.parse(reply.body) as PodJson;
}

function containerStatus(pod: PodJson, container: string): ContainerStatus | undefined {
  return pod.status.containerStatuses?.find((status) => status.name === container);
}

function podCondition(pod: PodJson, type: string): string | undefined {
  return pod.status.conditions?.find((condition) => condition.type === type)?.status;
}

async function waitForRunning(name: string, timeoutMs = 60_000): Promise<PodJson> {
  return untilPod(name, `pod ${name} to run`, async () => {
    const pod = await getPod(name);
    const statuses = pod.status.containerStatuses ?? [];
    return pod.status.phase === 'Running' && statuses.length > 0 && statuses.every((status) => status.state?.running) ? pod : undefined;
  }, timeoutMs);
}

async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { timeout: 30_000 });
  return stdout;
}

/** Docker container ids of a pod (by uid, since other clusters on this daemon reuse pod names). */
async function podContainers(uid: string, container?: string, all = false): Promise<string[]> {
  const filters = ['--filter', `label=io.kubernetes.pod.uid=${uid}`];
  if (container) filters.push('--filter', `label=io.kubernetes.container.name=${container}`);
  const out = await docker('ps', ...(all ? ['-a'] : []), ...filters, '-q');
  return out.split('\n').map((line) => line.trim()).filter(Boolean);
}

async function exec(pod: string, container: string, ...command: string[]) {
  return cluster.kubectl(['exec', pod, '-c', container, '--', ...command]);
}

async function execOk(pod: string, container: string, ...command: string[]): Promise<string> {
  return ok('exec', pod, '-c', container, '--', ...command);
}

/** HTTPS to the API server as someone else: the given bearer token, trusting the given CA. */
function requestAs(token: string, caPem: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      new URL(path, cluster.server),
      { method: 'GET', headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, ca: caPem, agent: false, timeout: 30_000 },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`GET ${path} timed out`)));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

type Manifest = Record<string, unknown>;

function pod(name: string, spec: Manifest, metadata: Manifest = {}): Manifest {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { suite: 'pod-lifecycle', app: name }, ...metadata }, spec };
}

function shell(name: string, script: string, extra: Manifest = {}): Manifest {
  return { name, image: busyboxImage, command: ['sh', '-c', script], ...extra };
}

const sleepForever = 'exec sleep 3600';

function manifests(): Manifest[] {
  const hostPathVolume = (name: string, path: string) => ({ name, hostPath: { path, type: 'Directory' } });
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { color: 'blue', size: '3' } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, stringData: { password: 's3cr3t' } },

    pod('crasher', { containers: [shell('crasher', 'echo boom-$RANDOM; exit 1')] }),
    pod('pull-missing', { containers: [{ name: 'app', image: 'kubedesk-test/does-not-exist:1' }] }),
    pod('victim', { containers: [shell('app', sleepForever)] }),

    pod('never-ok', { restartPolicy: 'Never', containers: [shell('app', 'exit 0')] }),
    pod('never-fail', { restartPolicy: 'Never', containers: [shell('app', 'exit 1')] }),
    pod('onfailure-ok', { restartPolicy: 'OnFailure', containers: [shell('app', 'exit 0')] }),
    pod('onfailure-fail', { restartPolicy: 'OnFailure', containers: [shell('app', 'exit 1')] }),

    pod('init-order', {
      volumes: [{ name: 'work', emptyDir: {} }],
      initContainers: [
        shell('first', 'sleep 2; echo first >> /work/order', { volumeMounts: [{ name: 'work', mountPath: '/work' }] }),
        // Fails (and would be restarted, leaving a restartCount) unless the first one already ran.
        shell('second', 'test -f /work/order || exit 1; sleep 2; echo second >> /work/order', { volumeMounts: [{ name: 'work', mountPath: '/work' }] }),
      ],
      containers: [shell('app', `echo app >> /work/order; ${sleepForever}`, { volumeMounts: [{ name: 'work', mountPath: '/work' }] })],
    }),

    pod('liveness', {
      containers: [
        shell('app', `touch /tmp/healthy; sleep 3; rm -f /tmp/healthy; ${sleepForever}`, {
          livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, initialDelaySeconds: 1, periodSeconds: 1, failureThreshold: 2 },
        }),
      ],
    }),
    pod('readiness-fail', {
      containers: [shell('app', sleepForever, { readinessProbe: { httpGet: { path: '/', port: 8081 }, periodSeconds: 1 } })],
    }),
    pod('readiness-pass', {
      containers: [
        shell('web', 'mkdir -p /www && echo ready > /www/index.html && exec httpd -f -p 8080 -h /www', {
          ports: [{ containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/', port: 8080 }, periodSeconds: 1 },
        }),
      ],
    }),

    pod(
      'volumes',
      {
        volumes: [
          { name: 'shared', emptyDir: {} },
          { name: 'ram', emptyDir: { medium: 'Memory' } },
          hostPathVolume('host', hostDirectory),
          { name: 'config', configMap: { name: 'settings', items: [{ key: 'color', path: 'colors/current' }] } },
          { name: 'secret', secret: { secretName: 'creds' } },
          {
            name: 'podinfo',
            downwardAPI: {
              items: [
                { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
                { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
              ],
            },
          },
        ],
        containers: [
          {
            name: 'main',
            image: busyboxImage,
            command: ['sh', '-c'],
            // $(PLAIN) is the kubelet's expansion; the shell would read it as a command substitution.
            args: [`echo "$(PLAIN)" > /tmp/expanded; ${sleepForever}`],
            resources: { limits: { memory: '64Mi' } },
            env: [
              { name: 'PLAIN', value: 'plain-value' },
              { name: 'CM_COLOR', valueFrom: { configMapKeyRef: { name: 'settings', key: 'color' } } },
              { name: 'SECRET_PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
              { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
              { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
              { name: 'MEMORY_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } },
            ],
            envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'settings' } }],
            volumeMounts: [
              { name: 'shared', mountPath: '/shared' },
              { name: 'ram', mountPath: '/ram' },
              { name: 'host', mountPath: '/host' },
              { name: 'config', mountPath: '/config' },
              { name: 'secret', mountPath: '/secret' },
              { name: 'podinfo', mountPath: '/podinfo' },
            ],
          },
          shell('sidecar', `echo hello from sidecar > /shared/from-sidecar; ${sleepForever}`, { volumeMounts: [{ name: 'shared', mountPath: '/shared' }] }),
        ],
      },
      { annotations: { note: 'hello' } },
    ),

    pod('qos-besteffort', { containers: [shell('app', sleepForever)] }),
    pod('qos-burstable', { containers: [shell('app', sleepForever, { resources: { requests: { memory: '32Mi' }, limits: { memory: '96Mi' } } })] }),
    pod('qos-guaranteed', { containers: [shell('app', sleepForever, { resources: { limits: { cpu: '250m', memory: '64Mi' } } })] }),

    pod('secure', {
      containers: [shell('app', sleepForever, { securityContext: { runAsUser: 1000, readOnlyRootFilesystem: true } })],
    }),

    pod('graceful', {
      terminationGracePeriodSeconds: 5,
      volumes: [hostPathVolume('marker', markerDirectory)],
      containers: [
        shell('app', "trap 'echo sigterm $(date +%s) >> /marker/log; exit 0' TERM; while true; do sleep 1; done", {
          volumeMounts: [{ name: 'marker', mountPath: '/marker' }],
          lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo prestop $(date +%s) >> /marker/log'] } } },
        }),
      ],
    }),
  ];
}

beforeAll(async () => {
  cluster = await startCluster();
  // Bind-mounted into containers that run as root; world-writable so the marker can be written.
  hostDirectory = mkdtempSync(join(tmpdir(), 'kubedesk-hostpath-'));
  writeFileSync(join(hostDirectory, 'hello.txt'), 'from the host\n');
  markerDirectory = mkdtempSync(join(tmpdir(), 'kubedesk-marker-'));
  chmodSync(hostDirectory, 0o777);
  chmodSync(markerDirectory, 0o777);
  // The default service account must exist before pods that mount its token are admitted.
  await until('the default service account', async () => ((await cluster.kubectl(['get', 'serviceaccount', 'default'])).code === 0 ? true : undefined), 30_000);
  podWatch = backgroundKubectl(cluster, ['get', 'pods', '-w']);
  await until('the pod watch to start', async () => (podWatch?.output().includes('No resources') || podWatch?.errors().includes('No resources') ? true : undefined), 10_000, 100).catch(() => undefined);
  // Everything starts at once so the slow parts (back-offs, probes, configMap sync) overlap.
  // A stream of documents, not a v1 List: kubectl validates a List against /openapi/v2.
  const created = await cluster.kubectl(['create', '-f', '-'], { input: manifests().map((manifest) => JSON.stringify(manifest)).join('\n---\n') });
  if (created.code !== 0) throw new Error(`creating the pods failed: ${created.stderr}${created.stdout}`);
}, 180_000);

afterAll(async () => {
  podWatch?.child.kill();
  recordWatchOutput();
  if (statusTimeline.size > 0) {
    console.log(`STATUS timelines seen by kubectl get pods -w:\n${[...statusTimeline].map(([name, seen]) => `  ${name}: ${seen.join(' → ')}`).join('\n')}`);
  }
  await cluster?.destroy();
  for (const directory of [hostDirectory, markerDirectory]) if (directory && existsSync(directory)) rmSync(directory, { recursive: true, force: true });
}, 180_000);

describe('volumes and environment inside the container', () => {
  it('shares an emptyDir between two containers, mounts a Memory emptyDir as tmpfs and a hostPath', async () => {
    await waitForRunning('volumes');
    expect(await until('the sidecar file', async () => (await exec('volumes', 'main', 'cat', '/shared/from-sidecar')).stdout || undefined, 20_000)).toBe('hello from sidecar\n');
    expect(await execOk('volumes', 'main', 'sh', '-c', 'mount | grep " /ram "')).toMatch(/^tmpfs on \/ram type tmpfs/m);
    expect(await execOk('volumes', 'main', 'cat', '/host/hello.txt')).toBe('from the host\n');
  });

  it('projects configMap items, secrets and the downward API into files', async () => {
    expect(await execOk('volumes', 'main', 'ls', '/config')).toBe('colors\n');
    expect(await execOk('volumes', 'main', 'cat', '/config/colors/current')).toBe('blue');
    expect(await execOk('volumes', 'main', 'cat', '/secret/password')).toBe('s3cr3t');
    const labels = await execOk('volumes', 'main', 'cat', '/podinfo/labels');
    expect(labels.split('\n')).toEqual(expect.arrayContaining(['app="volumes"', 'suite="pod-lifecycle"']));
    expect((await execOk('volumes', 'main', 'cat', '/podinfo/annotations')).split('\n')).toContain('note="hello"');
    expect(await execOk('volumes', 'main', 'cat', '/podinfo/name')).toBe('volumes');
  });

  it('resolves env values, references, envFrom with a prefix, service variables and $(VAR) in args', async () => {
    const pod = await getPod('volumes');
    const environment = new Map(
      (await execOk('volumes', 'main', 'env'))
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
    );
    expect(Object.fromEntries(['PLAIN', 'CM_COLOR', 'SECRET_PASSWORD', 'POD_NAME', 'MEMORY_LIMIT', 'CFG_color', 'CFG_size'].map((key) => [key, environment.get(key)]))).toEqual({
      PLAIN: 'plain-value',
      CM_COLOR: 'blue',
      SECRET_PASSWORD: 's3cr3t',
      POD_NAME: 'volumes',
      MEMORY_LIMIT: String(64 * 1024 * 1024),
      CFG_color: 'blue',
      CFG_size: '3',
    });
    expect(pod.status.podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(environment.get('POD_IP')).toBe(pod.status.podIP);
    expect(environment.get('NODE_NAME')).toBe(pod.spec.nodeName);
    expect(environment.get('KUBERNETES_SERVICE_HOST')).toMatch(/\S/);
    expect(environment.get('KUBERNETES_SERVICE_PORT')).toMatch(/^\d+$/);
    expect(await execOk('volumes', 'main', 'cat', '/tmp/expanded')).toBe('plain-value\n');
  });

  it('mounts a service-account token that the API server accepts', async () => {
    const directory = '/var/run/secrets/kubernetes.io/serviceaccount';
    expect((await execOk('volumes', 'main', 'ls', directory)).split('\n').filter(Boolean).sort()).toEqual(['ca.crt', 'namespace', 'token']);
    expect(await execOk('volumes', 'main', 'cat', `${directory}/namespace`)).toBe('default');
    const caPem = await execOk('volumes', 'main', 'cat', `${directory}/ca.crt`);
    expect(caPem).toContain('-----BEGIN CERTIFICATE-----');
    const token = (await execOk('volumes', 'main', 'cat', `${directory}/token`)).trim();
    expect(token.split('.')).toHaveLength(3);
    // The pod's own ca.crt must verify the API server, and the token must authenticate.
    const reply = await requestAs(token, caPem, '/api/v1/namespaces/default/pods');
    expect(reply.status, reply.body).not.toBe(401);
    expect([200, 403]).toContain(reply.status);
    const bogus = await requestAs(`${token.slice(0, -4)}AAAA`, caPem, '/api/v1/namespaces/default/pods');
    expect(bogus.status).toBe(401);
  });

  it('updates a configMap volume in place after the configMap changes (env keeps the old value)', async () => {
    await ok('patch', 'configmap', 'settings', '-p', '{"data":{"color":"green"}}');
    const started = Date.now();
    await untilPod('volumes', 'the new configMap value in the volume', async () => ((await exec('volumes', 'main', 'cat', '/config/colors/current')).stdout === 'green' ? true : undefined), 90_000, 1_000);
    console.log(`configMap volume updated ${Date.now() - started} ms after the patch`);
    expect((await execOk('volumes', 'main', 'env')).split('\n')).toContain('CM_COLOR=blue');
  }, 120_000);
});

describe('resources, QoS and securityContext', () => {
  it('gives Docker the memory and CPU limits of the container', async () => {
    const pod = await waitForRunning('qos-guaranteed');
    const [id] = await podContainers(pod.metadata.uid, 'app');
    expect(id).toBeDefined();
    const [memory, nanoCpus] = (await docker('inspect', '--format', '{{.HostConfig.Memory}} {{.HostConfig.NanoCpus}}', id ?? '')).trim().split(' ');
    expect(Number(memory)).toBe(64 * 1024 * 1024);
    expect(Number(nanoCpus)).toBe(250_000_000);
  });

  it.each([
    ['qos-besteffort', 'BestEffort'],
    ['qos-burstable', 'Burstable'],
    ['qos-guaranteed', 'Guaranteed'],
  ])('reports the qosClass of %s as %s', async (name, qosClass) => {
    expect(await ok('get', 'pod', name, '-o', 'jsonpath={.status.qosClass}')).toBe(qosClass);
  });

  it('runs as the requested user with a read-only root filesystem', async () => {
    await waitForRunning('secure');
    expect(await execOk('secure', 'app', 'id', '-u')).toBe('1000\n');
    const touch = await exec('secure', 'app', 'touch', '/x');
    expect(touch.code).not.toBe(0);
    expect(touch.stderr).toContain('Read-only file system');
  });
});

describe('restarts and restart policies', () => {
  it('restarts a container killed with docker kill and counts the restart', async () => {
    const before = await waitForRunning('victim');
    expect(containerStatus(before, 'app')?.restartCount).toBe(0);
    const ids = await podContainers(before.metadata.uid, 'app');
    expect(ids).toHaveLength(1);
    await docker('kill', ids[0] ?? '');
    const after = await untilPod('victim', 'victim to run again after the kill', async () => {
      const pod = await getPod('victim');
      const status = containerStatus(pod, 'app');
      return status?.restartCount === 1 && status.state?.running && pod.status.phase === 'Running' ? pod : undefined;
    }, 30_000);
    expect(containerStatus(after, 'app')?.containerID).not.toBe(containerStatus(before, 'app')?.containerID);
    expect(containerStatus(after, 'app')?.lastState?.terminated).toMatchObject({ exitCode: 137 });
    expect(await podRow('victim')).toMatchObject({ ready: '1/1', status: 'Running', restarts: 1 });
  });

  it.each([
    ['never-ok', 'Completed', 'Succeeded'],
    ['never-fail', 'Error', 'Failed'],
    ['onfailure-ok', 'Completed', 'Succeeded'],
  ])('shows %s as %s with phase %s and no restarts', async (name, status, phase) => {
    const pod = await untilPod(name, `${name} to finish`, async () => {
      const current = await getPod(name);
      return current.status.phase === phase ? current : undefined;
    }, 60_000);
    expect(containerStatus(pod, 'app')?.restartCount).toBe(0);
    expect(await podRow(name)).toMatchObject({ ready: '0/1', status, restarts: 0 });
  });

  it('restarts only the failing container under OnFailure', async () => {
    const pod = await untilPod('onfailure-fail', 'onfailure-fail to be restarted', async () => {
      const current = await getPod('onfailure-fail');
      return (containerStatus(current, 'app')?.restartCount ?? 0) >= 1 ? current : undefined;
    }, 60_000);
    expect(pod.status.phase).not.toBe('Failed');
    expect(pod.status.phase).not.toBe('Succeeded');
    expect((await getPod('onfailure-ok')).status.containerStatuses?.[0]?.restartCount).toBe(0);
  });
});

describe('init containers', () => {
  it('runs the init containers in order before the app container', async () => {
    await waitForRunning('init-order');
    expect(await podRow('init-order')).toMatchObject({ ready: '1/1', status: 'Running', restarts: 0 });
    expect(await execOk('init-order', 'app', 'cat', '/work/order')).toBe('first\nsecond\napp\n');
    const pod = await getPod('init-order');
    const initStatuses = pod.status.initContainerStatuses ?? [];
    expect(initStatuses.map((status) => [status.name, status.restartCount, status.state?.terminated?.reason, status.state?.terminated?.exitCode])).toEqual([
      ['first', 0, 'Completed', 0],
      ['second', 0, 'Completed', 0],
    ]);
    const firstFinished = Date.parse(String(initStatuses[0]?.state?.terminated?.finishedAt));
    const secondStarted = Date.parse(String(initStatuses[1]?.state?.terminated?.startedAt));
    expect(secondStarted).toBeGreaterThanOrEqual(firstFinished);
    expect(podCondition(pod, 'Initialized')).toBe('True');
    const seen = timelineOf('init-order');
    console.log(`init-order STATUS seen: ${seen.join(' → ')}`);
    expect(seen.some((status) => /^Init:[01]\/2$/.test(status))).toBe(true);
    expect(seen.at(-1)).toBe('Running');
  });
});

describe('probes', () => {
  it('keeps a pod with a failing readiness probe Running but not Ready', async () => {
    await untilPod('readiness-fail', 'a readiness failure event', async () => ((await ok('describe', 'pod', 'readiness-fail')).includes('Readiness probe failed') ? true : undefined), 30_000, 1_000);
    expect(await podRow('readiness-fail')).toMatchObject({ ready: '0/1', status: 'Running', restarts: 0 });
    const pod = await getPod('readiness-fail');
    expect(podCondition(pod, 'Ready')).toBe('False');
    expect(podCondition(pod, 'ContainersReady')).toBe('False');
    expect(containerStatus(pod, 'app')?.ready).toBe(false);
    expect(await ok('describe', 'pod', 'readiness-fail')).toMatch(eventLine('Warning', 'Unhealthy', 'Readiness probe failed: Get "http://'));
    expect(await ok('describe', 'pod', 'readiness-fail')).toMatch(/Readiness probe failed: Get "http:\/\/[\d.]+:8081\/": dial tcp [\d.]+:8081: connect: connection refused/);
  });

  it('makes a pod Ready once its readiness probe passes', async () => {
    await untilPod('readiness-pass', 'readiness-pass to be 1/1', async () => ((await podRow('readiness-pass')).ready === '1/1' ? true : undefined), 30_000);
    expect(await podRow('readiness-pass')).toMatchObject({ ready: '1/1', status: 'Running' });
    expect(podCondition(await getPod('readiness-pass'), 'Ready')).toBe('True');
  });

  it('restarts a container whose liveness probe fails', async () => {
    await untilPod('liveness', 'liveness to be restarted', async () => ((containerStatus(await getPod('liveness'), 'app')?.restartCount ?? 0) >= 1 ? true : undefined), 60_000);
    const described = await ok('describe', 'pod', 'liveness');
    expect(described).toMatch(eventLine('Warning', 'Unhealthy', "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory"));
    expect(described).toMatch(eventLine('Normal', 'Killing', 'Container app failed liveness probe, will be restarted'));
    expect((await podRow('liveness')).restarts).toBeGreaterThanOrEqual(1);
  }, 90_000);
});

describe('image pull failures', () => {
  it('shows ErrImagePull then ImagePullBackOff for an image that does not exist', async () => {
    await untilPod('pull-missing', 'ImagePullBackOff', async () => (timelineOf('pull-missing').includes('ImagePullBackOff') ? true : undefined), 60_000);
    const seen = timelineOf('pull-missing');
    console.log(`pull-missing STATUS seen: ${seen.join(' → ')}`);
    expect(seen.indexOf('ErrImagePull')).toBeGreaterThanOrEqual(0);
    expect(seen.indexOf('ErrImagePull')).toBeLessThan(seen.indexOf('ImagePullBackOff'));
    expect(['ErrImagePull', 'ImagePullBackOff']).toContain((await podRow('pull-missing')).status);
    const described = await ok('describe', 'pod', 'pull-missing');
    expect(described).toMatch(eventLine('Warning', 'Failed', 'Failed to pull image "kubedesk-test/does-not-exist:1"'));
    expect(described).toMatch(eventLine('Warning', 'Failed', 'Error: ErrImagePull'));
    expect(described).toMatch(eventLine('Normal', 'BackOff', 'Back-off pulling image "kubedesk-test/does-not-exist:1"'));
    expect((await getPod('pull-missing')).status.phase).toBe('Pending');
  }, 90_000);
});

describe('crash loops', () => {
  it('reaches CrashLoopBackOff with restarts and keeps the previous run\'s logs', async () => {
    await untilPod('crasher', 'CrashLoopBackOff with two restarts', async () => {
      const row = await podRow('crasher');
      return row.status === 'CrashLoopBackOff' && row.restarts >= 2 ? row : undefined;
    }, 90_000, 1_000);
    expect(await ok('logs', 'crasher', '--previous')).toMatch(/^boom-\d+\n$/);
    const described = await ok('describe', 'pod', 'crasher');
    expect(described).toMatch(/State:\s+Waiting\n\s+Reason:\s+CrashLoopBackOff/);
    expect(described).toMatch(/Last State:\s+Terminated\n\s+Reason:\s+Error\n\s+Exit Code:\s+1/);
    expect(described).toMatch(eventLine('Warning', 'BackOff', 'Back-off restarting failed container crasher in pod crasher_default('));
  }, 120_000);
});

describe('graceful deletion', () => {
  it('runs preStop, stops the container within the grace period and removes the pod', async () => {
    const pod = await waitForRunning('graceful');
    expect(await podContainers(pod.metadata.uid, 'app')).toHaveLength(1);
    const started = Date.now();
    await ok('delete', 'pod', 'graceful');
    const elapsed = Date.now() - started;
    // Each line is `<what> <unix seconds>`: preStop first, then the SIGTERM the trap caught.
    const marker = readFileSync(join(markerDirectory, 'log'), 'utf8').trim().split('\n').map((line) => line.split(' '));
    const offsets = marker.map(([what, seconds]) => `${what} at +${Number(seconds) * 1000 - Math.floor(started / 1000) * 1000} ms`);
    console.log(`kubectl delete pod graceful returned after ${elapsed} ms (grace period 5 s); ${offsets.join(', ')}`);
    expect(marker.map(([what]) => what)).toEqual(['prestop', 'sigterm']);
    // The container exits on SIGTERM, so the deletion fits in the 5 s grace period; 3 s more
    // covers kubectl itself and the kubelet's status round trip on a loaded machine.
    expect(elapsed).toBeLessThan(8_000);
    const missing = await cluster.kubectl(['get', 'pod', 'graceful']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('pods "graceful" not found');
    await until('the pod\'s containers to leave docker ps -a', async () => ((await podContainers(pod.metadata.uid, undefined, true)).length === 0 ? true : undefined), 15_000);
  });
});
