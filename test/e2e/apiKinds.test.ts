// The remaining built-in kinds end to end with the real kubectl 1.35: `kubectl explain`
// answers for every resource `kubectl api-resources` lists; PriorityClasses (the two system
// classes exist, pods get spec.priority from their class, unknown classes are refused with the
// upstream message), RuntimeClasses, NetworkPolicies and IngressClasses print upstream's columns;
// a CertificateSigningRequest approved with `kubectl certificate approve` is issued by the
// cluster CA; and HorizontalPodAutoscalers read and write through autoscaling/v1.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, keyAlgorithms, loadX509 } from '../../shared/pki/x509';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk, kubectlState, until } from '../support/wait';

let cluster: TestCluster;
const namespace = 'kinds-e2e';

const ok = (...args: string[]) => kubectlOk(cluster, args);
const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

/** The header line of a `kubectl get` table, columns separated by single spaces. */
function header(table: string): string {
  return table.split('\n')[0].trim().split(/\s+/).join(' ');
}

beforeAll(async () => {
  cluster = await startCluster();
  await ok('create', 'namespace', namespace);
});

afterAll(async () => {
  await cluster?.destroy();
});

describe('kubectl explain', () => {
  it('explains every resource kubectl api-resources lists', async () => {
    const names = (await ok('api-resources', '-o', 'name')).split('\n').map((line) => line.trim()).filter((line) => line !== '');
    expect(names).toEqual(expect.arrayContaining(['priorityclasses.scheduling.k8s.io', 'runtimeclasses.node.k8s.io', 'certificatesigningrequests.certificates.k8s.io', 'horizontalpodautoscalers.autoscaling']));
    // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND: the API version is third from the end. Asking by
    // plural and --api-version keeps kubectl from reading `pods.metrics.k8s.io` as a field path.
    const rows = (await ok('api-resources', '--no-headers')).split('\n').map((line) => line.trim().split(/\s+/)).filter((tokens) => tokens.length >= 4);
    expect(rows.length).toBe(names.length);
    const failures: string[] = [];
    for (let start = 0; start < rows.length; start += 6) {
      await Promise.all(
        rows.slice(start, start + 6).map(async (tokens) => {
          const [plural] = tokens;
          const apiVersion = tokens[tokens.length - 3];
          const result = await cluster.kubectl(['explain', plural, `--api-version=${apiVersion}`]);
          if (result.code !== 0 || !/^(KIND|GROUP):/m.test(result.stdout)) failures.push(`${plural} ${apiVersion}: ${result.stderr.trim()}`);
        }),
      );
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('explains nested fields of the new kinds', async () => {
    expect(await ok('explain', 'priorityclass.preemptionPolicy')).toContain('FIELD: preemptionPolicy <string>');
    expect(await ok('explain', 'csr.spec.signerName')).toContain('FIELD: signerName <string>');
    expect(await ok('explain', 'runtimeclass.overhead.podFixed')).toContain('podFixed');
    expect(await ok('explain', 'hpa.spec.targetCPUUtilizationPercentage', '--api-version=autoscaling/v1')).toContain('targetCPUUtilizationPercentage <integer>');
  });
});

describe('PriorityClass', () => {
  it('has the two system classes and prints upstream columns', async () => {
    const table = await ok('get', 'priorityclasses');
    expect(header(table)).toBe('NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY');
    expect(table).toMatch(/system-cluster-critical\s+2000000000\s+false\s+\S+\s+PreemptLowerPriority/);
    expect(table).toMatch(/system-node-critical\s+2000001000\s+false/);
  });

  it('resolves spec.priority from the class a pod names, and refuses unknown classes', async () => {
    await ok('create', 'priorityclass', 'e2e-high', '--value=1000', '--description=e2e', '--preemption-policy=Never');
    await apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'prioritized', namespace }, spec: { priorityClassName: 'e2e-high', terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: busyboxImage, command: ['sleep', '3600'] }] } });
    expect(await ok('get', 'pod', 'prioritized', '-n', namespace, '-o', 'jsonpath={.spec.priority} {.spec.preemptionPolicy}')).toBe('1000 Never');
    const refused = await cluster.kubectl(['run', 'orphan', '-n', namespace, `--image=${busyboxImage}`, '--overrides={"spec":{"priorityClassName":"missing"}}']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('pods "orphan" is forbidden: no PriorityClass with name missing was found');
    const reserved = await cluster.kubectl(['create', 'priorityclass', 'system-mine', '--value=5']);
    expect(reserved.stderr).toContain("priority class names with 'system-' prefix are reserved for system use only");
    await ok('delete', 'pod', 'prioritized', '-n', namespace, '--wait=false');
  });
});

