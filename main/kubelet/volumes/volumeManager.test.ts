import { chmod, mkdir, mkdtemp, readFile, readdir, readlink, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../client/apiClient';
import { FakeTransport } from '../../../test/doubles/fakeTransport';
import { resources } from '../../client/resources';
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { Container } from '../env/podSpec';
import { ContainerConfigError } from '../env/resolveEnv';
import { VolumeError, VolumeManager, type PodVolumes } from './volumeManager';

let dir: string;
let transport: FakeTransport;
let client: ApiClient;
let clock: number;
let tokenRequests: { audience?: string; expirationSeconds: number }[];

function base64(text: string): string {
  return Buffer.from(text).toString('base64');
}

function manager(): VolumeManager {
  return new VolumeManager({
    podsDir: path.join(dir, 'pods'),
    client,
    caCertPem: 'FALLBACK-CA',
    now: () => clock,
    requestToken: async (pod, audience, expirationSeconds) => {
      tokenRequests.push({ audience, expirationSeconds });
      return { token: `token-${tokenRequests.length}-for-${pod.metadata.name ?? ''}`, expirationTimestamp: new Date(clock + expirationSeconds * 1000).toISOString() };
    },
  });
}

function podWith(volumes: unknown[], containers: Container[] = [{ name: 'app' }], labels: Record<string, string> = { app: 'web' }): KubeObject {
  return { metadata: { name: 'web', namespace: 'default', uid: 'uid-1', labels }, spec: { serviceAccountName: 'default', volumes, containers } };
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'volume-manager-'));
  transport = new FakeTransport();
  client = new ApiClient(transport);
  clock = Date.UTC(2026, 0, 1);
  tokenRequests = [];
  transport.seed(resources.configmaps, { metadata: { name: 'cfg', namespace: 'default' }, data: { 'app.conf': 'a=1', other: 'o' }, binaryData: { 'blob.bin': base64('\u0000\u0001') } });
  transport.seed(resources.secrets, { metadata: { name: 'creds', namespace: 'default' }, data: { password: base64('s3cret') } });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function read(volumes: PodVolumes, name: string, file: string): Promise<string> {
  return readFile(path.join(volumes[name].hostPath, file), 'utf8');
}

