import { describe, expect, it } from 'vitest';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { startOnFakeApi, syncOnFakeApi } from '../../test/doubles/fakeApi';
import { resources } from '../client/resources';
import { NamespaceDefaultsController, ROOT_CA_CONFIGMAP } from './namespaceDefaultsController';
import { until } from '../../test/fixtures/until';

describe('NamespaceDefaultsController', () => {
  it('gives every namespace a default service account and the root CA config map, and restores them', async () => {
    const transport = new FakeTransport();
    transport.seed(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    const { client } = await startOnFakeApi(transport, (client, factory) => new NamespaceDefaultsController(client, factory, 'PEM'));
    const names = (gvr: typeof resources.serviceaccounts) => transport.objectsOf(gvr).map((obj) => `${obj.metadata.namespace}/${obj.metadata.name}`);
    await until(() => names(resources.serviceaccounts).includes('team/default') && names(resources.configmaps).includes(`team/${ROOT_CA_CONFIGMAP}`));
    expect(transport.objectsOf(resources.configmaps)[0].data).toEqual({ 'ca.crt': 'PEM' });
    await client.resource(resources.serviceaccounts).delete('team', 'default');
    await until(() => names(resources.serviceaccounts).includes('team/default'));
  });

  it('leaves a terminating namespace alone', async () => {
    const transport = new FakeTransport();
    transport.seed(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gone', deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { phase: 'Terminating' } });
    const { controller } = await syncOnFakeApi(transport, (client, factory) => new NamespaceDefaultsController(client, factory, 'PEM'));
    await controller.reconcile('gone');
    expect(transport.objectsOf(resources.serviceaccounts)).toEqual([]);
  });
});