describe('RuntimeClass, NetworkPolicy and IngressClass', () => {
  it('are validated and print upstream columns', async () => {
    await apply({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'sandboxed' }, handler: 'runsc' });
    expect(header(await ok('get', 'runtimeclasses'))).toBe('NAME HANDLER AGE');
    expect(await ok('get', 'runtimeclass', 'sandboxed', '--no-headers')).toMatch(/^sandboxed\s+runsc\s+/);
    const badHandler = await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'bad' }, handler: 'Run.SC' }) });
    expect(badHandler.stderr).toContain('handler: Invalid value: "Run.SC"');

    await apply({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'db', namespace }, spec: { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ ports: [{ port: 5432 }] }] } });
    expect(header(await ok('get', 'networkpolicies', '-n', namespace))).toBe('NAME POD-SELECTOR AGE');
    expect(await ok('get', 'networkpolicy', 'db', '-n', namespace, '--no-headers')).toMatch(/^db\s+app=db\s+/);
    expect(await ok('get', 'networkpolicy', 'db', '-n', namespace, '-o', 'jsonpath={.spec.policyTypes} {.spec.ingress[0].ports[0].protocol}')).toBe('["Ingress"] TCP');
    const badPolicy = await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'bad', namespace }, spec: { podSelector: {}, ingress: [{ from: [{}] }] } }) });
    expect(badPolicy.stderr).toContain('spec.ingress[0].from[0]: Required value: must specify a peer');

    await apply({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'e2e' }, spec: { controller: 'example.com/ingress', parameters: { apiGroup: 'example.com', kind: 'Params', name: 'p' } } });
    expect(header(await ok('get', 'ingressclasses'))).toBe('NAME CONTROLLER PARAMETERS AGE');
    expect(await ok('get', 'ingressclass', 'e2e', '--no-headers')).toMatch(/^e2e\s+example\.com\/ingress\s+Params\.example\.com\/p\s+/);
    const badIngress = await cluster.kubectl(['create', 'ingress', 'bad', '-n', namespace, '--rule=10.1.2.3/=web:80']);
    expect(badIngress.stderr).toContain('must be a DNS name, not an IP address');
  });
});

describe('CertificateSigningRequest', () => {
  it('is issued by the cluster CA after kubectl certificate approve', async () => {
    const x509 = await loadX509();
    const keys = await generateKeyPair('ecdsa-p256');
    const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=jane,O=developers', keys, signingAlgorithm: keyAlgorithms['ecdsa-p256'].signing });
    await apply({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'jane' },
      spec: { request: Buffer.from(request.toString('pem')).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], expirationSeconds: 86400 },
    });
    const pending = await ok('get', 'csr', 'jane');
    expect(header(pending)).toBe('NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION');
    expect(pending).toMatch(/jane\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+.*24h\s+Pending/);
    expect((await ok('certificate', 'approve', 'jane')).trim()).toBe('certificatesigningrequest.certificates.k8s.io/jane approved');
    const encoded = await until('the certificate to be issued', async () => (await ok('get', 'csr', 'jane', '-o', 'jsonpath={.status.certificate}')) || undefined, 30_000, 500, kubectlState(cluster, ['get', 'csr', 'jane', '-o', 'yaml']));
    const certificate = new X509Certificate(Buffer.from(encoded, 'base64'));
    expect(certificate.subject).toBe('CN=jane\nO=developers');
    expect(certificate.verify(new X509Certificate(cluster.caPem).publicKey)).toBe(true);
    expect(await ok('get', 'csr', 'jane', '--no-headers')).toMatch(/Approved,Issued\s*$/);
  });
});

describe('HorizontalPodAutoscaler through autoscaling/v1', () => {
  it('reads what kubectl autoscale created and writes through v1', async () => {
    await ok('create', 'deployment', 'web', '-n', namespace, `--image=${busyboxImage}`, '--replicas=1', '--', 'sleep', '3600');
    const created = await ok('autoscale', 'deployment', 'web', '-n', namespace, '--cpu-percent=50', '--min=1', '--max=3');
    expect(created.trim()).toBe('horizontalpodautoscaler.autoscaling/web autoscaled');
    expect(await ok('get', 'hpa', 'web', '-n', namespace, '-o', 'jsonpath={.apiVersion}')).toBe('autoscaling/v2');
    expect(await ok('get', 'horizontalpodautoscalers.v1.autoscaling', 'web', '-n', namespace, '-o', 'jsonpath={.apiVersion} {.spec.targetCPUUtilizationPercentage} {.spec.maxReplicas}')).toBe('autoscaling/v1 50 3');
    await ok('patch', 'horizontalpodautoscalers.v1.autoscaling', 'web', '-n', namespace, '--type=merge', '-p', '{"spec":{"targetCPUUtilizationPercentage":70}}');
    expect(await ok('get', 'hpa', 'web', '-n', namespace, '-o', 'jsonpath={.spec.metrics[0].resource.target.averageUtilization}')).toBe('70');
    await apply({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'v1-made', namespace }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 4, targetCPUUtilizationPercentage: 40 } });
    expect(await ok('get', 'hpa', 'v1-made', '-n', namespace, '-o', 'jsonpath={.spec.minReplicas} {.spec.maxReplicas} {.spec.metrics[0].resource.target.averageUtilization}')).toBe('1 4 40');
    expect(await ok('get', 'hpa', 'v1-made', '-n', namespace, '--no-headers')).toMatch(/^v1-made\s+Deployment\/web\s+cpu: \S+\/40%\s+1\s+4\s+/);
    await ok('delete', 'horizontalpodautoscalers.v1.autoscaling', 'v1-made', '-n', namespace);
    await ok('delete', 'deployment', 'web', '-n', namespace);
  });
});

describe('the OpenAPI v2 document', () => {
  it('is complete for JSON clients: definitions and paths for the served kinds', async () => {
    const swagger = JSON.parse(await kubectlOk(cluster, ['get', '--raw', '/openapi/v2'], undefined, 60_000)) as {
      swagger: string;
      definitions: Record<string, unknown>;
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    expect(swagger.swagger).toBe('2.0');
    for (const name of ['io.k8s.api.core.v1.Pod', 'io.k8s.api.apps.v1.Deployment', 'io.k8s.api.rbac.v1.ClusterRole', 'io.k8s.api.scheduling.v1.PriorityClass', 'io.k8s.api.networking.v1.Ingress']) {
      expect(swagger.definitions[name], name).toBeDefined();
    }
    expect(swagger.paths['/api/v1/namespaces/{namespace}/pods']?.post?.operationId).toBe('createCoreV1NamespacedPod');
    expect(swagger.paths['/apis/apps/v1/deployments']?.get?.operationId).toBe('listAppsV1DeploymentForAllNamespaces');
  });
});
