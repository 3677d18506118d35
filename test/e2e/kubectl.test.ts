// The real kubectl 1.35 against a real `kubedesk serve`: discovery, OpenAPI, CRUD, patch types,
// apply/diff, watch, wait and Kubernetes-style errors.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { backgroundKubectl } from '../support/processes';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.destroy();
});

async function kubectl(...args: string[]) {
  return cluster.kubectl(args);
}

const ok = (...args: string[]) => kubectlOk(cluster, args);

describe('discovery and cluster information', () => {
  it('reports client and server versions', async () => {
    const out = await ok('version');
    expect(out).toMatch(/Client Version: v1\.35/);
    expect(out).toMatch(/Server Version: v1\.35\.0/);
  });

  it('lists api-resources with short names, groups and kinds', async () => {
    const out = await ok('api-resources');
    expect(out.split('\n')[0]).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND/);
    expect(out).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/m);
    expect(out).toMatch(/^pods\s+po\s+v1\s+true\s+Pod/m);
    expect(out).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace/m);
    expect(out).toMatch(/^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease/m);
  });

  it('lists the system namespaces', async () => {
    const out = await ok('get', 'ns');
    expect(out.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+AGE$/);
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) expect(out).toMatch(new RegExp(`^${name}\\s+Active\\s+\\d+s`, 'm'));
  });

  it('explains deployment.spec.replicas from the OpenAPI schema', async () => {
    const out = await ok('explain', 'deployment.spec.replicas');
    expect(out).toMatch(/GROUP:\s+apps/);
    expect(out).toMatch(/KIND:\s+Deployment/);
    expect(out).toMatch(/FIELD:\s+replicas <integer>/);
    expect(out).toMatch(/DESCRIPTION:/);
  });

  it('prints cluster-info with the control plane address', async () => {
    const out = await ok('cluster-info');
    expect(out).toContain(`Kubernetes control plane is running at ${cluster.server}`);
  });
});

