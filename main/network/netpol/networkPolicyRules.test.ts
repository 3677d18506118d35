import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import {
  buildPolicyModel,
  egressAllows,
  ingressAllows,
  podFilterRules,
  policyPodOf,
  serviceBackendClients,
  type FilterContext,
  type PolicyModel,
  type PolicyPod,
  type ServiceBackend,
} from './networkPolicyRules';

function namespace(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } } };
}

function pod(ns: string, name: string, ip: string, labels: Record<string, string> = {}, ports: Array<Record<string, unknown>> = [], extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: ns, name, uid: `uid-${ns}-${name}`, labels },
    spec: { nodeName: 'kubedesk', containers: [{ name: 'main', image: 'busybox', ports }], ...extra },
    status: { phase: 'Running', podIP: ip },
  };
}

function policy(ns: string, name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { namespace: ns, name }, spec };
}

const context: FilterContext = { nodeAddresses: ['10.9.0.1'], proxyAddress: '10.9.0.2', serviceRange: '10.9.128.0/17' };
const ingressHeader = ['policy input drop', 'accept input state established,related', 'accept input in lo', 'accept input src 10.9.0.1/32', 'accept input src 10.9.0.2/32'];
const egressHeader = ['policy output drop', 'accept output state established,related', 'accept output out lo', 'accept output dst 10.9.128.0/17'];

const namespaces = [namespace('prod', { team: 'a' }), namespace('dev', { team: 'b' }), namespace('other')];
const pods = [
  pod('prod', 'server', '10.9.0.10', { app: 'server' }, [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 5353, protocol: 'UDP' }]),
  pod('prod', 'client', '10.9.0.11', { app: 'client' }),
  pod('prod', 'other-client', '10.9.0.12', { app: 'other' }),
  pod('dev', 'client', '10.9.0.20', { app: 'client' }),
  pod('dev', 'web', '10.9.0.21', { app: 'web' }, [{ name: 'http', containerPort: 9090 }]),
  pod('other', 'client', '10.9.0.30', { app: 'client' }),
];

function model(policies: KubeObject[], extraPods: KubeObject[] = []): PolicyModel {
  return buildPolicyModel({ policies, pods: [...pods, ...extraPods], namespaces });
}

function policyPod(m: PolicyModel, ns: string, name: string): PolicyPod {
  const found = m.pods.find((candidate) => candidate.namespace === ns && candidate.name === name);
  if (!found) throw new Error(`${ns}/${name}`);
  return found;
}

