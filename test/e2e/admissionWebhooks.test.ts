// Dynamic admission end to end, with the real kubectl 1.35 against `kubedesk serve`:
// a validating webhook served by a pod in the cluster (Node inside a busybox pod, HTTPS with a
// certificate for `<service>.<namespace>.svc` made here with openssl, trusted through caBundle)
// refuses an object with its own message, a mutating webhook from the same pod adds a label, the
// webhook's warning reaches kubectl, namespaces outside the namespaceSelector are not sent to it,
// and a ValidatingAdmissionPolicy denies with upstream's text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { repositoryRoot } from '../support/tools';
import { kubectlOk, kubectlState, until } from '../support/wait';
import { makeTestCertificates } from '../fixtures/testCertificates';
import { nodeMounts } from '../support/webhookPod';

let cluster: TestCluster;
const namespace = 'webhook-e2e';
const outside = 'webhook-outside';
const service = 'admission';

const ok = (...args: string[]) => kubectlOk(cluster, args);
const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

beforeAll(async () => {
  cluster = await startCluster();
  const certificates = makeTestCertificates([`${service}.${namespace}.svc`]);
  const caBundle = Buffer.from(certificates.caPem).toString('base64');
  const node = nodeMounts();
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { 'webhooks.kubedesk.test': 'enabled' } } });
  await ok('create', 'namespace', outside);
  await apply({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'webhook-server', namespace },
        data: { 'server.mjs': readFileSync(join(repositoryRoot, 'test', 'support', 'webhookServer.mjs'), 'utf8'), 'tls.crt': certificates.certPem, 'tls.key': certificates.keyPem },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'webhook', namespace, labels: { app: 'webhook' } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'webhook',
              image: busyboxImage,
              command: ['/node/node', '/webhook/server.mjs'],
              env: [{ name: 'LD_LIBRARY_PATH', value: node.libraryPath }],
              ports: [{ name: 'https', containerPort: 8443 }],
              readinessProbe: { tcpSocket: { port: 8443 }, periodSeconds: 1 },
              volumeMounts: [{ name: 'server', mountPath: '/webhook', readOnly: true }, ...node.mounts],
            },
          ],
          volumes: [{ name: 'server', configMap: { name: 'webhook-server' } }, ...node.volumes],
        },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: service, namespace }, spec: { selector: { app: 'webhook' }, ports: [{ name: 'https', port: 443, targetPort: 'https' }] } },
    ],
  });
  await until(
    'the webhook endpoint to be ready',
    async () => ((await ok('get', 'endpointslices', '-n', namespace, '-l', `kubernetes.io/service-name=${service}`, '-o', 'jsonpath={.items[*].endpoints[?(@.conditions.ready==true)].addresses[0]}')).trim() || undefined),
    120_000,
    500,
    async () => `${await kubectlState(cluster, ['get', 'pods', '-n', namespace, '-o', 'wide'])()}\n${await kubectlState(cluster, ['logs', '-n', namespace, 'webhook'])()}`,
  );
  const webhook = (name: string, path: string) => ({
    name,
    clientConfig: { service: { namespace, name: service, path }, caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: 'Namespaced' }],
    namespaceSelector: { matchLabels: { 'webhooks.kubedesk.test': 'enabled' } },
    objectSelector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['webhook'] }] },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 5,
  });
  await apply({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'deny-forbidden' }, webhooks: [webhook('deny.kubedesk.test', '/validate')] },
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'add-label' }, webhooks: [webhook('label.kubedesk.test', '/mutate')] },
    ],
  });
}, 240_000);

afterAll(async () => {
  if (!cluster) return;
  await cluster.kubectl(['delete', 'validatingwebhookconfiguration', 'deny-forbidden', '--ignore-not-found']);
  await cluster.kubectl(['delete', 'mutatingwebhookconfiguration', 'add-label', '--ignore-not-found']);
  await cluster.destroy();
}, 120_000);

const configMap = (name: string, ns: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data: { key: 'value' } });

describe('admission webhooks served from a pod', () => {
  it('lists the configurations as kubectl prints them', async () => {
    const out = await ok('get', 'validatingwebhookconfigurations,mutatingwebhookconfigurations');
    expect(out).toMatch(/^NAME\s+WEBHOOKS\s+AGE$/m);
    expect(out).toMatch(/^validatingwebhookconfiguration\.admissionregistration\.k8s\.io\/deny-forbidden\s+1\s+\S+$/m);
    expect(out).toMatch(/^mutatingwebhookconfiguration\.admissionregistration\.k8s\.io\/add-label\s+1\s+\S+$/m);
  });

  it('refuses an object with the webhook message', async () => {
    const result = await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(configMap('refused', namespace, { forbidden: 'yes' })) });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('Error from server (Forbidden): error when creating "STDIN": admission webhook "deny.kubedesk.test" denied the request: ConfigMap "refused" carries the forbidden label');
    expect((await cluster.kubectl(['get', 'configmap', 'refused', '-n', namespace])).code).toBe(1);
  });

  it('stores what the mutating webhook added and shows the validating webhook warning', async () => {
    const result = await cluster.kubectl(['create', 'configmap', 'accepted', '-n', namespace, '--from-literal=key=value']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Warning: checked by the test webhook');
    expect(await ok('get', 'configmap', 'accepted', '-n', namespace, '-o', 'jsonpath={.metadata.labels.mutated-by}')).toBe('webhook');
    // an update goes through both webhooks too: the label comes back, and the forbidden label is refused
    await ok('label', 'configmap', 'accepted', '-n', namespace, 'mutated-by-');
    expect(await ok('get', 'configmap', 'accepted', '-n', namespace, '-o', 'jsonpath={.metadata.labels.mutated-by}')).toBe('webhook');
    const labelled = await cluster.kubectl(['label', 'configmap', 'accepted', '-n', namespace, 'forbidden=yes']);
    expect(labelled.stderr.trim()).toBe('Error from server (Forbidden): admission webhook "deny.kubedesk.test" denied the request: ConfigMap "accepted" carries the forbidden label');
  });

  it('leaves namespaces outside the namespace selector alone', async () => {
    await apply(configMap('free', outside, { forbidden: 'yes' }));
    expect(await ok('get', 'configmap', 'free', '-n', outside, '-o', 'jsonpath={.metadata.labels}')).toBe('{"forbidden":"yes"}');
  });
});

describe('ValidatingAdmissionPolicy', () => {
  it('denies with upstream text and lets matching objects through', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicy',
          metadata: { name: 'small-configmaps' },
          spec: {
            matchConstraints: { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': outside } } },
            validations: [{ expression: 'size(object.data) <= 1' }],
          },
        },
        { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'small-configmaps-binding' }, spec: { policyName: 'small-configmaps', validationActions: ['Deny'] } },
      ],
    });
    const table = await ok('get', 'validatingadmissionpolicies');
    expect(table).toMatch(/^small-configmaps\s+1\s+<unset>\s+\S+$/m);
    const result = await cluster.kubectl(['create', 'configmap', 'big', '-n', outside, '--from-literal=a=1', '--from-literal=b=2']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(`error: failed to create configmap: configmaps "big" is forbidden: ValidatingAdmissionPolicy 'small-configmaps' with binding 'small-configmaps-binding' denied request: failed expression: size(object.data) <= 1`);
    await ok('create', 'configmap', 'one-key', '-n', outside, '--from-literal=a=1');
    await ok('delete', 'validatingadmissionpolicybinding', 'small-configmaps-binding');
    await ok('create', 'configmap', 'big', '-n', outside, '--from-literal=a=1', '--from-literal=b=2');
  });
});
