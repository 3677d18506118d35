import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { startOnFakeApi } from '../../test/doubles/fakeApi';
import { resources } from '../client/resources';
import { ENDPOINTS_MANAGED_BY_LABEL, EndpointsController, endpointSubsetsFor, findPort, servicePorts } from './endpointsController';
import { until } from '../../test/fixtures/until';

function service(spec: Record<string, unknown>, name = 'web'): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { team: 'a' } }, spec: { clusterIP: '10.96.0.10', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }], ...spec } };
}

function pod(name: string, ip: string, options: { ready?: boolean; phase?: string; deleting?: boolean; labels?: Record<string, string>; spec?: Record<string, unknown> } = {}): KubeObject {
  const metadata: KubeObject['metadata'] = { name, namespace: 'default', uid: `uid-${name}`, labels: options.labels ?? { app: 'web' } };
  if (options.deleting) metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: { nodeName: 'node-1', containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }] }], ...options.spec },
    status: { phase: options.phase ?? 'Running', podIP: ip, podIPs: ip ? [{ ip }] : [], conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }] },
  };
}

const address = (name: string, ip: string, extra: Record<string, unknown> = {}) => ({ ip, nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'default', name, uid: `uid-${name}` }, ...extra });

describe('endpointSubsetsFor', () => {
  it.each([
    {
      name: 'puts ready pods in addresses and unready ones in notReadyAddresses',
      service: service({}),
      pods: [pod('b', '10.0.0.2'), pod('a', '10.0.0.1'), pod('c', '10.0.0.3', { ready: false })],
      want: [{ addresses: [address('a', '10.0.0.1'), address('b', '10.0.0.2')], notReadyAddresses: [address('c', '10.0.0.3')], ports: [{ name: '', port: 8080, protocol: 'TCP' }] }],
    },
    {
      name: 'publishes unready pods as ready with publishNotReadyAddresses',
      service: service({ publishNotReadyAddresses: true }),
      pods: [pod('c', '10.0.0.3', { ready: false })],
      want: [{ addresses: [address('c', '10.0.0.3')], ports: [{ name: '', port: 8080, protocol: 'TCP' }] }],
    },
    {
      name: 'leaves out terminal, terminating and IP-less pods',
      service: service({}),
      pods: [pod('done', '10.0.0.4', { phase: 'Succeeded' }), pod('going', '10.0.0.5', { deleting: true }), pod('new', '')],
      want: [],
    },
    {
      name: 'resolves named target ports per protocol and groups pods by the ports they offer',
      service: service({ ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }, { name: 'dns', port: 53, targetPort: 'dns', protocol: 'UDP' }] }),
      pods: [pod('a', '10.0.0.1'), pod('b', '10.0.0.2', { spec: { containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 9090 }] }] } })],
      want: [
        { addresses: [address('a', '10.0.0.1')], ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'http', port: 8080, protocol: 'TCP' }] },
        { addresses: [address('b', '10.0.0.2')], ports: [{ name: 'http', port: 9090, protocol: 'TCP' }] },
      ],
    },
    {
      name: 'sets the hostname of a pod whose subdomain is the service',
      service: service({}),
      pods: [pod('a', '10.0.0.1', { spec: { hostname: 'a-0', subdomain: 'web' } })],
      want: [{ addresses: [address('a', '10.0.0.1', { hostname: 'a-0' })], ports: [{ name: '', port: 8080, protocol: 'TCP' }] }],
    },
    {
      name: 'lists a headless service without ports with port-less addresses',
      service: service({ clusterIP: 'None', ports: [] }),
      pods: [pod('a', '10.0.0.1')],
      want: [{ addresses: [address('a', '10.0.0.1')] }],
    },
  ])('$name', ({ service: svc, pods, want }) => {
    expect(endpointSubsetsFor(svc, pods)).toEqual(want);
  });

  it('finds no port for a name no container declares', () => {
    const [port] = servicePorts(service({ ports: [{ port: 80, targetPort: 'metrics' }] }));
    expect(findPort(pod('a', '10.0.0.1'), port)).toBeUndefined();
  });
});

describe('EndpointsController', () => {
  it('writes the Endpoints of a selector service, follows pod readiness and deletes them with the service', async () => {
    const transport = new FakeTransport();
    transport.seed(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    transport.seed(resources.services, service({}));
    transport.seed(resources.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'manual', namespace: 'default' }, spec: { ports: [{ port: 80 }] } });
    transport.seed(resources.pods, pod('a', '10.0.0.1'));
    transport.seed(resources.pods, pod('b', '10.0.0.2', { ready: false }));
    const { client } = await startOnFakeApi(transport, (client, factory) => new EndpointsController(client, factory));
    const endpoints = () => transport.objectsOf(resources.endpoints).find((ep) => ep.metadata.name === 'web');
    await until(() => endpoints() !== undefined);
    expect(endpoints()?.metadata.labels).toEqual({ team: 'a', [ENDPOINTS_MANAGED_BY_LABEL]: 'endpoint-controller' });
    const anyUid = (name: string, ip: string) => ({ ...address(name, ip), targetRef: { kind: 'Pod', namespace: 'default', name, uid: expect.stringMatching(/^fake-uid-/) } });
    expect(endpoints()?.subsets).toEqual([{ addresses: [anyUid('a', '10.0.0.1')], notReadyAddresses: [anyUid('b', '10.0.0.2')], ports: [{ name: '', port: 8080, protocol: 'TCP' }] }]);
    expect(transport.objectsOf(resources.endpoints).map((ep) => ep.metadata.name)).toEqual(['web']);

    const b = await client.resource(resources.pods).get('default', 'b');
    await client.resource(resources.pods).updateStatus({ ...b, status: pod('b', '10.0.0.2').status });
    await until(() => JSON.stringify(endpoints()?.subsets).includes('10.0.0.2') && !JSON.stringify(endpoints()?.subsets).includes('notReady'));

    await client.resource(resources.services).delete('default', 'web');
    await until(() => endpoints() === undefined);
  });
});
