import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { portForwardResourceDef, portForwardTable, validatePortForward } from './portForwardResource';

function forward(spec: unknown, status?: unknown): KubeObject {
  return { apiVersion: 'kubedesk.dev/v1alpha1', kind: 'PortForward', metadata: { name: 'web', namespace: 'default', creationTimestamp: '2025-01-01T00:00:00Z' }, spec, ...(status ? { status } : {}) } as KubeObject;
}

describe('PortForward validation', () => {
  it.each([
    ['a pod port by number', { target: { kind: 'Pod', name: 'web-abc' }, port: 8080 }],
    ['a Service port by name with a local port', { target: { kind: 'Service', name: 'web' }, port: 'http', localPort: 18080 }],
    ['local port 0 (any)', { target: { kind: 'Service', name: 'web' }, port: 80, localPort: 0 }],
  ])('accepts %s', (_name, spec) => {
    expect(validatePortForward(forward(spec))).toEqual([]);
  });

  it.each([
    ['no spec', undefined, ['spec']],
    ['no target', { port: 80 }, ['spec.target']],
    ['an unknown target kind', { target: { kind: 'Deployment', name: 'web' }, port: 80 }, ['spec.target.kind']],
    ['a target without name', { target: { kind: 'Pod' }, port: 80 }, ['spec.target.name']],
    ['a bad Service name', { target: { kind: 'Service', name: 'Web_1' }, port: 80 }, ['spec.target.name']],
    ['no port', { target: { kind: 'Pod', name: 'web' } }, ['spec.port']],
    ['port 0', { target: { kind: 'Pod', name: 'web' }, port: 0 }, ['spec.port']],
    ['port 70000', { target: { kind: 'Pod', name: 'web' }, port: 70000 }, ['spec.port']],
    ['a bad port name', { target: { kind: 'Pod', name: 'web' }, port: 'HTTP_x' }, ['spec.port']],
    ['a negative local port', { target: { kind: 'Pod', name: 'web' }, port: 80, localPort: -1 }, ['spec.localPort']],
    ['a local port above 65535', { target: { kind: 'Pod', name: 'web' }, port: 80, localPort: 65536 }, ['spec.localPort']],
  ])('refuses %s with the field path', (_name, spec, fields) => {
    expect(validatePortForward(forward(spec)).map((error) => error.field)).toEqual(fields);
  });

  it('uses upstream field error messages', () => {
    const [error] = validatePortForward(forward({ target: { kind: 'Job', name: 'web' }, port: 80 }));
    expect(error.detail).toBe('Unsupported value: "Job": supported values: "Pod", "Service"');
  });
});

describe('PortForward strategy and table', () => {
  it('resets status on create and keeps the stored status on main-resource updates', () => {
    const def = portForwardResourceDef();
    const created = forward({ target: { kind: 'Pod', name: 'a' }, port: 80 }, { phase: 'Active' });
    def.prepareForCreate(created);
    expect(created.status).toEqual({});
    const updated = forward({ target: { kind: 'Pod', name: 'a' }, port: 81 }, { phase: 'Failed' });
    def.prepareForUpdate(updated, forward({}, { phase: 'Active', localPort: 5 }));
    expect(updated.status).toEqual({ phase: 'Active', localPort: 5 });
  });

  it('prints NAME, TARGET, PORT, LOCAL, STATUS and AGE', () => {
    expect(portForwardTable.columns.filter((column) => column.priority === 0).map((column) => column.name)).toEqual(['Name', 'Target', 'Port', 'Local', 'Status', 'Age']);
    const row = portForwardTable.row(forward({ target: { kind: 'Pod', name: 'web-abc' }, port: 8080 }, { phase: 'Active', localPort: 18080, pod: 'web-abc' }), new Date('2025-01-01T00:05:00Z'));
    expect(row.slice(0, 6)).toEqual(['web', 'pod/web-abc', '8080', '127.0.0.1:18080', 'Active', '5m']);
  });
});
