import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import {
  configMapTable,
  endpointsTable,
  formatEndpoints,
  namespaceTable,
  nodeTable,
  persistentVolumeClaimTable,
  persistentVolumeTable,
  podTemplateTable,
  resourceQuotaTable,
  secretTable,
  serviceAccountTable,
  serviceTable,
} from './core';

const now = new Date('2025-01-01T12:00:00Z');

function object(fields: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name: 'thing', creationTimestamp: '2025-01-01T11:58:00Z', ...metadata }, ...fields };
}

describe('serviceTable', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, unknown[]]>([
    [
      'a ClusterIP service',
      { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ port: 80, protocol: 'TCP' }], selector: { app: 'web', tier: 'front' } },
      {},
      ['thing', 'ClusterIP', '10.96.0.10', '<none>', '80/TCP', '2m', 'app=web,tier=front'],
    ],
    [
      'a headless service without ports or selector',
      { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'] },
      {},
      ['thing', 'ClusterIP', 'None', '<none>', '<none>', '2m', '<none>'],
    ],
    [
      'a NodePort service with two ports',
      { type: 'NodePort', clusterIPs: ['10.96.1.1'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, nodePort: 30053, protocol: 'UDP' }] },
      {},
      ['thing', 'NodePort', '10.96.1.1', '<none>', '80:30080/TCP,53:30053/UDP', '2m', '<none>'],
    ],
    [
      'a pending LoadBalancer service',
      { type: 'LoadBalancer', clusterIPs: ['10.96.1.2'], ports: [{ port: 443, nodePort: 31443, protocol: 'TCP' }] },
      {},
      ['thing', 'LoadBalancer', '10.96.1.2', '<pending>', '443:31443/TCP', '2m', '<none>'],
    ],
    [
      'a LoadBalancer service with ingress addresses',
      { type: 'LoadBalancer', clusterIPs: ['10.96.1.3'], ports: [{ port: 80, nodePort: 30001, protocol: 'TCP' }] },
      { loadBalancer: { ingress: [{ ip: '127.0.0.1' }, { hostname: 'lb.example.com' }, { ip: '127.0.0.1' }] } },
      ['thing', 'LoadBalancer', '10.96.1.3', '127.0.0.1,lb.example.com', '80:30001/TCP', '2m', '<none>'],
    ],
    [
      'a LoadBalancer service with external IPs as well',
      { type: 'LoadBalancer', clusterIPs: ['10.96.1.4'], externalIPs: ['192.0.2.1'], ports: [{ port: 80, nodePort: 30002, protocol: 'TCP' }] },
      { loadBalancer: { ingress: [{ ip: '127.0.0.1' }] } },
      ['thing', 'LoadBalancer', '10.96.1.4', '127.0.0.1,192.0.2.1', '80:30002/TCP', '2m', '<none>'],
    ],
    [
      'a ClusterIP service with external IPs',
      { type: 'ClusterIP', clusterIP: '10.96.1.5', externalIPs: ['192.0.2.1', '192.0.2.2'], ports: [{ port: 8080, protocol: 'TCP' }] },
      {},
      ['thing', 'ClusterIP', '10.96.1.5', '192.0.2.1,192.0.2.2', '8080/TCP', '2m', '<none>'],
    ],
    [
      'an ExternalName service',
      { type: 'ExternalName', externalName: 'db.example.com' },
      {},
      ['thing', 'ExternalName', '<none>', 'db.example.com', '<none>', '2m', '<none>'],
    ],
  ])('prints %s', (_description, spec, status, expected) => {
    expect(serviceTable.row(object({ spec, status }), now)).toEqual(expected);
  });
});

describe('formatEndpoints', () => {
  it.each<[string, unknown[], string]>([
    ['no subsets', [], '<none>'],
    ['one address and port', [{ addresses: [{ ip: '10.1.0.4' }], ports: [{ port: 8080 }] }], '10.1.0.4:8080'],
    ['a headless subset without ports', [{ addresses: [{ ip: '10.1.0.4' }, { ip: '10.1.0.5' }] }], '10.1.0.4,10.1.0.5'],
    ['an IPv6 address', [{ addresses: [{ ip: 'fd00::1' }], ports: [{ port: 80 }] }], '[fd00::1]:80'],
    [
      'more than three entries',
      [{ addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }, { ip: '10.1.0.3' }], ports: [{ port: 80 }, { port: 443 }] }],
      '10.1.0.1:80,10.1.0.2:80,10.1.0.3:80 + 3 more...',
    ],
  ])('formats %s', (_description, subsets, expected) => {
    expect(formatEndpoints({ subsets })).toBe(expected);
    expect(endpointsTable.row(object({ subsets }), now)[1]).toBe(expected);
  });
});

