import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { answerQuestion, isUnderDomain, reverseNames, type ClusterAnswer, type ClusterState } from './clusterRecords';
import { RecordType, type DnsRecord } from './dnsMessage';
import { makeEndpointSlice, sliceEndpoints } from '../../../test/fixtures/networkObjects';

function service(namespace: string, name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { namespace, name }, spec };
}

interface EndpointFixture {
  ip: string;
  hostname?: string;
  ready?: boolean;
}

function slice(namespace: string, serviceName: string, endpoints: EndpointFixture[], ports: { name: string; port: number; protocol?: string }[]): KubeObject {
  return makeEndpointSlice(serviceName, { namespace, name: `${serviceName}-abcde`, ports: ports.map((port) => ({ protocol: 'TCP', ...port })), endpoints: sliceEndpoints(endpoints) });
}

const state: ClusterState = {
  services: [
    service('default', 'kubernetes', { clusterIP: '10.96.128.1', ports: [{ name: 'https', port: 443, targetPort: 6443 }] }),
    service('default', 'web', { clusterIP: '10.96.128.7', ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'dns', port: 53, protocol: 'UDP' }, { port: 9000 }] }),
    service('default', 'db', { clusterIP: 'None', ports: [{ name: 'pg', port: 5432 }] }),
    service('default', 'lonely', { clusterIP: 'None' }),
    service('default', 'ext', { type: 'ExternalName', externalName: 'www.example.com.' }),
    service('kube-system', 'kube-dns', { clusterIP: '10.96.128.10', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] }),
  ],
  endpointSlices: [
    slice('default', 'db', [{ ip: '10.96.0.5', hostname: 'db-0' }, { ip: '10.96.0.6', hostname: 'db-1' }, { ip: '10.96.0.7' }, { ip: '10.96.0.8', hostname: 'db-2', ready: false }], [{ name: 'pg', port: 5432 }]),
    slice('default', 'web', [{ ip: '10.96.0.20' }], [{ name: 'http', port: 8080 }]),
  ],
  pods: [{ metadata: { namespace: 'default', name: 'p' }, status: { podIP: '10.96.0.30' } }],
  namespaces: [{ metadata: { name: 'default' } }, { metadata: { name: 'kube-system' } }, { metadata: { name: 'empty' } }],
};

function show(record: DnsRecord): string {
  switch (record.type) {
    case 'A':
    case 'AAAA':
      return `${record.name} ${record.type} ${record.address}`;
    case 'CNAME':
    case 'PTR':
    case 'NS':
      return `${record.name} ${record.type} ${record.target}`;
    case 'SRV':
      return `${record.name} SRV ${record.priority} ${record.weight} ${record.port} ${record.target}`;
    case 'SOA':
      return `${record.name} SOA ${record.primary} ${record.mailbox}`;
    case 'TXT':
      return `${record.name} TXT ${record.texts.join(' ')}`;
    case 'OTHER':
      return `${record.name} TYPE${record.code}`;
  }
}

function summary(answer: ClusterAnswer): { code: string; answers: string[] } {
  if (answer.kind === 'notMine') return { code: 'notMine', answers: [] };
  const code = answer.responseCode === 3 ? 'NXDOMAIN' : answer.answers.length === 0 ? 'NODATA' : 'NOERROR';
  return { code, answers: answer.answers.map(show) };
}

const { A, AAAA, SRV, PTR, TXT, CNAME, SOA, NS, MX } = RecordType;
const zone = 'cluster.local';

