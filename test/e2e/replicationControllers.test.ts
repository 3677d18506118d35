// ReplicationControllers on Docker and `kubectl apply --prune`, with the real kubectl 1.35 against one
// real `kubedesk serve`: an RC keeps its replicas (a deleted pod is replaced), `kubectl scale rc`,
// `kubectl get rc` and `describe rc` print upstream's columns and lines, validation answers with
// upstream's messages, and deletion cascades (background, foreground) or orphans the pods
// (`--cascade=orphan`, and a DELETE naming no policy, as upstream keeps for core/v1). kubectl's
// default prune allow-list names ReplicationControllers, so `kubectl apply --prune -l` needs the kind;
// here it prunes exactly the labelled objects no longer in the manifests, of every kind that list
// names, for `-f DIR` and `-k DIR`. Expected texts are what kubectl prints against a real cluster.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk, kubectlState, until as poll } from '../support/wait';

let cluster: TestCluster;
let manifests: string;

beforeAll(async () => {
  cluster = await startCluster();
  manifests = mkdtempSync(join(tmpdir(), 'kubedesk-prune-'));
});

afterAll(async () => {
  rmSync(manifests, { recursive: true, force: true });
  await cluster?.destroy();
});

const ok = (...args: string[]) => kubectlOk(cluster, args);
const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return poll(what, probe, timeoutMs, 500, kubectlState(cluster, ['get', 'rc,pods', '-o', 'wide']));
}

interface Pod {
  metadata: { name: string; uid: string; ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[]; deletionTimestamp?: string };
  status: { phase?: string; conditions?: { type: string; status: string }[] };
}

async function pods(selector: string): Promise<Pod[]> {
  return (JSON.parse(await ok('get', 'pods', '-l', selector, '-o', 'json')) as { items: Pod[] }).items;
}

const isReady = (pod: Pod) => pod.status.phase === 'Running' && (pod.status.conditions ?? []).some((condition) => condition.type === 'Ready' && condition.status === 'True');

/** Exactly `count` live pods match the selector, all Running and Ready. */
function readyPods(selector: string, count: number): Promise<Pod[]> {
  return until(`${count} ready pods with ${selector}`, async () => {
    const live = (await pods(selector)).filter((pod) => !pod.metadata.deletionTimestamp);
    return live.length === count && live.every(isReady) ? live : undefined;
  });
}

/** No pod matches the selector any more (being deleted counts as gone for kubectl get). */
function noPods(selector: string): Promise<true> {
  return until(`no pods with ${selector}`, async () => ((await pods(selector)).length === 0 ? true : undefined), 90_000);
}

const podTemplateSpec = {
  terminationGracePeriodSeconds: 2,
  containers: [{ name: 'app', image: busyboxImage, command: ['sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait'] }],
};

/** An RC whose selector is defaulted from its template labels. */
function replicationController(name: string, replicas: number): object {
  return { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name }, spec: { replicas, template: { metadata: { labels: { app: name } }, spec: podTemplateSpec } } };
}

