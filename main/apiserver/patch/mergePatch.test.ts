import { describe, expect, it } from 'vitest';
import { catchError } from '../../../test/fixtures/catchError';
import { applyMergePatch } from './mergePatch';
import { PatchError } from './patchError';

function pod(): Record<string, unknown> {
  return {
    metadata: { name: 'web-1', labels: { app: 'web' }, annotations: { a: '1' } },
    spec: { containers: [{ name: 'c1', image: 'nginx' }], nodeSelector: { disk: 'ssd' } },
  };
}

describe('applyMergePatch', () => {
  const cases: { name: string; doc: unknown; patch: unknown; expected: unknown }[] = [
    {
      name: 'adds a label as kubectl label does (writes.log)',
      doc: pod(),
      patch: { metadata: { labels: { x: 'y' } } },
      expected: { ...pod(), metadata: { name: 'web-1', labels: { app: 'web', x: 'y' }, annotations: { a: '1' } } },
    },
    {
      name: 'removes a label with null, as kubectl label x- does',
      doc: pod(),
      patch: { metadata: { labels: { app: null } } },
      expected: { ...pod(), metadata: { name: 'web-1', labels: {}, annotations: { a: '1' } } },
    },
    {
      name: 'scales with the body kubectl scale sends',
      doc: { spec: { replicas: 1, selector: {} } },
      patch: { spec: { replicas: 3 } },
      expected: { spec: { replicas: 3, selector: {} } },
    },
    {
      name: 'replaces arrays whole',
      doc: pod(),
      patch: { spec: { containers: [{ name: 'c2' }] } },
      expected: { ...pod(), spec: { containers: [{ name: 'c2' }], nodeSelector: { disk: 'ssd' } } },
    },
    {
      name: 'prunes nested nulls from an object placed where none was',
      doc: { a: 'scalar' },
      patch: { a: { b: null, c: { d: null, e: 1 } }, n: { m: null } },
      expected: { a: { c: { e: 1 } }, n: {} },
    },
    {
      name: 'keeps nulls inside arrays taken from the patch',
      doc: {},
      patch: { list: [null, { k: null }] },
      expected: { list: [null, {}] },
    },
    {
      name: 'replaces an object with a scalar',
      doc: pod(),
      patch: { spec: 'x' },
      expected: { metadata: pod().metadata, spec: 'x' },
    },
    {
      name: 'ignores null for a member that does not exist',
      doc: { a: 1 },
      patch: { b: null },
      expected: { a: 1 },
    },
  ];

  it.each(cases)('$name', ({ doc, patch, expected }) => {
    expect(applyMergePatch(doc, patch)).toEqual(expected);
  });

  it('does not modify its inputs', () => {
    const doc = pod();
    const patch = { metadata: { labels: { app: null, x: { nested: null } } }, spec: { nodeSelector: null } };
    const before = JSON.stringify([doc, patch]);
    applyMergePatch(doc, patch);
    expect(JSON.stringify([doc, patch])).toBe(before);
  });

  it('treats a __proto__ member as data, never touching Object.prototype', () => {
    const result = applyMergePatch({ a: 1 }, JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toEqual({ polluted: true });
  });

  it.each([null, [], 'x', 3])('refuses the patch %j with 400 Invalid JSON Patch', (patch) => {
    const error = catchError(() => applyMergePatch(pod(), patch));
    expect(error).toBeInstanceOf(PatchError);
    expect((error as PatchError).toStatus()).toMatchObject({ code: 400, reason: 'BadRequest', message: 'Invalid JSON Patch' });
  });
});
