import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { defaultPriorityClass } from '../defaults/scheduling';
import { validatePriorityClass, validatePriorityClassUpdate } from './scheduling';

function priorityClass(name: string, fields: Record<string, unknown>): KubeObject {
  return { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, ...fields };
}

describe('validatePriorityClass', () => {
  it('accepts a user class and the built-in system classes once defaulted', () => {
    for (const object of [priorityClass('high', { value: 1000 }), priorityClass('system-node-critical', { value: 2000001000 }), priorityClass('system-cluster-critical', { value: 2000000000 })]) {
      defaultPriorityClass(object);
      expect(object.preemptionPolicy).toBe('PreemptLowerPriority');
      expect(validatePriorityClass(object)).toEqual([]);
    }
  });

  it.each([
    { name: 'a value above one billion', object: priorityClass('huge', { value: 1000000001 }), field: 'value', detail: 'Forbidden: maximum allowed value of a user defined priority is 1000000000' },
    { name: 'an unknown system- name', object: priorityClass('system-mine', { value: 5 }), field: 'metadata.name', detail: "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class" },
    { name: 'a system class with another value', object: priorityClass('system-node-critical', { value: 5 }), field: 'metadata.name', detail: "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000" },
    { name: 'an unknown preemption policy', object: priorityClass('low', { value: 1, preemptionPolicy: 'Sometimes' }), field: 'preemptionPolicy', detail: 'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"' },
    { name: 'an invalid name', object: priorityClass('Bad_Name', { value: 1 }), field: 'metadata.name', detail: expect.stringContaining('Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain') },
  ])('rejects $name', ({ object, field, detail }) => {
    expect(validatePriorityClass(object)).toContainEqual(expect.objectContaining({ field, detail }));
  });

  it('refuses to change value or preemption policy', () => {
    const old = priorityClass('p', { value: 1, preemptionPolicy: 'Never', metadata: { name: 'p', resourceVersion: '1' } });
    const next = priorityClass('p', { value: 2, preemptionPolicy: 'PreemptLowerPriority', metadata: { name: 'p', resourceVersion: '1' } });
    expect(validatePriorityClassUpdate(next, old)).toEqual([
      expect.objectContaining({ field: 'value', detail: 'Forbidden: may not be changed in an update.' }),
      expect.objectContaining({ field: 'preemptionPolicy', detail: 'Invalid value: "PreemptLowerPriority": field is immutable' }),
    ]);
  });
});
