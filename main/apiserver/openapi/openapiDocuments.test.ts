import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isRecord } from '../../../shared/kubernetes/types';
import { buildGroupVersionDocument, OpenApiService, type ServedResource } from './openapiDocuments';
import { builtinSchemas, SCHEMA_REFERENCE_PREFIX } from './schemas';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const SERVED: ServedResource[] = [
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, verbs: ALL_VERBS, subresources: [
    { name: 'status', kind: 'Pod', group: '', version: 'v1', verbs: ['get', 'patch', 'update'] },
    { name: 'exec', kind: 'PodExecOptions', group: '', version: 'v1', verbs: ['create', 'get'] },
    { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
    { name: 'log', kind: 'Pod', group: '', version: 'v1', verbs: ['get'] },
  ] },
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], subresources: [] },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ALL_VERBS, subresources: [] },
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, verbs: ALL_VERBS, subresources: [
    { name: 'status', kind: 'Deployment', group: 'apps', version: 'v1', verbs: ['get', 'patch', 'update'] },
    { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] },
  ] },
  { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, verbs: ALL_VERBS, subresources: [] },
  { group: 'stable.example.com', version: 'v1', resource: 'crontabs', kind: 'CronTab', namespaced: true, verbs: ALL_VERBS, subresources: [] },
];

function parse(body: string): Record<string, unknown> {
  const value: unknown = JSON.parse(body);
  if (!isRecord(value)) throw new Error('document is not an object');
  return value;
}

function deploymentSchemaProperties(schemas: Record<string, unknown>): Record<string, unknown> {
  return record(record(schemas['io.k8s.api.apps.v1.Deployment']).properties);
}

function record(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) throw new Error(`expected an object, got ${JSON.stringify(value)}`);
  return value;
}

describe('OpenApiService', () => {
  it('lists every served group-version in the index with the SHA-512 of its document', () => {
    const service = new OpenApiService(SERVED);
    const index = service.index();
    expect(Object.keys(index.paths).sort()).toEqual(['api/v1', 'apis/apps/v1', 'apis/events.k8s.io/v1', 'apis/stable.example.com/v1']);
    for (const [path, entry] of Object.entries(index.paths)) {
      const document = service.document(path);
      expect(document).toBeDefined();
      const hash = createHash('sha512').update(document?.body ?? '').digest('hex').toUpperCase();
      expect(entry.serverRelativeURL).toBe(`/openapi/v3/${path}?hash=${hash}`);
      expect(document?.hash).toBe(hash);
      expect(document?.etag).toBe(`"${hash}"`);
    }
  });

  it('accepts document paths with the /openapi/v3 prefix and a query, and returns undefined for unserved ones', () => {
    const service = new OpenApiService(SERVED);
    expect(service.document('/openapi/v3/apis/apps/v1?hash=abc')?.hash).toBe(service.document('apis/apps/v1')?.hash);
    expect(service.document('apis/batch/v1')).toBeUndefined();
  });

  it('rebuilds the index when the served resources change', () => {
    const service = new OpenApiService(SERVED.slice(0, 3));
    expect(Object.keys(service.index().paths)).toEqual(['api/v1']);
    const before = service.document('api/v1')?.hash;
    service.setResources(SERVED);
    expect(Object.keys(service.index().paths)).toContain('apis/apps/v1');
    expect(service.document('api/v1')?.hash).toBe(before);
    service.setResources(SERVED.filter((resource) => resource.resource !== 'configmaps'));
    expect(service.document('api/v1')?.hash).not.toBe(before);
  });
});

