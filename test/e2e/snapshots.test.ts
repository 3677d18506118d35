// Whole-cluster snapshots end to end against a real `kubedesk serve`, real kubectl and pods on real
// Docker: a namespace holding a Deployment, a StatefulSet whose PVC holds a file, a Service and a
// ConfigMap is saved with `kubedesk snapshot save`; the namespace is deleted and something new is
// made; `kubedesk snapshot restore` removes the new thing and brings the namespace back with the
// same uids at newer resourceVersions, its pods run, the file is in the volume and the Service
// answers by name from another pod. A restart of kubedesk then adopts the pods without restarting
// them. Bad input (an unknown name; a truncated, corrupt or newer-format file) exits 1 with the
// reason and leaves the cluster and the snapshot list as they were.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startCluster, type CommandResult, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { repositoryRoot } from '../support/tools';
import { kubectlOk, kubectlState, until } from '../support/wait';

const cli = join(repositoryRoot, 'bin', 'kubedesk.mjs');
const namespace = 'snap';

let cluster: TestCluster;

const manifests = `
apiVersion: v1
kind: Namespace
metadata: { name: ${namespace} }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: settings, namespace: ${namespace} }
data: { greeting: hello }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: ${namespace} }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: web
          image: ${busyboxImage}
          imagePullPolicy: IfNotPresent
          command: ['sh', '-c', 'mkdir -p /www && echo web-ok > /www/index.html && exec httpd -f -p 8080 -h /www']
          ports: [{ containerPort: 8080 }]
          readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: ${namespace} }
spec:
  selector: { app: web }
  ports: [{ port: 80, targetPort: 8080 }]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: db, namespace: ${namespace} }
spec:
  serviceName: db
  replicas: 1
  selector: { matchLabels: { app: db } }
  template:
    metadata: { labels: { app: db } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: db
          image: ${busyboxImage}
          imagePullPolicy: IfNotPresent
          command: ['sleep', '100000']
          volumeMounts: [{ name: data, mountPath: /data }]
  volumeClaimTemplates:
    - metadata: { name: data }
      spec:
        accessModes: [ReadWriteOnce]
        resources: { requests: { storage: 10Mi } }
`;

beforeAll(async () => {
  cluster = await startCluster();
}, 180_000);

afterAll(async () => {
  await cluster?.destroy();
});

function kubedesk(args: string[]): Promise<CommandResult> {
  return runCommand(process.execPath, [cli, ...args], { env: { KUBECONFIG: cluster.kubeconfig }, timeoutMs: 120_000 });
}

async function kubedeskOk(args: string[]): Promise<string> {
  const result = await kubedesk(args);
  if (result.code !== 0) throw new Error(`kubedesk ${args.join(' ')} failed (${String(result.code)}): ${result.stderr}${result.stdout}`);
  return result.stdout;
}

async function field(args: string[], path: string): Promise<string> {
  return (await kubectlOk(cluster, [...args, '-o', `jsonpath=${path}`])).trim();
}

/** name → "containerID restartCount ready" of the namespace's pods. */
async function podRuntime(): Promise<Map<string, string>> {
  const text = await kubectlOk(cluster, ['get', 'pods', '-n', namespace, '-o', 'jsonpath={range .items[*]}{.metadata.name}{"|"}{.status.containerStatuses[0].containerID}{" "}{.status.containerStatuses[0].restartCount}{" "}{.status.containerStatuses[0].ready}{"\\n"}{end}']);
  return new Map(text.trim().split('\n').filter(Boolean).map((line) => line.split('|') as [string, string]));
}

async function allPodsReady(): Promise<Map<string, string> | undefined> {
  const pods = await podRuntime();
  if (pods.size !== 2) return undefined;
  return [...pods.values()].every((value) => value.endsWith(' true')) ? pods : undefined;
}

const uids: Record<string, string> = {};
let podsAfterRestore: Map<string, string>;

