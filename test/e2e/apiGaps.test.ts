// API details where kubedesk used to differ from a real cluster, checked with the real kubectl 1.35
// against one `kubedesk serve`: the `kubernetes` and `kube-dns` Services have Endpoints and
// EndpointSlices whose addresses pods reach (the API over HTTPS, DNS); requests without credentials
// are system:anonymous (the health and version endpoints answer, everything else is 403, a bad
// token still 401); a CertificateSigningRequest names its requester whatever the client sent;
// server-side apply takes list and map types from the OpenAPI tags and refuses duplicate keys with
// upstream's error; a webhook-admitted write that races another writer is retried rather than
// refused with a 409; `reinvocationPolicy: IfNeeded` calls a mutating webhook again after a later
// one changed the object; LoadBalancer Services carry the load-balancer-cleanup finalizer; an
// explicit priority that disagrees with the pod's PriorityClass is refused; and a reply over
// 128 KiB is gzipped for a client that accepts gzip, as upstream's API response compression does.
import { writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, keyAlgorithms, loadX509 } from '../../shared/pki/x509';
import { makeTestCertificates, type TestCertificates } from '../fixtures/testCertificates';
import { certificateKubeconfig, issueClientCertificate } from '../support/clientCertificates';
import { startCluster, type TestCluster } from '../support/cluster';
import { freePort, hostGet } from '../support/hostHttp';
import { busyboxImage } from '../support/images';
import { kubectlOk, kubectlState, until as poll } from '../support/wait';

let cluster: TestCluster;
const namespace = 'apigaps-e2e';

const ok = (...args: string[]) => kubectlOk(cluster, args);
const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return poll(what, probe, timeoutMs, 300, kubectlState(cluster, ['get', 'pods,svc,endpointslices', '-A', '-o', 'wide']));
}

async function json<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  return JSON.parse(await ok(...args, '-o', 'json')) as T;
}

beforeAll(async () => {
  cluster = await startCluster();
  await ok('create', 'namespace', namespace);
});

afterAll(async () => {
  await cluster?.destroy();
});

interface Reply {
  status: number;
  body: string;
}

/** HTTPS to the API server with exactly these headers (no credentials unless given). */
function rawRequest(path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(new URL(path, cluster.server), { headers: { accept: 'application/json', ...headers }, ca: cluster.caPem, agent: false, timeout: 15_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`GET ${path} timed out`)));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** A busybox pod that sleeps, Running. */
async function clientPod(name: string): Promise<void> {
  await apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'main', image: busyboxImage, command: ['sleep', '3600'] }], terminationGracePeriodSeconds: 0 } });
  await until(`pod ${name} running`, async () => ((await ok('get', 'pod', name, '-n', namespace, '-o', 'jsonpath={.status.phase}')) === 'Running' ? true : undefined), 90_000);
}

async function inPod(pod: string, script: string): Promise<string> {
  const result = await cluster.kubectl(['exec', '-n', namespace, pod, '--', 'sh', '-c', script], { timeoutMs: 60_000 });
  return result.stdout + result.stderr;
}