describe('VolumeManager.setUp', () => {
  it('projects a config map with all keys, binary data and the default mode', async () => {
    const volumes = await manager().setUp(podWith([{ name: 'cfg', configMap: { name: 'cfg' } }]));
    expect(volumes.cfg.hostPath).toBe(path.join(dir, 'pods', 'uid-1', 'volumes', 'kubernetes.io~configmap', 'cfg'));
    expect(volumes.cfg.readOnly).toBe(true);
    expect(await read(volumes, 'cfg', 'app.conf')).toBe('a=1');
    expect(await readFile(path.join(volumes.cfg.hostPath, 'blob.bin'))).toEqual(Buffer.from([0, 1]));
    expect(await readlink(path.join(volumes.cfg.hostPath, 'app.conf'))).toBe('..data/app.conf');
    expect((await stat(path.join(volumes.cfg.hostPath, 'other'))).mode & 0o777).toBe(0o644);
  });

  it('projects chosen secret items with their modes', async () => {
    const volumes = await manager().setUp(podWith([{ name: 's', secret: { secretName: 'creds', defaultMode: 0o400, items: [{ key: 'password', path: 'db/pass', mode: 0o440 }] } }]));
    expect(volumes.s.hostPath).toContain('kubernetes.io~secret');
    expect(await read(volumes, 's', 'db/pass')).toBe('s3cret');
    expect((await stat(path.join(volumes.s.hostPath, 'db/pass'))).mode & 0o777).toBe(0o440);
  });

  it('gives an empty volume for an optional missing config map', async () => {
    const volumes = await manager().setUp(podWith([{ name: 'opt', configMap: { name: 'ghost', optional: true } }]));
    expect((await readdir(volumes.opt.hostPath)).filter((name) => !name.startsWith('..'))).toEqual([]);
  });

  it.each([
    ['a missing config map', { name: 'cfg', configMap: { name: 'x' } }, 'MountVolume.SetUp failed for volume "cfg" : configmap "x" not found'],
    ['a missing secret', { name: 'sec', secret: { secretName: 'nope' } }, 'MountVolume.SetUp failed for volume "sec" : secret "nope" not found'],
    ['a missing config map key', { name: 'cfg', configMap: { name: 'cfg', items: [{ key: 'zzz', path: 'z' }] } }, 'MountVolume.SetUp failed for volume "cfg" : configmap references non-existent config key: zzz'],
    ['a missing secret key', { name: 'sec', secret: { secretName: 'creds', items: [{ key: 'zzz', path: 'z' }] } }, 'MountVolume.SetUp failed for volume "sec" : references non-existent secret key: zzz'],
    ['a hostPath that is not a directory', { name: 'h', hostPath: { path: '/nonexistent/kubedesk-test', type: 'Directory' } }, 'MountVolume.SetUp failed for volume "h" : hostPath type check failed: /nonexistent/kubedesk-test is not a directory'],
    ['an unsupported volume type', { name: 'p', persistentVolumeClaim: { claimName: 'data' } }, 'MountVolume.SetUp failed for volume "p" : volume type "persistentVolumeClaim" is not supported by this kubelet'],
  ])('fails on %s with the FailedMount text', async (_name, volume, message) => {
    const failure = manager().setUp(podWith([volume]));
    await expect(failure).rejects.toBeInstanceOf(VolumeError);
    await expect(failure).rejects.toThrow(message);
  });

  it('reports every failing volume', async () => {
    const error = await manager()
      .setUp(podWith([{ name: 'a', configMap: { name: 'x' } }, { name: 'ok', emptyDir: {} }, { name: 'b', secret: { secretName: 'y' } }]))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VolumeError);
    expect((error as VolumeError).failures.map((failure) => failure.volumeName)).toEqual(['a', 'b']);
  });

  it('writes downward API metadata and resources', async () => {
    const pod: KubeObject = {
      metadata: { name: 'web', namespace: 'default', uid: 'uid-1', labels: { app: 'web', tier: 'front' }, annotations: { build: '42' } },
      spec: {
        volumes: [
          {
            name: 'info',
            downwardAPI: {
              items: [
                { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
                { path: 'build', fieldRef: { fieldPath: "metadata.annotations['build']" } },
                { path: 'mem', resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '1Mi' } },
              ],
            },
          },
        ],
        containers: [{ name: 'app', resources: { limits: { memory: '64Mi' } } }],
      },
    };
    const volumes = await manager().setUp(pod);
    expect(volumes.info.hostPath).toContain('kubernetes.io~downward-api');
    expect(await read(volumes, 'info', 'labels')).toBe('app="web"\ntier="front"');
    expect(await read(volumes, 'info', 'name')).toBe('web');
    expect(await read(volumes, 'info', 'build')).toBe('42');
    expect(await read(volumes, 'info', 'mem')).toBe('64');
  });

  it('builds the kube-api-access projected volume with token, ca.crt and namespace', async () => {
    const accessVolume = {
      name: 'kube-api-access-abcde',
      projected: {
        defaultMode: 0o644,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
      },
    };
    const volumes = await manager().setUp(podWith([accessVolume]));
    const volume = 'kube-api-access-abcde';
    expect(volumes[volume].hostPath).toContain('kubernetes.io~projected');
    expect(await read(volumes, volume, 'token')).toBe('token-1-for-web');
    // kube-root-ca.crt does not exist in the fake cluster: the configured CA stands in.
    expect(await read(volumes, volume, 'ca.crt')).toBe('FALLBACK-CA');
    expect(await read(volumes, volume, 'namespace')).toBe('default');
    expect(tokenRequests).toEqual([{ audience: undefined, expirationSeconds: 3607 }]);

    transport.seed(resources.configmaps, { metadata: { name: 'kube-root-ca.crt', namespace: 'default' }, data: { 'ca.crt': 'REAL-CA' } });
    await manager().setUp(podWith([accessVolume]));
    expect(await read(volumes, volume, 'ca.crt')).toBe('REAL-CA');
  });

  it('uses the audience and default expiry of a token source', async () => {
    await manager().setUp(podWith([{ name: 'vault', projected: { sources: [{ serviceAccountToken: { audience: 'vault', path: 'vault-token' } }] } }]));
    expect(tokenRequests).toEqual([{ audience: 'vault', expirationSeconds: 3600 }]);
  });

  it('makes emptyDir directories writable by anyone and memory ones a tmpfs for a single user', async () => {
    const containers: Container[] = [{ name: 'app', volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }, { name: 'mem', mountPath: '/mem' }, { name: 'shared-mem', mountPath: '/shared' }] }, { name: 'side', volumeMounts: [{ name: 'shared-mem', mountPath: '/shared' }] }];
    const pod = podWith([{ name: 'scratch', emptyDir: {} }, { name: 'mem', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } }, { name: 'shared-mem', emptyDir: { medium: 'Memory' } }], containers);
    const vm = manager();
    const volumes = await vm.setUp(pod);
    expect(volumes.scratch).toEqual({ hostPath: path.join(dir, 'pods', 'uid-1', 'volumes', 'kubernetes.io~empty-dir', 'scratch'), readOnly: false });
    expect((await stat(volumes.scratch.hostPath)).mode & 0o777).toBe(0o777);
    expect(volumes.mem.tmpfs).toBe(true);
    expect(volumes.mem.sizeBytes).toBe(64 * 1024 * 1024);
    expect(volumes['shared-mem'].tmpfs).toBeUndefined();
    expect(vm.tmpfsFor(containers[0], volumes)).toEqual({ '/mem': `rw,size=${64 * 1024 * 1024}` });
    const mounts = await vm.mountsFor(pod, containers[0], volumes);
    expect(mounts.map((mount) => mount.containerPath)).toEqual(['/scratch', '/shared', '/dev/termination-log']);
  });

  it.each([
    ['DirectoryOrCreate creates a directory', 'made/dir', 'DirectoryOrCreate', 'dir'],
    ['FileOrCreate creates a file', 'file.txt', 'FileOrCreate', 'file'],
    ['an unset type checks nothing', 'absent', undefined, 'absent'],
  ])('hostPath: %s', async (_name, relative, type, expected) => {
    const hostPath = path.join(dir, relative);
    const volumes = await manager().setUp(podWith([{ name: 'h', hostPath: { path: hostPath, type } }]));
    expect(volumes.h).toEqual({ hostPath, readOnly: false });
    const info = await stat(hostPath).catch(() => undefined);
    expect(info ? (info.isDirectory() ? 'dir' : 'file') : 'absent').toBe(expected);
  });

  it('checks a hostPath socket', async () => {
    const socketPath = path.join(dir, 'test.sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      await expect(manager().setUp(podWith([{ name: 's', hostPath: { path: socketPath, type: 'Socket' } }]))).resolves.toBeDefined();
      await expect(manager().setUp(podWith([{ name: 's', hostPath: { path: dir, type: 'Socket' } }]))).rejects.toThrow(`hostPath type check failed: ${dir} is not a socket file`);
      await expect(manager().setUp(podWith([{ name: 's', hostPath: { path: socketPath, type: 'File' } }]))).rejects.toThrow(`${socketPath} is not a file`);
    } finally {
      server.close();
    }
  });
});

