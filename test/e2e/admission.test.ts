// Admission plugins end to end, with the real kubectl 1.35 against `kubedesk serve`:
// LimitRange defaults on a created pod and a too-large limit refused; ResourceQuota usage in
// `kubectl describe quota` and a create beyond it refused; PodSecurity enforce refusing a
// privileged pod and warn printing kubectl's `Warning:` line; and no new content in a terminating
// namespace — each with upstream's exact message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk, kubectlState, until } from '../support/wait';

let cluster: TestCluster;

const ok = (...args: string[]) => kubectlOk(cluster, args);
const apply = (manifest: object, namespace: string) => cluster.kubectl(['apply', '-n', namespace, '-f', '-'], { input: JSON.stringify(manifest) });

function pod(name: string, container: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): object {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: busyboxImage, command: ['sleep', '3600'], ...container }], terminationGracePeriodSeconds: 0, ...spec } };
}

describe('admission plugins', () => {
  beforeAll(async () => {
    cluster = await startCluster();
  }, 120_000);

  afterAll(async () => {
    await cluster?.destroy();
  });

  it('applies LimitRange defaults to a new pod and refuses a limit above the maximum', async () => {
    const namespace = 'adm-limits';
    await ok('create', 'namespace', namespace);
    const created = await apply(
      { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits' }, spec: { limits: [{ type: 'Container', default: { cpu: '200m', memory: '64Mi' }, defaultRequest: { cpu: '100m', memory: '32Mi' }, max: { cpu: '500m' } }] } },
      namespace,
    );
    expect(created.code, created.stderr).toBe(0);
    expect((await apply(pod('small'), namespace)).code).toBe(0);
    const resources = JSON.parse(await ok('get', 'pod', 'small', '-n', namespace, '-o', 'jsonpath={.spec.containers[0].resources}'));
    expect(resources).toEqual({ limits: { cpu: '200m', memory: '64Mi' }, requests: { cpu: '100m', memory: '32Mi' } });
    const refused = await apply(pod('big', { resources: { limits: { cpu: '1' } } }), namespace);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('pods "big" is forbidden: maximum cpu usage per Container is 500m, but limit is 1');
  });

  it('shows quota usage in kubectl describe and refuses a create beyond it', async () => {
    const namespace = 'adm-quota';
    await ok('create', 'namespace', namespace);
    await ok('create', 'quota', 'q', '-n', namespace, '--hard=pods=2,configmaps=10');
    expect((await apply(pod('one'), namespace)).code).toBe(0);
    expect((await apply(pod('two'), namespace)).code).toBe(0);
    const described = await until(
      'quota usage pods 2/2',
      async () => {
        const text = await ok('describe', 'quota', 'q', '-n', namespace);
        return /pods\s+2\s+2/.test(text) ? text : undefined;
      },
      30_000,
      500,
      kubectlState(cluster, ['get', 'quota', 'q', '-n', namespace, '-o', 'yaml']),
    );
    expect(described).toMatch(/Resource\s+Used\s+Hard/);
    expect(described).toMatch(/configmaps\s+1\s+10/);
    const refused = await apply(pod('three'), namespace);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('pods "three" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
  });

  it('enforces the restricted Pod Security level and prints warn-level warnings', async () => {
    const namespace = 'adm-restricted';
    await ok('create', 'namespace', namespace);
    await ok('label', 'namespace', namespace, 'pod-security.kubernetes.io/enforce=restricted');
    const refused = await apply(pod('priv', { securityContext: { privileged: true } }), namespace);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'pods "priv" is forbidden: violates PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    const warned = 'adm-warn';
    await ok('create', 'namespace', warned);
    await ok('label', 'namespace', warned, 'pod-security.kubernetes.io/warn=baseline');
    const accepted = await apply(pod('net', {}, { hostNetwork: true }), warned);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toContain('Warning: would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)');
  });

  it('refuses new content in a terminating namespace', async () => {
    const namespace = 'adm-terminating';
    await ok('create', 'namespace', namespace);
    await ok('create', 'configmap', 'held', '-n', namespace);
    await ok('patch', 'configmap', 'held', '-n', namespace, '--type=merge', '-p', '{"metadata":{"finalizers":["kubedesk.test/hold"]}}');
    await ok('delete', 'namespace', namespace, '--wait=false');
    await until('namespace Terminating', async () => ((await ok('get', 'namespace', namespace, '-o', 'jsonpath={.status.phase}')) === 'Terminating' ? true : undefined), 30_000);
    const refused = await cluster.kubectl(['create', 'configmap', 'late', '-n', namespace]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('configmaps "late" is forbidden: unable to create new content in namespace adm-terminating because it is being terminated');
    await ok('patch', 'configmap', 'held', '-n', namespace, '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
  });
});