describe('the kubernetes and kube-dns Services', () => {
  interface Endpoints {
    metadata: { labels?: Record<string, string> };
    subsets?: { addresses?: { ip: string }[]; ports?: { name?: string; port: number; protocol: string }[] }[];
  }
  interface Slice {
    metadata: { name: string; labels?: Record<string, string>; ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
    addressType: string;
    endpoints: { addresses: string[]; conditions: Record<string, boolean> }[];
    ports: { name: string; port: number; protocol: string }[];
  }

  async function endpointsOf(ns: string, name: string): Promise<Endpoints> {
    return until(`Endpoints ${ns}/${name} with an address`, async () => {
      const result = await cluster.kubectl(['get', 'endpoints', name, '-n', ns, '-o', 'json']);
      if (result.code !== 0) return undefined;
      const endpoints = JSON.parse(result.stdout) as Endpoints;
      return endpoints.subsets?.[0]?.addresses?.[0]?.ip ? endpoints : undefined;
    }, 30_000);
  }

  async function sliceOf(ns: string, service: string): Promise<Slice> {
    return until(`an EndpointSlice of ${ns}/${service} with an endpoint`, async () => {
      const list = await json<{ items: Slice[] }>('get', 'endpointslices', '-n', ns, '-l', `kubernetes.io/service-name=${service}`);
      return list.items.length === 1 && list.items[0].endpoints?.length ? list.items[0] : undefined;
    }, 30_000);
  }

  it('publish the API server as the apiserver endpoint reconciler does, at an address pods reach', async () => {
    const endpoints = await endpointsOf('default', 'kubernetes');
    const address = endpoints.subsets?.[0]?.addresses?.[0]?.ip ?? '';
    expect(endpoints.metadata.labels).toEqual({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    expect(endpoints.subsets).toEqual([{ addresses: [{ ip: address }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    const slice = await sliceOf('default', 'kubernetes');
    expect(slice.metadata.name).toBe('kubernetes');
    expect(slice.metadata.labels).toEqual({ 'kubernetes.io/service-name': 'kubernetes' });
    expect(slice.addressType).toBe('IPv4');
    expect(slice.endpoints).toEqual([{ addresses: [address], conditions: { ready: true } }]);
    expect(slice.ports).toEqual([{ name: 'https', port: 6443, protocol: 'TCP' }]);
    expect(await ok('get', 'endpoints', 'kubernetes', '--no-headers')).toMatch(new RegExp(`^kubernetes\\s+${address.replaceAll('.', '\\.')}:6443\\s+`));
    await clientPod('reach');
    // the serving certificate names the Service, not this address: wget may not check it
    const version = await inPod('reach', `wget -qO- --no-check-certificate https://${address}:6443/version`);
    expect(version).toContain('"gitVersion"');
  });

  it('publish cluster DNS as the endpoint controllers would for CoreDNS, at the address that answers', async () => {
    const endpoints = await endpointsOf('kube-system', 'kube-dns');
    const address = endpoints.subsets?.[0]?.addresses?.[0]?.ip ?? '';
    expect(endpoints.metadata.labels).toMatchObject({ 'k8s-app': 'kube-dns', 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' });
    expect(endpoints.subsets?.[0]?.ports).toEqual(expect.arrayContaining([{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }]));
    const slice = await sliceOf('kube-system', 'kube-dns');
    expect(slice.metadata.name).toMatch(/^kube-dns-[a-z0-9]{5}$/);
    expect(slice.metadata.labels).toMatchObject({ 'kubernetes.io/service-name': 'kube-dns', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'k8s-app': 'kube-dns' });
    expect(slice.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Service', name: 'kube-dns', controller: true })]);
    expect(slice.endpoints).toEqual([{ addresses: [address], conditions: { ready: true, serving: true, terminating: false } }]);
    expect(slice.ports).toEqual([{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }]);
    await clientPod('resolve');
    const clusterIp = await ok('get', 'svc', 'kubernetes', '-o', 'jsonpath={.spec.clusterIP}');
    const answer = await inPod('resolve', `nslookup kubernetes.default.svc.cluster.local ${address}`);
    expect(answer).toContain(`Address: ${clusterIp}`);
  });
});

describe('requests without credentials', () => {
  it('answer the health and version endpoints as system:public-info-viewer allows', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const reply = await rawRequest(path);
      expect(reply.status, path).toBe(200);
      expect(reply.body, path).toBe('ok');
    }
    const version = await rawRequest('/version');
    expect(version.status).toBe(200);
    expect(JSON.parse(version.body)).toHaveProperty('gitVersion');
    const role = await json<{ rules: unknown[] }>('get', 'clusterrole', 'system:public-info-viewer');
    expect(role.rules).toEqual([{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }]);
    const binding = await json<{ subjects: unknown[] }>('get', 'clusterrolebinding', 'system:public-info-viewer');
    expect(binding.subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:unauthenticated' },
    ]);
  });

  it('are system:anonymous, refused with 403 Forbidden everywhere else', async () => {
    const pods = await rawRequest('/api/v1/namespaces/default/pods');
    expect(pods.status).toBe(403);
    expect(JSON.parse(pods.body)).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"',
      details: { kind: 'pods' },
    });
    const discovery = await rawRequest('/apis');
    expect(discovery.status).toBe(403);
    expect(JSON.parse(discovery.body).message).toBe('forbidden: User "system:anonymous" cannot get path "/apis"');
    // only the exact paths the role names
    expect((await rawRequest('/readyz/ping')).status).toBe(403);
    // not a bearer token at all: no credentials either (upstream's bearer authenticator ignores it)
    expect((await rawRequest('/api/v1/namespaces', { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` })).status).toBe(403);
    const whoami = await rawRequest('/apis/authentication.k8s.io/v1/selfsubjectreviews');
    expect(whoami.status).toBe(403);
  });

  it('still answer 401 to a bearer token that is not valid, health endpoints included', async () => {
    for (const path of ['/api/v1/namespaces', '/version', '/readyz']) {
      const reply = await rawRequest(path, { authorization: 'Bearer not-a-token' });
      expect(reply.status, path).toBe(401);
      expect(JSON.parse(reply.body), path).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    }
  });

  it('print kubectl the Forbidden error a real cluster prints', async () => {
    const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: anonymous
  cluster:
    server: ${cluster.server}
    certificate-authority-data: ${Buffer.from(cluster.caPem).toString('base64')}
contexts:
- name: anonymous
  context: {cluster: anonymous, user: nobody}
current-context: anonymous
users:
- name: nobody
  user:
    token: " "
`;
    const path = join(cluster.root, 'anonymous.kubeconfig');
    writeFileSync(path, kubeconfig, { mode: 0o600 });
    // a blank token: kubectl sends `Authorization: Bearer` with nothing after it, which upstream's
    // bearer authenticator takes for no credentials (a user without any makes kubectl prompt instead)
    const result = await cluster.kubectl(['--kubeconfig', path, 'get', '--raw', '/api/v1/namespaces/default/pods']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('Error from server (Forbidden): pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"');
    const version = await cluster.kubectl(['--kubeconfig', path, 'get', '--raw', '/version']);
    expect(version.code, version.stderr).toBe(0);
    expect(JSON.parse(version.stdout)).toHaveProperty('gitVersion');
  });
});

describe('CertificateSigningRequest', () => {
  async function csrBody(name: string): Promise<Record<string, unknown>> {
    const x509 = await loadX509();
    const keys = await generateKeyPair('ecdsa-p256');
    const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: `CN=${name}`, keys, signingAlgorithm: keyAlgorithms['ecdsa-p256'].signing });
    return {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: {
        request: Buffer.from(request.toString('pem')).toString('base64'),
        signerName: 'kubernetes.io/kube-apiserver-client',
        usages: ['client auth'],
        username: 'mallory',
        uid: 'forged-uid',
        groups: ['system:masters'],
        extra: { scopes: ['everything'] },
      },
    };
  }

  interface Csr {
    spec: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  }

  it('names the requester in spec.username and spec.groups, whatever the client sent', async () => {
    await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify(await csrBody('by-admin')));
    const byAdmin = await json<Csr>('get', 'csr', 'by-admin');
    expect(byAdmin.spec.username).toBe('kubedesk-admin');
    expect(byAdmin.spec.groups).toEqual(['system:masters', 'system:authenticated']);
    expect(byAdmin.spec).not.toHaveProperty('uid');
    expect(byAdmin.spec).not.toHaveProperty('extra');
    expect(await ok('get', 'csr', 'by-admin', '--no-headers')).toMatch(/^by-admin\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+kubedesk-admin\s+<none>\s+Pending/);
    // another user (impersonated; it may create CSRs)
    await ok('create', 'clusterrole', 'csr-creator', '--verb=create,get', '--resource=certificatesigningrequests');
    await ok('create', 'clusterrolebinding', 'csr-creator', '--clusterrole=csr-creator', '--user=jane');
    await kubectlOk(cluster, ['create', '-f', '-', '--as=jane', '--as-group=developers'], JSON.stringify(await csrBody('by-jane')));
    const byJane = await json<Csr>('get', 'csr', 'by-jane');
    expect(byJane.spec.username).toBe('jane');
    expect(byJane.spec.groups).toEqual(['developers', 'system:authenticated']);
    expect(byJane.spec).not.toHaveProperty('extra');
  });

  it('issues certificates that authenticate as their subject: CN the user, O the groups; a foreign CA\'s certificate is refused', async () => {
    const certificate = await issueClientCertificate(cluster, 'carol', ['developers', 'qa']);
    const kubeconfig = certificateKubeconfig(cluster, certificate, join(cluster.root, 'carol.kubeconfig'));
    const whoami = await cluster.kubectl(['--kubeconfig', kubeconfig, 'auth', 'whoami', '-o', 'json']);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout).status.userInfo).toEqual({ username: 'carol', groups: ['developers', 'qa', 'system:authenticated'] });
    // RBAC judges the certificate's user: nothing is granted to carol yet
    const refused = await cluster.kubectl(['--kubeconfig', kubeconfig, 'get', 'pods', '-n', namespace]);
    expect(refused.stderr.trim()).toBe(`Error from server (Forbidden): pods is forbidden: User "carol" cannot list resource "pods" in API group "" in the namespace "${namespace}"`);
    await ok('create', 'rolebinding', 'carol-view', '--clusterrole=view', '--group=qa', '-n', namespace);
    await poll('the group from the certificate to be bound to view', async () => ((await cluster.kubectl(['--kubeconfig', kubeconfig, 'get', 'pods', '-n', namespace])).code === 0 ? true : undefined));
    // a certificate from another CA authenticates nobody: 401, even though it names a user
    const foreign = makeTestCertificates(['localhost'], [], 'carol').client;
    const foreignConfig = certificateKubeconfig(cluster, foreign ?? { certPem: '', keyPem: '' }, join(cluster.root, 'foreign.kubeconfig'));
    const unauthorized = await cluster.kubectl(['--kubeconfig', foreignConfig, 'get', 'pods', '-n', namespace]);
    expect(unauthorized.code).toBe(1);
    expect(unauthorized.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  });
});

describe('server-side apply', () => {
  it('refuses duplicate keys in an applied keyed list with upstream\'s error text', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'dup', namespace }, spec: { containers: [{ name: 'app', image: busyboxImage }, { name: 'app', image: busyboxImage }] } };
    const result = await cluster.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(pod) });
    expect(result.code).toBe(1);
    // upstream's text; upstream 1.35 answers it with a 500, kubedesk with 400 BadRequest (bad input)
    expect(result.stderr.trim()).toBe(`Error from server (BadRequest): failed to create typed patch object (${namespace}/dup; /v1, Kind=Pod): .spec.containers: duplicate entries for key [name="app"]`);
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'dup-env', namespace },
      spec: {
        selector: { matchLabels: { app: 'dup-env' } },
        template: {
          metadata: { labels: { app: 'dup-env' } },
          spec: { containers: [{ name: 'app', image: busyboxImage, env: [{ name: 'FOO', value: 'x' }, { name: 'FOO', value: 'y' }], ports: [{ containerPort: 93 }, { containerPort: 93, protocol: 'TCP' }] }] },
        },
      },
    };
    const several = await cluster.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(deployment) });
    expect(several.stderr.trim()).toBe(
      [
        `Error from server (BadRequest): failed to create typed patch object (${namespace}/dup-env; apps/v1, Kind=Deployment): errors:`,
        '  .spec.template.spec.containers[name="app"].env: duplicate entries for key [name="FOO"]',
        '  .spec.template.spec.containers[name="app"].ports: duplicate entries for key [containerPort=93,protocol="TCP"]',
      ].join('\n'),
    );
    expect((await cluster.kubectl(['get', 'deployment', 'dup-env', '-n', namespace])).code).toBe(1);
  });

  it('owns atomic structs whole, as their OpenAPI x-kubernetes-map-type says', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'affine', namespace },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'affine' } },
        template: {
          metadata: { labels: { app: 'affine' } },
          spec: {
            containers: [{ name: 'app', image: busyboxImage }],
            affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }] } } },
          },
        },
      },
    };
    await kubectlOk(cluster, ['apply', '--server-side', '-f', '-'], JSON.stringify(deployment));
    const stored = await json<{ metadata: { managedFields: { manager: string; fieldsV1: Record<string, Record<string, Record<string, Record<string, Record<string, Record<string, unknown>>>>>> }[] } }>('get', 'deployment', 'affine', '-n', namespace, '--show-managed-fields');
    const entry = stored.metadata.managedFields.find((candidate) => candidate.manager === 'kubectl');
    // a NodeSelector is x-kubernetes-map-type atomic: owned as one field, nothing under it
    expect(entry?.fieldsV1['f:spec']['f:template']['f:spec']['f:affinity']['f:nodeAffinity']).toEqual({ 'f:requiredDuringSchedulingIgnoredDuringExecution': {} });
  });
});

