// RBAC end to end with the real kubectl: service accounts can do nothing until bound, `kubectl auth
// can-i [--list]` and `kubectl auth whoami` (also with --as), tokens from `kubectl create token`
// refused then allowed on raw requests, an in-cluster client limited by its pod's token, and
// impersonation refused to callers without the impersonate verb.
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { toolPaths } from '../support/tools';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;
const namespace = 'rbac-e2e';
const reader = `system:serviceaccount:${namespace}:reader`;

const ok = (...args: string[]) => kubectlOk(cluster, args);
const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

async function canI(...args: string[]): Promise<string> {
  // exit code 1 means "no"; the answer is on stdout either way
  const result = await cluster.kubectl(['auth', 'can-i', ...args]);
  return result.stdout.trim();
}

beforeAll(async () => {
  cluster = await startCluster();
  await ok('create', 'namespace', namespace);
  await ok('create', 'serviceaccount', 'reader', '-n', namespace);
}, 180_000);

afterAll(async () => {
  await cluster?.destroy();
}, 120_000);

describe('default policy', () => {
  it('has the upstream default ClusterRoles, with admin, edit and view filled by aggregation', async () => {
    const names = (await ok('get', 'clusterroles', '-o', 'name')).split('\n');
    for (const role of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:service-account-issuer-discovery']) {
      expect(names).toContain(`clusterrole.rbac.authorization.k8s.io/${role}`);
    }
    const bindings = await ok('get', 'clusterrolebinding', 'cluster-admin', 'system:discovery');
    expect(bindings).toMatch(/^NAME\s+ROLE\s+AGE/);
    expect(bindings).toMatch(/cluster-admin\s+ClusterRole\/cluster-admin/);
    await until('view aggregated', async () => ((await ok('get', 'clusterrole', 'view', '-o', 'jsonpath={.rules[*].resources}')).includes('pods') ? true : undefined));
    await until('admin aggregated from edit and view', async () => {
      const resources = await ok('get', 'clusterrole', 'admin', '-o', 'jsonpath={.rules[*].resources}');
      return resources.includes('rolebindings') && resources.includes('pods/exec') && resources.includes('pods/log') ? true : undefined;
    });
  });

  it('grows an aggregated role when a labelled ClusterRole appears', async () => {
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
      rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list'] }],
    });
    await until('widgets in view', async () => ((await ok('get', 'clusterrole', 'view', '-o', 'jsonpath={.rules[*].resources}')).includes('widgets') ? true : undefined));
    await ok('delete', 'clusterrole', 'widgets-view');
    await until('widgets gone from view', async () => ((await ok('get', 'clusterrole', 'view', '-o', 'jsonpath={.rules[*].resources}')).includes('widgets') ? undefined : true));
  });

  it('rejects invalid bindings with upstream messages', async () => {
    const result = await cluster.kubectl(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'bad', namespace }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Pod', name: 'x' }, subjects: [{ kind: 'Robot', name: 'r' }] }),
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"');
    expect(result.stderr).toContain('subjects[0].kind: Unsupported value: "Robot"');
  });
});

describe('kubectl auth', () => {
  it('answers can-i for the admin and for an unbound service account, then yes once bound to view', async () => {
    expect(await canI('list', 'pods')).toBe('yes');
    expect(await canI('list', 'pods', '-n', namespace, `--as=${reader}`)).toBe('no');
    await ok('create', 'rolebinding', 'reader-view', '--clusterrole=view', `--serviceaccount=${namespace}:reader`, '-n', namespace);
    await until('the binding to take effect', async () => ((await canI('list', 'pods', '-n', namespace, `--as=${reader}`)) === 'yes' ? true : undefined), 10_000);
    expect(await canI('delete', 'pods', '-n', namespace, `--as=${reader}`)).toBe('no');
    expect(await canI('list', 'pods', '-n', 'default', `--as=${reader}`)).toBe('no');
    expect(await canI('list', 'secrets', '-n', namespace, `--as=${reader}`)).toBe('no');
  });

  it('lists what a user may do with can-i --list', async () => {
    const list = await ok('auth', 'can-i', '--list', '-n', namespace, `--as=${reader}`);
    expect(list).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
    expect(list).toMatch(/selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/);
    expect(list).toMatch(/\n\s*pods\s+\[\]\s+\[\]\s+\[get list watch\]/);
    expect(list).toMatch(/\[\/api\/\*\]\s+\[\]\s+\[get\]/);
    const admin = await ok('auth', 'can-i', '--list');
    expect(admin).toMatch(/\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/);
  });

  it('tells who the caller is with whoami, also when impersonating', async () => {
    const admin = await ok('auth', 'whoami');
    expect(admin).toMatch(/Username\s+kubedesk-admin/);
    expect(admin).toMatch(/Groups\s+\[system:masters system:authenticated\]/);
    const asReader = await ok('auth', 'whoami', `--as=${reader}`);
    expect(asReader).toMatch(new RegExp(`Username\\s+${reader}`));
    expect(asReader).toMatch(/Groups\s+\[system:serviceaccounts system:serviceaccounts:rbac-e2e system:authenticated\]/);
    const asJane = await ok('auth', 'whoami', '--as=jane', '--as-group=devs', '-o', 'json');
    expect(JSON.parse(asJane)).toMatchObject({ kind: 'SelfSubjectReview', status: { userInfo: { username: 'jane', groups: ['devs', 'system:authenticated'] } } });
  });
});

