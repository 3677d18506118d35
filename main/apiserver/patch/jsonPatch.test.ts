import { describe, expect, it } from 'vitest';
import { catchError } from '../../../test/fixtures/catchError';
import { applyJsonPatch } from './jsonPatch';
import { PatchError, unprocessablePatchMessage } from './patchError';

function deployment(): Record<string, unknown> {
  return {
    metadata: { name: 'web', labels: { app: 'web', 'a/b': 'slash', 'c~d': 'tilde' } },
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'c1', image: 'nginx:1' }, { name: 'c2', image: 'busybox' }] } } },
  };
}

describe('applyJsonPatch', () => {
  const cases: { name: string; patch: unknown[]; expected: (object: Record<string, unknown>) => void }[] = [
    {
      name: 'replaces spec.replicas as kubectl patch --type=json does (writes.log)',
      patch: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
      expected: (object) => {
        (object.spec as Record<string, unknown>).replicas = 3;
      },
    },
    {
      name: 'adds an object member',
      patch: [{ op: 'add', path: '/metadata/labels/tier', value: 'front' }],
      expected: (object) => {
        labels(object).tier = 'front';
      },
    },
    {
      name: 'adds at an array index, shifting later elements',
      patch: [{ op: 'add', path: '/spec/template/spec/containers/1', value: { name: 'mid' } }],
      expected: (object) => {
        containers(object).splice(1, 0, { name: 'mid' });
      },
    },
    {
      name: 'appends with the "-" index',
      patch: [{ op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'last' } }],
      expected: (object) => {
        containers(object).push({ name: 'last' });
      },
    },
    {
      name: 'counts negative indexes from the end, as the library upstream uses does',
      patch: [{ op: 'remove', path: '/spec/template/spec/containers/-1' }],
      expected: (object) => {
        containers(object).pop();
      },
    },
    {
      name: 'removes a member addressed with ~1 and ~0 escapes',
      patch: [
        { op: 'remove', path: '/metadata/labels/a~1b' },
        { op: 'remove', path: '/metadata/labels/c~0d' },
      ],
      expected: (object) => {
        delete labels(object)['a/b'];
        delete labels(object)['c~d'];
      },
    },
    {
      name: 'replaces an array element',
      patch: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:2' }],
      expected: (object) => {
        containers(object)[0].image = 'nginx:2';
      },
    },
    {
      name: 'replaces a missing object member by adding it (json-patch v4 behaviour)',
      patch: [{ op: 'replace', path: '/spec/paused', value: true }],
      expected: (object) => {
        (object.spec as Record<string, unknown>).paused = true;
      },
    },
    {
      name: 'moves a value',
      patch: [{ op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/application' }],
      expected: (object) => {
        delete labels(object).app;
        labels(object).application = 'web';
      },
    },
    {
      name: 'copies a value without sharing it',
      patch: [
        { op: 'copy', from: '/spec/template/spec/containers/0', path: '/spec/template/spec/containers/-' },
        { op: 'replace', path: '/spec/template/spec/containers/2/name', value: 'copy' },
      ],
      expected: (object) => {
        containers(object).push({ name: 'copy', image: 'nginx:1' });
      },
    },
    {
      name: 'passes a test operation that matches and then applies the rest',
      patch: [
        { op: 'test', path: '/spec/template/spec/containers/0', value: { image: 'nginx:1', name: 'c1' } },
        { op: 'test', path: '/metadata/missing', value: null },
        { op: 'remove', path: '/spec/replicas' },
      ],
      expected: (object) => {
        delete (object.spec as Record<string, unknown>).replicas;
      },
    },
    {
      name: 'treats a null patch as no operations',
      patch: null as unknown as unknown[],
      expected: () => undefined,
    },
  ];

  it.each(cases)('$name', ({ patch, expected }) => {
    const want = deployment();
    expected(want);
    expect(applyJsonPatch(deployment(), patch)).toEqual(want);
  });

  it('replaces the whole document with an object value', () => {
    expect(applyJsonPatch(deployment(), [{ op: 'replace', path: '', value: { kind: 'X' } }])).toEqual({ kind: 'X' });
  });

  it('does not modify its inputs', () => {
    const object = deployment();
    const patch = [
      { op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'new', env: [] } },
      { op: 'add', path: '/spec/template/spec/containers/2/env/-', value: { name: 'A' } },
      { op: 'remove', path: '/metadata/labels/app' },
    ];
    const before = JSON.stringify([object, patch]);
    applyJsonPatch(object, patch);
    expect(JSON.stringify([object, patch])).toBe(before);
  });

  const failures: { name: string; patch: unknown; detail: string }[] = [
    { name: 'add below a missing path', patch: [{ op: 'add', path: '/spec/foo/bar', value: 1 }], detail: 'add operation does not apply: doc is missing path: "/spec/foo/bar": missing value' },
    { name: 'remove of a missing member', patch: [{ op: 'remove', path: '/metadata/labels/none' }], detail: "error in remove for path: '/metadata/labels/none': Unable to remove nonexistent key: none: missing value" },
    { name: 'remove below a missing path', patch: [{ op: 'remove', path: '/status/x' }], detail: 'remove operation does not apply: doc is missing path: "/status/x": missing value' },
    { name: 'replace below a missing path', patch: [{ op: 'replace', path: '/spec/foo/bar', value: 1 }], detail: 'replace operation does not apply: doc is missing path: /spec/foo/bar: missing value' },
    { name: 'replace of an index past the end', patch: [{ op: 'replace', path: '/spec/template/spec/containers/5', value: {} }], detail: 'replace operation does not apply: doc is missing key: /spec/template/spec/containers/5: missing value' },
    { name: 'add at an index past the end', patch: [{ op: 'add', path: '/spec/template/spec/containers/3', value: {} }], detail: "error in add for path: '/spec/template/spec/containers/3': Unable to access invalid index: 3: invalid index referenced" },
    { name: 'add at a non-numeric index', patch: [{ op: 'add', path: '/spec/template/spec/containers/x', value: {} }], detail: `error in add for path: '/spec/template/spec/containers/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax` },
    { name: 'remove at an index past the end', patch: [{ op: 'remove', path: '/spec/template/spec/containers/2' }], detail: "error in remove for path: '/spec/template/spec/containers/2': Unable to access invalid index: 2: invalid index referenced" },
    { name: 'a failing test', patch: [{ op: 'test', path: '/spec/replicas', value: 2 }], detail: 'testing value /spec/replicas failed: test failed' },
    { name: 'a test of a missing path', patch: [{ op: 'test', path: '/nope/x', value: 2 }], detail: 'test operation does not apply: is missing path: /nope/x: missing value' },
    { name: 'move from a missing member', patch: [{ op: 'move', from: '/metadata/nope', path: '/metadata/x' }], detail: "error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value" },
    { name: 'move into its own child', patch: [{ op: 'move', from: '/spec', path: '/spec/x' }], detail: 'move operation does not apply: doc is missing destination path: /spec/x: missing value' },
    { name: 'copy from a missing path', patch: [{ op: 'copy', from: '/a/b', path: '/c' }], detail: 'copy operation does not apply: doc is missing from path: /a/b: missing value' },
    { name: 'move without from', patch: [{ op: 'move', path: '/a' }], detail: 'move operation failed to decode from: operation, missing from field: missing value' },
    { name: 'add without path', patch: [{ op: 'add', value: 1 }], detail: 'add operation failed to decode path: missing value' },
    { name: 'an unknown op', patch: [{ op: 'merge', path: '/a' }], detail: 'Unexpected kind: merge' },
    { name: 'an op without a kind', patch: [{ path: '/a' }], detail: 'Unexpected kind: unknown' },
  ];

  it.each(failures)('answers 422 for $name, keeping the library message as detail', ({ patch, detail }) => {
    const error = catchError(() => applyJsonPatch(deployment(), patch));
    expect(error).toBeInstanceOf(PatchError);
    expect((error as PatchError).detail).toBe(detail);
    expect((error as PatchError).toStatus()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: unprocessablePatchMessage, reason: 'Invalid', code: 422 });
  });

  const malformed: { name: string; patch: unknown; message: string }[] = [
    { name: 'a patch that is an object', patch: { op: 'add' }, message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp' },
    { name: 'a patch that is a string', patch: 'x', message: 'error decoding patch: json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp' },
    { name: 'an operation that is a number', patch: [1], message: 'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp' },
    { name: 'a path that is not a string', patch: [{ op: 'remove', path: 5 }], message: 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string' },
    { name: 'an op that is not a string', patch: [{ op: true, path: '/a' }], message: 'error decoding patch: json: cannot unmarshal bool into Go struct field jsonPatchOp.op of type string' },
  ];

  it.each(malformed)('answers 400 for $name', ({ patch, message }) => {
    const error = catchError(() => applyJsonPatch(deployment(), patch));
    expect(error).toBeInstanceOf(PatchError);
    expect((error as PatchError).code).toBe(400);
    expect((error as PatchError).message).toBe(message);
  });

  it('answers 413 for more than 10000 operations', () => {
    const patch = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/spec/replicas', value: 1 }));
    const error = catchError(() => applyJsonPatch(deployment(), patch)) as PatchError;
    expect(error.code).toBe(413);
    expect(error.message).toBe('Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
  });
});

function labels(object: Record<string, unknown>): Record<string, unknown> {
  return (object.metadata as Record<string, unknown>).labels as Record<string, unknown>;
}

function containers(object: Record<string, unknown>): Record<string, unknown>[] {
  const spec = ((object.spec as Record<string, unknown>).template as Record<string, unknown>).spec as Record<string, unknown>;
  return spec.containers as Record<string, unknown>[];
}