/** A mutating webhook server on the host, over TLS, that the API server calls by URL. */
class HostWebhooks {
  private server: Server | undefined;
  private certificates: TestCertificates | undefined;
  port = 0;
  handlers = new Map<string, (request: AdmissionRequest) => Promise<Record<string, unknown>> | Record<string, unknown>>();
  calls: string[] = [];

  async start(): Promise<void> {
    this.certificates = makeTestCertificates(['localhost'], ['127.0.0.1']);
    this.server = createServer({ cert: this.certificates.certPem, key: this.certificates.keyPem }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString()) as { request: AdmissionRequest };
        const path = new URL(request.url ?? '/', 'https://x').pathname;
        this.calls.push(path);
        const handler = this.handlers.get(path) ?? (() => ({ allowed: true }));
        void Promise.resolve(handler(review.request)).then((answer) => {
          response.setHeader('Content-Type', 'application/json');
          response.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { ...answer, uid: review.request.uid } }));
        });
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  webhook(name: string, path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      name,
      clientConfig: { url: `https://127.0.0.1:${this.port}${path}`, caBundle: Buffer.from(this.certificates?.caPem ?? '').toString('base64') },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 30,
      ...extra,
    };
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

interface AdmissionRequest {
  uid: string;
  operation: string;
  object: { metadata: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> } };
}

