import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { makeDiagnosisPod, makeWorkload } from '../../test/fixtures/diagnosisObjects';
import { makeTestCertificates } from '../../test/fixtures/testCertificates';
import { parseWhyArgs, resourceTypeOf, whyCommand, WhyUsageError } from './why';

describe('parseWhyArgs', () => {
  it.each([
    [['deploy/web'], 'Deployment', 'web', {}],
    [['po', 'crash', '-n', 'apps'], 'Pod', 'crash', { namespace: 'apps' }],
    [['-napps', 'svc/web'], 'Service', 'web', { namespace: 'apps' }],
    [['--namespace=apps', 'ing/site', '--context', 'kind', '--kubeconfig=/tmp/k'], 'Ingress', 'site', { namespace: 'apps', context: 'kind', kubeconfig: '/tmp/k' }],
    [['deployments.apps/web'], 'Deployment', 'web', {}],
    [['Deployment.v1.apps', 'web'], 'Deployment', 'web', {}],
    [['pvc/data', '-n=db'], 'PersistentVolumeClaim', 'data', { namespace: 'db' }],
    [['cj/nightly'], 'CronJob', 'nightly', {}],
  ])('reads %j', (argv, kind, name, flags) => {
    expect(parseWhyArgs(argv)).toMatchObject({ type: { kind }, name, flags });
  });

  it.each([
    [[], 'you must name an object'],
    [['configmap/settings'], '"configmap" is not a type kubedesk why diagnoses'],
    [['deploy/web', 'extra'], 'expected TYPE/NAME or TYPE NAME'],
    [['deploy/'], 'must have a single resource and name'],
    [['deploy/web', '--output=json'], 'unknown flag: --output'],
    [['deploy/web', '-n'], 'flag needs an argument: -n'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseWhyArgs(argv)).toThrow(WhyUsageError);
    expect(() => parseWhyArgs(argv)).toThrow(message);
  });

  it('asks for help with -h', () => {
    expect(parseWhyArgs(['-h'])).toBeUndefined();
  });

  it('knows kubectl’s names for every diagnosed type', () => {
    for (const [word, kind] of [['po', 'Pod'], ['sts', 'StatefulSet'], ['ds', 'DaemonSet'], ['rs', 'ReplicaSet'], ['rc', 'ReplicationController'], ['jobs', 'Job'], ['services', 'Service'], ['ingresses.networking.k8s.io', 'Ingress'], ['persistentvolumeclaims', 'PersistentVolumeClaim']]) {
      expect(resourceTypeOf(word)?.kind, word).toBe(kind);
    }
    expect(resourceTypeOf('deployments.batch')).toBeUndefined();
  });
});

