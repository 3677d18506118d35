import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { withStatus } from './strategy';

const object = (status?: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Thing', metadata: { name: 'a' }, spec: { size: 1 }, ...(status ? { status } : {}) });

describe('withStatus', () => {
  it('starts a create from its own copy of the initial status, whatever the client sent', () => {
    const initial = { replicas: 0 };
    const { prepareForCreate } = withStatus(initial);
    const created = object({ replicas: 5 });
    prepareForCreate?.(created);
    expect(created.status).toEqual({ replicas: 0 });
    (created.status as Record<string, unknown>).replicas = 3;
    expect(initial).toEqual({ replicas: 0 });
  });

  it('keeps the stored status on main-resource updates', () => {
    const { prepareForUpdate } = withStatus({});
    const updated = object({ replicas: 9 });
    prepareForUpdate?.(updated, object({ replicas: 2 }));
    expect(updated.status).toEqual({ replicas: 2 });
  });

  it('declares the status subresource, after the replicas Scale when asked', () => {
    expect(withStatus({}).subresources?.map((sub) => sub.name)).toEqual(['status']);
    expect(withStatus({}, { scale: true }).subresources?.map((sub) => sub.name)).toEqual(['scale', 'status']);
  });
});