function jsonPatch(operations: object[]): Record<string, unknown> {
  return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(operations)).toString('base64') };
}

describe('mutating admission webhooks', () => {
  const webhooks = new HostWebhooks();

  beforeAll(() => webhooks.start());
  afterAll(async () => {
    await cluster.kubectl(['delete', 'mutatingwebhookconfigurations', '--all', '--wait=false']);
    await webhooks.close();
  });

  it('retry a write that raced another writer during a slow webhook instead of answering 409', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let slowStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    let slowCalls = 0;
    let stamps = 0;
    // stamps every write anew (so the write carries the webhook's object); slow for the write that
    // adds `slow`, once; quick for everything else
    webhooks.handlers.set('/slow', async (request) => {
      if (request.object.metadata.labels?.slow === 'yes' && slowCalls++ === 0) {
        slowStarted();
        await released;
      }
      return jsonPatch([{ op: 'add', path: '/metadata/annotations', value: { ...request.object.metadata.annotations, stamped: 'yes', stamp: String(++stamps) } }]);
    });
    await ok('create', 'configmap', 'raced', '-n', namespace, '--from-literal=a=1');
    await apply({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'slow' }, webhooks: [webhooks.webhook('slow.kubedesk.test', '/slow')] });
    // the configuration is read from the store at once; make sure the webhook is in play
    await until('the slow webhook to stamp writes', async () => {
      await ok('annotate', 'configmap', 'raced', '-n', namespace, '--overwrite', `probe=${Date.now()}`);
      return (await ok('get', 'configmap', 'raced', '-n', namespace, '-o', 'jsonpath={.metadata.annotations.stamped}')) === 'yes' ? true : undefined;
    }, 30_000);
    const labelling = cluster.kubectl(['label', 'configmap', 'raced', '-n', namespace, 'slow=yes']);
    await started;
    // another writer changes an unrelated field while the webhook holds the first write
    await ok('annotate', 'configmap', 'raced', '-n', namespace, 'other=writer');
    release();
    const labelled = await labelling;
    expect(labelled.stderr).not.toContain('Conflict');
    expect(labelled.stderr).not.toContain('the object has been modified');
    expect(labelled.code, labelled.stderr).toBe(0);
    const stored = await json<{ metadata: { labels: Record<string, string>; annotations: Record<string, string> } }>('get', 'configmap', 'raced', '-n', namespace);
    expect(stored.metadata.labels.slow).toBe('yes');
    expect(stored.metadata.annotations).toMatchObject({ other: 'writer', stamped: 'yes' });
    await ok('delete', 'mutatingwebhookconfiguration', 'slow');
  });

  it('call a webhook with reinvocationPolicy IfNeeded again once a later webhook changed the object', async () => {
    webhooks.calls.length = 0;
    // `a-first` runs first (configurations in name order) and records whether it saw b's label
    webhooks.handlers.set('/first', (request) => jsonPatch([{ op: 'add', path: '/metadata/labels/first-saw-second', value: String(request.object.metadata.labels?.second === 'yes') }]));
    webhooks.handlers.set('/second', () => jsonPatch([{ op: 'add', path: '/metadata/labels/second', value: 'yes' }]));
    webhooks.handlers.set('/never', (request) => jsonPatch([{ op: 'add', path: '/metadata/labels/never-saw-second', value: String(request.object.metadata.labels?.second === 'yes') }]));
    const selector = { objectSelector: { matchLabels: { reinvocation: 'test' } } };
    await apply({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'a-first' }, webhooks: [webhooks.webhook('first.kubedesk.test', '/first', { ...selector, reinvocationPolicy: 'IfNeeded' }), webhooks.webhook('never.kubedesk.test', '/never', { ...selector, reinvocationPolicy: 'Never' })] });
    await apply({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'b-second' }, webhooks: [webhooks.webhook('second.kubedesk.test', '/second', selector)] });
    await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'reinvoked', namespace, labels: { reinvocation: 'test' } }, data: { a: '1' } });
    const labels = await json<{ metadata: { labels: Record<string, string> } }>('get', 'configmap', 'reinvoked', '-n', namespace);
    expect(labels.metadata.labels).toMatchObject({ second: 'yes', 'first-saw-second': 'true', 'never-saw-second': 'false' });
    expect(webhooks.calls.filter((path) => path === '/first')).toHaveLength(2);
    expect(webhooks.calls.filter((path) => path === '/never')).toHaveLength(1);
    expect(webhooks.calls.filter((path) => path === '/second')).toHaveLength(1);
  });
});

