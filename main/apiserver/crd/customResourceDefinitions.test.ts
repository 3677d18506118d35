import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../storage/sqliteStore';
import type { ApiReply, ApiServer } from '../apiServer';
import type { OpenApiService } from '../openapi/openapiDocuments';
import { apiRequest, inMemoryApiServer, namespaceObject, parseReply as parse } from '../../../test/fixtures/inMemoryApiServer';
import { startCustomResourceDefinitions, type CustomResourceDefinitions } from './customResourceDefinitions';

let store: SqliteStore;
let api: ApiServer;
let crds: CustomResourceDefinitions;
let openapi: OpenApiService;

async function request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiReply> {
  const reply = await apiRequest(api, method, path, body, headers);
  // let the CRD controller's microtask run, as the next network request would
  await new Promise((resolve) => setImmediate(resolve));
  return reply;
}

function widgetCrd(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
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
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['size'],
                  'x-kubernetes-validations': [
                    { rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' },
                    { rule: 'self.size == oldSelf.size', message: 'size is immutable' },
                  ],
                  properties: {
                    replicas: { type: 'integer', minimum: 0, default: 1 },
                    maxReplicas: { type: 'integer', default: 10 },
                    size: { type: 'string', enum: ['small', 'large'] },
                    name: { type: 'string', pattern: '^[a-z]+$', maxLength: 10 },
                    port: { 'x-kubernetes-int-or-string': true },
                    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' } } },
              },
            },
          },
        },
        { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      ],
      ...overrides,
    },
  };
}

const widget = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec, ...extra });

beforeEach(async () => {
  ({ store, api, openapi } = inMemoryApiServer());
  crds = startCustomResourceDefinitions(api, store);
  await request('POST', '/api/v1/namespaces', namespaceObject('default'));
});

afterEach(() => {
  crds.dispose();
  store.dispose();
});

describe('CustomResourceDefinition validation', () => {
  const cases: { name: string; crd: Record<string, unknown>; message: string }[] = [
    { name: 'a name that is not plural.group', crd: { ...widgetCrd(), metadata: { name: 'widget.example.com' } }, message: 'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group' },
    { name: 'a group without a dot', crd: { ...widgetCrd({ group: 'example' }), metadata: { name: 'widgets.example' } }, message: 'spec.group: Invalid value: "example": should be a domain with at least one dot' },
    { name: 'no storage version', crd: widgetCrd({ versions: [{ name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } }] }), message: 'must have exactly one version marked as storage version' },
    { name: 'a version without schema', crd: widgetCrd({ versions: [{ name: 'v1', served: true, storage: true }] }), message: 'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required' },
    { name: 'a property without type', crd: widgetCrd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: {} } } } } }] }), message: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields' },
    { name: 'a bad scope', crd: widgetCrd({ scope: 'Global' }), message: 'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"' },
  ];
  for (const testCase of cases) {
    it(`rejects ${testCase.name}`, async () => {
      const reply = await request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', testCase.crd);
      expect(reply.status).toBe(422);
      expect(parse(reply).message).toContain(testCase.message);
    });
  }
});