describe('service account tokens', () => {
  it('refuses a token of an unbound account with the upstream 403, then allows it once bound', async () => {
    await ok('create', 'serviceaccount', 'late', '-n', namespace);
    const token = (await ok('create', 'token', 'late', '-n', namespace)).trim();
    const auth = { authorization: `Bearer ${token}` };
    const refused = await cluster.request('GET', `/api/v1/namespaces/${namespace}/pods`, undefined, auth);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: `pods is forbidden: User "system:serviceaccount:${namespace}:late" cannot list resource "pods" in API group "" in the namespace "${namespace}"`,
      details: { kind: 'pods' },
    });
    const named = await cluster.request('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/web`, undefined, auth);
    expect(JSON.parse(named.body).message).toBe(`deployments.apps "web" is forbidden: User "system:serviceaccount:${namespace}:late" cannot get resource "deployments" in API group "apps" in the namespace "${namespace}"`);
    // discovery and version are open to every authenticated caller
    expect((await cluster.request('GET', '/version', undefined, auth)).status).toBe(200);
    expect((await cluster.request('GET', '/apis', undefined, auth)).status).toBe(200);
    const metrics = await cluster.request('GET', '/metrics', undefined, auth);
    expect(JSON.parse(metrics.body).message).toBe(`forbidden: User "system:serviceaccount:${namespace}:late" cannot get path "/metrics"`);

    await ok('create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods', '-n', namespace);
    await ok('create', 'rolebinding', 'late-pods', '--role=pod-reader', `--serviceaccount=${namespace}:late`, '-n', namespace);
    await until('the token to be allowed', async () => ((await cluster.request('GET', `/api/v1/namespaces/${namespace}/pods`, undefined, auth)).status === 200 ? true : undefined), 10_000);
    const other = await cluster.request('GET', '/api/v1/namespaces/default/pods', undefined, auth);
    expect(other.status).toBe(403);
  });

  it('answers TokenReview for the admin only', async () => {
    const token = (await ok('create', 'token', 'reader', '-n', namespace)).trim();
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } };
    const answer = await cluster.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', review);
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ status: { authenticated: true, user: { username: reader, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'] } } });
    const refused = await cluster.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', review, { authorization: `Bearer ${token}` });
    expect(refused.status).toBe(403);
  });

  it('limits an in-cluster client to what its pod service account is allowed', async () => {
    const tools = dirname(toolPaths().kubectl);
    await apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'in-cluster', namespace },
      spec: {
        serviceAccountName: 'reader',
        terminationGracePeriodSeconds: 0,
        volumes: [{ name: 'tools', hostPath: { path: tools, type: 'Directory' } }],
        containers: [{ name: 'c', image: busyboxImage, command: ['sleep', '100000'], volumeMounts: [{ name: 'tools', mountPath: '/tools', readOnly: true }] }],
      },
    });
    await ok('wait', '-n', namespace, '--for=condition=Ready', 'pod/in-cluster', '--timeout=90s');
    const inPod = async (script: string) => {
      const result = await cluster.kubectl(['exec', '-n', namespace, 'in-cluster', '--', 'sh', '-c', script], { timeoutMs: 60_000 });
      return result.stdout + result.stderr;
    };
    expect(await inPod('/tools/kubectl get pods -o name')).toContain('pod/in-cluster');
    expect(await inPod('/tools/kubectl get secrets 2>&1')).toContain(`Error from server (Forbidden): secrets is forbidden: User "${reader}" cannot list resource "secrets" in API group "" in the namespace "${namespace}"`);
    expect(await inPod('/tools/kubectl delete pod in-cluster --wait=false 2>&1')).toContain(`pods "in-cluster" is forbidden: User "${reader}" cannot delete resource "pods" in API group "" in the namespace "${namespace}"`);
    expect((await inPod('/tools/kubectl auth can-i list pods')).trim()).toBe('yes');
    const whoami = JSON.parse(await inPod('/tools/kubectl auth whoami -o json'));
    expect(whoami.status.userInfo).toMatchObject({ username: reader, extra: { 'authentication.kubernetes.io/pod-name': ['in-cluster'] } });
    expect(whoami.status.userInfo.uid).toBe((await ok('get', 'serviceaccount', 'reader', '-n', namespace, '-o', 'jsonpath={.metadata.uid}')).trim());
  });
});