describe('LoadBalancer Services', () => {
  const finalizer = 'service.kubernetes.io/load-balancer-cleanup';

  async function finalizersOf(name: string): Promise<string[]> {
    const result = await cluster.kubectl(['get', 'service', name, '-n', namespace, '-o', 'jsonpath={.metadata.finalizers}']);
    return result.code === 0 && result.stdout ? (JSON.parse(result.stdout) as string[]) : [];
  }

  it('carry the load-balancer-cleanup finalizer while they have a load balancer', async () => {
    const port = await freePort();
    await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb', namespace }, spec: { type: 'LoadBalancer', selector: { app: 'nothing' }, ports: [{ port, targetPort: 8080 }] } });
    await until('the finalizer', async () => ((await finalizersOf('lb')).includes(finalizer) ? true : undefined), 30_000);
    await until('the load balancer ingress', async () => ((await ok('get', 'svc', 'lb', '-n', namespace, '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}')) === '127.0.0.1' ? true : undefined), 30_000);
    // no longer a load balancer: cleaned up, finalizer gone
    await ok('patch', 'svc', 'lb', '-n', namespace, '--type=merge', '-p', '{"spec":{"type":"NodePort"}}');
    await until('the finalizer to go with the load balancer', async () => ((await finalizersOf('lb')).includes(finalizer) ? undefined : true), 30_000);
    expect(await ok('get', 'svc', 'lb', '-n', namespace, '-o', 'jsonpath={.status.loadBalancer}')).toBe('{}');
    // a load balancer again, then deleted: the delete waits for the cleanup and completes
    await ok('patch', 'svc', 'lb', '-n', namespace, '--type=merge', '-p', '{"spec":{"type":"LoadBalancer"}}');
    await until('the finalizer again', async () => ((await finalizersOf('lb')).includes(finalizer) ? true : undefined), 30_000);
    await until('the port to answer', async () => (await hostGet(port).then(() => true, (error: unknown) => (String(error).includes('ECONNREFUSED') ? undefined : true))), 30_000);
    const deleted = await cluster.kubectl(['delete', 'svc', 'lb', '-n', namespace, '--timeout=60s']);
    expect(deleted.stdout, deleted.stderr).toContain('service "lb" deleted');
    expect((await cluster.kubectl(['get', 'svc', 'lb', '-n', namespace])).code).toBe(1);
    await expect(hostGet(port)).rejects.toThrow(/ECONNREFUSED/);
    const events = await ok('get', 'events', '-n', namespace, '--field-selector', 'involvedObject.name=lb', '-o', 'jsonpath={range .items[*]}{.reason}{"\\n"}{end}');
    expect(events.split('\n')).toEqual(expect.arrayContaining(['EnsuringLoadBalancer', 'EnsuredLoadBalancer', 'DeletingLoadBalancer', 'DeletedLoadBalancer']));
  });
});