describe('nodeTable', () => {
  const readyNode = {
    spec: {},
    status: {
      conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }],
      addresses: [{ type: 'Hostname', address: 'node-1' }, { type: 'InternalIP', address: '172.18.0.2' }],
      nodeInfo: { kubeletVersion: 'v1.35.0', osImage: 'Docker Desktop', kernelVersion: '6.10.14', containerRuntimeVersion: 'docker://27.3.1' },
    },
  };

  it('prints a ready control-plane node with wide columns', () => {
    const node = object(readyNode, { labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/hostname': 'node-1' } });
    expect(nodeTable.row(node, now)).toEqual([
      'thing', 'Ready', 'control-plane', '2m', 'v1.35.0', '172.18.0.2', '<none>', 'Docker Desktop', '6.10.14', 'docker://27.3.1',
    ]);
  });

  it.each<[string, Record<string, unknown>, Record<string, string>, string, string]>([
    ['a node without roles', readyNode, {}, 'Ready', '<none>'],
    ['a cordoned node', { ...readyNode, spec: { unschedulable: true } }, {}, 'Ready,SchedulingDisabled', '<none>'],
    ['a not-ready node', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, {}, 'NotReady', '<none>'],
    ['a node with unknown readiness', { status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }, {}, 'NotReady', '<none>'],
    ['a node without a Ready condition', { status: {} }, {}, 'Unknown', '<none>'],
    [
      'a node with several roles',
      readyNode,
      { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'infra', 'node-role.kubernetes.io/': '' },
      'Ready',
      'control-plane,infra,worker',
    ],
  ])('prints status and roles of %s', (_description, fields, labels, status, roles) => {
    const row = nodeTable.row(object(fields, { labels }), now);
    expect(row[1]).toBe(status);
    expect(row[2]).toBe(roles);
  });

  it('prints <unknown> for missing node info in wide columns', () => {
    expect(nodeTable.row(object({ status: {} }), now).slice(4)).toEqual(['', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
  });
});

describe('simple core tables', () => {
  it('counts configmap data and binaryData keys', () => {
    expect(configMapTable.row(object({ data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }), now)).toEqual(['thing', 3, '2m']);
    expect(configMapTable.row(object({}), now)).toEqual(['thing', 0, '2m']);
  });

  it('prints secret type and data count', () => {
    expect(secretTable.row(object({ type: 'kubernetes.io/tls', data: { 'tls.crt': 'x', 'tls.key': 'y' } }), now)).toEqual(['thing', 'kubernetes.io/tls', 2, '2m']);
  });

  it('counts service account secrets', () => {
    expect(serviceAccountTable.row(object({}), now)).toEqual(['thing', 0, '2m']);
    expect(serviceAccountTable.row(object({ secrets: [{ name: 'token' }] }), now)).toEqual(['thing', 1, '2m']);
  });

  it('prints the namespace phase', () => {
    expect(namespaceTable.row(object({ status: { phase: 'Terminating' } }), now)).toEqual(['thing', 'Terminating', '2m']);
  });

  it('prints pod template containers, images and labels without an age', () => {
    const template = { metadata: { labels: { run: 'x' } }, spec: { containers: [{ name: 'a', image: 'busybox' }, { name: 'b', image: 'nginx:1.27' }] } };
    expect(podTemplateTable.row(object({ template }), now)).toEqual(['thing', 'a,b', 'busybox,nginx:1.27', 'run=x']);
    expect(podTemplateTable.columns.map((column) => column.name)).toEqual(['Name', 'Containers', 'Images', 'Pod Labels']);
  });

  it('splits resource quota usage into request and limit columns in name order', () => {
    const quota = object({
      status: {
        hard: { pods: '10', 'requests.cpu': '1', 'limits.memory': '2Gi', 'limits.cpu': '2' },
        used: { pods: '3', 'requests.cpu': '500m', 'limits.cpu': '1' },
      },
    });
    expect(resourceQuotaTable.row(quota, now)).toEqual(['thing', 'pods: 3/10, requests.cpu: 500m/1', 'limits.cpu: 1/2, limits.memory: 0/2Gi', '2m']);
  });
});

describe('persistent volume tables', () => {
  it('prints a pending claim without capacity or access modes', () => {
    const claim = object({ spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Pending' } });
    expect(persistentVolumeClaimTable.row(claim, now)).toEqual(['thing', 'Pending', '', '', '', 'standard', '<unset>', '2m', '<unset>']);
  });

  it('prints a bound claim from its status', () => {
    const claim = object({
      spec: { volumeName: 'pv-1', storageClassName: 'standard', volumeMode: 'Filesystem' },
      status: { phase: 'Bound', capacity: { storage: '5Gi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce'] },
    });
    expect(persistentVolumeClaimTable.row(claim, now)).toEqual(['thing', 'Bound', 'pv-1', '5Gi', 'RWO,RWX', 'standard', '<unset>', '2m', 'Filesystem']);
  });

  it('prints a deleting claim as Terminating', () => {
    const claim = object({ spec: {}, status: { phase: 'Bound' } }, { deletionTimestamp: '2025-01-01T11:59:00Z' });
    expect(persistentVolumeClaimTable.row(claim, now)[1]).toBe('Terminating');
  });

  it('prints a bound volume with its claim', () => {
    const volume = object({
      spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Delete', claimRef: { namespace: 'default', name: 'data' }, storageClassName: 'standard', volumeMode: 'Filesystem' },
      status: { phase: 'Bound' },
    });
    expect(persistentVolumeTable.row(volume, now)).toEqual(['thing', '5Gi', 'RWO', 'Delete', 'Bound', 'default/data', 'standard', '<unset>', '', '2m', 'Filesystem']);
  });
});
