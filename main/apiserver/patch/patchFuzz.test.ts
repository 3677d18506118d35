// Random and mistyped patches against a Deployment: every patch function must either return a
// value or throw PatchError — never another error, never hang. Seeded, so failures reproduce.
import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from './jsonPatch';
import { applyMergePatch } from './mergePatch';
import { PatchError } from './patchError';
import { patchSchemaFor } from './patchSchema';
import { applyStrategicMergePatch } from './strategicMergePatch';

function deployment(): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' }, finalizers: ['a', 'b'], ownerReferences: [{ uid: 'u1', name: 'o' }] },
    spec: {
      replicas: 2,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'c1', image: 'nginx', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }] },
            { name: 'c2', image: 'busybox' },
          ],
          volumes: [{ name: 'data', emptyDir: {} }],
          tolerations: [{ key: 'k' }],
        },
      },
    },
  };
}

/** mulberry32: a small seeded generator so a failing case can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const keys = [
  'metadata', 'spec', 'template', 'containers', 'initContainers', 'name', 'image', 'env', 'ports', 'containerPort', 'value',
  'finalizers', 'ownerReferences', 'uid', 'labels', 'strategy', 'rollingUpdate', 'type', 'replicas', 'volumes', 'tolerations',
  '$patch', '$retainKeys', '$setElementOrder/containers', '$setElementOrder/finalizers', '$deleteFromPrimitiveList/finalizers',
  '$setElementOrder', '$deleteFromPrimitiveList/', '$unknown', '__proto__', 'constructor',
];
const scalars: unknown[] = [null, 'x', 'c1', 'c2', 'a', 'delete', 'replace', 'merge', 0, 80, -1, 1.5, true, false, ''];

function generator(next: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const value = (depth: number): unknown => {
    const roll = next();
    if (depth > 4 || roll < 0.35) return pick(scalars);
    if (roll < 0.65) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const object: Record<string, unknown> = {};
    for (let index = Math.floor(next() * 4); index > 0; index--) object[pick(keys)] = value(depth + 1);
    return object;
  };
  /** A patch that follows the Deployment's shape for a few levels, then goes wrong. */
  const shaped = (): Record<string, unknown> => {
    const leaf = value(2);
    const shapes: Record<string, unknown>[] = [
      { spec: { template: { spec: { containers: leaf } } } },
      { spec: { template: { spec: { containers: [{ name: pick(['c1', 'c2', 'c3']), env: leaf, ports: value(3) }] } } } },
      { spec: { template: { spec: { '$setElementOrder/containers': value(3), containers: [{ name: 'c1', image: leaf }] } } } },
      { spec: { strategy: { $retainKeys: value(3), type: leaf } } },
      { metadata: { finalizers: leaf, '$deleteFromPrimitiveList/finalizers': value(3) } },
      { metadata: leaf },
      { spec: { template: { spec: { volumes: [{ name: 'data', $patch: leaf }] } } } },
      { spec: leaf },
    ];
    return pick(shapes);
  };
  const pointer = (): string => pick(['', '/', '/spec/replicas', '/spec/template/spec/containers/0', '/spec/template/spec/containers/-', '/spec/template/spec/containers/9', '/metadata/labels/x', '/metadata/finalizers/1', '/spec/x/y', '/spec/template/spec/containers/a/b', '/metadata/labels/a~1b', 'spec', '/spec/template/spec/containers/-1/env']);
  const jsonPatch = (): unknown => {
    if (next() < 0.1) return value(0);
    return Array.from({ length: Math.floor(next() * 4) }, () => {
      if (next() < 0.1) return value(1);
      const op: Record<string, unknown> = { op: pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus', 5, null]) };
      if (next() < 0.9) op.path = next() < 0.05 ? value(2) : pointer();
      if (next() < 0.5) op.from = next() < 0.05 ? value(2) : pointer();
      if (next() < 0.8) op.value = value(2);
      return op;
    });
  };
  return { value, shaped, jsonPatch };
}

/** Runs one patch; returns which of the two allowed outcomes it had, and fails on anything else. */
function expectValueOrPatchError(apply: () => unknown, describeInput: () => string): 'value' | 'error' {
  try {
    JSON.stringify(apply());
    return 'value';
  } catch (error) {
    if (!(error instanceof PatchError)) throw new Error(`unexpected ${String(error)} for ${describeInput()}`, { cause: error });
    return 'error';
  }
}

describe('patch functions on random input', () => {
  it('return a value or throw PatchError for 1,000 random and mistyped patches of each kind', () => {
    const next = random(20260101);
    const { value, shaped, jsonPatch } = generator(next);
    const schema = patchSchemaFor('apps/v1', 'Deployment');
    const outcomes = { strategic: { value: 0, error: 0 }, merge: { value: 0, error: 0 }, json: { value: 0, error: 0 } };
    for (let iteration = 0; iteration < 1000; iteration++) {
      const strategic = next() < 0.6 ? shaped() : value(0);
      outcomes.strategic[expectValueOrPatchError(() => applyStrategicMergePatch(deployment(), strategic, schema), () => JSON.stringify(strategic))]++;
      const merge = next() < 0.5 ? shaped() : value(0);
      outcomes.merge[expectValueOrPatchError(() => applyMergePatch(deployment(), merge), () => JSON.stringify(merge))]++;
      const operations = jsonPatch();
      outcomes.json[expectValueOrPatchError(() => applyJsonPatch(deployment(), operations), () => JSON.stringify(operations))]++;
    }
    // Both outcomes must be common, or the generator is not exercising the code.
    for (const outcome of [outcomes.strategic, outcomes.merge, outcomes.json]) {
      expect(outcome.value).toBeGreaterThan(100);
      expect(outcome.error).toBeGreaterThan(100);
    }
  });

  it('handles the brief’s examples of mistyped patches', () => {
    const schema = patchSchemaFor('apps/v1', 'Deployment');
    expect(applyStrategicMergePatch(deployment(), { spec: { containers: 'x' } }, schema)).toMatchObject({ spec: { containers: 'x' } });
    expect(applyStrategicMergePatch(deployment(), { metadata: [] }, schema)).toMatchObject({ metadata: [] });
    expect(() => applyStrategicMergePatch(deployment(), { spec: { template: { spec: { containers: 'x' } } } }, schema)).not.toThrow();
    expect(() => applyStrategicMergePatch(deployment(), { spec: { template: { spec: { containers: [1] } } } }, schema)).toThrow(PatchError);
  });

  it('refuses documents nested deeper than the limit with PatchError instead of overflowing the stack', () => {
    let deep: unknown = 'x';
    for (let depth = 0; depth < 5000; depth++) deep = { a: deep };
    expect(() => applyStrategicMergePatch(deployment(), deep, patchSchemaFor('apps/v1', 'Deployment'))).toThrow(PatchError);
    expect(() => applyMergePatch(deployment(), deep)).toThrow(PatchError);
    expect(() => applyJsonPatch(deployment(), [{ op: 'add', path: '/x', value: deep }])).toThrow(PatchError);
  });
});