describe('pod priority', () => {
  afterAll(async () => {
    await cluster.kubectl(['delete', 'priorityclass', 'gaps-default', 'gaps-high', '--ignore-not-found']);
  });

  it('refuses a priority the PriorityClass does not give, with the Priority plugin message', async () => {
    await apply({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'gaps-high' }, value: 1000 });
    const pod = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'app', image: busyboxImage }], ...spec } });
    const withClass = await cluster.kubectl(['create', '-f', '-'], { input: pod('class-and-zero', { priorityClassName: 'gaps-high', priority: 0 }) });
    expect(withClass.stderr.trim()).toBe(
      `Error from server (Forbidden): error when creating "STDIN": pods "class-and-zero" is forbidden: the integer value of priority (0) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name`,
    );
    const policy = await cluster.kubectl(['create', '-f', '-'], { input: pod('class-and-never', { priorityClassName: 'gaps-high', preemptionPolicy: 'Never' }) });
    expect(policy.stderr.trim()).toBe(
      `Error from server (Forbidden): error when creating "STDIN": pods "class-and-never" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name`,
    );
    // a global default is the class of a pod that names none: an explicit 0 disagrees with it
    await apply({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'gaps-default' }, value: 500, globalDefault: true });
    const defaulted = await cluster.kubectl(['create', '-f', '-'], { input: pod('default-and-zero', { priority: 0 }) });
    expect(defaulted.stderr.trim()).toBe(
      `Error from server (Forbidden): error when creating "STDIN": pods "default-and-zero" is forbidden: the integer value of priority (0) must not be provided in pod spec; priority admission controller computed 500 from the given PriorityClass name`,
    );
    await kubectlOk(cluster, ['create', '-f', '-'], pod('default-and-nothing', {}));
    expect(await ok('get', 'pod', 'default-and-nothing', '-n', namespace, '-o', 'jsonpath={.spec.priorityClassName} {.spec.priority} {.spec.preemptionPolicy}')).toBe('gaps-default 500 PreemptLowerPriority');
    await ok('delete', 'priorityclass', 'gaps-default');
    await kubectlOk(cluster, ['create', '-f', '-'], pod('no-class-zero', { priority: 0 }));
    expect(await ok('get', 'pod', 'no-class-zero', '-n', namespace, '-o', 'jsonpath={.spec.priority} {.spec.preemptionPolicy}')).toBe('0 PreemptLowerPriority');
  });
});

