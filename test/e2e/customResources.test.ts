// CustomResourceDefinitions end to end with the real kubectl 1.35: apply a CRD with a
// schema, wait for Established, create valid objects and see invalid ones rejected with upstream
// field paths, unknown fields pruned (a warning, or an error under --validate=strict), printer
// columns in `kubectl get`, `kubectl explain`, `kubectl api-resources`, `kubectl scale` through the
// scale subresource, and deleting the CRD deleting its objects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;
const namespace = 'crd-e2e';

const ok = (...args: string[]) => kubectlOk(cluster, args);
const apply = (manifest: object, ...flags: string[]) => cluster.kubectl(['apply', '-f', '-', ...flags], { input: JSON.stringify(manifest) });

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        additionalPrinterColumns: [
          { name: 'Size', type: 'string', jsonPath: '.spec.size' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'Widget is a test kind.',
            properties: {
              spec: {
                type: 'object',
                description: 'The desired widget.',
                required: ['size'],
                'x-kubernetes-validations': [{ rule: 'self.replicas <= 10', message: 'at most 10 replicas' }],
                properties: {
                  size: { type: 'string', enum: ['small', 'large'], description: 'How big the widget is.' },
                  replicas: { type: 'integer', minimum: 0, default: 1 },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

const widget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace }, spec });

beforeAll(async () => {
  cluster = await startCluster();
  await ok('create', 'namespace', namespace);
  const created = await apply(crd);
  expect(created.code, created.stderr).toBe(0);
  await ok('wait', '--for', 'condition=established', '--timeout=60s', 'crd/widgets.example.com');
}, 180_000);

afterAll(async () => {
  await cluster?.destroy();
}, 120_000);

describe('custom resources', () => {
  it('lists the kind in api-resources', async () => {
    const out = await ok('api-resources', '--api-group=example.com');
    expect(out).toMatch(/widgets\s+wd\s+example\.com\/v1\s+true\s+Widget/);
  });

  it('accepts valid objects, applies defaults and prints the printer columns', async () => {
    const result = await apply(widget('small-one', { size: 'small' }));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('widget.example.com/small-one created');
    expect(await ok('get', 'widget', 'small-one', '-n', namespace, '-o', 'jsonpath={.spec.replicas}')).toBe('1');
    const table = await ok('get', 'wd', '-n', namespace);
    expect(table).toMatch(/^NAME\s+SIZE\s+REPLICAS\s+AGE\n/);
    expect(table).toMatch(/small-one\s+small\s+1\s+\d+s/);
  });

  it('rejects invalid objects with upstream field paths', async () => {
    const wrongType = await apply(widget('bad', { size: 'small', replicas: 'three' }));
    expect(wrongType.code).not.toBe(0);
    expect(wrongType.stderr).toContain('spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"');
    const missing = await apply(widget('bad', {}));
    expect(missing.stderr).toContain('spec.size: Required value');
    const notInEnum = await apply(widget('bad', { size: 'huge' }));
    expect(notInEnum.stderr).toContain('spec.size: Unsupported value: "huge": supported values: "small", "large"');
    const rule = await apply(widget('bad', { size: 'small', replicas: 11 }));
    expect(rule.stderr).toContain('spec: Invalid value: "object": at most 10 replicas');
  });

  it('prunes unknown fields with a warning, and refuses them under --validate=strict', async () => {
    const warned = await apply(widget('pruned', { size: 'large', colour: 'red' }), '--validate=warn');
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toContain('unknown field "spec.colour"');
    expect(await ok('get', 'widget', 'pruned', '-n', namespace, '-o', 'jsonpath={.spec}')).not.toContain('colour');
    const strict = await apply(widget('strict', { size: 'large', colour: 'red' }), '--validate=strict');
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain('unknown field "spec.colour"');
  });

  it('explains the kind from its schema', async () => {
    const out = await ok('explain', 'widgets.spec');
    expect(out).toContain('KIND:       Widget');
    expect(out).toContain('The desired widget.');
    expect(out).toMatch(/size\s+<string> -required-/);
  });

  it('scales through the scale subresource', async () => {
    await ok('scale', 'widget', 'small-one', '-n', namespace, '--replicas=3');
    expect(await ok('get', 'widget', 'small-one', '-n', namespace, '-o', 'jsonpath={.spec.replicas}')).toBe('3');
  });

  it('deletes the objects with the CRD and stops serving the kind', async () => {
    await ok('delete', 'crd', 'widgets.example.com', '--timeout=60s');
    await until('the kind to disappear', async () => {
      const result = await cluster.kubectl(['get', 'widgets.example.com', '-n', namespace]);
      return result.code !== 0 && /the server doesn't have a resource type|no matches for kind|the server could not find/.test(result.stderr) ? true : undefined;
    });
    const raw = await cluster.request('GET', `/apis/example.com/v1/namespaces/${namespace}/widgets`);
    expect(raw.status).toBe(404);
    // a CRD with the same name starts empty
    const recreated = await apply(crd);
    expect(recreated.code, recreated.stderr).toBe(0);
    await ok('wait', '--for', 'condition=established', '--timeout=60s', 'crd/widgets.example.com');
    await until('the new kind to be served empty', async () => {
      const result = await cluster.kubectl(['get', 'widgets', '-n', namespace, '-o', 'name']);
      return result.code === 0 ? result.stdout : undefined;
    }).then((out) => expect(out.trim()).toBe(''));
  });
});
