import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { defaultIngressClass, defaultNetworkPolicy } from '../defaults/networking';
import { validateIngress, validateIngressClass, validateIngressClassUpdate, validateNetworkPolicy } from './networking';

const backend = { service: { name: 'web', port: { number: 80 } } };

function ingress(spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: 'default', annotations }, spec };
}

function rule(host: string, path: Record<string, unknown>): Record<string, unknown> {
  return { host, http: { paths: [{ path: '/', pathType: 'Prefix', backend, ...path }] } };
}

describe('validateIngress', () => {
  it('accepts what kubectl create ingress sends', () => {
    expect(validateIngress(ingress({ ingressClassName: 'kubedesk', rules: [rule('foo.example.com', {}), rule('*.example.com', { pathType: 'Exact', path: '/a' })], tls: [{ hosts: ['foo.example.com'], secretName: 'tls' }] }))).toEqual([]);
  });

  it.each([
    { name: 'neither rules nor a default backend', spec: {}, field: 'spec', detail: 'Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified' },
    { name: 'an IP address as host', spec: { rules: [rule('10.0.0.1', {})] }, field: 'spec.rules[0].host', detail: 'Invalid value: "10.0.0.1": must be a DNS name, not an IP address' },
    { name: 'a bad wildcard', spec: { rules: [rule('foo.*.com', {})] }, field: 'spec.rules[0].host', detail: expect.stringContaining("a wildcard DNS-1123 subdomain must start with '*.'") },
    { name: 'a path without a type', spec: { rules: [rule('a.com', { pathType: undefined })] }, field: 'spec.rules[0].http.paths[0].pathType', detail: 'Required value: pathType must be specified' },
    { name: 'an unknown path type', spec: { rules: [rule('a.com', { pathType: 'Regex' })] }, field: 'spec.rules[0].http.paths[0].pathType', detail: 'Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"' },
    { name: 'a relative prefix path', spec: { rules: [rule('a.com', { path: 'api' })] }, field: 'spec.rules[0].http.paths[0].path', detail: 'Invalid value: "api": must be an absolute path' },
    { name: 'a backend without a port', spec: { defaultBackend: { service: { name: 'web' } } }, field: 'spec.defaultBackend.service.port', detail: 'Required value: port name or number is required' },
    { name: 'a backend with both ports', spec: { defaultBackend: { service: { name: 'web', port: { name: 'http', number: 80 } } } }, field: 'spec.defaultBackend', detail: 'Invalid value: "": cannot set both port name & port number' },
    { name: 'a backend of neither kind', spec: { defaultBackend: {} }, field: 'spec.defaultBackend', detail: 'Invalid value: "": resource or service backend is required' },
    { name: 'an invalid TLS secret name', spec: { defaultBackend: backend, tls: [{ secretName: 'Bad' }] }, field: 'spec.tls[0].secretName', detail: expect.stringContaining('Invalid value: "Bad"') },
  ])('rejects $name', ({ spec, field, detail }) => {
    expect(validateIngress(ingress(spec))).toContainEqual(expect.objectContaining({ field, detail }));
  });

  it('rejects a class annotation that disagrees with ingressClassName', () => {
    expect(validateIngress(ingress({ ingressClassName: 'a', defaultBackend: backend }, { 'kubernetes.io/ingress.class': 'b' }))).toContainEqual(
      expect.objectContaining({ field: 'annotations.kubernetes.io/ingress.class', detail: 'Invalid value: "b": must match `ingressClassName` when both are specified' }),
    );
  });
});

describe('validateIngressClass', () => {
  const ingressClass = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx', resourceVersion: '1' }, spec });

  it('accepts a controller path and defaults the parameters scope', () => {
    const object = ingressClass({ controller: 'k8s.io/ingress-nginx', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' } });
    defaultIngressClass(object);
    expect(validateIngressClass(object)).toEqual([]);
  });

  it.each([
    { name: 'no controller', spec: {}, field: 'spec.controller', detail: 'Required value' },
    { name: 'a controller without a domain', spec: { controller: 'nginx' }, field: 'spec.controller', detail: 'Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")' },
    { name: 'a namespaced scope without namespace', spec: { controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Namespace' } }, field: 'spec.parameters.namespace', detail: "Required value: `parameters.scope` is set to 'Namespace'" },
    { name: 'a parameters reference without kind', spec: { controller: 'a.io/b', parameters: { name: 'n', scope: 'Cluster' } }, field: 'spec.parameters.kind', detail: 'Required value' },
  ])('rejects $name', ({ spec, field, detail }) => {
    expect(validateIngressClass(ingressClass(spec))).toContainEqual(expect.objectContaining({ field, detail }));
  });

  it('keeps the controller immutable', () => {
    expect(validateIngressClassUpdate(ingressClass({ controller: 'a.io/c' }), ingressClass({ controller: 'a.io/b' }))).toContainEqual(expect.objectContaining({ field: 'spec.controller', detail: 'Invalid value: "a.io/c": field is immutable' }));
  });
});

describe('validateNetworkPolicy', () => {
  const policy = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny', namespace: 'default' }, spec });

  it('defaults ports to TCP and policy types from the rules, then accepts the policy', () => {
    const object = policy({ podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0/24'] } }], ports: [{ port: 5432 }] }], egress: [{ to: [{ namespaceSelector: {} }] }] });
    defaultNetworkPolicy(object);
    expect(object.spec).toMatchObject({ policyTypes: ['Ingress', 'Egress'], ingress: [{ ports: [{ protocol: 'TCP', port: 5432 }] }] });
    expect(validateNetworkPolicy(object)).toEqual([]);
  });

  it.each([
    { name: 'an unknown protocol', spec: { podSelector: {}, ingress: [{ ports: [{ protocol: 'ICMP' }] }] }, field: 'spec.ingress[0].ports[0].protocol', detail: 'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"' },
    { name: 'an end port below the port', spec: { podSelector: {}, ingress: [{ ports: [{ port: 80, endPort: 70 }] }] }, field: 'spec.ingress[0].ports[0].endPort', detail: 'Invalid value: 70: must be greater than or equal to `port`' },
    { name: 'an empty peer', spec: { podSelector: {}, ingress: [{ from: [{}] }] }, field: 'spec.ingress[0].from[0]', detail: 'Required value: must specify a peer' },
    { name: 'ipBlock with another peer', spec: { podSelector: {}, egress: [{ to: [{ podSelector: {}, ipBlock: { cidr: '10.0.0.0/8' } }] }] }, field: 'spec.egress[0].to[0]', detail: 'Forbidden: may not specify both ipBlock and another peer' },
    { name: 'an except outside the cidr', spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24'] } }] }] }, field: 'spec.ingress[0].from[0].ipBlock.except[0]', detail: 'Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`' },
    { name: 'an unknown policy type', spec: { podSelector: {}, policyTypes: ['Sideways'] }, field: 'spec.policyTypes[0]', detail: 'Unsupported value: "Sideways": supported values: "Ingress", "Egress"' },
  ])('rejects $name', ({ spec, field, detail }) => {
    expect(validateNetworkPolicy(policy(spec))).toContainEqual(expect.objectContaining({ field, detail }));
  });
});