describe('podFilterRules', () => {
  it.each([
    {
      name: 'leaves a pod that no policy selects unfiltered',
      policies: [policy('prod', 'deny', { podSelector: { matchLabels: { app: 'nobody' } }, policyTypes: ['Ingress'] })],
      target: ['prod', 'server'],
      rules: [],
    },
    {
      name: 'denies all ingress with an empty podSelector and no rules (default deny)',
      policies: [policy('prod', 'deny', { podSelector: {}, policyTypes: ['Ingress'] })],
      target: ['prod', 'server'],
      rules: ingressHeader,
    },
    {
      name: 'infers Ingress when policyTypes is absent and there are no egress rules',
      policies: [policy('prod', 'deny', { podSelector: {} })],
      target: ['prod', 'server'],
      rules: ingressHeader,
    },
    {
      name: 'allows every source and port for an ingress rule that is empty',
      policies: [policy('prod', 'allow-all', { podSelector: {}, ingress: [{}] })],
      target: ['prod', 'server'],
      rules: [...ingressHeader, 'accept input'],
    },
    {
      name: 'allows pods by label in the policy namespace only',
      policies: [policy('prod', 'from-client', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }] }] })],
      target: ['prod', 'server'],
      rules: [...ingressHeader, 'accept input src 10.9.0.11/32'],
    },
    {
      name: 'allows every pod of the namespaces a namespaceSelector picks',
      policies: [policy('prod', 'from-team-b', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'b' } } }] }] })],
      target: ['prod', 'server'],
      rules: [...ingressHeader, 'accept input src 10.9.0.20/32', 'accept input src 10.9.0.21/32'],
    },
    {
      name: 'intersects namespaceSelector and podSelector in one peer',
      policies: [
        policy('prod', 'clients-anywhere', {
          podSelector: {},
          ingress: [{ from: [{ namespaceSelector: {}, podSelector: { matchLabels: { app: 'client' } } }] }],
        }),
      ],
      target: ['prod', 'server'],
      rules: [...ingressHeader, 'accept input src 10.9.0.11/32', 'accept input src 10.9.0.20/32', 'accept input src 10.9.0.30/32'],
    },
    {
      name: 'turns an ipBlock with except into the CIDRs that remain',
      policies: [policy('prod', 'block', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '192.168.0.0/30', except: ['192.168.0.2/32'] } }] }] })],
      target: ['prod', 'server'],
      rules: [...ingressHeader, 'accept input src 192.168.0.0/31', 'accept input src 192.168.0.3/32'],
    },
    {
      name: 'resolves a named ingress port against the selected pod and defaults the protocol to TCP',
      policies: [policy('prod', 'http', { podSelector: {}, ingress: [{ ports: [{ port: 'http' }, { port: 'dns', protocol: 'UDP' }] }] })],
      target: ['prod', 'server'],
      rules: [...ingressHeader, 'accept input proto tcp dport 8080', 'accept input proto udp dport 5353'],
    },
    {
      name: 'opens nothing for a named port the pod does not have',
      policies: [policy('prod', 'http', { podSelector: {}, ingress: [{ ports: [{ port: 'http' }] }] })],
      target: ['prod', 'client'],
      rules: ingressHeader,
    },
    {
      name: 'writes a port range for port and endPort, and SCTP by name',
      policies: [
        policy('prod', 'range', {
          podSelector: {},
          ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }], ports: [{ port: 8000, endPort: 8100, protocol: 'TCP' }, { port: 9, protocol: 'SCTP' }] }],
        }),
      ],
      target: ['prod', 'server'],
      rules: [...ingressHeader, 'accept input src 10.9.0.11/32 proto sctp dport 9', 'accept input src 10.9.0.11/32 proto tcp dport 8000-8100'],
    },
    {
      name: 'allows a whole protocol for a port entry without a port',
      policies: [policy('prod', 'udp', { podSelector: {}, ingress: [{ ports: [{ protocol: 'UDP' }] }] })],
      target: ['prod', 'server'],
      rules: [...ingressHeader, 'accept input proto udp'],
    },
    {
      name: 'adds up the rules of every policy that selects the pod',
      policies: [
        policy('prod', 'a', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }] }] }),
        policy('prod', 'b', { podSelector: {}, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'other' } } }] }] }),
        policy('dev', 'c', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }] }),
      ],
      target: ['prod', 'server'],
      rules: [...ingressHeader, 'accept input src 10.9.0.11/32', 'accept input src 10.9.0.12/32'],
    },
    {
      name: 'denies all egress when policyTypes names Egress without rules, and not ingress',
      policies: [policy('prod', 'deny-egress', { podSelector: {}, policyTypes: ['Egress'] })],
      target: ['prod', 'client'],
      rules: egressHeader,
    },
    {
      name: 'infers Egress (and Ingress) when egress rules are present',
      policies: [policy('prod', 'dns-only', { podSelector: { matchLabels: { app: 'client' } }, egress: [{ ports: [{ port: 53, protocol: 'UDP' }] }] })],
      target: ['prod', 'client'],
      rules: [...ingressHeader, ...egressHeader, 'accept output proto udp dport 53'],
    },
    {
      name: 'resolves a named egress port per destination pod',
      policies: [
        policy('prod', 'to-http', {
          podSelector: { matchLabels: { app: 'client' } },
          policyTypes: ['Egress'],
          egress: [{ to: [{ namespaceSelector: {} }], ports: [{ port: 'http' }] }],
        }),
      ],
      target: ['prod', 'client'],
      rules: [...egressHeader, 'accept output dst 10.9.0.10/32 proto tcp dport 8080', 'accept output dst 10.9.0.21/32 proto tcp dport 9090'],
    },
    {
      name: 'resolves a named egress port without peers against every pod that has it',
      policies: [policy('prod', 'to-http', { podSelector: { matchLabels: { app: 'client' } }, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'http' }, { port: 80 }] }] })],
      target: ['prod', 'client'],
      rules: [...egressHeader, 'accept output dst 10.9.0.10/32 proto tcp dport 8080', 'accept output dst 10.9.0.21/32 proto tcp dport 9090', 'accept output proto tcp dport 80'],
    },
    {
      name: 'allows egress to an ipBlock except its holes',
      policies: [
        policy('prod', 'out', {
          podSelector: { matchLabels: { app: 'client' } },
          policyTypes: ['Egress'],
          egress: [{ to: [{ ipBlock: { cidr: '10.9.0.8/29', except: ['10.9.0.10/32'] } }] }],
        }),
      ],
      target: ['prod', 'client'],
      rules: [...egressHeader, 'accept output dst 10.9.0.11/32', 'accept output dst 10.9.0.12/30', 'accept output dst 10.9.0.8/31'],
    },
  ])('$name', ({ policies, target, rules }) => {
    const m = model(policies);
    expect(podFilterRules(m, policyPod(m, target[0], target[1]), context)).toEqual(rules);
  });
});