describe('answerQuestion', () => {
  it.each<[string, string, number, string, string[]]>([
    ['a ClusterIP service', 'web.default.svc.cluster.local', A, 'NOERROR', ['web.default.svc.cluster.local A 10.96.128.7']],
    ['a name with a trailing dot and odd case', 'Web.DEFAULT.svc.Cluster.Local.', A, 'NOERROR', ['Web.DEFAULT.svc.Cluster.Local A 10.96.128.7']],
    ['AAAA of an IPv4 service (NODATA)', 'web.default.svc.cluster.local', AAAA, 'NODATA', []],
    ['MX of a service (NODATA)', 'web.default.svc.cluster.local', MX, 'NODATA', []],
    ['a service that does not exist', 'nope.default.svc.cluster.local', A, 'NXDOMAIN', []],
    ['a service in the wrong namespace', 'web.kube-system.svc.cluster.local', A, 'NXDOMAIN', []],
    ['a headless service: every ready endpoint', 'db.default.svc.cluster.local', A, 'NOERROR', ['db.default.svc.cluster.local A 10.96.0.5', 'db.default.svc.cluster.local A 10.96.0.6', 'db.default.svc.cluster.local A 10.96.0.7']],
    ['a headless service without endpoints', 'lonely.default.svc.cluster.local', A, 'NXDOMAIN', []],
    ['a StatefulSet pod by hostname', 'db-1.db.default.svc.cluster.local', A, 'NOERROR', ['db-1.db.default.svc.cluster.local A 10.96.0.6']],
    ['an endpoint without hostname by its dashed IP', '10-96-0-7.db.default.svc.cluster.local', A, 'NOERROR', ['10-96-0-7.db.default.svc.cluster.local A 10.96.0.7']],
    ['a not-ready endpoint', 'db-2.db.default.svc.cluster.local', A, 'NXDOMAIN', []],
    ['an endpoint of a ClusterIP service (CoreDNS answers it too)', '10-96-0-20.web.default.svc.cluster.local', A, 'NOERROR', ['10-96-0-20.web.default.svc.cluster.local A 10.96.0.20']],
    ['SRV of a named ClusterIP port', '_http._tcp.web.default.svc.cluster.local', SRV, 'NOERROR', ['_http._tcp.web.default.svc.cluster.local SRV 0 100 80 web.default.svc.cluster.local']],
    ['SRV with the protocol in capitals', '_DNS._UDP.web.default.svc.cluster.local', SRV, 'NOERROR', ['_DNS._UDP.web.default.svc.cluster.local SRV 0 100 53 web.default.svc.cluster.local']],
    ['SRV with the wrong protocol', '_http._udp.web.default.svc.cluster.local', SRV, 'NXDOMAIN', []],
    ['SRV of a port that does not exist', '_grpc._tcp.web.default.svc.cluster.local', SRV, 'NXDOMAIN', []],
    ['SRV on the bare service name lists every port', 'web.default.svc.cluster.local', SRV, 'NOERROR', ['web.default.svc.cluster.local SRV 0 33 80 web.default.svc.cluster.local', 'web.default.svc.cluster.local SRV 0 33 53 web.default.svc.cluster.local', 'web.default.svc.cluster.local SRV 0 33 9000 web.default.svc.cluster.local']],
    ['SRV of a headless service: one per endpoint', '_pg._tcp.db.default.svc.cluster.local', SRV, 'NOERROR', ['_pg._tcp.db.default.svc.cluster.local SRV 0 33 5432 db-0.db.default.svc.cluster.local', '_pg._tcp.db.default.svc.cluster.local SRV 0 33 5432 db-1.db.default.svc.cluster.local', '_pg._tcp.db.default.svc.cluster.local SRV 0 33 5432 10-96-0-7.db.default.svc.cluster.local']],
    ['A on an SRV name', '_http._tcp.web.default.svc.cluster.local', A, 'NOERROR', ['_http._tcp.web.default.svc.cluster.local A 10.96.128.7']],
    ['an ExternalName service', 'ext.default.svc.cluster.local', A, 'NOERROR', ['ext.default.svc.cluster.local CNAME www.example.com']],
    ['CNAME of an ExternalName service', 'ext.default.svc.cluster.local', CNAME, 'NOERROR', ['ext.default.svc.cluster.local CNAME www.example.com']],
    ['an endpoint under an ExternalName service', 'x.ext.default.svc.cluster.local', A, 'NXDOMAIN', []],
    ['a pod A record', '10-96-0-99.default.pod.cluster.local', A, 'NOERROR', ['10-96-0-99.default.pod.cluster.local A 10.96.0.99']],
    ['a pod name that is not an IP', '10-96-0-999.default.pod.cluster.local', A, 'NXDOMAIN', []],
    ['a namespace that exists (empty non-terminal)', 'empty.svc.cluster.local', A, 'NODATA', []],
    ['a namespace that does not exist', 'ghost.svc.cluster.local', A, 'NXDOMAIN', []],
    ['svc itself', 'svc.cluster.local', A, 'NODATA', []],
    ['a search-path expansion of an outside name', 'www.google.com.default.svc.cluster.local', A, 'NXDOMAIN', []],
    ['a search-path expansion one level up', 'google.com.svc.cluster.local', A, 'NXDOMAIN', []],
    ['a name under the zone that is neither svc nor pod', 'foo.cluster.local', A, 'NXDOMAIN', []],
    ['the schema version', 'dns-version.cluster.local', TXT, 'NOERROR', ['dns-version.cluster.local TXT 1.1.0']],
    ['the zone SOA', 'cluster.local', SOA, 'NOERROR', ['cluster.local SOA ns.dns.cluster.local hostmaster.cluster.local']],
    ['the zone NS', 'cluster.local', NS, 'NOERROR', ['cluster.local NS ns.dns.cluster.local']],
    ['the name server address', 'ns.dns.cluster.local', A, 'NOERROR', ['ns.dns.cluster.local A 10.96.128.10']],
    ['a ClusterIP in reverse', '7.128.96.10.in-addr.arpa', PTR, 'NOERROR', ['7.128.96.10.in-addr.arpa PTR web.default.svc.cluster.local']],
    ['a headless endpoint in reverse', '6.0.96.10.in-addr.arpa.', PTR, 'NOERROR', ['6.0.96.10.in-addr.arpa. PTR db-1.db.default.svc.cluster.local']],
    ['an unknown address in reverse', '1.1.168.192.in-addr.arpa', PTR, 'notMine', []],
    ['a partial reverse name', '96.10.in-addr.arpa', PTR, 'notMine', []],
    ['an outside name', 'example.com', A, 'notMine', []],
    ['a name merely ending like the zone', 'notcluster.local', A, 'notMine', []],
  ])('answers %s', (_description, name, type, code, answers) => {
    expect(summary(answerQuestion({ name, type, class: 1 }, state, { domain: zone }))).toEqual({ code, answers });
  });

  it('puts the SOA in the authority section of negative answers with a 5 second TTL', () => {
    const answer = answerQuestion({ name: 'nope.default.svc.cluster.local', type: A, class: 1 }, state, { serial: 42 });
    expect(answer.kind === 'answer' && answer.authorities).toEqual([
      { name: 'cluster.local', class: 1, ttl: 5, type: 'SOA', primary: 'ns.dns.cluster.local', mailbox: 'hostmaster.cluster.local', serial: 42, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 },
    ]);
  });

  it('adds the A records of SRV targets to the additional section', () => {
    const answer = answerQuestion({ name: '_pg._tcp.db.default.svc.cluster.local', type: SRV, class: 1 }, state);
    expect(answer.kind === 'answer' && answer.additionals.map(show)).toEqual(['db-0.db.default.svc.cluster.local A 10.96.0.5', 'db-1.db.default.svc.cluster.local A 10.96.0.6', '10-96-0-7.db.default.svc.cluster.local A 10.96.0.7']);
  });

  it('asks the server to chase an ExternalName target', () => {
    const answer = answerQuestion({ name: 'ext.default.svc.cluster.local', type: A, class: 1 }, state);
    expect(answer.kind === 'answer' && answer.chase).toBe('www.example.com');
  });

  it('honours another cluster domain', () => {
    expect(summary(answerQuestion({ name: 'web.default.svc.corp.example', type: A, class: 1 }, state, { domain: 'corp.example.' }))).toEqual({ code: 'NOERROR', answers: ['web.default.svc.corp.example A 10.96.128.7'] });
    expect(answerQuestion({ name: 'web.default.svc.cluster.local', type: A, class: 1 }, state, { domain: 'corp.example' }).kind).toBe('notMine');
  });

  it.each<['insecure' | 'verified' | 'disabled', string, string]>([
    ['verified', '10-96-0-30.default.pod.cluster.local', 'NOERROR'],
    ['verified', '10-96-0-31.default.pod.cluster.local', 'NXDOMAIN'],
    ['verified', '10-96-0-30.kube-system.pod.cluster.local', 'NXDOMAIN'],
    ['disabled', '10-96-0-30.default.pod.cluster.local', 'NXDOMAIN'],
  ])('in pods %s mode answers %s with %s', (podMode, name, code) => {
    expect(summary(answerQuestion({ name, type: A, class: 1 }, state, { podMode })).code).toBe(code);
  });

  it('infers namespaces from services and pods when none are given', () => {
    const withoutNamespaces: ClusterState = { services: state.services, endpointSlices: state.endpointSlices, pods: state.pods };
    expect(summary(answerQuestion({ name: 'default.svc.cluster.local', type: A, class: 1 }, withoutNamespaces)).code).toBe('NODATA');
    expect(summary(answerQuestion({ name: 'empty.svc.cluster.local', type: A, class: 1 }, withoutNamespaces)).code).toBe('NXDOMAIN');
  });

  it('lists reverse names of ClusterIPs before endpoints', () => {
    expect(reverseNames(state, '10.96.128.1')).toEqual(['kubernetes.default.svc.cluster.local']);
    expect(reverseNames(state, '10.96.0.20')).toEqual(['10-96-0-20.web.default.svc.cluster.local']);
    expect(reverseNames(state, '10.96.0.8')).toEqual([]);
  });

  it.each([
    ['cluster.local', true],
    ['Cluster.Local.', true],
    ['a.b.cluster.local', true],
    ['xcluster.local', false],
    ['local', false],
  ])('says whether %s is under the domain', (name, expected) => {
    expect(isUnderDomain(name, 'cluster.local')).toBe(expected);
  });
});
