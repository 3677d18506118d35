import { describe, expect, it } from 'vitest';
import { catchError } from '../../../test/fixtures/catchError';
import { PatchError } from './patchError';
import { patchSchemaFor } from './patchSchema';
import { applyStrategicMergePatch } from './strategicMergePatch';

type Json = Record<string, unknown>;

function deployment(): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'nginx',
      namespace: 'default',
      labels: { app: 'nginx' },
      annotations: { note: 'keep' },
      finalizers: ['a', 'b'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'Thing', name: 'owner', uid: 'u1' }],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'nginx' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1.25',
              args: ['-g', 'daemon off;'],
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
            },
            { name: 'sidecar', image: 'busybox:1.36' },
          ],
          tolerations: [{ key: 'k', operator: 'Exists' }],
          volumes: [{ name: 'data', emptyDir: {} }],
        },
      },
    },
  };
}

const schema = patchSchemaFor('apps/v1', 'Deployment');

function podSpec(object: Json): Json {
  return ((object.spec as Json).template as Json).spec as Json;
}

function containers(object: Json): Json[] {
  return podSpec(object).containers as Json[];
}

function metadata(object: Json): Json {
  return object.metadata as Json;
}

function templatePatch(spec: Json): Json {
  return { spec: { template: { spec } } };
}

/** The exact PATCH body `kubectl apply` sent in apply2.log (annotation shortened). */
const kubectlApplyPatch = {
  metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"apps/v1","kind":"Deployment"}\n' } },
  spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'nginx' }], containers: [{ image: 'nginx:1.26', name: 'nginx' }] } } },
};

