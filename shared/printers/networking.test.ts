import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { ingressClassTable, ingressTable, networkPolicyTable } from './networking';

const now = new Date('2025-01-01T12:00:00Z');

function object(fields: Record<string, unknown>): KubeObject {
  return { metadata: { name: 'web', creationTimestamp: '2025-01-01T11:00:00Z' }, ...fields };
}

describe('ingressTable', () => {
  it('prints class, hosts, address and TLS ports', () => {
    const ingress = object({
      spec: { ingressClassName: 'nginx', rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }], tls: [{ hosts: ['a.example.com'] }] },
      status: { loadBalancer: { ingress: [{ ip: '127.0.0.1' }] } },
    });
    expect(ingressTable.row(ingress, now)).toEqual(['web', 'nginx', 'a.example.com,b.example.com', '127.0.0.1', '80, 443', '60m']);
  });

  it('prints defaults for a bare ingress and caps hosts at three', () => {
    expect(ingressTable.row(object({ spec: { rules: [{}] } }), now)).toEqual(['web', '<none>', '*', '', '80', '60m']);
    const many = object({ spec: { rules: ['a', 'b', 'c', 'd', 'e'].map((host) => ({ host })) } });
    expect(ingressTable.row(many, now)[2]).toBe('a,b,c + 2 more...');
  });
});

describe('ingressClassTable and networkPolicyTable', () => {
  it('prints the parameters reference', () => {
    const ingressClass = object({ spec: { controller: 'k8s.io/ingress-nginx', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' } } });
    expect(ingressClassTable.row(ingressClass, now)).toEqual(['web', 'k8s.io/ingress-nginx', 'IngressParameters.k8s.example.com/external-lb', '60m']);
    expect(ingressClassTable.row(object({ spec: { controller: 'c' } }), now)[2]).toBe('<none>');
  });

  it('prints the pod selector', () => {
    expect(networkPolicyTable.row(object({ spec: { podSelector: {} } }), now)).toEqual(['web', '<none>', '60m']);
    expect(networkPolicyTable.row(object({ spec: { podSelector: { matchLabels: { role: 'db' } } } }), now)[1]).toBe('role=db');
  });
});
