// `kubedesk why` against a real `kubedesk serve` with pods on real Docker: every failure the
// diagnosis names is produced for real — a container killed at its memory limit, an image that
// exists nowhere, a crash loop with exit code 127, readiness and liveness probes on a closed port,
// a missing ConfigMap and a missing key, a claim whose StorageClass does not exist, a quota and a
// LimitRange refusing a controller's pods, a rollout past its progress deadline, a pod no node
// takes, a Service selector typo, a targetPort no container exposes, an Ingress whose backend
// Service does not exist, a Job past its backoff limit — and the command's first line must name
// it (exit 1); a healthy Deployment says "healthy" (exit 0); kubeconfig and namespace flags work
// as kubectl's.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startCluster, type CommandResult, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { repositoryRoot } from '../support/tools';
import { kubectlOk, until } from '../support/wait';

const cli = join(repositoryRoot, 'bin', 'kubedesk.mjs');

const container = (name: string, extra: string) => `
    - name: ${name}
      image: ${busyboxImage}
      imagePullPolicy: IfNotPresent
${extra}`;

const manifests = `
apiVersion: v1
kind: Pod
metadata: { name: hog }
spec:
  terminationGracePeriodSeconds: 1
  containers:${container('hog', `      command: ['sh', '-c', 'echo allocating; head -c 200m /dev/zero | tail > /dev/null']
      resources: { limits: { memory: 20Mi } }`)}
---
apiVersion: v1
kind: Pod
metadata: { name: no-registry }
spec:
  containers:
    - { name: app, image: '127.0.0.1:1/kubedesk-test/absent:1' }
---
apiVersion: v1
kind: Pod
metadata: { name: no-image }
spec:
  containers:
    - { name: app, image: 'kubedesk-test/does-not-exist:1' }
---
apiVersion: v1
kind: Pod
metadata: { name: crash127 }
spec:
  terminationGracePeriodSeconds: 1
  containers:${container('app', `      command: ['sh', '-c', 'echo starting up; no-such-command']`)}
---
apiVersion: v1
kind: Pod
metadata: { name: unready }
spec:
  terminationGracePeriodSeconds: 1
  containers:${container('app', `      command: ['sleep', '3600']
      readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 }`)}
---
apiVersion: v1
kind: Pod
metadata: { name: unlive }
spec:
  terminationGracePeriodSeconds: 1
  containers:${container('app', `      command: ['sleep', '3600']
      livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1, failureThreshold: 1 }`)}
---
apiVersion: v1
kind: ConfigMap
metadata: { name: present-cm }
data: { color: blue }
---
apiVersion: v1
kind: Pod
metadata: { name: no-configmap }
spec:
  terminationGracePeriodSeconds: 1
  containers:${container('app', `      command: ['sleep', '3600']
      env: [{ name: X, valueFrom: { configMapKeyRef: { name: missing-cm, key: x } } }]`)}
---
apiVersion: v1
kind: Pod
metadata: { name: no-key }
spec:
  terminationGracePeriodSeconds: 1
  containers:${container('app', `      command: ['sleep', '3600']
      env: [{ name: X, valueFrom: { configMapKeyRef: { name: present-cm, key: missing-key } } }]`)}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: unbound }
spec:
  storageClassName: does-not-exist
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 1Mi } }
---
apiVersion: v1
kind: Pod
metadata: { name: uses-unbound }
spec:
  terminationGracePeriodSeconds: 1
  containers:${container('app', `      command: ['sleep', '3600']
      volumeMounts: [{ name: data, mountPath: /data }]`)}
  volumes: [{ name: data, persistentVolumeClaim: { claimName: unbound } }]
---
apiVersion: v1
kind: Pod
metadata: { name: picky }
spec:
  nodeSelector: { disktype: ssd }
  containers:${container('app', `      command: ['sleep', '3600']`)}
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: web
          image: ${busyboxImage}
          imagePullPolicy: IfNotPresent
          command: ['httpd', '-f', '-p', '8080']
          ports: [{ name: http, containerPort: 8080 }]
---
apiVersion: v1
kind: Service
metadata: { name: typo }
spec:
  selector: { app: wbe }
  ports: [{ port: 80, targetPort: 8080 }]
---
apiVersion: v1
kind: Service
metadata: { name: wrong-port }
spec:
  selector: { app: web }
  ports: [{ port: 80, targetPort: 9090 }]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: { name: orphan }
spec:
  rules:
    - http:
        paths:
          - { path: /, pathType: Prefix, backend: { service: { name: nowhere, port: { number: 80 } } } }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: stuck }
spec:
  replicas: 1
  progressDeadlineSeconds: 5
  selector: { matchLabels: { app: stuck } }
  template:
    metadata: { labels: { app: stuck } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: app
          image: ${busyboxImage}
          imagePullPolicy: IfNotPresent
          command: ['sleep', '3600']
          readinessProbe: { exec: { command: ['sh', '-c', 'echo warming up; exit 1'] }, periodSeconds: 1 }
---
apiVersion: batch/v1
kind: Job
metadata: { name: migrate }
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 1
      containers:
        - name: app
          image: ${busyboxImage}
          imagePullPolicy: IfNotPresent
          command: ['sh', '-c', 'echo migration failed >&2; exit 3']
---
apiVersion: v1
kind: Namespace
metadata: { name: quota }
---
apiVersion: v1
kind: ResourceQuota
metadata: { name: tiny, namespace: quota }
spec:
  hard: { pods: '1' }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: many, namespace: quota }
spec:
  replicas: 3
  selector: { matchLabels: { app: many } }
  template:
    metadata: { labels: { app: many } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - { name: app, image: '${busyboxImage}', imagePullPolicy: IfNotPresent, command: ['sleep', '3600'] }
---
apiVersion: v1
kind: Namespace
metadata: { name: limits }
---
apiVersion: v1
kind: LimitRange
metadata: { name: small, namespace: limits }
spec:
  limits:
    - type: Container
      max: { memory: 64Mi }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: greedy, namespace: limits }
spec:
  replicas: 1
  selector: { matchLabels: { app: greedy } }
  template:
    metadata: { labels: { app: greedy } }
    spec:
      containers:
        - { name: app, image: '${busyboxImage}', imagePullPolicy: IfNotPresent, command: ['sleep', '3600'], resources: { limits: { memory: 128Mi } } }
`;

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
  await kubectlOk(cluster, ['apply', '-f', '-'], manifests);
}, 180_000);

