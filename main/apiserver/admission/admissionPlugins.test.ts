import { describe, expect, it } from 'vitest';
import { inMemoryApiServerPerTest, parseReply as parse } from '../../../test/fixtures/inMemoryApiServer';

const { request } = inMemoryApiServerPerTest({ namespaces: ['team'] });

const pod = (name: string, container: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox', ...container }], ...spec },
});

describe('LimitRanger wiring', () => {
  it('defaults container resources and annotates the pod', async () => {
    await request('POST', '/api/v1/namespaces/team/limitranges', {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'limits' },
      spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '128Mi' }, defaultRequest: { cpu: '100m', memory: '64Mi' }, max: { cpu: '1' } }] },
    });
    const reply = await request('POST', '/api/v1/namespaces/team/pods', pod('web'));
    expect(reply.status).toBe(201);
    const created = parse(reply);
    expect(created.spec.containers[0].resources).toEqual({ limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m', memory: '64Mi' } });
    expect(created.metadata.annotations['kubernetes.io/limit-ranger']).toBe('LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c');
  });

  it('refuses a container limit above the maximum with upstream message', async () => {
    await request('POST', '/api/v1/namespaces/team/limitranges', { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits' }, spec: { limits: [{ type: 'Container', max: { cpu: '500m' } }] } });
    const reply = await request('POST', '/api/v1/namespaces/team/pods', pod('big', { resources: { limits: { cpu: '1' } } }));
    expect(reply.status).toBe(403);
    expect(parse(reply).message).toBe('pods "big" is forbidden: maximum cpu usage per Container is 500m, but limit is 1');
  });
});

describe('ResourceQuota wiring', () => {
  it('refuses the pod beyond the quota with upstream message', async () => {
    await request('POST', '/api/v1/namespaces/team/resourcequotas', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '2' } } });
    expect((await request('POST', '/api/v1/namespaces/team/pods', pod('a'))).status).toBe(201);
    expect((await request('POST', '/api/v1/namespaces/team/pods', pod('b'))).status).toBe(201);
    const reply = await request('POST', '/api/v1/namespaces/team/pods', pod('c'));
    expect(reply.status).toBe(403);
    const status = parse(reply);
    expect(status.reason).toBe('Forbidden');
    expect(status.message).toBe('pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
  });

  it('asks for limits a cpu quota constrains', async () => {
    await request('POST', '/api/v1/namespaces/team/resourcequotas', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'compute' }, spec: { hard: { 'limits.cpu': '2', 'requests.memory': '1Gi' } } });
    const reply = await request('POST', '/api/v1/namespaces/team/pods', pod('x'));
    expect(parse(reply).message).toBe('pods "x" is forbidden: failed quota: compute: must specify limits.cpu for: c; requests.memory for: c');
  });

  it('counts other kinds under count/<resource>', async () => {
    await request('POST', '/api/v1/namespaces/team/resourcequotas', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'objects' }, spec: { hard: { configmaps: '1' } } });
    expect((await request('POST', '/api/v1/namespaces/team/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' } })).status).toBe(201);
    const reply = await request('POST', '/api/v1/namespaces/team/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two' } });
    expect(parse(reply).message).toBe('configmaps "two" is forbidden: exceeded quota: objects, requested: configmaps=1, used: configmaps=1, limited: configmaps=1');
  });
});

describe('PodSecurity wiring', () => {
  const label = (labels: Record<string, string>) => request('PATCH', '/api/v1/namespaces/team', { metadata: { labels } }, 'application/merge-patch+json');

  it('enforces the restricted level with upstream message', async () => {
    await label({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    const reply = await request('POST', '/api/v1/namespaces/team/pods', pod('priv', { securityContext: { privileged: true } }));
    expect(reply.status).toBe(403);
    expect(parse(reply).message).toBe(
      'pods "priv" is forbidden: violates PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });

  it('warns at the warn level and on workload templates', async () => {
    await label({ 'pod-security.kubernetes.io/warn': 'baseline' });
    const reply = await request('POST', '/api/v1/namespaces/team/pods', pod('net', {}, { hostNetwork: true }));
    expect(reply.status).toBe(201);
    expect(reply.headers['Warning']).toBe('299 - "would violate PodSecurity \\"baseline:latest\\": host namespaces (hostNetwork=true)"');
    const deployment = await request('POST', '/apis/apps/v1/namespaces/team/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] } } },
    });
    expect(deployment.status).toBe(201);
    expect(deployment.headers['Warning']).toContain('would violate PodSecurity \\"baseline:latest\\": privileged (container \\"c\\" must not set securityContext.privileged=true)');
  });

  it('warns about existing pods when the enforce level tightens', async () => {
    await request('POST', '/api/v1/namespaces/team/pods', pod('old', { securityContext: { privileged: true } }));
    const reply = await label({ 'pod-security.kubernetes.io/enforce': 'baseline' });
    expect(reply.status).toBe(200);
    expect(reply.headers['Warning']).toBe('299 - "existing pods in namespace \\"team\\" violate the new PodSecurity enforce level \\"baseline:latest\\"", 299 - "old: privileged"');
  });

  it('refuses bad label values on namespaces', async () => {
    const reply = await label({ 'pod-security.kubernetes.io/enforce': 'strict' });
    expect(reply.status).toBe(422);
    expect(parse(reply).message).toBe('Namespace "team" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted');
  });
});

describe('NamespaceLifecycle', () => {
  it('refuses new content in a terminating namespace', async () => {
    await request('POST', '/api/v1/namespaces/team/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep' } });
    const deleted = await request('DELETE', '/api/v1/namespaces/team');
    expect(deleted.status).toBe(200);
    const reply = await request('POST', '/api/v1/namespaces/team/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } });
    expect(reply.status).toBe(403);
    expect(parse(reply).message).toBe('configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated');
  });
});

describe('Priority wiring', () => {
  it('tells an explicit priority 0 from none, as defaulting leaves priority to the plugin', async () => {
    await request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'standard' }, value: 10, globalDefault: true });
    const explicit = await request('POST', '/api/v1/namespaces/team/pods', pod('explicit', {}, { priority: 0 }));
    expect(explicit.status).toBe(403);
    expect(parse(explicit).message).toBe('pods "explicit" is forbidden: the integer value of priority (0) must not be provided in pod spec; priority admission controller computed 10 from the given PriorityClass name');
    const implicit = parse(await request('POST', '/api/v1/namespaces/team/pods', pod('implicit')));
    expect(implicit.spec).toMatchObject({ priorityClassName: 'standard', priority: 10, preemptionPolicy: 'PreemptLowerPriority' });
  });

  it('keeps the priority a pod has through updates', async () => {
    const created = parse(await request('POST', '/api/v1/namespaces/team/pods', pod('kept')));
    expect(created.spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    created.metadata.labels = { touched: 'yes' };
    const updated = await request('PUT', '/api/v1/namespaces/team/pods/kept', created);
    expect(updated.status).toBe(200);
    expect(parse(updated).spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
  });
});