describe('podFilterRules with kd-netd serving kubedesk\'s own servers at its address', () => {
  it('lets an isolated pod send to those ports of kd-netd, which decides per client as for ClusterIPs', () => {
    const withPorts: FilterContext = { ...context, proxyPorts: [{ protocol: 'TCP', port: 6443 }, { protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] };
    const m = model([policy('prod', 'deny-egress', { podSelector: {}, policyTypes: ['Egress'] })]);
    expect(podFilterRules(m, policyPod(m, 'prod', 'client'), withPorts)).toEqual([
      ...egressHeader,
      'accept output dst 10.9.0.2/32 proto tcp dport 6443',
      'accept output dst 10.9.0.2/32 proto udp dport 53',
      'accept output dst 10.9.0.2/32 proto tcp dport 53',
    ]);
    // without kd-netd's address known there is nothing to let through
    expect(podFilterRules(m, policyPod(m, 'prod', 'client'), { ...withPorts, proxyAddress: undefined })).toEqual(egressHeader);
  });
});

describe('policyPodOf', () => {
  it.each([
    { name: 'takes a running pod with an address', object: pod('prod', 'a', '10.9.0.50'), included: true },
    { name: 'skips a hostNetwork pod (policies do not apply to it)', object: pod('prod', 'a', '10.9.0.1', {}, [], { hostNetwork: true }), included: false },
    { name: 'skips a pod without an address yet', object: pod('prod', 'a', ''), included: false },
    { name: 'skips a finished pod, whose address may be reused', object: { ...pod('prod', 'a', '10.9.0.50'), status: { phase: 'Succeeded', podIP: '10.9.0.50' } }, included: false },
  ])('$name', ({ object, included }) => {
    expect(policyPodOf(object) !== undefined).toBe(included);
  });
});

describe('ingressAllows and egressAllows', () => {
  const m = model([
    policy('prod', 'server-in', {
      podSelector: { matchLabels: { app: 'server' } },
      ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }], ports: [{ port: 'http' }] }],
    }),
    policy('prod', 'client-out', { podSelector: { matchLabels: { app: 'client' } }, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: '10.9.0.0/24', except: ['10.9.0.12/32'] } }] }] }),
  ]);
  const server = policyPod(m, 'prod', 'server');
  const client = policyPod(m, 'prod', 'client');
  const other = policyPod(m, 'prod', 'other-client');
  it.each([
    { name: 'the client on the named port', check: () => ingressAllows(m, server, { kind: 'pod', pod: client }, 8080, 'TCP', context), expected: true },
    { name: 'the client on another port', check: () => ingressAllows(m, server, { kind: 'pod', pod: client }, 80, 'TCP', context), expected: false },
    { name: 'another pod', check: () => ingressAllows(m, server, { kind: 'pod', pod: other }, 8080, 'TCP', context), expected: false },
    { name: 'the node, always', check: () => ingressAllows(m, server, { kind: 'address', ip: '10.9.0.1' }, 22, 'TCP', context), expected: true },
    { name: 'a pod nothing isolates', check: () => ingressAllows(m, other, { kind: 'pod', pod: server }, 1, 'UDP', context), expected: true },
    { name: 'egress inside the block', check: () => egressAllows(m, client, { kind: 'pod', pod: server }, 8080, 'TCP'), expected: true },
    { name: 'egress to the except hole', check: () => egressAllows(m, client, { kind: 'pod', pod: other }, 8080, 'TCP'), expected: false },
    { name: 'egress outside the block', check: () => egressAllows(m, client, { kind: 'address', ip: '1.1.1.1' }, 443, 'TCP'), expected: false },
  ])('$name: $expected', ({ check, expected }) => {
    expect(check()).toBe(expected);
  });
});

