// Admission around subresource writes, with the real kubectl 1.35 against `kubedesk serve`: a
// validating webhook served from a pod and a ValidatingAdmissionPolicy that match
// `deployments/scale` and `pods/eviction` see `kubectl scale` and `kubectl drain` as upstream sends
// them (an autoscaling/v1 Scale UPDATE, a policy/v1 Eviction CREATE, with the subresource named),
// and their denials refuse the write with upstream's texts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { serveWebhook } from '../support/webhookPod';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;
const namespace = 'subresource-e2e';
const service = 'admission';
const node = 'kubedesk';

const ok = (...args: string[]) => kubectlOk(cluster, args);
const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

interface Review {
  operation: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind: { group: string; version: string; kind: string };
  name: string;
  namespace: string;
  object: { apiVersion?: string; kind?: string; name?: string; replicas?: number };
}

/** What the webhook was sent so far, from its log. */
async function reviews(): Promise<Review[]> {
  const log = await ok('logs', '-n', namespace, 'webhook');
  return log.split('\n').filter((line) => line.startsWith('review ')).map((line) => JSON.parse(line.slice('review '.length)) as Review);
}

function pod(name: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app: 'drainable' } },
    spec: { terminationGracePeriodSeconds: 1, nodeName: node, containers: [{ name: 'main', image: busyboxImage, command: ['sleep', '3600'] }] },
  };
}

beforeAll(async () => {
  cluster = await startCluster();
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { 'webhooks.kubedesk.test': 'enabled' } } });
  const caBundle = await serveWebhook(cluster, namespace, service);
  const inNamespace = { matchLabels: { 'webhooks.kubedesk.test': 'enabled' } };
  const rules = [
    { operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'], scope: 'Namespaced' },
    { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'], scope: 'Namespaced' },
  ];
  await apply({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'subresources' },
        webhooks: [{ name: 'subresources.kubedesk.test', clientConfig: { service: { namespace, name: service, path: '/subresources' }, caBundle }, rules, namespaceSelector: inNamespace, sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 5 }],
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'subresource-policy' },
        spec: {
          matchConstraints: { resourceRules: rules, namespaceSelector: inNamespace },
          validations: [
            { expression: "request.subResource != 'scale' || object.spec.replicas != 4", message: 'four replicas are not allowed' },
            { expression: "request.subResource != 'eviction' || !request.name.startsWith('policy-')", message: 'policy pods stay' },
          ],
        },
      },
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'subresource-policy-binding' }, spec: { policyName: 'subresource-policy', validationActions: ['Deny'] } },
    ],
  });
}, 240_000);

afterAll(async () => {
  if (!cluster) return;
  await cluster.kubectl(['uncordon', node]);
  await cluster.kubectl(['delete', 'validatingwebhookconfiguration', 'subresources', '--ignore-not-found']);
  await cluster.destroy();
}, 120_000);

describe('kubectl scale through deployments/scale', () => {
  beforeAll(async () => {
    await ok('create', 'deployment', 'web', '-n', namespace, `--image=${busyboxImage}`, '--replicas=1', '--', 'sleep', '3600');
  }, 60_000);

  it('reaches the webhook as an autoscaling/v1 Scale UPDATE of deployments/scale', async () => {
    expect(await ok('scale', 'deployment', 'web', '-n', namespace, '--replicas=2')).toBe('deployment.apps/web scaled\n');
    const review = (await reviews()).find((entry) => entry.subResource === 'scale' && entry.object.replicas === 2);
    expect(review).toEqual({
      operation: 'UPDATE',
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      subResource: 'scale',
      requestKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      name: 'web',
      namespace,
      object: { apiVersion: 'autoscaling/v1', kind: 'Scale', name: 'web', replicas: 2 },
    });
    expect(await ok('get', 'deployment', 'web', '-n', namespace, '-o', 'jsonpath={.spec.replicas}')).toBe('2');
  });

  it('is refused when the webhook denies it, with the webhook message', async () => {
    const result = await cluster.kubectl(['scale', 'deployment', 'web', '-n', namespace, '--replicas=6']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('Error from server (Forbidden): admission webhook "subresources.kubedesk.test" denied the request: scale to 6 is above the limit of 5');
    expect(await ok('get', 'deployment', 'web', '-n', namespace, '-o', 'jsonpath={.spec.replicas}')).toBe('2');
  });

  it('is refused when the ValidatingAdmissionPolicy denies it, with upstream text', async () => {
    const result = await cluster.kubectl(['scale', 'deployment', 'web', '-n', namespace, '--replicas=4']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(`The deployments "web" is invalid: : ValidatingAdmissionPolicy 'subresource-policy' with binding 'subresource-policy-binding' denied request: four replicas are not allowed`);
    expect(await ok('get', 'deployment', 'web', '-n', namespace, '-o', 'jsonpath={.spec.replicas}')).toBe('2');
  });
});

describe('kubectl drain through pods/eviction', () => {
  it('evicts what admission lets through and keeps what the webhook or the policy refuses', async () => {
    for (const name of ['evict-me', 'keep-me', 'policy-keep']) await apply(pod(name));
    await until('the drainable pods to run', async () => ((await ok('get', 'pods', '-n', namespace, '-l', 'app=drainable', '-o', 'jsonpath={.items[*].status.phase}')).trim() === 'Running Running Running' ? true : undefined), 90_000);
    const drain = await cluster.kubectl(['drain', node, '--pod-selector=app=drainable', '--force', '--ignore-daemonsets', '--timeout=30s'], { timeoutMs: 90_000 });
    const output = `${drain.stdout}${drain.stderr}`;
    expect(drain.code, output).not.toBe(0);
    expect(output).toContain(`node/${node} cordoned`);
    expect(output).toContain(`pod/evict-me evicted`);
    expect(output).toContain(`error when evicting pods/"keep-me" -n "${namespace}": admission webhook "subresources.kubedesk.test" denied the request: pod keep-me must not be evicted`);
    expect(output).toContain(`error when evicting pods/"policy-keep" -n "${namespace}": pods "policy-keep" is forbidden: ValidatingAdmissionPolicy 'subresource-policy' with binding 'subresource-policy-binding' denied request: policy pods stay`);
    expect((await cluster.kubectl(['get', 'pod', 'evict-me', '-n', namespace])).code).toBe(1);
    expect(await ok('get', 'pods', 'keep-me', 'policy-keep', '-n', namespace, '-o', 'jsonpath={.items[*].metadata.deletionTimestamp}')).toBe('');
    const evictions = (await reviews()).filter((entry) => entry.subResource === 'eviction');
    expect(evictions.find((entry) => entry.name === 'evict-me')).toEqual({
      operation: 'CREATE',
      kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'eviction',
      requestKind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      name: 'evict-me',
      namespace,
      object: { apiVersion: 'policy/v1', kind: 'Eviction', name: 'evict-me' },
    });
    expect(evictions.map((entry) => entry.name).sort()).toEqual(expect.arrayContaining(['evict-me', 'keep-me']));
  }, 180_000);
});