describe('kubedesk snapshot', () => {
  it('restores a deleted namespace: the new thing is gone, same uids, pods run, the file is in the volume, the Service answers by name', async () => {
    await kubectlOk(cluster, ['apply', '-f', '-'], manifests);
    await kubectlOk(cluster, ['rollout', 'status', '-n', namespace, 'deployment/web', '--timeout=120s'], undefined, 150_000);
    await kubectlOk(cluster, ['rollout', 'status', '-n', namespace, 'statefulset/db', '--timeout=120s'], undefined, 150_000);
    await kubectlOk(cluster, ['exec', '-n', namespace, 'db-0', '--', 'sh', '-c', 'echo precious > /data/file.txt']);
    for (const object of ['deployment/web', 'statefulset/db', 'service/web', 'configmap/settings', 'pvc/data-db-0']) uids[object] = await field(['get', '-n', namespace, object], '{.metadata.uid}');

    const saved = await kubedeskOk(['snapshot', 'save', 'before']);
    expect(saved).toMatch(/^snapshot "before" saved at resourceVersion \d+: \d+ objects, 1 volumes, 1 images, /);
    const list = await kubedeskOk(['snapshot', 'list']);
    expect(list).toMatch(/^NAME\s+RESOURCEVERSION\s+OBJECTS\s+VOLUMES\s+IMAGES\s+SIZE\s+AGE\s+CREATED\nbefore\s+\d+\s+\d+\s+1\s+1\s+/);

    await kubectlOk(cluster, ['delete', 'namespace', namespace, '--wait=true', '--timeout=120s'], undefined, 150_000);
    await kubectlOk(cluster, ['create', 'namespace', 'newer']);
    await kubectlOk(cluster, ['create', 'configmap', 'new-thing', '-n', 'default', '--from-literal=a=b']);
    const revisionBefore = Number(await field(['get', 'configmap', 'new-thing', '-n', 'default'], '{.metadata.resourceVersion}'));

    const restored = await kubedeskOk(['snapshot', 'restore', 'before']);
    expect(restored).toMatch(/^snapshot "before" restored at resourceVersion \d+: [1-9]\d* created, \d+ updated, \d+ replaced, [1-9]\d* deleted\n$/);

    expect((await cluster.kubectl(['get', 'namespace', 'newer'])).stderr).toContain('namespaces "newer" not found');
    expect((await cluster.kubectl(['get', 'configmap', 'new-thing', '-n', 'default'])).stderr).toContain('configmaps "new-thing" not found');
    for (const [object, uid] of Object.entries(uids)) expect(await field(['get', '-n', namespace, object], '{.metadata.uid}'), object).toBe(uid);
    expect(Number(await field(['get', '-n', namespace, 'configmap/settings'], '{.metadata.resourceVersion}'))).toBeGreaterThan(revisionBefore);
    expect(await field(['get', '-n', namespace, 'configmap/settings'], '{.data.greeting}')).toBe('hello');

    podsAfterRestore = await until('the restored pods to be ready', allPodsReady, 120_000, 1000, kubectlState(cluster, ['get', 'pods', '-n', namespace, '-o', 'wide']));
    for (const runtime of podsAfterRestore.values()) expect(runtime).toMatch(/^docker:\/\/\w+ 0 true$/);
    expect((await kubectlOk(cluster, ['exec', '-n', namespace, 'db-0', '--', 'cat', '/data/file.txt'])).trim()).toBe('precious');

    await kubectlOk(cluster, ['run', 'client', '-n', 'default', `--image=${busyboxImage}`, '--image-pull-policy=IfNotPresent', '--restart=Never', '--', 'sleep', '3600']);
    await kubectlOk(cluster, ['wait', '-n', 'default', 'pod/client', '--for=condition=Ready', '--timeout=120s'], undefined, 150_000);
    const answer = await until(
      'the Service to answer by name',
      async () => {
        const result = await cluster.kubectl(['exec', '-n', 'default', 'client', '--', 'wget', '-qO-', `http://web.${namespace}.svc.cluster.local`]);
        return result.code === 0 ? result.stdout.trim() : undefined;
      },
      60_000,
      1000,
    );
    expect(answer).toBe('web-ok');
    // the snapshot itself stays
    expect(await kubedeskOk(['snapshot', 'list'])).toContain('before');
  }, 600_000);

  it('adopts the restored pods after a restart of kubedesk without restarting them', async () => {
    await cluster.restart();
    const pods = await until('the pods to be ready after the restart', allPodsReady, 120_000, 1000, kubectlState(cluster, ['get', 'pods', '-n', namespace]));
    expect(pods).toEqual(podsAfterRestore);
    expect((await kubectlOk(cluster, ['exec', '-n', namespace, 'db-0', '--', 'cat', '/data/file.txt'])).trim()).toBe('precious');
  }, 300_000);

  it('refuses an unknown name and truncated, corrupt or newer-format files with the reason, leaving the cluster untouched', async () => {
    const file = join(cluster.root, 'before.kdsnap');
    expect(await kubedeskOk(['snapshot', 'export', 'before', file])).toMatch(/^snapshot "before" exported to /);
    const bytes = readFileSync(file);
    const truncated = join(cluster.root, 'truncated.kdsnap');
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const corrupt = join(cluster.root, 'corrupt.kdsnap');
    const damaged = Buffer.from(bytes);
    const at = damaged.indexOf('precious');
    expect(at).toBeGreaterThan(0);
    damaged.write('spoiled!', at);
    writeFileSync(corrupt, damaged);
    const newer = join(cluster.root, 'newer.kdsnap');
    writeFileSync(newer, bytes);
    // as another tool (a newer kubedesk) would have written it
    const sqlite = join(repositoryRoot, 'node_modules', 'better-sqlite3');
    const edit = await runCommand(process.execPath, ['-e', "const D = require(process.argv[1]); const db = new D(process.argv[2]); db.prepare(\"UPDATE snapshot SET value = '99' WHERE key = 'format'\").run(); db.close();", sqlite, newer]);
    expect(edit.code, edit.stderr).toBe(0);

    const stateBefore = await kubectlOk(cluster, ['get', 'namespaces,configmaps,services,persistentvolumeclaims', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.uid}{" "}{.metadata.resourceVersion}{"\\n"}{end}']);
    const snapshotsState = kubectlState(cluster, ['get', 'snapshots.snapshots.kubedesk.dev', '-o', 'jsonpath={range .items[*]}{.metadata.name}{" "}{.status.resourceVersion}{" "}{.status.sizeBytes}{"\\n"}{end}']);
    const listBefore = await snapshotsState();
    expect(listBefore).toMatch(/^before \d+ \d+\n$/);

    const unknown = await kubedesk(['snapshot', 'restore', 'nosuch']);
    expect(unknown).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): snapshots.snapshots.kubedesk.dev "nosuch" not found\n' });
    const cut = await kubedesk(['snapshot', 'import', truncated]);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/^Error from server \(BadRequest\): snapshot "truncated": the snapshot file is truncated: \d+ bytes of \d+\n$/);
    const spoiled = await kubedesk(['snapshot', 'import', corrupt]);
    expect(spoiled.code).toBe(1);
    expect(spoiled.stderr).toMatch(/^Error from server \(BadRequest\): snapshot "corrupt": the snapshot('s objects or volume data do not match its checksum| file is corrupt)/);
    const future = await kubedesk(['snapshot', 'import', newer]);
    expect(future).toMatchObject({ code: 1, stderr: 'Error from server (BadRequest): snapshot "newer": the snapshot is of format version 99, newer than this kubedesk reads (1): restore it with a newer kubedesk\n' });
    const usage = await kubedesk(['snapshot', 'restore']);
    expect(usage.code).toBe(2);

    expect(await snapshotsState()).toBe(listBefore);
    expect(await kubectlOk(cluster, ['get', 'namespaces,configmaps,services,persistentvolumeclaims', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.uid}{" "}{.metadata.resourceVersion}{"\\n"}{end}'])).toBe(stateBefore);

    // the good file imports under its own name once the original is deleted
    await kubedeskOk(['snapshot', 'delete', 'before']);
    expect(await kubedeskOk(['snapshot', 'import', file])).toMatch(/^snapshot "before" imported from /);
  }, 300_000);
});
