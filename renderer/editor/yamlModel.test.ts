import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { applyConfiguration, compareYamlKeys, hasUnsavedEdits, objectToYaml, parseYamlObject, validationBody, withoutManagedFields } from './yamlModel';

const object: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'default', uid: 'u1', resourceVersion: '7', creationTimestamp: '2025-01-01T00:00:00Z', managedFields: [{ manager: 'kubectl', operation: 'Apply' }] },
  data: { key: 'value' },
};

describe('the YAML text model', () => {
  it('hides managedFields unless they are asked for', () => {
    expect(objectToYaml(object)).not.toContain('managedFields');
    expect(objectToYaml(object, true)).toContain('managedFields');
    expect(withoutManagedFields(object).metadata).not.toHaveProperty('managedFields');
    expect(object.metadata).toHaveProperty('managedFields');
  });

  it("lists apiVersion, kind, metadata, spec, status in kubectl's order, at every level sorted as kubectl prints", () => {
    const deployment: KubeObject = { metadata: { namespace: 'default', name: 'web', labels: { app: 'web' } }, status: { replicas: 1 }, spec: { template: {}, replicas: 1 }, kind: 'Deployment', apiVersion: 'apps/v1' };
    const topLevel = objectToYaml(deployment).split('\n').filter((line) => /^\w/.test(line)).map((line) => line.split(':')[0]);
    expect(topLevel).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(objectToYaml(deployment)).toContain('metadata:\n  labels:\n    app: web\n  name: web\n  namespace: default\n');
    expect(objectToYaml(object).split('\n')[1]).toBe('data:');
  });

  it.each([
    ['a', 'b', -1],
    ['apiVersion', 'kind', -1],
    ['Zebra', 'apple', -1],
    ['a2', 'a10', -1],
    ['a-b', 'ab', -1],
    ['a1b', 'a1-', -1],
    ['abc', 'ab', 1],
  ])('orders the keys %s and %s as go-yaml does (%i)', (left, right, sign) => {
    expect(Math.sign(compareYamlKeys(left, right))).toBe(sign);
    expect(Math.sign(compareYamlKeys(right, left))).toBe(-sign);
  });

  it('round-trips an object through YAML', () => {
    const parsed = parseYamlObject(objectToYaml(object));
    expect(parsed).toEqual({ ok: true, object: withoutManagedFields(object) });
  });

  it.each([
    ['an unclosed flow sequence', 'a: 1\nb: [\n c: d\n', 4],
    ['a mapping nested in a plain scalar', 'metadata:\n  name: x\n    bad: y\n', 2],
  ])('reports %s with its line number', (_name, text, line) => {
    const parsed = parseYamlObject(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.problems[0].line).toBe(line);
      expect(parsed.problems[0].message).not.toContain('\n');
    }
  });

  it.each([
    ['a scalar', 'just text'],
    ['a list', '- a\n- b\n'],
  ])('refuses a document that is %s', (_name, text) => {
    const parsed = parseYamlObject(text);
    expect(parsed.ok).toBe(false);
  });

  it.each([
    ['identical text', 'a: 1\n', 'a: 1\n', false],
    ['only trailing whitespace', 'a: 1\n\n\n', 'a: 1\n', false],
    ['a changed value', 'a: 2\n', 'a: 1\n', true],
  ])('detects unsaved edits: %s', (_name, text, baseline, expected) => {
    expect(hasUnsavedEdits(text, baseline)).toBe(expected);
  });

  it('builds an apply configuration without status, managedFields or server bookkeeping', () => {
    const body = applyConfiguration({ ...object, status: { phase: 'x' } } as Record<string, unknown>);
    expect(body).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default', uid: 'u1' }, data: { key: 'value' } });
  });

  it('validates with an unconditional body (no resourceVersion, no managedFields)', () => {
    const body = validationBody(object as unknown as Record<string, unknown>);
    expect(body.metadata).toEqual({ name: 'settings', namespace: 'default', uid: 'u1', creationTimestamp: '2025-01-01T00:00:00Z' });
  });
});
