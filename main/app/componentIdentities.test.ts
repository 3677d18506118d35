import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../storage/sqliteStore';
import type { ApiServer } from '../apiserver/apiServer';
import { RbacAuthorizer } from '../apiserver/auth/rbacAuthorizer';
import { StoreRbacSource } from '../apiserver/auth/rbacSource';
import { requestAuthorization } from '../apiserver/auth/requestAuthorization';
import { ensureBootstrapPolicy } from '../apiserver/auth/bootstrapPolicy';
import { ensureComponentPolicy, componentServiceAccounts } from '../apiserver/auth/componentPolicy';
import { ApiClient } from '../client/apiClient';
import { ClientApiError } from '../client/errors';
import { resources } from '../client/resources';
import { InProcessTransport } from './inProcessTransport';
import { componentClients, controllerUser, nodeUser, schedulerUser, type ComponentClients } from './componentIdentities';
import { inMemoryApiServer } from '../../test/fixtures/inMemoryApiServer';

let store: SqliteStore;
let source: StoreRbacSource;
let api: ApiServer;
let loopback: ApiClient;
let clients: ComponentClients;
let logged: string[];

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'busybox' }] } };

beforeEach(async () => {
  ({ store, api } = inMemoryApiServer());
  loopback = new ApiClient(new InProcessTransport(api));
  for (const name of ['default', 'kube-system']) await loopback.resource(resources.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  ensureBootstrapPolicy(api);
  ensureComponentPolicy(api);
  source = new StoreRbacSource(store);
  logged = [];
  clients = componentClients(api, requestAuthorization(new RbacAuthorizer(source)), (line) => logged.push(line));
});

afterEach(() => {
  source.dispose();
  store.dispose();
});

async function statusCode(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof ClientApiError) return error.status.code ?? 0;
    throw error;
  }
}

describe('component identities', () => {
  it('creates a kube-system ServiceAccount for every controller', async () => {
    const accounts = await loopback.resource(resources.serviceaccounts).list('kube-system');
    const names = accounts.items.map((account) => account.metadata.name);
    for (const account of componentServiceAccounts()) expect(names).toContain(account.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['replicaset-controller', 'generic-garbage-collector', 'kubedesk-network']));
  });

  const cases: { name: string; client: () => ApiClient; call: (client: ApiClient) => Promise<unknown>; code: number }[] = [
    { name: 'the replicaset controller creates pods', client: () => clients.clientFor(controllerUser('replicaset-controller'), 'test'), call: (client) => client.resource(resources.pods).create(pod), code: 200 },
    { name: 'the replicaset controller may not read secrets', client: () => clients.clientFor(controllerUser('replicaset-controller'), 'test'), call: (client) => client.resource(resources.secrets).list('default'), code: 403 },
    { name: 'the scheduler may not create deployments', client: () => clients.clientFor(schedulerUser(), 'test'), call: (client) => client.resource(resources.deployments).create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x', namespace: 'default' } }), code: 403 },
    { name: 'the scheduler lists nodes', client: () => clients.clientFor(schedulerUser(), 'test'), call: (client) => client.resource(resources.nodes).list(), code: 200 },
    { name: 'a kubelet registers its node', client: () => clients.clientFor(nodeUser('node-a'), 'test'), call: (client) => client.resource(resources.nodes).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } }), code: 200 },
    { name: 'a kubelet may not delete namespaces', client: () => clients.clientFor(nodeUser('node-a'), 'test'), call: (client) => client.resource(resources.namespaces).delete(undefined, 'default'), code: 403 },
    { name: 'the namespace-defaults identity publishes kube-root-ca.crt (root-ca-cert-publisher is bound to it too)', client: () => clients.clientFor(controllerUser('service-account-controller'), 'test'), call: (client) => client.resource(resources.configmaps).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace: 'default' } }), code: 200 },
    { name: 'the loopback client without a user stays privileged', client: () => loopback, call: (client) => client.resource(resources.secrets).list('default'), code: 200 },
  ];
  for (const testCase of cases) {
    it(`answers ${testCase.code} when ${testCase.name}`, async () => {
      expect(await statusCode(testCase.call(testCase.client()))).toBe(testCase.code);
    });
  }

  it('answers a denied request with upstream forbidden text and logs it once', async () => {
    const client = clients.clientFor(controllerUser('deployment-controller'), 'test');
    const error = await client.resource(resources.secrets).get('default', 'token').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ClientApiError);
    expect(error instanceof ClientApiError ? error.status.message : '').toBe(
      'secrets "token" is forbidden: User "system:serviceaccount:kube-system:deployment-controller" cannot get resource "secrets" in API group "" in the namespace "default"',
    );
    await client.resource(resources.secrets).get('default', 'token').catch(() => undefined);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('forbidden');
  });

  it('ends a denied watch with 403', async () => {
    const client = clients.clientFor(schedulerUser(), 'test');
    const done = new Promise<Error | undefined>((resolve) => client.resource(resources.secrets).watch('default', {}, () => undefined, resolve));
    const error = await done;
    expect(error instanceof ClientApiError ? error.status.code : undefined).toBe(403);
  });

  it('passes the user to the API server, which names it in admission', async () => {
    const client = clients.clientFor(controllerUser('replicaset-controller'), 'kube-controller-manager/v1.35.0 (linux/amd64) kubernetes/kubedesk/replicaset-controller');
    const created = await client.resource(resources.pods).create(pod);
    expect(created.metadata.managedFields?.[0]?.manager).toBe('kube-controller-manager');
  });
});