const generatedName = (rc: string) => new RegExp(`^${rc}-[bcdfghjklmnpqrstvwxz2456789]{5}$`);
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('a ReplicationController on Docker', () => {
  it('keeps three pods with controller references, reported in status, events and kubectl describe', async () => {
    expect(await apply(replicationController('web', 3))).toBe('replicationcontroller/web created\n');
    const running = await readyPods('app=web', 3);
    const rc = JSON.parse(await ok('get', 'rc', 'web', '-o', 'json')) as { metadata: { uid: string; labels: Record<string, string>; generation: number }; spec: { selector: Record<string, string> } };
    // SetDefaults_ReplicationController: selector and labels from the template
    expect(rc.spec.selector).toEqual({ app: 'web' });
    expect(rc.metadata.labels).toEqual({ app: 'web' });
    for (const pod of running) {
      expect(pod.metadata.name).toMatch(generatedName('web'));
      expect(pod.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'ReplicationController', name: 'web', uid: rc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    const status = await until('status of 3 available replicas', async () => {
      const current = (JSON.parse(await ok('get', 'rc', 'web', '-o', 'json')) as { status: Record<string, number> }).status;
      return current.availableReplicas === 3 ? current : undefined;
    });
    expect(status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: rc.metadata.generation });
    const described = await ok('describe', 'rc', 'web');
    expect(described).toMatch(/^Selector:\s+app=web$/m);
    expect(described).toMatch(/^Replicas:\s+3 current \/ 3 desired$/m);
    expect(described).toMatch(/^Pods Status:\s+3 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed$/m);
    expect(described).toMatch(new RegExp(`^\\s+Normal\\s+SuccessfulCreate\\s+.*\\s+replication-controller\\s+Created pod: ${running[0].metadata.name}$`, 'm'));
  });

  it('shows DESIRED, CURRENT, READY and AGE in kubectl get rc, and CONTAINERS, IMAGES, SELECTOR wide', async () => {
    const lines = (await ok('get', 'rc', 'web')).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/);
    expect(lines[1]).toMatch(/^web\s+3\s+3\s+3\s+\d+s$/);
    const wide = (await ok('get', 'replicationcontrollers', 'web', '-o', 'wide')).trimEnd().split('\n');
    expect(wide[0]).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/);
    expect(wide[1]).toMatch(new RegExp(`^web\\s+3\\s+3\\s+3\\s+\\d+s\\s+app\\s+${escaped(busyboxImage)}\\s+app=web$`));
    expect(await ok('get', 'all', '-o', 'name')).toContain('replicationcontroller/web\n');
    expect(await ok('api-resources', '--api-group=', '-o', 'name')).toContain('replicationcontrollers\n');
  });

  it('replaces a deleted pod', async () => {
    const [victim] = await readyPods('app=web', 3);
    await ok('delete', 'pod', victim.metadata.name, '--wait=false');
    const after = await readyPods('app=web', 3);
    expect(after.map((pod) => pod.metadata.name)).not.toContain(victim.metadata.name);
  });

  it('scales with kubectl scale rc, through the scale subresource', async () => {
    expect(await ok('scale', 'rc', 'web', '--replicas=5')).toBe('replicationcontroller/web scaled\n');
    await readyPods('app=web', 5);
    const scale = JSON.parse(await ok('get', '--raw', '/api/v1/namespaces/default/replicationcontrollers/web/scale')) as Record<string, unknown>;
    expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 5 }, status: { selector: 'app=web' } });
    expect(await ok('scale', 'rc', 'web', '--replicas=2', '--current-replicas=5')).toBe('replicationcontroller/web scaled\n');
    await readyPods('app=web', 2);
    await until('5 -> 2 in kubectl get rc', async () => ((await ok('get', 'rc', 'web', '--no-headers')).match(/^web\s+2\s+2\s+2\s/) ? true : undefined));
  });

  it('refuses an invalid ReplicationController with upstream messages', async () => {
    const invalid = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'bad' }, spec: { replicas: -1, selector: { app: 'one' }, template: { metadata: { labels: { app: 'two' } }, spec: { ...podTemplateSpec, restartPolicy: 'Never' } } } };
    const result = await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(invalid) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        'The ReplicationController "bad" is invalid: ',
        '* spec.replicas: Invalid value: -1: must be greater than or equal to 0',
        '* spec.template.metadata.labels: Invalid value: map[string]string{"app":"two"}: `selector` does not match template `labels`',
        '* spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
        '',
      ].join('\n'),
    );
  });

  it('leaves its pods, without owner references, when deleted with --cascade=orphan, and a new RC adopts them', async () => {
    const before = (await readyPods('app=web', 2)).map((pod) => pod.metadata.name).sort();
    expect(await ok('delete', 'rc', 'web', '--cascade=orphan')).toBe('replicationcontroller "web" deleted from default namespace\n');
    const orphans = await until('the pods to lose their owner reference', async () => {
      const current = await pods('app=web');
      return current.length === 2 && current.every((pod) => !pod.metadata.ownerReferences) ? current : undefined;
    });
    expect(orphans.map((pod) => pod.metadata.name).sort()).toEqual(before);
    expect((await cluster.kubectl(['get', 'rc', 'web'])).stderr).toContain('replicationcontrollers "web" not found');

    await apply(replicationController('web', 2));
    const adopted = await until('the orphans to be adopted', async () => {
      const current = await pods('app=web');
      return current.length === 2 && current.every((pod) => pod.metadata.ownerReferences?.[0]?.kind === 'ReplicationController') ? current : undefined;
    });
    expect(adopted.map((pod) => pod.metadata.name).sort()).toEqual(before);
  });

  it('deletes its pods with it by default (background) and with --cascade=foreground', async () => {
    await ok('delete', 'rc', 'web');
    await noPods('app=web');
    await apply(replicationController('fore', 2));
    await readyPods('app=fore', 2);
    await ok('delete', 'rc', 'fore', '--cascade=foreground');
    // kubectl waits for the foreground deletion: the RC goes only after its pods
    expect((await pods('app=fore')).filter((pod) => !pod.metadata.deletionTimestamp)).toEqual([]);
    await noPods('app=fore');
  });

  it('orphans its pods when a DELETE names no propagation policy, as upstream keeps for core/v1', async () => {
    await apply(replicationController('legacy', 1));
    const [pod] = await readyPods('app=legacy', 1);
    const reply = await cluster.request('DELETE', '/api/v1/namespaces/default/replicationcontrollers/legacy');
    expect(reply.status).toBe(200);
    await until('the RC to go', async () => ((await cluster.kubectl(['get', 'rc', 'legacy'])).code === 1 ? true : undefined));
    const [left] = await until('the pod to lose its owner reference', async () => {
      const current = await pods('app=legacy');
      return current.length === 1 && !current[0].metadata.ownerReferences ? current : undefined;
    });
    expect(left.metadata.uid).toBe(pod.metadata.uid);
    await ok('delete', 'pod', left.metadata.name, '--wait=false');
  });
});