describe('response compression', () => {
  /** GET with the admin token and these headers, the raw bytes and the reply's headers. */
  function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const outgoing = httpsRequest(new URL(path, cluster.server), { headers: { accept: 'application/json', authorization: `Bearer ${cluster.token}`, ...headers }, ca: cluster.caPem, agent: false, timeout: 15_000 }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error(`GET ${path} timed out`)));
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  it('gzips a reply over 128 KiB for a client that accepts gzip, as kubectl does, and not a small one', async () => {
    const ns = 'apigaps-gzip';
    await ok('create', 'namespace', ns);
    // 200 ConfigMaps of ~1 KiB: a list of ~250 KiB
    const items = Array.from({ length: 200 }, (_, index) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${index}`, namespace: ns }, data: { payload: `${index}-`.padEnd(1024, 'x') } }));
    await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const plain = await rawGet(path, {});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(128 * 1024);
    const compressed = await rawGet(path, { 'accept-encoding': 'gzip' });
    expect(compressed.status).toBe(200);
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(compressed.headers.vary).toBe('Accept-Encoding');
    expect(Number(compressed.headers['content-length'])).toBe(compressed.body.length);
    const list = JSON.parse(gunzipSync(compressed.body).toString('utf8')) as { items: { metadata: { name: string } }[] };
    // the 200 and the namespace's kube-root-ca.crt
    expect(list.items.filter((item) => item.metadata.name.startsWith('cm-'))).toHaveLength(200);
    // the same list as the uncompressed reply (its resourceVersion may have moved on meanwhile)
    const names = (body: Buffer) => (JSON.parse(body.toString('utf8')) as { items: { metadata: { name: string } }[] }).items.map((item) => item.metadata.name);
    expect(names(gunzipSync(compressed.body))).toEqual(names(plain.body));
    // a browser's list of encodings names gzip among others; a small reply goes out as it is
    expect((await rawGet(path, { 'accept-encoding': 'gzip, deflate, br, zstd' })).headers['content-encoding']).toBe('gzip');
    const small = await rawGet(`${path}/cm-1`, { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    // kubectl reads the gzipped list as any other
    expect((await ok('get', 'configmaps', '-n', ns, '--no-headers')).trim().split('\n').filter((line) => line.startsWith('cm-'))).toHaveLength(200);
    await ok('delete', 'namespace', ns, '--wait=false');
  });
});