describe('applyStrategicMergePatch', () => {
  const cases: { name: string; patch: Json; expected: (object: Json) => void }[] = [
    {
      name: 'applies the kubectl apply patch from apply2.log: one image changes, other containers stay',
      patch: kubectlApplyPatch,
      expected: (object) => {
        metadata(object).annotations = { note: 'keep', 'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"apps/v1","kind":"Deployment"}\n' };
        containers(object)[0].image = 'nginx:1.26';
      },
    },
    {
      name: 'sets an image the way kubectl set image does (writes.log)',
      patch: templatePatch({ '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }], containers: [{ image: 'busybox:2', name: 'sidecar' }] }),
      expected: (object) => {
        containers(object)[1].image = 'busybox:2';
      },
    },
    {
      name: 'adds the restartedAt annotation of kubectl rollout restart to the template',
      patch: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-21T23:42:44Z' } } } } },
      expected: (object) => {
        ((object.spec as Json).template as Json).metadata = { labels: { app: 'nginx' }, annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-21T23:42:44Z' } };
      },
    },
    {
      name: 'merges env by name, keeping variables the patch does not mention',
      patch: templatePatch({ containers: [{ name: 'nginx', env: [{ name: 'B', value: '3' }, { name: 'C', value: '4' }] }] }),
      expected: (object) => {
        containers(object)[0].env = [
          { name: 'A', value: '1' },
          { name: 'B', value: '3' },
          { name: 'C', value: '4' },
        ];
      },
    },
    {
      name: 'merges ports by containerPort',
      patch: templatePatch({ containers: [{ name: 'nginx', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }] }] }),
      expected: (object) => {
        containers(object)[0].ports = [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 443 }];
      },
    },
    {
      name: 'deletes a container with $patch: delete',
      patch: templatePatch({ containers: [{ name: 'sidecar', $patch: 'delete' }] }),
      expected: (object) => {
        podSpec(object).containers = [containers(object)[0]];
      },
    },
    {
      name: 'replaces a map with $patch: replace',
      patch: { metadata: { labels: { $patch: 'replace', tier: 'web' } } },
      expected: (object) => {
        metadata(object).labels = { tier: 'web' };
      },
    },
    {
      name: 'empties a map with $patch: delete',
      patch: { metadata: { annotations: { $patch: 'delete' } } },
      expected: (object) => {
        metadata(object).annotations = {};
      },
    },
    {
      name: 'replaces a whole merging list when one element says $patch: replace',
      patch: templatePatch({ containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] }),
      expected: (object) => {
        podSpec(object).containers = [{ name: 'only', image: 'x' }];
      },
    },
    {
      name: 'drops rollingUpdate when $retainKeys switches the strategy to Recreate (kubectl apply form)',
      patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } },
      expected: (object) => {
        (object.spec as Json).strategy = { type: 'Recreate' };
      },
    },
    {
      name: 'drops unlisted keys with $retainKeys even without an explicit null',
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      expected: (object) => {
        (object.spec as Json).strategy = { type: 'Recreate' };
      },
    },
    {
      name: 'merges finalizers as a set, patch elements first as upstream orders them',
      patch: { metadata: { finalizers: ['c', 'a'] } },
      expected: (object) => {
        metadata(object).finalizers = ['c', 'a', 'b'];
      },
    },
    {
      name: 'orders merged finalizers by $setElementOrder',
      patch: { metadata: { '$setElementOrder/finalizers': ['a', 'b', 'c'], finalizers: ['c'] } },
      expected: (object) => {
        metadata(object).finalizers = ['a', 'b', 'c'];
      },
    },
    {
      name: 'removes finalizers listed in $deleteFromPrimitiveList/finalizers',
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
      expected: (object) => {
        metadata(object).finalizers = ['b'];
      },
    },
    {
      name: 'ignores $deleteFromPrimitiveList for a list the object does not have',
      patch: { metadata: { '$deleteFromPrimitiveList/missing': ['a'] } },
      expected: () => undefined,
    },
    {
      name: 'deletes fields set to null and ignores nulls for absent fields',
      patch: { metadata: { labels: { app: null }, absent: null }, spec: { replicas: null } },
      expected: (object) => {
        metadata(object).labels = {};
        delete (object.spec as Json).replicas;
      },
    },
    {
      name: 'replaces lists that carry no merge strategy (tolerations, args)',
      patch: templatePatch({ tolerations: [{ key: 'other', operator: 'Exists' }], containers: [{ name: 'nginx', args: ['x'] }] }),
      expected: (object) => {
        podSpec(object).tolerations = [{ key: 'other', operator: 'Exists' }];
        containers(object)[0].args = ['x'];
      },
    },
    {
      name: 'merges ownerReferences by uid',
      patch: { metadata: { ownerReferences: [{ uid: 'u2', name: 'second', kind: 'Thing', apiVersion: 'v1' }] } },
      expected: (object) => {
        metadata(object).ownerReferences = [{ uid: 'u2', name: 'second', kind: 'Thing', apiVersion: 'v1' }, { apiVersion: 'v1', kind: 'Thing', name: 'owner', uid: 'u1' }];
      },
    },
    {
      name: 'reorders containers as $setElementOrder says',
      patch: templatePatch({ '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'nginx' }] }),
      expected: (object) => {
        podSpec(object).containers = [containers(object)[1], containers(object)[0]];
      },
    },
    {
      name: 'adds a new container after the live ones when $setElementOrder lists it last',
      patch: templatePatch({ '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }, { name: 'new' }], containers: [{ name: 'new', image: 'x' }] }),
      expected: (object) => {
        containers(object).push({ name: 'new', image: 'x' });
      },
    },
    {
      name: 'drops directive elements from a list the object did not have',
      patch: templatePatch({ initContainers: [{ name: 'init', image: 'x' }, { name: 'gone', $patch: 'delete' }] }),
      expected: (object) => {
        podSpec(object).initContainers = [{ name: 'init', image: 'x' }];
      },
    },
    {
      name: 'keeps a volume source switch clean with $retainKeys on a volume',
      patch: templatePatch({ volumes: [{ name: 'data', $retainKeys: ['name', 'configMap'], configMap: { name: 'cfg' } }] }),
      expected: (object) => {
        podSpec(object).volumes = [{ name: 'data', configMap: { name: 'cfg' } }];
      },
    },
  ];

  it.each(cases)('$name', ({ patch, expected }) => {
    const want = deployment();
    expected(want);
    expect(applyStrategicMergePatch(deployment(), patch, schema)).toEqual(want);
  });

  it('does not modify its inputs', () => {
    const live = deepFreeze(deployment());
    const patch = deepFreeze(structuredClone(kubectlApplyPatch));
    const before = JSON.stringify([live, patch]);
    applyStrategicMergePatch(live, patch, schema);
    applyStrategicMergePatch(live, deepFreeze({ spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } }, metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }), schema);
    expect(JSON.stringify([live, patch])).toBe(before);
  });

  it('treats every list as replaced for a kind without schema', () => {
    const object = { spec: { items: [{ name: 'a', v: 1 }], nested: { keep: true } } };
    const result = applyStrategicMergePatch(object, { spec: { items: [{ name: 'b' }], nested: { added: 1 } } }, patchSchemaFor('example.com/v1', 'Widget'));
    expect(result).toEqual({ spec: { items: [{ name: 'b' }], nested: { keep: true, added: 1 } } });
  });

  it('treats a __proto__ member as data, never touching Object.prototype', () => {
    const result = applyStrategicMergePatch({ metadata: {} }, JSON.parse('{"metadata": {"__proto__": {"polluted": true}}}'), schema) as Json;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(result.metadata, '__proto__')?.value).toEqual({ polluted: true });
  });

  it('returns the object unchanged for a null patch', () => {
    expect(applyStrategicMergePatch(deployment(), null, schema)).toEqual(deployment());
  });

  const failures: { name: string; patch: unknown; code: number; message: string }[] = [
    { name: 'a merging list element without its merge key', patch: templatePatch({ containers: [{ image: 'x' }] }), code: 500, message: 'map: map[image:x] does not contain declared merge key: name' },
    { name: '$patch: merge in a map', patch: { metadata: { labels: { $patch: 'merge', a: 'b' } } }, code: 500, message: 'unknown patch type: merge in map: map[$patch:merge a:b]' },
    { name: 'an unknown $patch value in a list element', patch: templatePatch({ containers: [{ name: 'nginx', $patch: 'bogus' }] }), code: 500, message: 'unknown patch type: bogus in map: map[$patch:bogus name:nginx]' },
    { name: '$patch: merge in a list element', patch: templatePatch({ containers: [{ name: 'nginx', $patch: 'merge' }] }), code: 500, message: 'merging lists cannot yet be specified in the patch' },
    { name: '$retainKeys that is not a list', patch: { spec: { strategy: { $retainKeys: 'type', type: 'Recreate' } } }, code: 400, message: 'invalid patch format of retainKeys' },
    { name: 'a patch key missing from $retainKeys', patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: {} } } }, code: 400, message: 'invalid patch format of retainKeys' },
    {
      name: 'a patch list out of $setElementOrder order',
      patch: templatePatch({ '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }], containers: [{ name: 'sidecar' }, { name: 'nginx' }] }),
      code: 500,
      message: "The order in patch list:\n[map[name:sidecar] map[name:nginx]]\n doesn't match $setElementOrder list:\n[map[name:nginx] map[name:sidecar]]\n",
    },
    { name: 'a $deleteFromPrimitiveList key without a field', patch: { metadata: { $deleteFromPrimitiveList: ['a'] } }, code: 400, message: 'invalid patch format of primitive list' },
    { name: 'a $setElementOrder key without a field', patch: { metadata: { $setElementOrderfinalizers: ['a'] } }, code: 400, message: 'invalid patch format of setElementOrder list' },
    { name: 'a $setElementOrder that is not a list', patch: { metadata: { '$setElementOrder/finalizers': 'a' } }, code: 500, message: 'expected a []interface {}, but received a string' },
    { name: 'an unknown directive', patch: { spec: { $foo: 1 } }, code: 400, message: 'strict decoding error: unknown field "spec.$foo"' },
    { name: 'a list of lists', patch: { metadata: { finalizers: [['a']], labels: null }, spec: null }, code: 500, message: 'list element types are not identical: [[a b] [[a]]]' },
    { name: 'a merging list whose first element is a list', patch: templatePatch({ volumes: [['x']] }), code: 500, message: 'list element types are not identical: [[map[emptyDir:map[] name:data]] [[x]]]' },
    { name: 'a patch that is not an object', patch: [1], code: 400, message: 'json: cannot unmarshal array into Go value of type map[string]interface {}' },
  ];

  it.each(failures)('refuses $name', ({ patch, code, message }) => {
    const error = catchError(() => applyStrategicMergePatch(deployment(), patch, schema));
    expect(error).toBeInstanceOf(PatchError);
    expect((error as PatchError).code).toBe(code);
    expect((error as PatchError).detail).toBe(message);
  });

  it('refuses a merging list whose first element is a list with 422', () => {
    const failure = catchError(() => applyStrategicMergePatch({ metadata: { finalizers: [] } }, { metadata: { finalizers: [['a']] } }, schema));
    expect(failure).toBeInstanceOf(PatchError);
    expect((failure as PatchError).detail).toBe('lists of lists are not supported');
    expect((failure as PatchError).toStatus()).toMatchObject({ code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request' });
  });

  it('replies to unclassified failures with a reason-less 500 Status, as upstream does', () => {
    const error = catchError(() => applyStrategicMergePatch(deployment(), templatePatch({ containers: [{ image: 'x' }] }), schema)) as PatchError;
    const status = error.toStatus();
    expect(status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, message: 'map: map[image:x] does not contain declared merge key: name' });
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