describe('impersonation', () => {
  it('refuses impersonation to a caller without the impersonate verb', async () => {
    const token = (await ok('create', 'token', 'reader', '-n', namespace)).trim();
    const result = await cluster.request('GET', `/api/v1/namespaces/${namespace}/pods`, undefined, { authorization: `Bearer ${token}`, 'impersonate-user': 'jane' });
    expect(result.status).toBe(403);
    expect(JSON.parse(result.body).message).toBe(`users "jane" is forbidden: User "${reader}" cannot impersonate resource "users" in API group "" at the cluster scope`);
    const allowed = await cluster.request('GET', `/api/v1/namespaces/${namespace}/pods`, undefined, { 'impersonate-user': reader });
    expect(allowed.status).toBe(200);
    const denied = await cluster.request('GET', `/api/v1/namespaces/${namespace}/secrets`, undefined, { 'impersonate-user': reader });
    expect(denied.status).toBe(403);
  });

  it('answers SubjectAccessReview and LocalSubjectAccessReview for the admin', async () => {
    const review = await cluster.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: reader, groups: ['system:serviceaccounts'], resourceAttributes: { namespace, verb: 'list', resource: 'pods' } },
    });
    expect(review.status).toBe(201);
    expect(JSON.parse(review.body)).toMatchObject({ status: { allowed: true, reason: `RBAC: allowed by RoleBinding "reader-view/${namespace}" of ClusterRole "view" to ServiceAccount "reader/${namespace}"` } });
    const local = await cluster.request('POST', `/apis/authorization.k8s.io/v1/namespaces/${namespace}/localsubjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      metadata: { namespace },
      spec: { user: reader, resourceAttributes: { namespace, verb: 'delete', resource: 'pods' } },
    });
    expect(JSON.parse(local.body)).toMatchObject({ status: { allowed: false } });
  });
});

describe('privilege escalation', () => {
  it('lets a namespace admin grant only what it holds, as upstream refuses escalation', async () => {
    await ok('create', 'serviceaccount', 'ns-admin', '-n', namespace);
    await ok('create', 'rolebinding', 'ns-admin-is-admin', '--clusterrole=admin', `--serviceaccount=${namespace}:ns-admin`, '-n', namespace);
    const as = `--as=system:serviceaccount:${namespace}:ns-admin`;
    // within its own permissions: allowed
    await until('the admin binding to take effect', async () => ((await cluster.kubectl(['create', 'role', 'delegated-pod-reader', '--verb=get,list', '--resource=pods', '-n', namespace, as])).code === 0 ? true : undefined), 10_000);
    // nodes are cluster-scoped and not in `admin`: refused with upstream's message
    const role = await cluster.kubectl(['create', 'role', 'node-reader', '--verb=list', '--resource=nodes', '-n', namespace, as]);
    expect(role.code).not.toBe(0);
    expect(role.stderr).toContain(`roles.rbac.authorization.k8s.io "node-reader" is forbidden: user "system:serviceaccount:${namespace}:ns-admin" (groups=["system:serviceaccounts" "system:serviceaccounts:${namespace}" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:`);
    expect(role.stderr).toContain('{APIGroups:[""], Resources:["nodes"], Verbs:["list"]}');
    // binding cluster-admin would hand out everything: refused; binding view (which it holds) works
    const binding = await cluster.kubectl(['create', 'rolebinding', 'grab', '--clusterrole=cluster-admin', `--serviceaccount=${namespace}:default`, '-n', namespace, as]);
    expect(binding.code).not.toBe(0);
    expect(binding.stderr).toContain('rolebindings.rbac.authorization.k8s.io "grab" is forbidden');
    await ok('create', 'rolebinding', 'share-view', '--clusterrole=view', `--serviceaccount=${namespace}:default`, '-n', namespace, as);
  });
});
