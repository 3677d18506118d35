import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceAccountTokens } from '../serviceAccountTokens';
import { tokenRequestHandler } from '../subresources/tokenRequest';
import { startAdmissionWebhookServer, type AdmissionWebhookServer } from '../../../test/fixtures/admissionWebhookServer';
import { inMemoryApiServerPerTest, parseReply as parse } from '../../../test/fixtures/inMemoryApiServer';

type Request = Record<string, unknown> & { uid: string; object: Record<string, unknown> | null; oldObject: Record<string, unknown> | null };
type Handler = (request: Request) => Record<string, unknown>;

let webhookServer: AdmissionWebhookServer;
let handler: Handler = () => ({ allowed: true });
const seen: Request[] = [];
const server = inMemoryApiServerPerTest({ namespaces: ['default'] });
const { request, create } = server;
let pkiDirectory = '';

beforeAll(async () => {
  webhookServer = await startAdmissionWebhookServer<{ request: Request }>((review) => {
    seen.push(review.request);
    return handler(review.request);
  });
});

afterAll(() => webhookServer.close());

/** A validating (or mutating) webhook configuration whose one webhook sees `resources` of `group`/`version`. */
async function webhookFor(kind: 'validating' | 'mutating', group: string, version: string, resources: string[], operations: string[], extra: Record<string, unknown> = {}): Promise<void> {
  await create(`/apis/admissionregistration.k8s.io/v1/${kind}webhookconfigurations`, {
    metadata: { name: `${kind}-hook` },
    webhooks: [{
      name: `${kind}.example.com`,
      clientConfig: { url: webhookServer.url(`/${kind}`), caBundle: webhookServer.caBundle },
      rules: [{ operations, apiGroups: [group], apiVersions: [version], resources }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      ...extra,
    }],
  });
}

/** A ValidatingAdmissionPolicy bound with Deny that refuses what `expression` does not accept. */
async function policyFor(group: string, version: string, resources: string[], operations: string[], expression: string): Promise<void> {
  await create('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
    metadata: { name: 'subresources' },
    spec: { matchConstraints: { resourceRules: [{ operations, apiGroups: [group], apiVersions: [version], resources }] }, validations: [{ expression }] },
  });
  await create('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { metadata: { name: 'subresources-binding' }, spec: { policyName: 'subresources', validationActions: ['Deny'] } });
}

const deployments = '/apis/apps/v1/namespaces/default/deployments';
const pods = '/api/v1/namespaces/default/pods';

async function deployment(name: string, replicas = 1): Promise<void> {
  await create(deployments, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  });
}