describe('create, read, update and delete', () => {
  it('creates a configmap, a secret, a namespace and a deployment (protobuf bodies)', async () => {
    expect(await ok('create', 'namespace', 'team-a')).toBe('namespace/team-a created\n');
    expect(await ok('create', 'configmap', 'settings', '-n', 'team-a', '--from-literal=color=blue', '--from-literal=size=3')).toBe('configmap/settings created\n');
    expect(await ok('create', 'secret', 'generic', 'creds', '-n', 'team-a', '--from-literal=password=s3cr3t')).toBe('secret/creds created\n');
    expect(await ok('create', 'deployment', 'web', '-n', 'team-a', '--image=kubedesk-test/busybox:4', '--replicas=2')).toBe('deployment.apps/web created\n');
    const again = await kubectl('create', 'namespace', 'team-a');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Error from server (AlreadyExists): namespaces "team-a" already exists');
  });

  it('gets objects as yaml, json, jsonpath, wide and name', async () => {
    const yaml = await ok('get', 'configmap', 'settings', '-n', 'team-a', '-o', 'yaml');
    expect(yaml).toMatch(/^apiVersion: v1$/m);
    expect(yaml).toMatch(/color: blue/);
    expect(yaml).toMatch(/resourceVersion: "\d+"/);
    expect(yaml).toMatch(/uid: [0-9a-f-]{36}/);
    const json = JSON.parse(await ok('get', 'secret', 'creds', '-n', 'team-a', '-o', 'json')) as { data: Record<string, string>; type: string };
    expect(Buffer.from(json.data.password, 'base64').toString()).toBe('s3cr3t');
    expect(json.type).toBe('Opaque');
    expect(await ok('get', 'deployment', 'web', '-n', 'team-a', '-o', 'jsonpath={.spec.replicas}')).toBe('2');
    const wide = await ok('get', 'deployment', 'web', '-n', 'team-a', '-o', 'wide');
    expect(wide.split('\n')[0]).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/);
    // the Deployment controller is rolling the pods out meanwhile: counts move between 0 and 2
    expect(wide).toMatch(/^web\s+[0-2]\/2\s+[0-2]\s+[0-2]\s+\S+\s+busybox\s+kubedesk-test\/busybox:4\s+app=web$/m);
    expect(await ok('get', 'configmaps', '-n', 'team-a', '-o', 'name')).toContain('configmap/settings');
  });

  it('prints the pod columns NAME READY STATUS RESTARTS AGE', async () => {
    await ok('run', 'lonely', '--image=kubedesk-test/busybox:4', '-n', 'team-a', '--', 'sleep', '3600');
    const out = await ok('get', 'pods', '-n', 'team-a');
    expect(out.split('\n')[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    // scheduled and started by the kubelet meanwhile, so any of the first states may show
    expect(out).toMatch(/^lonely\s+[01]\/1\s+(Pending|ContainerCreating|Running)\s+0\s+\S+$/m);
  });

  it('describes a deployment', async () => {
    const out = await ok('describe', 'deployment', 'web', '-n', 'team-a');
    expect(out).toMatch(/^Name:\s+web$/m);
    expect(out).toMatch(/^Namespace:\s+team-a$/m);
    expect(out).toMatch(/^Replicas:\s+2 desired/m);
    expect(out).toMatch(/StrategyType:\s+RollingUpdate/);
  });

  it('labels and annotates (merge patches)', async () => {
    expect(await ok('label', 'configmap', 'settings', '-n', 'team-a', 'tier=backend')).toBe('configmap/settings labeled\n');
    expect(await ok('annotate', 'configmap', 'settings', '-n', 'team-a', 'owner=alice')).toBe('configmap/settings annotated\n');
    expect(await ok('get', 'configmap', '-n', 'team-a', '-l', 'tier=backend', '-o', 'name')).toBe('configmap/settings\n');
    expect(await ok('get', 'configmap', 'settings', '-n', 'team-a', '-o', 'jsonpath={.metadata.annotations.owner}')).toBe('alice');
    const overwrite = await kubectl('label', 'configmap', 'settings', '-n', 'team-a', 'tier=frontend');
    expect(overwrite.code).toBe(1);
    expect(overwrite.stderr).toContain("'tier' already has a value (backend), and --overwrite is false");
  });

  it('patches with strategic merge, merge and JSON patches', async () => {
    await ok('patch', 'deployment', 'web', '-n', 'team-a', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"busybox","env":[{"name":"MODE","value":"fast"}]}]}}}}');
    expect(await ok('get', 'deployment', 'web', '-n', 'team-a', '-o', 'jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].env[0].value}')).toBe('kubedesk-test/busybox:4 fast');
    await ok('patch', 'configmap', 'settings', '-n', 'team-a', '--type=merge', '-p', '{"data":{"color":"green","size":null}}');
    expect(await ok('get', 'configmap', 'settings', '-n', 'team-a', '-o', 'jsonpath={.data}')).toBe('{"color":"green"}');
    await ok('patch', 'deployment', 'web', '-n', 'team-a', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":3}]');
    expect(await ok('get', 'deployment', 'web', '-n', 'team-a', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}')).toBe('3 3');
    const bad = await kubectl('patch', 'deployment', 'web', '-n', 'team-a', '--type=json', '-p', '[{"op":"remove","path":"/spec/nothing"}]');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('The request is invalid: the server rejected our request due to an error in our request');
  });

  it('scales through the scale subresource', async () => {
    expect(await ok('scale', 'deployment', 'web', '-n', 'team-a', '--replicas=1')).toBe('deployment.apps/web scaled\n');
    expect(await ok('get', 'deployment', 'web', '-n', 'team-a', '-o', 'jsonpath={.spec.replicas}')).toBe('1');
  });

  it('replaces an object and rejects a stale resourceVersion', async () => {
    const current = JSON.parse(await ok('get', 'configmap', 'settings', '-n', 'team-a', '-o', 'json')) as { data: Record<string, string>; metadata: { resourceVersion: string } };
    current.data.color = 'red';
    const file = join(cluster.root, 'replace.json');
    writeFileSync(file, JSON.stringify(current));
    expect(await ok('replace', '-f', file)).toBe('configmap/settings replaced\n');
    const stale = await kubectl('replace', '-f', file);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('Operation cannot be fulfilled on configmaps "settings": the object has been modified; please apply your changes to the latest version and try again');
  });

  it('edits with $EDITOR', async () => {
    const result = await cluster.kubectl(['edit', 'configmap', 'settings', '-n', 'team-a'], { env: { EDITOR: 'sed -i s/color:\\ red/color:\\ purple/', KUBE_EDITOR: '' } });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('configmap/settings edited\n');
    expect(await ok('get', 'configmap', 'settings', '-n', 'team-a', '-o', 'jsonpath={.data.color}')).toBe('purple');
  });

  it('lists across all namespaces with -A', async () => {
    const out = await ok('get', 'configmaps', '-A');
    expect(out.split('\n')[0]).toMatch(/^NAMESPACE\s+NAME\s+DATA\s+AGE$/);
    expect(out).toMatch(/^team-a\s+settings\s+1\s+\S+$/m);
  });

  it('deletes with --wait, and waits for finalizers to be removed', async () => {
    await ok('create', 'configmap', 'plain', '-n', 'team-a');
    expect(await ok('delete', 'configmap', 'plain', '-n', 'team-a', '--wait')).toBe('configmap "plain" deleted from team-a namespace\n');
    const held = join(cluster.root, 'held.yaml');
    writeFileSync(held, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: team-a\n  finalizers: ["example.com/hold"]\n');
    await ok('apply', '-f', held);
    const deletion = backgroundKubectl(cluster, ['delete', 'configmap', 'held', '-n', 'team-a', '--timeout=60s']);
    await until('deletionTimestamp', async () => ((await ok('get', 'configmap', 'held', '-n', 'team-a', '-o', 'jsonpath={.metadata.deletionTimestamp}')) ? true : undefined), 20_000, 100);
    expect(await ok('get', 'configmap', 'held', '-n', 'team-a', '-o', 'name')).toBe('configmap/held\n');
    await ok('patch', 'configmap', 'held', '-n', 'team-a', '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
    expect(await deletion.exited).toBe(0);
    expect(deletion.output()).toContain('configmap "held" deleted');
    const gone = await kubectl('get', 'configmap', 'held', '-n', 'team-a');
    expect(gone.stderr).toContain('Error from server (NotFound): configmaps "held" not found');
  });

  it('keeps a deleted namespace Terminating until its contents are gone', async () => {
    await ok('create', 'namespace', 'doomed');
    await ok('create', 'configmap', 'keep', '-n', 'doomed');
    const held = join(cluster.root, 'doomed.yaml');
    writeFileSync(held, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: doomed\n  finalizers: ["example.com/hold"]\n');
    await ok('apply', '-f', held);
    expect(await ok('delete', 'namespace', 'doomed', '--wait=false')).toBe('namespace "doomed" deleted\n');
    await until('Terminating', async () => ((await ok('get', 'ns', 'doomed')).match(/doomed\s+Terminating/) ? true : undefined), 20_000, 100);
    await until('plain content removed', async () => ((await kubectl('get', 'configmap', 'keep', '-n', 'doomed')).code === 1 ? true : undefined), 20_000, 100);
    const refused = await kubectl('create', 'configmap', 'late', '-n', 'doomed');
    expect(refused.stderr).toContain('is being terminated');
    await ok('patch', 'configmap', 'held', '-n', 'doomed', '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
    await until('namespace gone', async () => ((await kubectl('get', 'ns', 'doomed')).code === 1 ? true : undefined), 20_000, 100);
  });

  it('streams changes with get -w', async () => {
    const watch = backgroundKubectl(cluster, ['get', 'configmaps', '-n', 'team-a', '-w']);
    await until('watch header', async () => (watch.output().includes('NAME') ? true : undefined), 20_000, 100);
    await ok('create', 'configmap', 'watched', '-n', 'team-a', '--from-literal=a=1');
    await until('watched row', async () => (/^watched\s+1\s+\S+$/m.test(watch.output()) ? true : undefined), 20_000, 100);
    await ok('label', 'configmap', 'watched', '-n', 'team-a', 'x=y');
    await until('second watched row', async () => ((watch.output().match(/^watched\s+/gm) ?? []).length >= 2 ? true : undefined), 20_000, 100);
    watch.child.kill();
    expect(watch.output().split('\n')[0]).toMatch(/^NAME\s+DATA\s+AGE$/);
  });
});

describe('apply, diff and dry run', () => {
  const manifest = (color: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied-config
  namespace: default
data:
  color: ${color}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: applied-web
  namespace: default
  labels: {app: applied-web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: applied-web}
  template:
    metadata:
      labels: {app: applied-web}
    spec:
      containers:
      - name: web
        image: kubedesk-test/busybox:4
        command: ["httpd", "-f", "-p", "8080"]
        ports:
        - containerPort: 8080
`;

  it('creates, leaves unchanged, then configures multi-document YAML', async () => {
    const file = join(cluster.root, 'applied.yaml');
    writeFileSync(file, manifest('blue'));
    expect(await ok('apply', '-f', file)).toBe('configmap/applied-config created\ndeployment.apps/applied-web created\n');
    expect(await ok('apply', '-f', file)).toBe('configmap/applied-config unchanged\ndeployment.apps/applied-web unchanged\n');
    writeFileSync(file, manifest('green'));
    const diff = await kubectl('diff', '-f', file);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toMatch(/^-\s+color: blue$/m);
    expect(diff.stdout).toMatch(/^\+\s+color: green$/m);
    expect(await ok('get', 'configmap', 'applied-config', '-o', 'jsonpath={.data.color}')).toBe('blue');
    expect(await ok('apply', '-f', file)).toBe('configmap/applied-config configured\ndeployment.apps/applied-web unchanged\n');
    expect(await ok('get', 'configmap', 'applied-config', '-o', 'jsonpath={.data.color}')).toBe('green');
  });

  it('changes nothing with --dry-run=server', async () => {
    const file = join(cluster.root, 'dry.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\n  namespace: default\ndata:\n  a: b\n');
    expect(await ok('apply', '-f', file, '--dry-run=server')).toBe('configmap/dry created (server dry run)\n');
    expect((await kubectl('get', 'configmap', 'dry')).code).toBe(1);
    expect(await ok('create', 'configmap', 'dry2', '--from-literal=a=b', '--dry-run=server')).toBe('configmap/dry2 created (server dry run)\n');
    expect((await kubectl('get', 'configmap', 'dry2')).code).toBe(1);
    expect(await ok('delete', 'configmap', 'applied-config', '--dry-run=server')).toBe('configmap "applied-config" deleted from default namespace (server dry run)\n');
    expect(await ok('get', 'configmap', 'applied-config', '-o', 'name')).toBe('configmap/applied-config\n');
  });
});

describe('wait', () => {
  it('returns as soon as another client writes the awaited value', async () => {
    await ok('create', 'configmap', 'signal', '--from-literal=state=starting');
    const waiter = backgroundKubectl(cluster, ['wait', 'configmap/signal', '--for=jsonpath={.data.state}=done', '--timeout=60s']);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(waiter.child.exitCode).toBe(null);
    const writtenAt = Date.now();
    await ok('patch', 'configmap', 'signal', '--type=merge', '-p', '{"data":{"state":"done"}}');
    expect(await waiter.exited).toBe(0);
    expect(Date.now() - writtenAt).toBeLessThan(3000);
    expect(waiter.output()).toBe('configmap/signal condition met\n');
  });
});

describe('bad input answers like Kubernetes', () => {
  it('rejects an invalid name', async () => {
    const result = await kubectl('run', 'Bad_Name', '--image=kubedesk-test/busybox:4');
    expect(result.code).toBe(1);
    // kubectl run names the container after the pod, so a real cluster reports both fields.
    expect(result.stderr).toContain('The Pod "Bad_Name" is invalid: \n* metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of');
    expect(result.stderr).toContain('* spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of');
  });

  it('rejects a pod without an image', async () => {
    const file = join(cluster.root, 'noimage.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: noimage\nspec:\n  containers:\n  - name: main\n');
    const result = await kubectl('apply', '-f', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('spec.containers[0].image: Required value');
  });

  it('rejects an unknown field', async () => {
    const file = join(cluster.root, 'unknown.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unknownfield\nbogus: true\ndata:\n  a: b\n');
    const result = await kubectl('apply', '-f', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unknown field "bogus"');
  });

  it('answers NotFound for a missing object', async () => {
    const result = await kubectl('get', 'deployment', 'nothing-here');
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('Error from server (NotFound): deployments.apps "nothing-here" not found');
  });
});
