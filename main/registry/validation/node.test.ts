import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { validateRuntimeClass, validateRuntimeClassUpdate } from './node';

function runtimeClass(fields: Record<string, unknown>): KubeObject {
  return { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'gvisor', resourceVersion: '1' }, handler: 'runsc', ...fields };
}

describe('validateRuntimeClass', () => {
  it('accepts a handler with overhead and scheduling', () => {
    expect(validateRuntimeClass(runtimeClass({ overhead: { podFixed: { cpu: '250m', memory: '64Mi' } }, scheduling: { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] } }))).toEqual([]);
  });

  it.each([
    { name: 'a handler that is not a DNS label', fields: { handler: 'run.sc' }, field: 'handler', detail: 'Invalid value: "run.sc": must not contain dots' },
    { name: 'an empty handler', fields: { handler: '' }, field: 'handler', detail: expect.stringContaining('Invalid value: "": a lowercase RFC 1123 label') },
    { name: 'a negative overhead', fields: { overhead: { podFixed: { cpu: '-1' } } }, field: 'overhead.podFixed[cpu]', detail: 'Invalid value: "-1": must be greater than or equal to 0' },
    { name: 'a bad toleration operator', fields: { scheduling: { tolerations: [{ key: 'a', operator: 'Maybe' }] } }, field: 'scheduling.tolerations[0].operator', detail: 'Unsupported value: "Maybe": supported values: "Equal", "Exists"' },
  ])('rejects $name', ({ fields, field, detail }) => {
    expect(validateRuntimeClass(runtimeClass(fields))).toContainEqual(expect.objectContaining({ field, detail }));
  });

  it('keeps the handler immutable', () => {
    expect(validateRuntimeClassUpdate(runtimeClass({ handler: 'kata' }), runtimeClass({}))).toContainEqual(expect.objectContaining({ field: 'handler', detail: 'Invalid value: "kata": field is immutable' }));
  });
});