async function pod(name: string, bound = true): Promise<void> {
  await create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  if (bound) expect((await request('POST', `${pods}/${name}/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: 'node-1' } })).status).toBe(201);
}

const denyAll: Handler = () => ({ allowed: false, status: { code: 403, reason: 'Forbidden', message: 'not through this subresource' } });

beforeEach(() => {
  seen.length = 0;
  handler = () => ({ allowed: true });
  pkiDirectory = mkdtempSync(join(tmpdir(), 'kubedesk-tokens-'));
  server.api.provideSubresource('serviceAccountToken', tokenRequestHandler(server.api, ServiceAccountTokens.open(pkiDirectory)));
});

afterEach(() => rmSync(pkiDirectory, { recursive: true, force: true }));

describe('admission of subresource writes', () => {
  it('sends a scale of a deployment to webhooks as an autoscaling/v1 Scale UPDATE of deployments/scale', async () => {
    await deployment('web');
    await webhookFor('validating', 'apps', 'v1', ['deployments/scale'], ['UPDATE']);
    const scaled = await request('PATCH', `${deployments}/web/scale`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
    expect(scaled.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      operation: 'UPDATE',
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      subResource: 'scale',
      requestKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      requestResource: { group: 'apps', version: 'v1', resource: 'deployments' },
      requestSubResource: 'scale',
      name: 'web',
      namespace: 'default',
      object: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 3 }, status: { selector: 'app=web' } },
      oldObject: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 1 } },
    });
  });

  it('refuses a scale a validating webhook denies and leaves the replicas as they were', async () => {
    await deployment('web');
    await webhookFor('validating', 'apps', 'v1', ['deployments/scale'], ['UPDATE']);
    handler = denyAll;
    const refused = await request('PUT', `${deployments}/web/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 5 } });
    expect(refused.status).toBe(403);
    expect(parse(refused).message).toBe('admission webhook "validating.example.com" denied the request: not through this subresource');
    expect(parse(await request('GET', `${deployments}/web`)).spec.replicas).toBe(1);
  });

  it('stores the replicas a mutating webhook sets on the Scale', async () => {
    await deployment('web');
    await webhookFor('mutating', 'apps', 'v1', ['deployments/scale'], ['UPDATE']);
    handler = () => ({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: 2 }])).toString('base64') });
    const scaled = await request('PATCH', `${deployments}/web/scale`, { spec: { replicas: 7 } }, 'application/merge-patch+json');
    expect(parse(scaled).spec.replicas).toBe(2);
    expect(parse(await request('GET', `${deployments}/web`)).spec.replicas).toBe(2);
  });

  it('does not send main-resource webhooks a scale, nor scale webhooks a main-resource update', async () => {
    await deployment('web');
    await webhookFor('validating', 'apps', 'v1', ['deployments'], ['UPDATE']);
    await request('PATCH', `${deployments}/web/scale`, { spec: { replicas: 2 } }, 'application/merge-patch+json');
    expect(seen).toHaveLength(0);
    await request('PATCH', `${deployments}/web`, { metadata: { labels: { touched: 'yes' } } }, 'application/merge-patch+json');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, resource: { resource: 'deployments' } });
    expect(seen[0].subResource).toBeUndefined();
  });

  it('refuses a scale a ValidatingAdmissionPolicy denies, with upstream text', async () => {
    await deployment('web');
    await policyFor('apps', 'v1', ['deployments/scale'], ['UPDATE'], 'object.spec.replicas <= 3');
    expect((await request('PATCH', `${deployments}/web/scale`, { spec: { replicas: 3 } }, 'application/merge-patch+json')).status).toBe(200);
    const refused = await request('PATCH', `${deployments}/web/scale`, { spec: { replicas: 4 } }, 'application/merge-patch+json');
    expect(refused.status).toBe(422);
    expect(parse(refused).message).toBe(`deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'subresources' with binding 'subresources-binding' denied request: failed expression: object.spec.replicas <= 3`);
    expect(parse(await request('GET', `${deployments}/web`)).spec.replicas).toBe(3);
  });

  it('sends an eviction to webhooks as a policy/v1 Eviction CREATE of pods/eviction, and a denial keeps the pod', async () => {
    await pod('web');
    await webhookFor('validating', '', 'v1', ['pods/eviction'], ['CREATE']);
    handler = denyAll;
    const refused = await request('POST', `${pods}/web/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web', namespace: 'default' } });
    expect(refused.status).toBe(403);
    expect(parse(refused).message).toBe('admission webhook "validating.example.com" denied the request: not through this subresource');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      operation: 'CREATE',
      kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'eviction',
      name: 'web',
      namespace: 'default',
      object: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web' } },
      oldObject: null,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    });
    expect(parse(await request('GET', `${pods}/web`)).metadata.deletionTimestamp).toBeUndefined();
    handler = () => ({ allowed: true });
    expect((await request('POST', `${pods}/web/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web', namespace: 'default' } })).status).toBe(201);
  });

  it('refuses an eviction a ValidatingAdmissionPolicy denies', async () => {
    await pod('web');
    await policyFor('', 'v1', ['pods/eviction'], ['CREATE'], "object.kind == 'Eviction' && has(object.deleteOptions)");
    const refused = await request('POST', `${pods}/web/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web' } });
    expect(refused.status).toBe(422);
    expect(parse(refused).message).toBe(`pods "web" is forbidden: ValidatingAdmissionPolicy 'subresources' with binding 'subresources-binding' denied request: failed expression: object.kind == 'Eviction' && has(object.deleteOptions)`);
    expect((await request('POST', `${pods}/web/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web' }, deleteOptions: { gracePeriodSeconds: 0 } })).status).toBe(201);
    expect((await request('GET', `${pods}/web`)).status).toBe(404);
  });

  it('sends a binding to webhooks as a v1 Binding CREATE of pods/binding', async () => {
    await pod('web', false);
    await webhookFor('validating', '', 'v1', ['pods/binding'], ['CREATE']);
    handler = denyAll;
    const refused = await request('POST', `${pods}/web/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web' }, target: { kind: 'Node', name: 'node-1' } });
    expect(refused.status).toBe(403);
    expect(seen[0]).toMatchObject({ operation: 'CREATE', kind: { group: '', version: 'v1', kind: 'Binding' }, resource: { resource: 'pods' }, subResource: 'binding', object: { target: { name: 'node-1' } } });
    expect(parse(await request('GET', `${pods}/web`)).spec.nodeName).toBeUndefined();
  });

  it('sends a namespace finalize to webhooks as a Namespace UPDATE of namespaces/finalize', async () => {
    await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going' } });
    await webhookFor('validating', '', 'v1', ['namespaces/finalize'], ['UPDATE']);
    handler = denyAll;
    const refused = await request('PUT', '/api/v1/namespaces/going/finalize', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going' }, spec: { finalizers: [] } });
    expect(refused.status).toBe(403);
    expect(seen[0]).toMatchObject({ operation: 'UPDATE', kind: { kind: 'Namespace' }, resource: { resource: 'namespaces' }, subResource: 'finalize', name: 'going', object: { spec: { finalizers: [] } }, oldObject: { spec: { finalizers: ['kubernetes'] } } });
    expect(parse(await request('GET', '/api/v1/namespaces/going')).spec.finalizers).toEqual(['kubernetes']);
  });

  it('sends a certificate approval to webhooks as an UPDATE of certificatesigningrequests/approval', async () => {
    const pem = Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n').toString('base64');
    const csr = await create('/apis/certificates.k8s.io/v1/certificatesigningrequests', { metadata: { name: 'user' }, spec: { request: pem, signerName: 'example.com/signer', usages: ['client auth'] } });
    await webhookFor('validating', 'certificates.k8s.io', 'v1', ['certificatesigningrequests/approval'], ['UPDATE']);
    handler = denyAll;
    const approval = { ...csr, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved in a test' }] } };
    const refused = await request('PUT', '/apis/certificates.k8s.io/v1/certificatesigningrequests/user/approval', approval);
    expect(refused.status).toBe(403);
    expect(seen[0]).toMatchObject({ operation: 'UPDATE', kind: { group: 'certificates.k8s.io', kind: 'CertificateSigningRequest' }, subResource: 'approval', object: { status: { conditions: [{ type: 'Approved' }] } } });
    handler = () => ({ allowed: true });
    expect(parse(await request('PUT', '/apis/certificates.k8s.io/v1/certificatesigningrequests/user/approval', approval)).status.conditions).toEqual([expect.objectContaining({ type: 'Approved', status: 'True' })]);
  });

  it('sends a token request to webhooks as an authentication.k8s.io/v1 TokenRequest CREATE of serviceaccounts/token', async () => {
    await create('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
    await webhookFor('validating', '', 'v1', ['serviceaccounts/token'], ['CREATE']);
    const issued = await request('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } });
    expect(issued.status).toBe(201);
    expect(seen[0]).toMatchObject({ operation: 'CREATE', kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, resource: { resource: 'serviceaccounts' }, subResource: 'token', name: 'robot', object: { spec: { expirationSeconds: 600 } } });
    handler = denyAll;
    expect((await request('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} })).status).toBe(403);
  });

  it('sends autoscaling/v1 writes to a webhook for v1 as v1, and to a webhook for v2 as v2 with the v1 request kind', async () => {
    await deployment('web');
    const hpa = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 60 } };
    await webhookFor('validating', 'autoscaling', 'v1', ['horizontalpodautoscalers'], ['CREATE', 'UPDATE']);
    await webhookFor('mutating', 'autoscaling', 'v2', ['horizontalpodautoscalers'], ['CREATE', 'UPDATE']);
    expect((await request('POST', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers', hpa)).status).toBe(201);
    const v1 = seen.find((review) => (review.kind as { version: string }).version === 'v1');
    const v2 = seen.find((review) => (review.kind as { version: string }).version === 'v2');
    expect(v1).toMatchObject({ resource: { group: 'autoscaling', version: 'v1' }, requestKind: { version: 'v1' }, object: { apiVersion: 'autoscaling/v1', spec: { targetCPUUtilizationPercentage: 60 } } });
    expect(v2).toMatchObject({ resource: { group: 'autoscaling', version: 'v2' }, requestKind: { version: 'v1' }, requestResource: { version: 'v1' }, object: { apiVersion: 'autoscaling/v2', spec: { metrics: [{ resource: { name: 'cpu', target: { averageUtilization: 60 } } }] } } });
    // a write through v2 reaches the v1 webhook too (matchPolicy Equivalent), as v1
    seen.length = 0;
    handler = (review) => ((review.kind as { version: string }).version === 'v1' ? denyAll(review) : { allowed: true });
    const refused = await request('PATCH', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web', { spec: { maxReplicas: 6 } }, 'application/merge-patch+json');
    expect(refused.status).toBe(403);
    expect(seen.find((review) => (review.kind as { version: string }).version === 'v1')).toMatchObject({ requestKind: { version: 'v2' }, object: { apiVersion: 'autoscaling/v1', spec: { maxReplicas: 6 } } });
  });

  it('leaves a webhook with matchPolicy Exact out of writes through another version', async () => {
    await deployment('web');
    await webhookFor('validating', 'autoscaling', 'v1', ['horizontalpodautoscalers'], ['CREATE'], { matchPolicy: 'Exact' });
    const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 4 } };
    expect((await request('POST', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', hpa)).status).toBe(201);
    expect(seen).toHaveLength(0);
  });
});