// ---------------------------------------------------------------- kubectl apply --prune

/** Writes `files` (name → YAML) into a fresh directory under the suite's temporary folder. */
function writeDirectory(name: string, files: Record<string, string>): string {
  const directory = join(manifests, name);
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(directory, file), text);
  return directory;
}

const labels = '{app: demo}';
const sleeper = `[{name: app, image: ${busyboxImage}, command: [sleep, '3600']}]`;

/** One labelled object of every kind kubectl's default prune allow-list names, workloads at zero pods. */
const everyPrunableKind: Record<string, string> = {
  'core.yaml': `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, labels: ${labels}}
data: {color: blue}
---
apiVersion: v1
kind: Secret
metadata: {name: credentials, labels: ${labels}}
stringData: {password: x}
---
apiVersion: v1
kind: Service
metadata: {name: front, labels: ${labels}}
spec: {ports: [{port: 80}], selector: {app: front}}
---
apiVersion: v1
kind: Endpoints
metadata: {name: outside, labels: ${labels}}
subsets: [{addresses: [{ip: 10.1.2.3}], ports: [{port: 80}]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, labels: ${labels}}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Mi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: lone, labels: ${labels}}
spec: {terminationGracePeriodSeconds: 0, containers: ${sleeper}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy, labels: ${labels}}
spec:
  replicas: 0
  template:
    metadata: {labels: {app: legacy-pods}}
    spec: {terminationGracePeriodSeconds: 0, containers: ${sleeper}}
`,
  'cluster.yaml': `apiVersion: v1
kind: Namespace
metadata: {name: demo-extra, labels: ${labels}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: demo-volume, labels: ${labels}}
spec: {capacity: {storage: 1Mi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/kubedesk-demo-volume}}
`,
  'workloads.yaml': `apiVersion: batch/v1
kind: Job
metadata: {name: once, labels: ${labels}}
spec:
  suspend: true
  template:
    spec: {restartPolicy: Never, containers: ${sleeper}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, labels: ${labels}}
spec:
  schedule: '0 3 * * *'
  suspend: true
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: ${sleeper}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: entry, labels: ${labels}}
spec: {defaultBackend: {service: {name: front, port: {number: 80}}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, labels: ${labels}}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {nodeSelector: {kubedesk.test/nowhere: 'true'}, containers: ${sleeper}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, labels: ${labels}}
spec:
  replicas: 0
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: ${sleeper}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: cache, labels: ${labels}}
spec:
  replicas: 0
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec: {containers: ${sleeper}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: store, labels: ${labels}}
spec:
  replicas: 0
  serviceName: store
  selector: {matchLabels: {app: store}}
  template:
    metadata: {labels: {app: store}}
    spec: {containers: ${sleeper}}
`,
};

/** What stays: a labelled ConfigMap and ReplicationController still in the manifests. */
const kept = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, labels: ${labels}}
data: {color: green}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy, labels: ${labels}}
spec:
  replicas: 0
  template:
    metadata: {labels: {app: legacy-pods}}
    spec: {terminationGracePeriodSeconds: 0, containers: ${sleeper}}
