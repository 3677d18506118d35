import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { resources } from '../client/resources';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { startOnFakeApi } from '../../test/doubles/fakeApi';
import { until } from '../../test/fixtures/until';
import { SystemServiceEndpoints } from './systemServiceEndpoints';

const kubernetesService: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'kubernetes', namespace: 'default', uid: 'uid-kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
  spec: { clusterIP: '10.7.128.1', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] },
};
const dnsService: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'kube-dns', namespace: 'kube-system', uid: 'uid-dns', labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' } },
  spec: { clusterIP: '10.7.128.10', ports: [{ name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 }, { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 }] },
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(address: () => string | undefined) {
  const transport = new FakeTransport();
  transport.seed(resources.services, kubernetesService);
  transport.seed(resources.services, dnsService);
  const started = await startOnFakeApi(transport, (client, factory) => new SystemServiceEndpoints(factory, { address, clients: { apiServer: client, endpointsController: client, endpointSliceController: client }, now: () => new Date('2025-01-02T03:04:05Z') }));
  cleanups.push(async () => {
    await started.controller.dispose();
    started.factory.dispose();
  });
  const find = (gvr: typeof resources.endpoints, namespace: string, name?: string) =>
    transport.objectsOf(gvr).filter((object) => object.metadata.namespace === namespace && (name === undefined || object.metadata.name === name));
  return { ...started, find };
}

describe('SystemServiceEndpoints', () => {
  it('publishes the kubernetes Service as the apiserver endpoint reconciler does', async () => {
    const { find } = await start(() => '10.7.0.3');
    await until(() => find(resources.endpoints, 'default', 'kubernetes').length === 1 && find(resources.endpointslices, 'default').length === 1, 'kubernetes endpoints');
    const [endpoints] = find(resources.endpoints, 'default', 'kubernetes');
    expect(endpoints.metadata.labels).toEqual({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    expect(endpoints.metadata.annotations).toBeUndefined();
    expect(endpoints.subsets).toEqual([{ addresses: [{ ip: '10.7.0.3' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    const [slice] = find(resources.endpointslices, 'default');
    expect(slice.metadata.name).toBe('kubernetes');
    expect(slice.metadata.labels).toEqual({ 'kubernetes.io/service-name': 'kubernetes' });
    expect(slice).toMatchObject({ addressType: 'IPv4', endpoints: [{ addresses: ['10.7.0.3'], conditions: { ready: true } }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] });
  });

  it('publishes kube-dns as the endpoints and EndpointSlice controllers would for CoreDNS', async () => {
    const { find } = await start(() => '10.7.0.3');
    await until(() => find(resources.endpoints, 'kube-system', 'kube-dns').length === 1 && find(resources.endpointslices, 'kube-system').length === 1, 'kube-dns endpoints');
    const [endpoints] = find(resources.endpoints, 'kube-system', 'kube-dns');
    expect(endpoints.metadata.labels).toEqual({ 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS', 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' });
    expect(endpoints.metadata.annotations).toEqual({ 'endpoints.kubernetes.io/last-change-trigger-time': '2025-01-02T03:04:05Z' });
    expect(endpoints.subsets).toEqual([{ addresses: [{ ip: '10.7.0.3' }], ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }] }]);
    const [slice] = find(resources.endpointslices, 'kube-system');
    expect(slice.metadata.name).toMatch(/^kube-dns-/);
    expect(slice.metadata.labels).toEqual({ 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS', 'kubernetes.io/service-name': 'kube-dns', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
    expect(slice.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Service', name: 'kube-dns', uid: find(resources.services, 'kube-system', 'kube-dns')[0].metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(slice).toMatchObject({ endpoints: [{ addresses: ['10.7.0.3'], conditions: { ready: true, serving: true, terminating: false } }], ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }] });
  });

  it('waits for kd-netd\'s address, follows it when it changes, and puts back what someone else changed', async () => {
    let address: string | undefined;
    const { controller, client, find } = await start(() => address);
    await controller.idle();
    expect(find(resources.endpoints, 'default')).toEqual([]);
    address = '10.7.0.3';
    controller.request();
    await until(() => find(resources.endpoints, 'default', 'kubernetes').length === 1, 'first address');
    address = '10.7.0.9';
    controller.request();
    await until(() => find(resources.endpointslices, 'kube-system')[0]?.endpoints?.toString() !== undefined && JSON.stringify(find(resources.endpointslices, 'kube-system')[0]?.endpoints).includes('10.7.0.9') && JSON.stringify(find(resources.endpoints, 'default', 'kubernetes')[0]?.subsets).includes('10.7.0.9'), 'second address');
    expect(find(resources.endpointslices, 'kube-system')).toHaveLength(1);
    const [endpoints] = find(resources.endpoints, 'default', 'kubernetes');
    await client.resource(resources.endpoints).update({ ...endpoints, subsets: [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }] });
    await until(() => JSON.stringify(find(resources.endpoints, 'default', 'kubernetes')[0]?.subsets).includes('10.7.0.9'), 'reset');
    await client.resource(resources.endpointslices).delete('default', 'kubernetes');
    await until(() => find(resources.endpointslices, 'default', 'kubernetes').length === 1, 'slice recreated');
  });
});