describe('serviceBackendClients', () => {
  const web = { ip: '10.9.128.20', port: 80, protocol: 'TCP' as const };
  const dns = { ip: '10.9.128.10', port: 53, protocol: 'UDP' as const };
  const dnsBackend: ServiceBackend = { kind: 'virtual', port: 53, endpoint: { kind: 'virtual', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' }, namedPorts: [{ name: 'dns', port: 53, protocol: 'UDP' }] } };
  const everyClient = ['10.9.0.1', '10.9.0.10', '10.9.0.11', '10.9.0.12', '10.9.0.20', '10.9.0.21', '10.9.0.30'];
  it.each([
    {
      name: 'leaves a Service unrestricted when no policy exists',
      policies: [],
      service: web,
      backends: [{ kind: 'address', ip: '10.9.0.10', port: 8080 }] as ServiceBackend[],
      expected: undefined,
    },
    {
      name: 'leaves a Service unrestricted when no policy concerns its clients or backends',
      policies: [policy('dev', 'deny', { podSelector: { matchLabels: { app: 'nobody' } } })],
      service: web,
      backends: [{ kind: 'address', ip: '10.9.0.10', port: 8080 }] as ServiceBackend[],
      expected: undefined,
    },
    {
      name: 'lets only the clients the backend admits (and the node) use a backend',
      policies: [policy('prod', 'server-in', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }] }] })],
      service: web,
      backends: [{ kind: 'address', ip: '10.9.0.10', port: 8080 }, { kind: 'address', ip: '10.9.0.21', port: 9090 }] as ServiceBackend[],
      expected: [['10.9.0.1', '10.9.0.11'], everyClient],
    },
    {
      name: 'checks the backend port, not the Service port, against the ingress rule',
      policies: [policy('prod', 'server-in', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ ports: [{ port: 'http' }] }] })],
      service: web,
      backends: [{ kind: 'address', ip: '10.9.0.10', port: 8080 }] as ServiceBackend[],
      expected: undefined,
    },
    {
      name: 'keeps an egress-isolated client away from every backend its rules do not reach',
      policies: [policy('prod', 'client-out', { podSelector: { matchLabels: { app: 'client' } }, policyTypes: ['Egress'] })],
      service: web,
      backends: [{ kind: 'address', ip: '10.9.0.10', port: 8080 }] as ServiceBackend[],
      expected: [everyClient.filter((ip) => ip !== '10.9.0.11')],
    },
    {
      name: 'lets DNS through for a pod whose egress allows UDP 53 to kube-system/k8s-app=kube-dns',
      policies: [
        policy('prod', 'dns', {
          podSelector: { matchLabels: { app: 'client' } },
          policyTypes: ['Egress'],
          egress: [{ to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }], ports: [{ port: 53, protocol: 'UDP' }] }],
        }),
      ],
      service: dns,
      backends: [dnsBackend],
      expected: undefined,
    },
    {
      name: 'lets DNS through for an ipBlock naming the DNS ClusterIP',
      policies: [
        policy('prod', 'dns', { podSelector: { matchLabels: { app: 'client' } }, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: '10.9.128.10/32' } }], ports: [{ port: 53, protocol: 'UDP' }] }] }),
      ],
      service: dns,
      backends: [dnsBackend],
      expected: undefined,
    },
    {
      name: 'blocks DNS under egress deny',
      policies: [policy('prod', 'deny', { podSelector: { matchLabels: { app: 'client' } }, policyTypes: ['Egress'] })],
      service: dns,
      backends: [dnsBackend],
      expected: [everyClient.filter((ip) => ip !== '10.9.0.11')],
    },
  ])('$name', ({ policies, service, backends, expected }) => {
    expect(serviceBackendClients(model(policies), service, backends, context)).toEqual(expected);
  });
});