`;

/** kubectl's output lines, warnings on stderr left out. */
function outputLines(text: string): string[] {
  return text.trimEnd().split('\n').sort();
}

describe('kubectl apply --prune -l', () => {
  it('with -f DIR prunes exactly the labelled objects no longer in the manifests, of every kind in the default allow-list', async () => {
    const directory = writeDirectory('files', everyPrunableKind);
    const first = await kubectlOk(cluster, ['apply', '-f', directory, '--prune', '-l', 'app=demo']);
    expect(outputLines(first)).toEqual(
      [
        'configmap/settings created',
        'secret/credentials created',
        'service/front created',
        'endpoints/outside created',
        'persistentvolumeclaim/data created',
        'pod/lone created',
        'replicationcontroller/legacy created',
        'namespace/demo-extra created',
        'persistentvolume/demo-volume created',
        'job.batch/once created',
        'cronjob.batch/nightly created',
        'ingress.networking.k8s.io/entry created',
        'daemonset.apps/agent created',
        'deployment.apps/api created',
        'replicaset.apps/cache created',
        'statefulset.apps/store created',
      ].sort(),
    );
    // not pruned: an unlabelled object, and a labelled one that apply never managed
    await ok('create', 'configmap', 'unlabelled');
    await ok('create', 'configmap', 'by-hand');
    await ok('label', 'configmap', 'by-hand', 'app=demo');

    writeDirectory('files', { 'kept.yaml': kept });
    const second = await kubectlOk(cluster, ['apply', '-f', directory, '--prune', '-l', 'app=demo']);
    expect(outputLines(second)).toEqual(
      [
        'configmap/settings configured',
        'replicationcontroller/legacy unchanged',
        'secret/credentials pruned',
        'service/front pruned',
        'endpoints/outside pruned',
        'persistentvolumeclaim/data pruned',
        'pod/lone pruned',
        'namespace/demo-extra pruned',
        'persistentvolume/demo-volume pruned',
        'job.batch/once pruned',
        'cronjob.batch/nightly pruned',
        'ingress.networking.k8s.io/entry pruned',
        'daemonset.apps/agent pruned',
        'deployment.apps/api pruned',
        'replicaset.apps/cache pruned',
        'statefulset.apps/store pruned',
      ].sort(),
    );
    const left = await ok('get', 'configmaps,secrets,services,replicationcontrollers,deployments,statefulsets,daemonsets,replicasets,jobs,cronjobs,ingresses', '-l', 'app=demo', '-o', 'name');
    expect(outputLines(left)).toEqual(['configmap/by-hand', 'configmap/settings', 'replicationcontroller/legacy']);
    expect(await ok('get', 'configmap', 'unlabelled', '-o', 'name')).toBe('configmap/unlabelled\n');

    // a third apply of the same manifests prunes nothing
    const third = await kubectlOk(cluster, ['apply', '-f', directory, '--prune', '-l', 'app=demo']);
    expect(outputLines(third)).toEqual(['configmap/settings unchanged', 'replicationcontroller/legacy unchanged']);

    // the ReplicationController itself goes when it leaves the manifests, with its pods
    await ok('scale', 'rc', 'legacy', '--replicas=1');
    await readyPods('app=legacy-pods', 1);
    writeDirectory('files', { 'kept.yaml': kept.split('---\n')[0] });
    const fourth = await kubectlOk(cluster, ['apply', '-f', directory, '--prune', '-l', 'app=demo']);
    expect(outputLines(fourth)).toEqual(['configmap/settings unchanged', 'replicationcontroller/legacy pruned']);
    await noPods('app=legacy-pods');
    await ok('delete', 'configmap', 'settings', 'by-hand', 'unlabelled');
  });

  it('with -k DIR prunes exactly the labelled objects the kustomization no longer lists', async () => {
    const kustomization = (resources: string[]) => `labels:\n- pairs: {app: kdemo}\nresources:\n${resources.map((file) => `- ${file}`).join('\n')}\n`;
    const files = {
      'config.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kconfig}\ndata: {k: v}\n',
      'extra.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kextra}\ndata: {k: v}\n',
      'service.yaml': 'apiVersion: v1\nkind: Service\nmetadata: {name: kweb}\nspec: {ports: [{port: 80}], selector: {app: kweb}}\n',
      'rc.yaml': `apiVersion: v1\nkind: ReplicationController\nmetadata: {name: kworkers}\nspec:\n  replicas: 1\n  template:\n    metadata: {labels: {app: kworkers}}\n    spec: {terminationGracePeriodSeconds: 0, containers: ${sleeper}}\n`,
    };
    const directory = writeDirectory('kustomized', { ...files, 'kustomization.yaml': kustomization(Object.keys(files)) });
    const first = await kubectlOk(cluster, ['apply', '-k', directory, '--prune', '-l', 'app=kdemo']);
    expect(outputLines(first)).toEqual(['configmap/kconfig created', 'configmap/kextra created', 'replicationcontroller/kworkers created', 'service/kweb created']);
    await readyPods('app=kworkers', 1);

    writeFileSync(join(directory, 'kustomization.yaml'), kustomization(['config.yaml']));
    const second = await kubectlOk(cluster, ['apply', '-k', directory, '--prune', '-l', 'app=kdemo']);
    expect(outputLines(second)).toEqual(['configmap/kconfig unchanged', 'configmap/kextra pruned', 'replicationcontroller/kworkers pruned', 'service/kweb pruned']);
    expect(outputLines(await ok('get', 'configmaps,services,replicationcontrollers', '-l', 'app=kdemo', '-o', 'name'))).toEqual(['configmap/kconfig']);
    await noPods('app=kworkers');
  });
});