describe('group-version documents', () => {
  const service = new OpenApiService(SERVED);
  const apps = parse(service.document('apis/apps/v1')?.body ?? '{}');
  const paths = record(apps.paths);
  const schemas = record(record(apps.components).schemas);

  it('has the OpenAPI 3 header of a v1.35 server', () => {
    expect(apps.openapi).toBe('3.0.0');
    expect(apps.info).toEqual({ title: 'Kubernetes', version: 'v1.35.0' });
  });

  it('carries the GVK and the fieldValidation parameter on the Deployment patch operation', () => {
    const patch = record(record(paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']).patch);
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', kind: 'Deployment', version: 'v1' });
    const names = (patch.parameters as { name: string; in: string }[]).map((parameter) => `${parameter.in}:${parameter.name}`);
    expect(names).toEqual(expect.arrayContaining(['query:fieldValidation', 'query:dryRun', 'query:fieldManager', 'query:force']));
    const bodyTypes = Object.keys(record(record(patch.requestBody).content));
    expect(bodyTypes).toContain('application/merge-patch+json');
    // Without patch-merge keys in the schemas, kubectl must compute strategic-merge patches from its built-in types.
    expect(bodyTypes).not.toContain('application/strategic-merge-patch+json');
  });

  it('gives every patch operation of a kind the fieldValidation parameter, subresources included', () => {
    for (const [path, item] of Object.entries(paths)) {
      const patch = record(item).patch;
      if (!patch) continue;
      const names = (record(patch).parameters as { name: string }[]).map((parameter) => parameter.name);
      expect(names, path).toContain('fieldValidation');
    }
    const scale = record(record(paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']).patch);
    expect(scale['x-kubernetes-group-version-kind']).toEqual({ group: 'autoscaling', kind: 'Scale', version: 'v1' });
  });

  it('lays out list, create, get, replace, delete and all-namespaces paths as upstream', () => {
    const collection = record(paths['/apis/apps/v1/namespaces/{namespace}/deployments']);
    expect(Object.keys(collection).sort()).toEqual(['delete', 'get', 'parameters', 'post']);
    expect(record(collection.get)['x-kubernetes-action']).toBe('list');
    expect(record(collection.get).operationId).toBe('listAppsV1NamespacedDeployment');
    const item = record(paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']);
    expect(Object.keys(item).sort()).toEqual(['delete', 'get', 'parameters', 'patch', 'put']);
    expect(record(paths['/apis/apps/v1/deployments']).get).toBeDefined();
  });

  it('contains the Deployment schema with its GVK and every schema it reaches', () => {
    const deployment = record(schemas['io.k8s.api.apps.v1.Deployment']);
    expect(deployment['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    for (const name of ['io.k8s.api.apps.v1.DeploymentSpec', 'io.k8s.api.core.v1.PodSpec', 'io.k8s.api.core.v1.Container', 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'io.k8s.apimachinery.pkg.util.intstr.IntOrString', 'io.k8s.api.autoscaling.v1.Scale', 'io.k8s.apimachinery.pkg.apis.meta.v1.Status']) {
      expect(schemas[name], name).toBeDefined();
    }
    // Only what is reachable: core kinds that apps/v1 never refers to stay out.
    expect(schemas['io.k8s.api.core.v1.ConfigMap']).toBeUndefined();
    const missing: string[] = [];
    JSON.stringify(apps, (key, value: unknown) => {
      if (key === '$ref' && typeof value === 'string' && !schemas[value.slice(SCHEMA_REFERENCE_PREFIX.length)]) missing.push(value);
      return value;
    });
    expect(missing).toEqual([]);
  });

  it('describes DeploymentSpec.replicas as kubectl explain needs it', () => {
    const spec = record(schemas['io.k8s.api.apps.v1.DeploymentSpec']);
    const properties = record(spec.properties);
    const replicas = record(properties.replicas);
    expect(replicas.type).toBe('integer');
    expect(replicas.format).toBe('int32');
    expect(replicas.description).toMatch(/Number of desired pods/);
    expect(spec.required).toEqual(['selector', 'template']);
    expect(properties.template).toEqual({ $ref: '#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec', description: expect.any(String) });
    expect(record(deploymentSchemaProperties(schemas).metadata).allOf).toEqual([{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
    const deploymentProperties = record(record(schemas['io.k8s.api.apps.v1.Deployment']).properties);
    expect(record(deploymentProperties.metadata).description).toMatch(/^Standard object's metadata/);
  });

  it('publishes core kinds under api/v1 with an empty group, cluster-scoped paths for Namespace', () => {
    const core = parse(service.document('api/v1')?.body ?? '{}');
    const corePaths = record(core.paths);
    const patch = record(record(corePaths['/api/v1/namespaces/{name}']).patch);
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: '', kind: 'Namespace', version: 'v1' });
    const coreSchemas = record(record(core.components).schemas);
    expect(record(coreSchemas['io.k8s.api.core.v1.Pod'])['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Pod', version: 'v1' }]);
    expect(coreSchemas['io.k8s.api.policy.v1.Eviction']).toBeDefined();
    expect(record(record(corePaths['/api/v1/namespaces/{namespace}/pods/{name}/exec']).post)['x-kubernetes-action']).toBe('connect');
  });

  it('keeps core and events.k8s.io Event apart', () => {
    const events = parse(service.document('apis/events.k8s.io/v1')?.body ?? '{}');
    const eventSchemas = record(record(events.components).schemas);
    expect(record(eventSchemas['io.k8s.api.events.v1.Event'])['x-kubernetes-group-version-kind']).toEqual([{ group: 'events.k8s.io', kind: 'Event', version: 'v1' }]);
    expect(eventSchemas['io.k8s.api.core.v1.Event']).toBeUndefined();
  });

  it('publishes a free-form schema for a custom resource without one, and the given schema otherwise', () => {
    const crontabs = parse(service.document('apis/stable.example.com/v1')?.body ?? '{}');
    const crontabSchemas = record(record(crontabs.components).schemas);
    const crontab = record(crontabSchemas['com.example.stable.v1.CronTab']);
    expect(crontab['x-kubernetes-group-version-kind']).toEqual([{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }]);
    expect(crontab['x-kubernetes-preserve-unknown-fields']).toBe(true);
    const patch = record(record(record(crontabs.paths)['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}']).patch);
    expect((patch.parameters as { name: string }[]).map((parameter) => parameter.name)).toContain('fieldValidation');

    const withSchema = buildGroupVersionDocument('stable.example.com', 'v1', [{
      ...SERVED[5],
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string', description: 'the schedule' } } } } },
    }]);
    const typed = withSchema.components.schemas['com.example.stable.v1.CronTab'];
    expect(typed.properties?.spec.properties?.cronSpec.description).toBe('the schedule');
    expect(typed.properties?.metadata.allOf).toEqual([{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
    expect(withSchema.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
  });
});

describe('generated schemas', () => {
  it('use the upstream names and shapes of the special apimachinery types', () => {
    expect(builtinSchemas['io.k8s.apimachinery.pkg.api.resource.Quantity'].oneOf).toEqual([{ type: 'string' }, { type: 'number' }]);
    expect(builtinSchemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString']['x-kubernetes-int-or-string']).toBe(true);
    expect(builtinSchemas['io.k8s.apimachinery.pkg.apis.meta.v1.Time']).toMatchObject({ type: 'string', format: 'date-time' });
    const limits = builtinSchemas['io.k8s.api.core.v1.ResourceRequirements'].properties?.limits;
    expect(limits?.additionalProperties).toEqual({ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity' });
    expect(builtinSchemas['io.k8s.api.core.v1.Event']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Event', version: 'v1' }]);
  });
});

describe('the /openapi/v2 document', () => {
  const swagger = parse(new OpenApiService(SERVED).swaggerV2());
  const definitions = record(swagger.definitions);
  const paths = record(swagger.paths);

  it('is Swagger 2.0 with a definition for every served kind, custom ones included', () => {
    expect(swagger.swagger).toBe('2.0');
    for (const name of ['io.k8s.api.core.v1.Pod', 'io.k8s.api.apps.v1.Deployment', 'io.k8s.api.apps.v1.DeploymentList', 'io.k8s.api.events.v1.Event', 'io.k8s.apimachinery.pkg.apis.meta.v1.Status']) {
      expect(definitions[name], name).toBeDefined();
    }
    expect(Object.keys(definitions).some((name) => name.endsWith('.CronTab'))).toBe(true);
  });

  it('points every reference at a definition it has, with no v3 component paths left', () => {
    const body = JSON.stringify(swagger);
    expect(body).not.toContain('#/components/schemas/');
    const references = [...body.matchAll(/"\$ref":"#\/definitions\/([^"]+)"/g)].map((match) => match[1]);
    expect(references.length).toBeGreaterThan(50);
    for (const reference of new Set(references)) expect(definitions[reference], reference).toBeDefined();
  });

  it('describes operations the Swagger 2.0 way: a body parameter, response schemas and the group-version-kind', () => {
    const create = record(record(paths['/apis/apps/v1/namespaces/{namespace}/deployments']).post);
    expect(create.operationId).toBe('createAppsV1NamespacedDeployment');
    expect(create['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    const parameters = (create.parameters as unknown[]).map(record);
    expect(parameters.find((parameter) => parameter.in === 'body')?.schema).toEqual({ $ref: '#/definitions/io.k8s.api.apps.v1.Deployment' });
    expect(record(record(create.responses)['201']).schema).toEqual({ $ref: '#/definitions/io.k8s.api.apps.v1.Deployment' });
    expect(create.consumes).toEqual(['*/*']);
    for (const parameter of parameters) expect(parameter.in === 'body' || parameter.schema === undefined).toBe(true);
  });
});