afterAll(async () => {
  await cluster?.destroy();
});

function why(args: string[], env: Record<string, string> = { KUBECONFIG: cluster.kubeconfig }): Promise<CommandResult> {
  return runCommand(process.execPath, [cli, 'why', ...args], { env, timeoutMs: 60_000 });
}

/** Runs `kubedesk why` until its first line matches (the failure takes a moment to happen for real). */
async function whyUntil(args: string[], firstLine: RegExp, code = 1, timeoutMs = 90_000): Promise<CommandResult> {
  let last: CommandResult | undefined;
  return until(
    `kubedesk why ${args.join(' ')} to say ${firstLine}`,
    async () => {
      last = await why(args);
      return last.code === code && firstLine.test(last.stdout.split('\n')[0]) ? last : undefined;
    },
    timeoutMs,
    1000,
    () => `last exit ${String(last?.code)}:\n${last?.stdout ?? ''}${last?.stderr ?? ''}`,
  );
}

describe('kubedesk why on failures produced on Docker', () => {
  it('says a container ran out of memory at its limit (OOMKilled, 137)', async () => {
    const result = await whyUntil(['pod/hog'], /^container "hog" keeps running out of memory: killed at its 20Mi memory limit \(OOMKilled, exit code 137\), restarted \d+ times?$/);
    expect(result.stdout).toContain('Memory limit: 20Mi (20 MiB)');
    expect(result.stdout).toContain('| allocating');
    expect(result.stdout).toContain('hint: raise resources.limits.memory');
  });

  it('says an image is not local and no registry is reachable, with the docker build hint', async () => {
    const result = await whyUntil(['pod', 'no-registry'], /^image "127\.0\.0\.1:1\/kubedesk-test\/absent:1" is not in the local Docker image store and no registry is reachable to pull it$/);
    expect(result.stdout).toContain('hint: build it on this machine: docker build -t 127.0.0.1:1/kubedesk-test/absent:1 .');
    // Docker Hub may or may not be reachable from here: either way the image exists nowhere
    const hub = await whyUntil(['pod/no-image'], /^image "kubedesk-test\/does-not-exist:1" is not in the local Docker image store(?: and no registry is reachable to pull it|, and its registry does not have it or refuses access)$/);
    expect(hub.stdout).toContain('docker build -t kubedesk-test/does-not-exist:1 .');
  });

  it('explains a crash loop with exit code 127 and shows the last log lines', async () => {
    const result = await whyUntil(['po/crash127'], /^container "app" keeps crashing: exit code 127 \(command not found\), restarted \d+ times?$/);
    expect(result.stdout).toContain('Last log lines of container "app" in pod crash127 (previous instance):');
    expect(result.stdout).toContain('no-such-command: not found');
    expect(result.stdout).toContain("hint: check the container's command and args");
  });

  it('gives a readiness probe’s and a liveness probe’s own output on a closed port', async () => {
    await whyUntil(['pod/unready'], /^readiness probe failing on container "app": dial tcp [\d.]+:8080: connect: connection refused$/);
    await whyUntil(['pod/unlive'], /^liveness probe failing on container "app": dial tcp [\d.]+:8080: connect: connection refused, restarted \d+ times?$/);
  });

  it('names a missing ConfigMap and a missing key', async () => {
    await whyUntil(['pod/no-configmap'], /^ConfigMap "missing-cm" does not exist \(container "app" needs it\)$/);
    const key = await whyUntil(['pod/no-key'], /^ConfigMap "present-cm" has no key "missing-key" \(container "app" needs it\)$/);
    expect(key.stdout).toContain('ConfigMap "present-cm" has the keys: color');
  });

  it('says a claim is not bound because its StorageClass does not exist, for the claim and for its pod', async () => {
    const claim = await whyUntil(['pvc/unbound'], /^StorageClass "does-not-exist" does not exist, so nothing provisions a volume for it$/);
    expect(claim.stdout).toContain('StorageClasses: standard (default)');
    await whyUntil(['pod/uses-unbound'], /^volume "data": PersistentVolumeClaim "unbound" is not bound: StorageClass "does-not-exist" does not exist/);
  });

  it('says a quota and a LimitRange refuse a Deployment’s pods (FailedCreate)', async () => {
    const quota = await whyUntil(['deploy/many', '-n', 'quota'], /^1\/3 ready: cannot create pods: ResourceQuota "tiny" is exhausted \(requested: pods=1, used: pods=1, limited: pods=1\)$/);
    expect(quota.stdout).toContain('hint: see what the quota allows: kubectl describe resourcequota tiny -n quota');
    await whyUntil(['deployment.apps/greedy', '--namespace=limits'], /^0\/1 ready: cannot create pods: a LimitRange refuses them: maximum memory usage per Container is 64Mi, but limit is 128Mi$/);
  });

  it('says a rollout is past its progress deadline, and why its pod is not ready', async () => {
    const result = await whyUntil(['deploy/stuck'], /^rollout stuck past its progress deadline \(5s\): readiness probe failing on container "app": warming up \(pod stuck-[a-z0-9]+-[a-z0-9]+\)$/);
    expect(result.stdout).toContain('Progressing: ReplicaSet "stuck-');
  });

  it('names the predicate and the node when no node takes a pod', async () => {
    const result = await whyUntil(['pod/picky'], /^cannot be scheduled: 1 node\(s\) didn't match Pod's node affinity\/selector \(nodeSelector disktype=ssd\)$/);
    expect(result.stdout).toContain('Node kubedesk: it has no label disktype (nodeSelector wants disktype=ssd)');
  });

  it('spots a Service selector typo and a targetPort no container exposes', async () => {
    await whyUntil(['svc/typo'], /^selector app=wbe matches no pod in namespace default — did you mean app=web\?$/);
    await whyUntil(['service/wrong-port'], /^targetPort 9090 \(port 80\) is not a port the selected pods' containers expose \(they expose 8080\/TCP "http"\)$/);
  });

  it('names an Ingress backend Service that does not exist', async () => {
    await whyUntil(['ing/orphan'], /^backend Service "nowhere" does not exist \(path \/\)$/);
  });

  it('explains a Job past its backoff limit with its pod’s exit code and output', async () => {
    const result = await whyUntil(['job/migrate'], /^failed: BackoffLimitExceeded \(Job has reached the specified backoff limit\); last failure: container "app" failed: exit code 3 \(error\) \(pod migrate-[a-z0-9]+\)$/);
    expect(result.stdout).toContain('| migration failed');
  });

  it('says "healthy" for a healthy Deployment and exits 0', async () => {
    const result = await whyUntil(['deploy/web'], /^healthy: 2\/2 replicas ready and up to date$/, 0);
    expect(result.stderr).toBe('');
  });
});

describe('kubedesk why as a kubectl-like client', () => {
  it('prints kubectl’s NotFound error and exits 2', async () => {
    const result = await why(['deploy/nothere']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe('Error from server (NotFound): deployments.apps "nothere" not found\n');
  });

  it('takes --kubeconfig and --context over KUBECONFIG, as kubectl does', async () => {
    const env = { KUBECONFIG: join(cluster.root, 'no-such-kubeconfig') };
    const result = await why(['deploy/web', '--kubeconfig', cluster.kubeconfig, '--context', 'kubedesk'], env);
    expect(result.code).toBe(0);
    const wrongContext = await why(['deploy/web', '--kubeconfig', cluster.kubeconfig, '--context', 'elsewhere'], env);
    expect(wrongContext).toMatchObject({ code: 2, stderr: 'Error in configuration: context was not found for specified context: elsewhere\n' });
  });

  it('refuses a type it does not diagnose with the usage, exit 2', async () => {
    const result = await why(['configmap/present-cm']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"configmap" is not a type kubedesk why diagnoses');
  });
});
