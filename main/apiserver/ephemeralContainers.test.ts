// pods/ephemeralcontainers through the API server's handlers, as kubectl debug uses it: a strategic
// merge patch of the subresource (what `kubectl debug -v=8` shows kubectl 1.35 sending), GET and
// PUT of the subresource, the refusals of the pod's own create and update, discovery, managed
// fields and PodSecurity admission.
import { beforeEach, describe, expect, it } from 'vitest';
import { inMemoryApiServerPerTest, parseReply as parse } from '../../test/fixtures/inMemoryApiServer';

const server = inMemoryApiServerPerTest({ namespaces: ['default'] });
const { request } = server;

const strategic = { 'content-type': 'application/strategic-merge-patch+json' };
const podPath = '/api/v1/namespaces/default/pods/web';
const debuggerPatch = (name: string, extra: Record<string, unknown> = {}) => ({
  spec: { ephemeralContainers: [{ name, image: 'kubedesk-test/busybox:4', resources: {}, terminationMessagePolicy: 'File', targetContainerName: 'web', ...extra }] },
});

beforeEach(async () => {
  const created = await request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'kubedesk-test/busybox:4' }] } });
  expect(created.status).toBe(201);
});

describe('pods/ephemeralcontainers', () => {
  it('adds a debugger with the strategic merge patch kubectl debug sends, and records it as the subresource\'s', async () => {
    const reply = await request('PATCH', `${podPath}/ephemeralcontainers`, debuggerPatch('debugger-abcde'), { ...strategic, 'user-agent': 'kubectl/v1.35.2 (linux/amd64) kubernetes/fdc9d74' });
    expect(reply.status).toBe(200);
    const pod = parse(reply);
    expect(pod.kind).toBe('Pod');
    expect(pod.spec.ephemeralContainers).toEqual([
      { name: 'debugger-abcde', image: 'kubedesk-test/busybox:4', imagePullPolicy: 'IfNotPresent', resources: {}, targetContainerName: 'web', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' },
    ]);
    expect(pod.metadata.generation).toBe(2);
    const entry = pod.metadata.managedFields.find((field: { subresource?: string }) => field.subresource === 'ephemeralcontainers');
    expect(entry).toMatchObject({ manager: 'kubectl', operation: 'Update' });
    expect(Object.keys(entry.fieldsV1['f:spec']['f:ephemeralContainers'])).toContain('k:{"name":"debugger-abcde"}');

    // a second one merges by name and keeps the first; kubectl's two-way patch then names the order
    const secondPatch = { spec: { '$setElementOrder/ephemeralContainers': [{ name: 'debugger-abcde' }, { name: 'second' }], ...debuggerPatch('second').spec } };
    const second = parse(await request('PATCH', `${podPath}/ephemeralcontainers`, secondPatch, strategic));
    expect(second.spec.ephemeralContainers.map((container: { name: string }) => container.name)).toEqual(['debugger-abcde', 'second']);
    // GET of the subresource is the pod
    const got = parse(await request('GET', `${podPath}/ephemeralcontainers`));
    expect(got.spec.ephemeralContainers).toHaveLength(2);
  });

  it('changes nothing but the ephemeral containers, whatever else the patch says', async () => {
    const reply = await request('PATCH', `${podPath}/ephemeralcontainers`, { metadata: { labels: null }, spec: { ...debuggerPatch('d').spec, containers: [{ name: 'web', image: 'other' }] }, status: { phase: 'Failed' } }, strategic);
    const pod = parse(reply);
    expect(pod.metadata.labels).toEqual({ app: 'web' });
    expect(pod.spec.containers[0].image).toBe('kubedesk-test/busybox:4');
    expect(pod.status.phase).toBe('Pending');
    expect(pod.spec.ephemeralContainers).toHaveLength(1);
  });

  it('answers 422 with upstream causes for a debugger that breaks the rules, and for removing one', async () => {
    const bad = await request('PATCH', `${podPath}/ephemeralcontainers`, debuggerPatch('web', { ports: [{ containerPort: 80 }], targetContainerName: 'nope' }), strategic);
    expect(bad.status).toBe(422);
    const status = parse(bad);
    expect(status).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { name: 'web', kind: 'Pod' } });
    expect(status.details.causes).toEqual([
      { reason: 'FieldValueDuplicate', field: 'spec.ephemeralContainers[0].name', message: 'Duplicate value: "web"' },
      { reason: 'FieldValueNotFound', field: 'spec.ephemeralContainers[0].targetContainerName', message: 'Not found: "nope"' },
      { reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers[0].ports', message: 'Forbidden: cannot be set for an Ephemeral Container' },
    ]);
    expect(status.message).toMatch(/^Pod "web" is invalid: \[spec\.ephemeralContainers\[0\]\.name: Duplicate value: "web", /);

    await request('PATCH', `${podPath}/ephemeralcontainers`, debuggerPatch('d'), strategic);
    const current = parse(await request('GET', `${podPath}/ephemeralcontainers`));
    current.spec.ephemeralContainers = [];
    const removed = await request('PUT', `${podPath}/ephemeralcontainers`, current);
    expect(removed.status).toBe(422);
    expect(parse(removed).details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers', message: 'Forbidden: existing ephemeral containers "d" may not be removed\n' }]);
  });

  it('keeps ephemeral containers out of the pod\'s own create and update', async () => {
    const created = await request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'other' }, spec: { containers: [{ name: 'c', image: 'busybox' }], ephemeralContainers: [{ name: 'd', image: 'busybox' }] } });
    expect(created.status).toBe(422);
    expect(parse(created).details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers', message: 'Forbidden: cannot be set on create' }]);

    const updated = await request('PATCH', podPath, debuggerPatch('d'), strategic);
    expect(updated.status).toBe(422);
    expect(parse(updated).details.causes[0].message).toMatch(/^Forbidden: pod updates may not change fields other than /);

    // once added through the subresource, other pod writes keep working
    await request('PATCH', `${podPath}/ephemeralcontainers`, debuggerPatch('d'), strategic);
    const relabelled = await request('PATCH', podPath, { metadata: { labels: { app: 'web', debug: 'yes' } } }, strategic);
    expect(relabelled.status).toBe(200);
    const status = await request('PATCH', `${podPath}/status`, { status: { ephemeralContainerStatuses: [{ name: 'd', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { running: {} } }] } }, { 'content-type': 'application/merge-patch+json' });
    expect(status.status).toBe(200);
  });

  it('is listed in discovery with get, patch and update', async () => {
    const discovery = parse(await request('GET', '/api/v1'));
    expect(discovery.resources.find((resource: { name: string }) => resource.name === 'pods/ephemeralcontainers')).toEqual({ name: 'pods/ephemeralcontainers', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] });
  });

  it('is judged by PodSecurity: a privileged debugger is refused where baseline is enforced', async () => {
    await request('PATCH', '/api/v1/namespaces/default', { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } }, strategic);
    const refused = await request('PATCH', `${podPath}/ephemeralcontainers`, debuggerPatch('sys', { securityContext: { privileged: true } }), strategic);
    expect(refused.status).toBe(403);
    expect(parse(refused).message).toBe('pods "web" is forbidden: violates PodSecurity "baseline:latest": privileged (container "sys" must not set securityContext.privileged=true)');
    const allowed = await request('PATCH', `${podPath}/ephemeralcontainers`, debuggerPatch('plain'), strategic);
    expect(allowed.status).toBe(200);
  });
});