describe('whyCommand against an API server', () => {
  const certificates = makeTestCertificates(['api.example'], [], 'jane');
  const requests: { path: string; user?: string; authorization?: string }[] = [];
  const objects = new Map<string, unknown>();
  let server: https.Server;
  let dir: string;
  let kubeconfig: string;

  const web = makeWorkload('Deployment', 'web', { namespace: 'apps', replicas: 2, status: { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 } });
  const crash = makeDiagnosisPod('crash', { namespace: 'apps', phase: 'Running', containers: [{ command: ['sh', '-c', 'nope'], waiting: { reason: 'CrashLoopBackOff' }, lastTerminated: { exitCode: 127, reason: 'Error' }, restartCount: 2 }] });
  const list = (items: KubeObject[]) => ({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items });

  beforeAll(async () => {
    objects.set('/apis/apps/v1/namespaces/apps/deployments/web', web);
    objects.set('/api/v1/namespaces/apps/pods/crash', crash);
    objects.set('/api/v1/namespaces/apps/pods', list([crash]));
    objects.set('/api/v1/namespaces/apps/pods/crash/log?container=app&tailLines=5&previous=true', 'starting\nsh: nope: not found\n');
    for (const path of ['/api/v1/namespaces/apps/events', '/apis/apps/v1/namespaces/apps/replicasets', '/api/v1/namespaces/apps/persistentvolumeclaims', '/api/v1/namespaces/apps/configmaps', '/apis/storage.k8s.io/v1/storageclasses']) objects.set(path, list([]));
    server = https.createServer({ cert: certificates.certPem, key: certificates.keyPem, ca: certificates.caPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const url = new URL(req.url ?? '/', 'https://api.example');
      url.searchParams.delete('limit');
      const path = `${url.pathname}${url.search}`;
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      const commonName = peer?.subject?.CN;
      requests.push({ path, user: Array.isArray(commonName) ? commonName.join(',') : commonName, authorization: req.headers.authorization });
      if (url.pathname === '/api/v1/nodes') {
        // a user who may not list nodes: the diagnosis goes on without them
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: 'nodes is forbidden' }));
        return;
      }
      const body = objects.get(path);
      if (body === undefined) {
        const name = url.pathname.split('/').pop();
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `pods "${name}" not found` }));
        return;
      }
      res.writeHead(200, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    dir = mkdtempSync(join(tmpdir(), 'kd-why-'));
    writeFileSync(join(dir, 'client.crt'), certificates.client?.certPem ?? '');
    writeFileSync(join(dir, 'client.key'), certificates.client?.keyPem ?? '');
    kubeconfig = join(dir, 'config');
    const ca = Buffer.from(certificates.caPem).toString('base64');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
current-context: cert
clusters:
- name: local
  cluster: { server: "https://127.0.0.1:${port}", certificate-authority-data: ${ca}, tls-server-name: api.example }
users:
- name: jane
  user: { client-certificate: client.crt, client-key: client.key }
- name: robot
  user: { token: robot-token }
contexts:
- name: cert
  context: { cluster: local, user: jane, namespace: apps }
- name: token
  context: { cluster: local, user: robot }
`,
    );
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(argv: string[], env: NodeJS.ProcessEnv = { KUBECONFIG: kubeconfig }) {
    let stdout = '';
    let stderr = '';
    const code = await whyCommand(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), environment: { env, cwd: dir } });
    return { code, stdout, stderr };
  }

  it('prints "healthy" and exits 0 for a healthy Deployment, as the context’s certificate user in its namespace', async () => {
    const result = await run(['deploy/web']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.split('\n')[0]).toBe('healthy: 2/2 replicas ready and up to date');
    expect(requests.find((request) => request.path === '/apis/apps/v1/namespaces/apps/deployments/web')?.user).toBe('jane');
  });

  it('prints the reason, the last log lines of the crashed run and exits 1', async () => {
    const result = await run(['pod', 'crash', '--context', 'token', '-n', 'apps']);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe('container "app" keeps crashing: exit code 127 (command not found), restarted 2 times');
    expect(result.stdout).toContain('  Last log lines of container "app" in pod crash (previous instance):\n    | starting\n    | sh: nope: not found\n');
    expect(requests.at(-1)?.authorization).toBe('Bearer robot-token');
  });

  it('prints kubectl’s NotFound error and exits 2', async () => {
    expect(await run(['po/nope'])).toEqual({ code: 2, stdout: '', stderr: 'Error from server (NotFound): pods "nope" not found\n' });
  });

  it('exits 2 with kubectl’s words for a bad context, kubeconfig or usage', async () => {
    expect(await run(['po/crash', '--context', 'prod'])).toMatchObject({ code: 2, stderr: 'Error in configuration: context was not found for specified context: prod\n' });
    expect((await run(['po/crash', '--kubeconfig', join(dir, 'missing')])).stderr).toBe(`error: stat ${join(dir, 'missing')}: no such file or directory\n`);
    const usage = await run(['nonsense/x']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage:\n  kubedesk why TYPE/NAME');
  });

  it('says when the server cannot be reached', async () => {
    const unreachable = join(dir, 'unreachable');
    writeFileSync(unreachable, 'current-context: c\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\ncontexts: [{name: c, context: {cluster: c}}]\n');
    const result = await run(['po/crash', '--kubeconfig', unreachable]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Unable to connect to the server: .*ECONNREFUSED/);
  });
});
