import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../shared/kubernetes/types';
import { certificateSigningRequestStrategy } from './certificateSigningRequest';

function request(spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'csr' },
    spec: { request: 'UEVN', signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...spec },
    status: { conditions: [{ type: 'Approved', status: 'True' }] },
  };
}

const forged = { username: 'mallory', uid: 'forged', groups: ['system:masters'], extra: { scopes: ['everything'] } };

describe('CertificateSigningRequest create', () => {
  it('names the requester, whatever the client sent, and starts without conditions', () => {
    const csr = request(forged);
    certificateSigningRequestStrategy.prepareForCreate(csr, { user: { name: 'jane', uid: 'u-1', groups: ['developers', 'system:authenticated'], extra: { 'example.com/team': ['a', 'b'] } } });
    expect(csr.spec).toEqual({
      request: 'UEVN',
      signerName: 'kubernetes.io/kube-apiserver-client',
      usages: ['client auth'],
      username: 'jane',
      uid: 'u-1',
      groups: ['developers', 'system:authenticated'],
      extra: { 'example.com/team': ['a', 'b'] },
    });
    expect(csr.status).toEqual({});
  });

  it('leaves out what the requester does not have', () => {
    const csr = request(forged);
    certificateSigningRequestStrategy.prepareForCreate(csr, { user: { name: 'kubedesk-admin', groups: ['system:masters', 'system:authenticated'] } });
    expect(csr.spec).toMatchObject({ username: 'kubedesk-admin', groups: ['system:masters', 'system:authenticated'] });
    expect(csr.spec).not.toHaveProperty('uid');
    expect(csr.spec).not.toHaveProperty('extra');
  });

  it('clears the requester fields of a request made without a user', () => {
    const csr = request(forged);
    certificateSigningRequestStrategy.prepareForCreate(csr, {});
    for (const field of ['username', 'uid', 'groups', 'extra']) expect(csr.spec).not.toHaveProperty(field);
  });
});