describe('VolumeManager.refresh', () => {
  it('updates config map, secret and downward API files in place', async () => {
    const vm = manager();
    const volumes = [
      { name: 'cfg', configMap: { name: 'cfg' } },
      { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
    ];
    const set = await vm.setUp(podWith(volumes));
    const before = await readlink(path.join(set.cfg.hostPath, '..data'));

    await client.resource(resources.configmaps).patch('default', 'cfg', { data: { 'app.conf': 'a=2', other: null } }, 'merge');
    await vm.refresh(podWith(volumes, undefined, { app: 'web', version: 'v2' }));

    expect(await read(set, 'cfg', 'app.conf')).toBe('a=2');
    await expect(stat(path.join(set.cfg.hostPath, 'other'))).rejects.toThrow();
    expect(await readlink(path.join(set.cfg.hostPath, '..data'))).not.toBe(before);
    expect(await read(set, 'info', 'labels')).toBe('app="web"\nversion="v2"');
  });

  it('writes nothing when the objects, the pod and the token are unchanged', async () => {
    const vm = manager();
    const volumes = [
      { name: 'cfg', configMap: { name: 'cfg' } },
      { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
    ];
    const set = await vm.setUp(podWith(volumes));
    const before = await readlink(path.join(set.cfg.hostPath, '..data'));
    // set up made the directories 0777; a refresh that wrote would make them so again
    await chmod(set.cfg.hostPath, 0o755);
    await chmod(set.info.hostPath, 0o755);
    await vm.refresh(podWith(volumes));
    expect((await stat(set.cfg.hostPath)).mode & 0o777).toBe(0o755);
    expect((await stat(set.info.hostPath)).mode & 0o777).toBe(0o755);
    expect(await readlink(path.join(set.cfg.hostPath, '..data'))).toBe(before);

    await vm.refresh(podWith(volumes, undefined, { app: 'web', version: 'v3' }));
    expect(await read(set, 'info', 'labels')).toBe('app="web"\nversion="v3"');
    expect((await stat(set.cfg.hostPath)).mode & 0o777).toBe(0o755);
  });

  it('lets the refreshes of many pods within a few seconds share one read of a config map, and reads it again after', async () => {
    const vm = manager();
    const volumes = [{ name: 'cfg', configMap: { name: 'cfg' } }];
    const pods = [1, 2, 3].map((index) => ({ ...podWith(volumes), metadata: { name: `web-${index}`, namespace: 'default', uid: `uid-${index}` } }));
    for (const pod of pods) await vm.setUp(pod);
    const reads = () => transport.requests.filter((request) => request.method === 'GET' && request.path.endsWith('/configmaps/cfg')).length;
    const afterSetUp = reads();
    expect(afterSetUp).toBe(3);
    await Promise.all(pods.map((pod) => vm.refresh(pod)));
    expect(reads()).toBe(afterSetUp + 1);
    await client.resource(resources.configmaps).patch('default', 'cfg', { data: { 'app.conf': 'a=3' } }, 'merge');
    clock += 5_000;
    await Promise.all(pods.map((pod) => vm.refresh(pod)));
    expect(reads()).toBe(afterSetUp + 2);
    for (const index of [1, 2, 3]) expect(await readFile(path.join(vm.volumeDir(`uid-${index}`, 'configMap', 'cfg'), 'app.conf'), 'utf8')).toBe('a=3');
  });

  it('renews a token after 80 % of its lifetime and not before', async () => {
    const vm = manager();
    const volumes = [{ name: 'tok', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 1000, path: 'token' } }] } }];
    const set = await vm.setUp(podWith(volumes));
    expect(await read(set, 'tok', 'token')).toBe('token-1-for-web');
    clock += 799_000;
    await vm.refresh(podWith(volumes));
    expect(tokenRequests).toHaveLength(1);
    clock += 2_000;
    await vm.refresh(podWith(volumes));
    expect(tokenRequests).toHaveLength(2);
    expect(await read(set, 'tok', 'token')).toBe('token-2-for-web');
  });

  it('keeps a still valid token when renewal fails', async () => {
    let fail = false;
    const vm = new VolumeManager({
      podsDir: path.join(dir, 'pods'),
      client,
      caCertPem: '',
      now: () => clock,
      requestToken: async (_pod, _audience, seconds) => {
        if (fail) throw new Error('serviceaccounts "default" not found');
        return { token: 'first', expirationTimestamp: new Date(clock + seconds * 1000) };
      },
    });
    const volumes = [{ name: 'tok', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 1000, path: 'token' } }] } }];
    const set = await vm.setUp(podWith(volumes));
    fail = true;
    clock += 900_000;
    await vm.refresh(podWith(volumes));
    expect(await read(set, 'tok', 'token')).toBe('first');
    clock += 200_000;
    await expect(vm.refresh(podWith(volumes))).rejects.toThrow('MountVolume.SetUp failed for volume "tok" : failed to fetch token: serviceaccounts "default" not found');
  });

  it('requests tokens from the API by default', async () => {
    const vm = new VolumeManager({ podsDir: path.join(dir, 'pods'), client, caCertPem: '' });
    await expect(vm.setUp(podWith([{ name: 'tok', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }]))).rejects.toThrow('failed to fetch token');
    const request = transport.requests.find((req) => req.path.endsWith('/token'));
    expect(request?.path).toBe('/api/v1/namespaces/default/serviceaccounts/default/token');
    expect(request?.body).toMatchObject({ kind: 'TokenRequest', spec: { expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', name: 'web', uid: 'uid-1' } } });
  });
});

describe('VolumeManager.mountsFor', () => {
  it('binds volume mounts, forces read-only config volumes and adds the termination log', async () => {
    const container: Container = {
      name: 'app',
      terminationMessagePath: '/tmp/done',
      volumeMounts: [
        { name: 'cfg', mountPath: '/etc/app' },
        { name: 'data', mountPath: '/data', readOnly: true },
        { name: 'data', mountPath: '/logs', subPathExpr: 'logs/$(POD_NAME)' },
        { name: 'cfg', mountPath: '/etc/app.conf', subPath: 'app.conf' },
      ],
    };
    const pod = podWith([{ name: 'cfg', configMap: { name: 'cfg' } }, { name: 'data', emptyDir: {} }], [container]);
    const vm = manager();
    const volumes = await vm.setUp(pod);
    const mounts = await vm.mountsFor(pod, container, volumes, { env: ['POD_NAME=web'], restartCount: 2 });
    const dataDir = await readlink(path.join(volumes.cfg.hostPath, '..data'));
    expect(mounts).toEqual([
      { hostPath: volumes.cfg.hostPath, containerPath: '/etc/app', readOnly: true },
      { hostPath: volumes.data.hostPath, containerPath: '/data', readOnly: true },
      { hostPath: path.join(volumes.data.hostPath, 'logs', 'web'), containerPath: '/logs', readOnly: false },
      { hostPath: path.join(await realpath(volumes.cfg.hostPath), dataDir, 'app.conf'), containerPath: '/etc/app.conf', readOnly: true },
      { hostPath: path.join(dir, 'pods', 'uid-1', 'containers', 'app', '2'), containerPath: '/tmp/done', readOnly: false },
    ]);
    expect((await stat(path.join(volumes.data.hostPath, 'logs', 'web'))).isDirectory()).toBe(true);
    expect((await stat(mounts[4].hostPath)).mode & 0o777).toBe(0o666);
  });

  it.each([
    ['an unknown volume', { name: 'ghost', mountPath: '/x' }, 'cannot find volume "ghost" to mount into container "app"'],
    ['an absolute subPath', { name: 'data', mountPath: '/x', subPath: '/etc' }, 'error SubPath `/etc` must not be an absolute path'],
    ['a subPath with backsteps', { name: 'data', mountPath: '/x', subPath: 'a/../../b' }, "unable to provision SubPath `a/../../b`: must not contain '..'"],
    ['a subPathExpr with a missing variable', { name: 'data', mountPath: '/x', subPathExpr: '$(NOPE)' }, 'missing value for NOPE'],
    ['a subPath through a link out of the volume', { name: 'data', mountPath: '/x', subPath: 'escape' }, 'not within volume path'],
  ])('refuses %s', async (_name, mount, message) => {
    const container: Container = { name: 'app', volumeMounts: [mount] };
    const pod = podWith([{ name: 'data', emptyDir: {} }], [container]);
    const vm = manager();
    const volumes = await vm.setUp(pod);
    await symlink('/etc', path.join(volumes.data.hostPath, 'escape'));
    const failure = vm.mountsFor(pod, container, volumes);
    await expect(failure).rejects.toBeInstanceOf(ContainerConfigError);
    await expect(failure).rejects.toThrow(message);
  });
});

describe('VolumeManager.tearDown', () => {
  it('removes the pod directory but never a host path', async () => {
    const hostDir = path.join(dir, 'host');
    await mkdir(hostDir);
    await writeFile(path.join(hostDir, 'keep'), 'x');
    const vm = manager();
    const pod = podWith([{ name: 'h', hostPath: { path: hostDir } }, { name: 'cfg', configMap: { name: 'cfg' } }], [{ name: 'app', volumeMounts: [{ name: 'h', mountPath: '/h' }] }]);
    const volumes = await vm.setUp(pod);
    await vm.mountsFor(pod, { name: 'app', volumeMounts: [{ name: 'h', mountPath: '/h' }] }, volumes);
    await vm.tearDown('uid-1');
    await expect(stat(path.join(dir, 'pods', 'uid-1'))).rejects.toThrow();
    expect(await readFile(path.join(hostDir, 'keep'), 'utf8')).toBe('x');
  });
});


describe('VolumeManager persistentVolumeClaim volumes', () => {
  function pvcManager(): VolumeManager {
    return new VolumeManager({ podsDir: path.join(dir, 'pods'), client, caCertPem: 'CA', persistentVolumesDir: path.join(dir, 'volumes') });
  }

  it('mounts the directory of a bound claim, creating it when missing, read-only when the source says so', async () => {
    transport.seed(resources.persistentvolumeclaims, { metadata: { name: 'data', namespace: 'default' }, spec: { volumeName: 'pvc-1' }, status: { phase: 'Bound' } });
    const volumes = await pvcManager().setUp(podWith([{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }, { name: 'r', persistentVolumeClaim: { claimName: 'data', readOnly: true } }]));
    expect(volumes.d).toEqual({ hostPath: path.join(dir, 'volumes', 'pvc-1'), readOnly: false });
    expect(volumes.r.readOnly).toBe(true);
    expect((await stat(volumes.d.hostPath)).isDirectory()).toBe(true);
  });

  it.each([
    ['a missing claim', undefined, 'error processing PVC default/data: persistentvolumeclaim "data" not found'],
    ['an unbound claim', { metadata: { name: 'data', namespace: 'default' }, spec: {}, status: { phase: 'Pending' } }, 'error processing PVC default/data: PVC default/data has non-bound phase ("Pending") or empty pvc.Spec.VolumeName ("")'],
    ['a terminating claim', { metadata: { name: 'data', namespace: 'default', finalizers: ['kubernetes.io/pvc-protection'] }, spec: { volumeName: 'pvc-1' }, status: { phase: 'Bound' } }, "can't start pod because PVC default/data is being deleted"],
  ])('refuses %s with the kubelet message', async (what, claim, message) => {
    if (claim) transport.seed(resources.persistentvolumeclaims, claim);
    // The finalizer holds the deleted claim, as the pvc-protection finalizer does.
    if (what === 'a terminating claim') await client.resource(resources.persistentvolumeclaims).delete('default', 'data');
    const failure = await pvcManager()
      .setUp(podWith([{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }]))
      .then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(VolumeError);
    expect((failure as VolumeError).message).toContain(message);
  });
});