describe('CustomResourceDefinitions', () => {
  beforeEach(async () => {
    const reply = await request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd());
    expect(reply.status).toBe(201);
  });

  it('establishes the CRD and serves the kind in discovery and OpenAPI', async () => {
    const crd = parse(await request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com'));
    const conditions = Object.fromEntries(crd.status.conditions.map((condition: { type: string; status: string }) => [condition.type, condition.status]));
    expect(conditions).toMatchObject({ NamesAccepted: 'True', Established: 'True' });
    expect(crd.status.acceptedNames.kind).toBe('Widget');
    expect(crd.status.storedVersions).toEqual(['v1']);
    const group = parse(await request('GET', '/apis/example.com'));
    expect(group.preferredVersion.version).toBe('v1');
    const resources = parse(await request('GET', '/apis/example.com/v1'));
    expect(resources.resources.map((entry: { name: string }) => entry.name)).toEqual(['widgets', 'widgets/status', 'widgets/scale']);
    expect(openapi.index().paths['apis/example.com/v1']).toBeDefined();
    const document = JSON.parse(openapi.document('apis/example.com/v1')?.body ?? '{}');
    expect(document.components.schemas['com.example.v1.Widget'].properties.spec.properties.replicas.type).toBe('integer');
  });

  it('defaults, prunes unknown fields with a warning and keeps preserved ones', async () => {
    const reply = await request('POST', '/apis/example.com/v1/namespaces/default/widgets', widget('a', { size: 'small', bogus: 1, extra: { anything: true } }));
    expect(reply.status).toBe(201);
    expect(reply.headers['Warning']).toContain('unknown field \\"spec.bogus\\"');
    const body = parse(reply);
    expect(body.spec).toEqual({ size: 'small', replicas: 1, maxReplicas: 10, extra: { anything: true } });
    expect(body.metadata.generation).toBe(1);
    const strict = await request('POST', '/apis/example.com/v1/namespaces/default/widgets?fieldValidation=Strict', widget('b', { size: 'small', bogus: 1 }));
    expect(strict.status).toBe(400);
    expect(parse(strict).message).toBe('Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"');
  });

  const invalid: { name: string; spec: Record<string, unknown>; message: string }[] = [
    { name: 'a wrong type', spec: { size: 'small', replicas: 'three' }, message: 'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"' },
    { name: 'a missing required field', spec: {}, message: 'spec.size: Required value' },
    { name: 'a value outside the enum', spec: { size: 'huge' }, message: 'spec.size: Unsupported value: "huge": supported values: "small", "large"' },
    { name: 'a value below the minimum', spec: { size: 'small', replicas: -1 }, message: 'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0' },
    { name: 'a pattern mismatch', spec: { size: 'small', name: 'ABC' }, message: `spec.name: Invalid value: "ABC": spec.name in body should match '^[a-z]+$'` },
    { name: 'a too long string', spec: { size: 'small', name: 'abcdefghijkl' }, message: 'spec.name: Too long: may not be more than 10 bytes' },
    { name: 'an int-or-string of another type', spec: { size: 'small', port: true }, message: 'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"' },
    { name: 'a failing CEL rule', spec: { size: 'small', replicas: 20 }, message: 'spec: Invalid value: "object": replicas must not exceed maxReplicas' },
  ];
  for (const testCase of invalid) {
    it(`rejects a custom object with ${testCase.name}`, async () => {
      const reply = await request('POST', '/apis/example.com/v1/namespaces/default/widgets', widget('bad', testCase.spec));
      expect(reply.status).toBe(422);
      expect(parse(reply).message).toBe(`Widget.example.com "bad" is invalid: ${testCase.message}`);
    });
  }

  it('evaluates transition rules against the old object on update', async () => {
    await request('POST', '/apis/example.com/v1/namespaces/default/widgets', widget('a', { size: 'small' }));
    const reply = await request('PATCH', '/apis/example.com/v1/namespaces/default/widgets/a', { spec: { size: 'large' } }, { 'content-type': 'application/merge-patch+json' });
    expect(reply.status).toBe(422);
    expect(parse(reply).message).toContain('spec: Invalid value: "object": size is immutable');
  });

  it('keeps status on main-resource writes, spec on status writes, and bumps generation on spec changes only', async () => {
    const created = parse(await request('POST', '/apis/example.com/v1/namespaces/default/widgets', widget('a', { size: 'small' }, { status: { replicas: 5 } })));
    expect(created.status).toBeUndefined();
    const status = parse(await request('PUT', '/apis/example.com/v1/namespaces/default/widgets/a/status', { ...created, spec: { size: 'large' }, status: { replicas: 2 } }));
    expect(status.spec.size).toBe('small');
    expect(status.status.replicas).toBe(2);
    expect(status.metadata.generation).toBe(1);
    const updated = parse(await request('PUT', '/apis/example.com/v1/namespaces/default/widgets/a', { ...status, spec: { ...status.spec, replicas: 3 }, status: { replicas: 9 } }));
    expect(updated.status.replicas).toBe(2);
    expect(updated.metadata.generation).toBe(2);
  });

  it('serves the scale subresource from the CRD paths', async () => {
    await request('POST', '/apis/example.com/v1/namespaces/default/widgets', widget('a', { size: 'small', replicas: 2 }));
    const scale = parse(await request('GET', '/apis/example.com/v1/namespaces/default/widgets/a/scale'));
    expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 }, status: { replicas: 0 } });
    const patched = await request('PATCH', '/apis/example.com/v1/namespaces/default/widgets/a/scale', { spec: { replicas: 4 } }, { 'content-type': 'application/merge-patch+json' });
    expect(parse(patched).spec.replicas).toBe(4);
    expect(parse(await request('GET', '/apis/example.com/v1/namespaces/default/widgets/a')).spec.replicas).toBe(4);
  });

  it('prints additionalPrinterColumns in tables', async () => {
    await request('POST', '/apis/example.com/v1/namespaces/default/widgets', widget('a', { size: 'small', replicas: 2 }));
    const table = parse(await request('GET', '/apis/example.com/v1/namespaces/default/widgets', undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }));
    expect(table.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Name', 'Replicas', 'Age']);
    expect(table.rows[0].cells.slice(0, 2)).toEqual(['a', 2]);
  });

  it('serves other versions of the same objects with their apiVersion rewritten', async () => {
    await request('POST', '/apis/example.com/v1/namespaces/default/widgets', widget('a', { size: 'small' }));
    const beta = parse(await request('GET', '/apis/example.com/v1beta1/namespaces/default/widgets/a'));
    expect(beta.apiVersion).toBe('example.com/v1beta1');
    expect(beta.spec.size).toBe('small');
  });

  it('deletes every custom object before the CRD goes, then stops serving the kind', async () => {
    await request('POST', '/apis/example.com/v1/namespaces/default/widgets', widget('a', { size: 'small' }));
    const reply = await request('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com');
    expect(reply.status).toBe(200);
    expect(parse(reply).metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect((await request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).status).toBe(404);
    expect((await request('GET', '/apis/example.com/v1/namespaces/default/widgets')).status).toBe(404);
    expect(store.list('widgets.example.com', {}).items).toEqual([]);
    expect(openapi.index().paths['apis/example.com/v1']).toBeUndefined();
  });

  it('re-registers stored CRDs after a restart', async () => {
    crds.dispose();
    ({ api } = inMemoryApiServer({ store }));
    crds = startCustomResourceDefinitions(api, store);
    expect((await request('GET', '/apis/example.com/v1/namespaces/default/widgets')).status).toBe(200);
  });
});
