import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { startOnFakeApi, syncOnFakeApi } from '../../test/doubles/fakeApi';
import { resources } from '../client/resources';
import { desiredSlices, EndpointSliceController, SERVICE_NAME_LABEL, SLICE_CONTROLLER_NAME, SLICE_MANAGED_BY_LABEL, sliceLabels } from './endpointSliceController';
import { until } from '../../test/fixtures/until';

function service(spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', uid: 'uid-web', labels: { team: 'a' } }, spec: { clusterIP: '10.96.0.10', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }], ...spec } };
}

function pod(name: string, ip: string, options: { ready?: boolean; deleting?: boolean; node?: string } = {}): KubeObject {
  const metadata: KubeObject['metadata'] = { name, namespace: 'default', uid: `uid-${name}`, labels: { app: 'web' } };
  if (options.deleting) metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: { nodeName: options.node ?? 'node-1', containers: [{ name: 'c' }] },
    status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }] },
  };
}

const zones: Record<string, string> = { 'node-1': 'zone-a' };

describe('desiredSlices', () => {
  it.each([
    { name: 'a ready pod', pod: pod('a', '10.0.0.1'), spec: {}, conditions: { ready: true, serving: true, terminating: false } },
    { name: 'an unready pod', pod: pod('a', '10.0.0.1', { ready: false }), spec: {}, conditions: { ready: false, serving: false, terminating: false } },
    { name: 'a terminating ready pod', pod: pod('a', '10.0.0.1', { deleting: true }), spec: {}, conditions: { ready: false, serving: true, terminating: true } },
    { name: 'an unready pod of a publishNotReadyAddresses service', pod: pod('a', '10.0.0.1', { ready: false }), spec: { publishNotReadyAddresses: true }, conditions: { ready: true, serving: false, terminating: false } },
  ])('gives $name the upstream conditions', ({ pod: p, spec, conditions }) => {
    const [slice] = desiredSlices(service(spec), [p], (node) => zones[node]);
    expect(slice.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    expect(slice.endpoints).toEqual([{ addresses: ['10.0.0.1'], conditions, nodeName: 'node-1', zone: 'zone-a', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a' } }]);
  });

  it('splits endpoints into slices of at most the maximum', () => {
    const pods = ['a', 'b', 'c', 'd', 'e'].map((name, index) => pod(name, `10.0.0.${index + 1}`));
    expect(desiredSlices(service(), pods, () => undefined, 2).map((slice) => slice.endpoints.length)).toEqual([2, 2, 1]);
  });

  it('labels slices with the service name, the manager and the service labels', () => {
    expect(sliceLabels(service())).toEqual({ team: 'a', [SERVICE_NAME_LABEL]: 'web', [SLICE_MANAGED_BY_LABEL]: SLICE_CONTROLLER_NAME });
    expect(sliceLabels(service({ clusterIP: 'None' }))).toMatchObject({ 'service.kubernetes.io/headless': '' });
  });
});

describe('EndpointSliceController', () => {
  it('keeps one owned slice per service in step with its pods, without duplicates', async () => {
    const transport = new FakeTransport();
    transport.seed(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    transport.seed(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } } });
    const svc = transport.seed(resources.services, service());
    transport.seed(resources.pods, pod('a', '10.0.0.1'));
    const { client } = await startOnFakeApi(transport, (client, factory) => new EndpointSliceController(client, factory));
    const slices = () => transport.objectsOf(resources.endpointslices);
    await until(() => slices().length === 1);
    const [slice] = slices();
    expect(slice.metadata.generateName).toBe('web-');
    expect(slice.metadata.labels).toMatchObject({ [SERVICE_NAME_LABEL]: 'web', [SLICE_MANAGED_BY_LABEL]: SLICE_CONTROLLER_NAME });
    expect(slice.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(slice.addressType).toBe('IPv4');

    // a burst of pods must not race the informer into creating a second slice
    for (const [index, name] of ['b', 'c', 'd'].entries()) await client.resource(resources.pods).create(pod(name, `10.0.0.${index + 2}`));
    await until(() => Array.isArray(slices()[0]?.endpoints) && (slices()[0].endpoints as unknown[]).length === 4);
    expect(slices()).toHaveLength(1);
    expect((slices()[0].endpoints as { zone?: string }[]).every((endpoint) => endpoint.zone === 'zone-a')).toBe(true);

    await client.resource(resources.services).delete('default', 'web');
    await until(() => slices().length === 0);
  });

  it('keeps an empty placeholder slice for a service with no pods', async () => {
    const transport = new FakeTransport();
    transport.seed(resources.services, service());
    const { controller } = await syncOnFakeApi(transport, (client, factory) => new EndpointSliceController(client, factory));
    await controller.reconcile('default/web');
    const [slice] = transport.objectsOf(resources.endpointslices);
    expect(slice.endpoints).toEqual([]);
    expect(slice.ports).toBeNull();
  });
});
