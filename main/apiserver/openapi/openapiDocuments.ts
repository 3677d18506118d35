// OpenAPI v3 documents served at /openapi/v3 (index) and /openapi/v3/<api/v1 | apis/<group>/<version>>,
// shaped as the upstream kube-apiserver publishes them (k8s.io/kube-openapi handler3, apiserver
// endpoints/openapi): one document per group-version with list/create/get/replace/patch/delete
// operations and the component schemas they reach, and an index whose serverRelativeURL carries
// `?hash=<SHA-512 of the document, upper-case hex>`.
//
// What clients read from here:
// - kubectl apply/create/replace (cli-runtime query_param_verifier_v3.go): a PATCH operation with the
//   kind's `x-kubernetes-group-version-kind` and a `fieldValidation` query parameter means "the server
//   validates fields", so kubectl sends `?fieldValidation=Strict` instead of validating on its side.
// - kubectl explain (kubectl/pkg/explain/v2): the GVK on the operations of the resource's paths, then the
//   component schema carrying the same GVK, its properties, descriptions and `allOf`-wrapped `$ref`s.
// - kubectl apply's patcher (cmd/apply/patcher.go) computes strategic-merge patches from this schema when
//   the PATCH request body lists `application/strategic-merge-patch+json`. Our schemas come from
//   client-node, which carries no patch-merge keys, so that content type is deliberately left out:
//   kubectl then falls back to its compiled-in Go types, which carry the right merge keys.
import { createHash } from 'node:crypto';
import { buildSwaggerV2 } from './swaggerV2';
import {
  builtinSchemaName,
  builtinSchemas,
  reachableSchemas,
  schemaReference,
  type GroupVersionKind,
  type OpenApiSchema,
} from './schemas';

/** The part of a served subresource the documents need (a Subresource fits). */
export interface ServedSubresource {
  name: string;
  kind: string;
  group: string;
  version: string;
  verbs?: string[];
}

/** The part of a served resource the documents need (a KindStrategy fits). */
export interface ServedResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  subresources: ServedSubresource[];
  /** For custom resources: the version's `schema.openAPIV3Schema`. Without it the kind is published as free-form. */
  openAPIV3Schema?: unknown;
}

export interface OpenApiIndex {
  paths: Record<string, { serverRelativeURL: string }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, OpenApiSchema> };
}

export interface SerializedDocument {
  body: string;
  /** upper-case hex SHA-512 of `body`, as in the index's `?hash=` */
  hash: string;
  /** quoted, for the ETag header */
  etag: string;
}

export const KUBERNETES_VERSION = 'v1.35.0';


const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const API_CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';
const CONNECT_SUBRESOURCES = new Set(['exec', 'attach', 'portforward', 'proxy']);
const RESPONSE_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** `api/v1` or `apis/<group>/<version>`: the key of the index and the path after /openapi/v3/. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

// ---------------------------------------------------------------------------------------------
// Parameters, written inline: kubectl reads `parameters[].name` of the PATCH operation and does not
// follow `$ref`s there.

function queryParameter(name: string, type: 'string' | 'boolean' | 'integer', description: string): Record<string, unknown> {
  return { description, in: 'query', name, schema: { type, uniqueItems: true } };
}

const PARAMETERS = {
  pretty: queryParameter('pretty', 'string', "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget)."),
  dryRun: queryParameter('dryRun', 'string', 'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed'),
  fieldManager: queryParameter('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.'),
  fieldValidation: queryParameter(
    'fieldValidation',
    'string',
    'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. This is the default behavior prior to v1.23. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. The request will still succeed if there are no other errors, and will only persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present. The error returned from the server will contain all unknown and duplicate fields encountered.',
  ),
  force: queryParameter('force', 'boolean', 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.'),
  gracePeriodSeconds: queryParameter('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately. If this value is nil, the default grace period for the specified type will be used. Defaults to a per object value if not specified. zero means delete immediately.'),
  orphanDependents: queryParameter('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned. If true/false, the "orphan" finalizer will be added to/removed from the object\'s finalizers list. Either this field or PropagationPolicy may be set, but not both.'),
  propagationPolicy: queryParameter('propagationPolicy', 'string', "Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, but not both. The default policy is decided by the existing finalizer set in the metadata.finalizers and the resource-specific default policy. Acceptable values are: 'Orphan' - orphan the dependents; 'Background' - allow the garbage collector to delete the dependents in the background; 'Foreground' - a cascading policy that deletes all dependents in the foreground."),
  allowWatchBookmarks: queryParameter('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers that do not implement bookmarks may ignore this flag and bookmarks are sent at the server\'s discretion. Clients should not assume bookmarks are returned at any specific interval, nor may they assume the server will send any BOOKMARK event during a session. If this is not a watch, this field is ignored.'),
  continue: queryParameter('continue', 'string', 'The continue option should be set when retrieving more results from the server. Since this value is server defined, clients may only use the continue value from a previous query result with identical query parameters (except for the value of continue) and the server may reject a continue value it does not recognize.'),
  fieldSelector: queryParameter('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  labelSelector: queryParameter('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  limit: queryParameter('limit', 'integer', 'limit is a maximum number of responses to return for a list call. If more items exist, the server will set the `continue` field on the list metadata to a value that can be used with the same initial query to retrieve the next set of results.'),
  resourceVersion: queryParameter('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from. See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset'),
  resourceVersionMatch: queryParameter('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls. It is highly recommended that resourceVersionMatch be set for list calls where resourceVersion is set See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset'),
  sendInitialEvents: queryParameter('sendInitialEvents', 'boolean', '`sendInitialEvents=true` may be set together with `watch=true`. In that case, the watch stream will begin with synthetic events to produce the current state of objects in the collection.'),
  timeoutSeconds: queryParameter('timeoutSeconds', 'integer', 'Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity.'),
  watch: queryParameter('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.'),
};

const LIST_PARAMETERS = [
  PARAMETERS.allowWatchBookmarks,
  PARAMETERS.continue,
  PARAMETERS.fieldSelector,
  PARAMETERS.labelSelector,
  PARAMETERS.limit,
  PARAMETERS.resourceVersion,
  PARAMETERS.resourceVersionMatch,
  PARAMETERS.sendInitialEvents,
  PARAMETERS.timeoutSeconds,
  PARAMETERS.watch,
];
const WRITE_PARAMETERS = [PARAMETERS.dryRun, PARAMETERS.fieldManager, PARAMETERS.fieldValidation];
const PATCH_PARAMETERS = [...WRITE_PARAMETERS, PARAMETERS.force];
const DELETE_PARAMETERS = [PARAMETERS.dryRun, PARAMETERS.gracePeriodSeconds, PARAMETERS.orphanDependents, PARAMETERS.propagationPolicy];

function pathParameter(name: string, description: string): Record<string, unknown> {
  return { description, in: 'path', name, required: true, schema: { type: 'string', uniqueItems: true } };
}

// ---------------------------------------------------------------------------------------------
// Operations

/** `apps` → `AppsV1`, `rbac.authorization.k8s.io` → `RbacAuthorizationV1`, core → `CoreV1` (upstream operationIds). */
function operationGroupName(group: string, version: string): string {
  const words = group === '' ? ['core'] : group.replace(/\.k8s\.io$/, '').split(/[.-]/);
  return words.map(capitalize).join('') + capitalize(version);
}

function tag(group: string, version: string): string {
  const words = group === '' ? ['core'] : group.replace(/\.k8s\.io$/, '').split(/[.-]/);
  return words.map((word, index) => (index === 0 ? word : capitalize(word))).join('') + '_' + version;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function content(schema: OpenApiSchema, types: string[]): Record<string, { schema: OpenApiSchema }> {
  return Object.fromEntries(types.map((type) => [type, { schema }]));
}

function okResponses(schema: OpenApiSchema | undefined, codes: string[]): Record<string, unknown> {
  const descriptions: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };
  const responses: Record<string, unknown> = {};
  for (const code of codes) {
    responses[code] = schema ? { content: content(schema, RESPONSE_TYPES), description: descriptions[code] } : { description: descriptions[code] };
  }
  responses['401'] = { description: 'Unauthorized' };
  return responses;
}

interface OperationInput {
  action: string;
  operationId: string;
  description: string;
  gvk: GroupVersionKind | undefined;
  tag: string;
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, unknown>;
}

function operation(input: OperationInput): Record<string, unknown> {
  const result: Record<string, unknown> = { description: input.description, operationId: input.operationId };
  if (input.parameters && input.parameters.length > 0) result.parameters = input.parameters;
  if (input.requestBody) result.requestBody = input.requestBody;
  result.responses = input.responses;
  result.tags = [input.tag];
  result['x-kubernetes-action'] = input.action;
  // Upstream key order (group, kind, version); kubectl explain compares these maps for equality.
  if (input.gvk) result['x-kubernetes-group-version-kind'] = { group: input.gvk.group, kind: input.gvk.kind, version: input.gvk.version };
  return result;
}

function bodyOf(schema: OpenApiSchema | undefined): Record<string, unknown> | undefined {
  if (!schema) return undefined;
  return { content: content(schema, ['*/*']), required: true };
}

function patchBody(): Record<string, unknown> {
  const patch = schemaReference(`${META}.Patch`);
  // No application/strategic-merge-patch+json: see the header comment.
  return { content: content(patch, ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json']), required: true };
}

// ---------------------------------------------------------------------------------------------
// Kind schemas: built-in components, or synthesised for custom resources.

/** `stable.example.com` → `com.example.stable` (upstream CRD component naming). */
function reversedGroup(group: string): string {
  return group.split('.').reverse().join('.');
}

function isSchemaRecord(value: unknown): value is OpenApiSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function customResourceSchemas(resource: ServedResource): Record<string, OpenApiSchema> {
  const base = `${reversedGroup(resource.group)}.${resource.version}.${resource.kind}`;
  const gvk = (kind: string): GroupVersionKind[] => [{ group: resource.group, kind, version: resource.version }];
  const typeMeta: Record<string, OpenApiSchema> = {
    apiVersion: { description: `APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: ${API_CONVENTIONS}#resources`, type: 'string' },
    kind: { description: `Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: ${API_CONVENTIONS}#types-kinds`, type: 'string' },
  };
  const given = isSchemaRecord(resource.openAPIV3Schema) ? resource.openAPIV3Schema : undefined;
  const object: OpenApiSchema = given ? { ...given } : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  object.type = 'object';
  object.properties = {
    ...(given?.properties ?? {}),
    ...typeMeta,
    metadata: { allOf: [schemaReference(`${META}.ObjectMeta`)], description: `Standard object's metadata. More info: ${API_CONVENTIONS}#metadata` },
  };
  object['x-kubernetes-group-version-kind'] = gvk(resource.kind);
  const list: OpenApiSchema = {
    description: `${resource.kind}List is a list of ${resource.kind}`,
    properties: {
      ...typeMeta,
      items: { description: `List of ${resource.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, items: schemaReference(base), type: 'array' },
      metadata: { allOf: [schemaReference(`${META}.ListMeta`)], description: `Standard list metadata. More info: ${API_CONVENTIONS}#types-kinds` },
    },
    required: ['items'],
    type: 'object',
    'x-kubernetes-group-version-kind': gvk(`${resource.kind}List`),
  };
  return { [base]: object, [`${base}List`]: list };
}

// ---------------------------------------------------------------------------------------------
// Documents

/** Build the document of one group-version from the resources served in it. */
export function buildGroupVersionDocument(group: string, version: string, resources: readonly ServedResource[]): OpenApiDocument {
  const schemas: Record<string, OpenApiSchema> = { ...builtinSchemas };
  const roots = new Set<string>([`${META}.Status`, `${META}.DeleteOptions`, `${META}.Patch`, `${META}.APIResourceList`]);
  const paths: Record<string, Record<string, unknown>> = {};
  const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const groupName = operationGroupName(group, version);
  const operationTag = tag(group, version);

  /** Component for a kind: built-in, else the custom resource's (added to `schemas`). */
  const kindSchema = (kindGroup: string, kindVersion: string, kind: string): OpenApiSchema | undefined => {
    const name = builtinSchemaName(kindGroup, kindVersion, kind);
    if (name) {
      roots.add(name);
      return schemaReference(name);
    }
    return undefined;
  };

  paths[`${prefix}/`] = {
    get: operation({
      action: 'get',
      operationId: `get${groupName}APIResources`,
      description: 'get available resources',
      gvk: undefined,
      tag: operationTag,
      responses: okResponses(schemaReference(`${META}.APIResourceList`), ['200']),
    }),
  };

  for (const resource of [...resources].sort((left, right) => left.resource.localeCompare(right.resource))) {
    const gvk: GroupVersionKind = { group: resource.group, version: resource.version, kind: resource.kind };
    let objectSchema = kindSchema(resource.group, resource.version, resource.kind);
    let listSchema = kindSchema(resource.group, resource.version, `${resource.kind}List`);
    if (!objectSchema) {
      const custom = customResourceSchemas(resource);
      Object.assign(schemas, custom);
      for (const name of Object.keys(custom)) roots.add(name);
      const [objectName, listName] = Object.keys(custom);
      objectSchema = schemaReference(objectName);
      listSchema = schemaReference(listName);
    }
    const scope = resource.namespaced ? 'Namespaced' : '';
    const kindName = resource.kind;
    const collection = resource.namespaced ? `${prefix}/namespaces/{namespace}/${resource.resource}` : `${prefix}/${resource.resource}`;
    const item = `${collection}/{name}`;
    const verbs = new Set(resource.verbs);
    const common = [PARAMETERS.pretty];
    const namespaceParameter = pathParameter('namespace', 'object name and auth scope, such as for teams and projects');
    const nameParameter = (kind: string): Record<string, unknown> => pathParameter('name', `name of the ${kind}`);
    const status = schemaReference(`${META}.Status`);
    const deleteBody = bodyOf(schemaReference(`${META}.DeleteOptions`));

    const collectionOperations: Record<string, unknown> = {};
    if (verbs.has('list')) {
      collectionOperations.get = operation({ action: 'list', operationId: `list${groupName}${scope}${kindName}`, description: `list or watch objects of kind ${kindName}`, gvk, tag: operationTag, parameters: LIST_PARAMETERS, responses: okResponses(listSchema, ['200']) });
    }
    if (verbs.has('create')) {
      collectionOperations.post = operation({ action: 'post', operationId: `create${groupName}${scope}${kindName}`, description: `create a ${kindName}`, gvk, tag: operationTag, parameters: WRITE_PARAMETERS, requestBody: bodyOf(objectSchema), responses: okResponses(objectSchema, ['200', '201', '202']) });
    }
    if (verbs.has('deletecollection')) {
      collectionOperations.delete = operation({ action: 'deletecollection', operationId: `deletecollection${groupName}${scope}${kindName}`, description: `delete collection of ${kindName}`, gvk, tag: operationTag, parameters: [...DELETE_PARAMETERS, ...LIST_PARAMETERS.filter((parameter) => parameter.name !== 'watch' && parameter.name !== 'allowWatchBookmarks')], requestBody: deleteBody, responses: okResponses(status, ['200']) });
    }
    if (Object.keys(collectionOperations).length > 0) {
      paths[collection] = { ...collectionOperations, parameters: resource.namespaced ? [namespaceParameter, ...common] : common };
    }
    if (resource.namespaced && verbs.has('list')) {
      paths[`${prefix}/${resource.resource}`] = {
        get: operation({ action: 'list', operationId: `list${groupName}${kindName}ForAllNamespaces`, description: `list or watch objects of kind ${kindName}`, gvk, tag: operationTag, responses: okResponses(listSchema, ['200']) }),
        parameters: [...LIST_PARAMETERS, ...common],
      };
    }

    const itemOperations: Record<string, unknown> = {};
    if (verbs.has('get')) {
      itemOperations.get = operation({ action: 'get', operationId: `read${groupName}${scope}${kindName}`, description: `read the specified ${kindName}`, gvk, tag: operationTag, responses: okResponses(objectSchema, ['200']) });
    }
    if (verbs.has('update')) {
      itemOperations.put = operation({ action: 'put', operationId: `replace${groupName}${scope}${kindName}`, description: `replace the specified ${kindName}`, gvk, tag: operationTag, parameters: WRITE_PARAMETERS, requestBody: bodyOf(objectSchema), responses: okResponses(objectSchema, ['200', '201']) });
    }
    if (verbs.has('patch')) {
      itemOperations.patch = operation({ action: 'patch', operationId: `patch${groupName}${scope}${kindName}`, description: `partially update the specified ${kindName}`, gvk, tag: operationTag, parameters: PATCH_PARAMETERS, requestBody: patchBody(), responses: okResponses(objectSchema, ['200', '201']) });
    }
    if (verbs.has('delete')) {
      itemOperations.delete = operation({ action: 'delete', operationId: `delete${groupName}${scope}${kindName}`, description: `delete a ${kindName}`, gvk, tag: operationTag, parameters: DELETE_PARAMETERS, requestBody: deleteBody, responses: okResponses(status, ['200', '202']) });
    }
    const itemParameters = resource.namespaced ? [nameParameter(kindName), namespaceParameter, ...common] : [nameParameter(kindName), ...common];
    if (Object.keys(itemOperations).length > 0) paths[item] = { ...itemOperations, parameters: itemParameters };

    for (const subresource of resource.subresources) {
      const subresourceGvk: GroupVersionKind = { group: subresource.group, version: subresource.version, kind: subresource.kind || resource.kind };
      const subresourceSchema = subresource.kind === resource.kind || !subresource.kind ? objectSchema : kindSchema(subresource.group, subresource.version, subresource.kind);
      const subresourceName = capitalize(subresource.name === 'ephemeralcontainers' ? 'ephemeralContainers' : subresource.name);
      const suffix = `${scope}${kindName}${subresourceName}`;
      const subresourceVerbs = new Set(subresource.verbs ?? defaultSubresourceVerbs(subresource.name));
      const operations: Record<string, unknown> = {};
      if (CONNECT_SUBRESOURCES.has(subresource.name)) {
        const methods: [string, string][] = [['get', 'get'], ['create', 'post'], ['update', 'put'], ['patch', 'patch'], ['delete', 'delete']];
        for (const [verb, method] of methods) {
          if (!subresourceVerbs.has(verb)) continue;
          operations[method] = operation({ action: 'connect', operationId: `connect${groupName}${capitalize(method)}${suffix}`, description: `connect ${method.toUpperCase()} requests to ${subresource.name} of ${kindName}`, gvk: subresourceGvk, tag: operationTag, responses: { '200': { content: { '*/*': { schema: { type: 'string' } } }, description: 'OK' }, '401': { description: 'Unauthorized' } } });
        }
      } else {
        if (subresourceVerbs.has('get')) {
          const responses = subresource.name === 'log' ? { '200': { content: { 'text/plain': { schema: { type: 'string' } } }, description: 'OK' }, '401': { description: 'Unauthorized' } } : okResponses(subresourceSchema, ['200']);
          operations.get = operation({ action: 'get', operationId: `read${groupName}${suffix}`, description: `read ${subresource.name} of the specified ${kindName}`, gvk: subresourceGvk, tag: operationTag, responses });
        }
        if (subresourceVerbs.has('create')) {
          operations.post = operation({ action: 'post', operationId: `create${groupName}${suffix}`, description: `create ${subresource.name} of a ${kindName}`, gvk: subresourceGvk, tag: operationTag, parameters: WRITE_PARAMETERS, requestBody: bodyOf(subresourceSchema), responses: okResponses(subresourceSchema, ['200', '201', '202']) });
        }
        if (subresourceVerbs.has('update')) {
          operations.put = operation({ action: 'put', operationId: `replace${groupName}${suffix}`, description: `replace ${subresource.name} of the specified ${kindName}`, gvk: subresourceGvk, tag: operationTag, parameters: WRITE_PARAMETERS, requestBody: bodyOf(subresourceSchema), responses: okResponses(subresourceSchema, ['200', '201']) });
        }
        if (subresourceVerbs.has('patch')) {
          operations.patch = operation({ action: 'patch', operationId: `patch${groupName}${suffix}`, description: `partially update ${subresource.name} of the specified ${kindName}`, gvk: subresourceGvk, tag: operationTag, parameters: PATCH_PARAMETERS, requestBody: patchBody(), responses: okResponses(subresourceSchema, ['200', '201']) });
        }
      }
      if (Object.keys(operations).length > 0) paths[`${item}/${subresource.name}`] = { ...operations, parameters: itemParameters };
    }
  }

  const reachable = reachableSchemas(roots, schemas);
  const components: Record<string, OpenApiSchema> = {};
  for (const name of [...reachable].sort()) components[name] = schemas[name];
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION },
    paths: Object.fromEntries(Object.entries(paths).sort(([left], [right]) => left.localeCompare(right))),
    components: { schemas: components },
  };
}

function defaultSubresourceVerbs(name: string): string[] {
  if (name === 'status' || name === 'scale' || name === 'ephemeralcontainers' || name === 'resize') return ['get', 'patch', 'update'];
  if (name === 'log') return ['get'];
  if (name === 'eviction' || name === 'binding' || name === 'token') return ['create'];
  if (CONNECT_SUBRESOURCES.has(name)) return ['get', 'create'];
  return ['get'];
}

function serialize(value: unknown): SerializedDocument {
  const body = JSON.stringify(value);
  const hash = createHash('sha512').update(body).digest('hex').toUpperCase();
  return { body, hash, etag: `"${hash}"` };
}

/**
 * Serves the /openapi/v3 index and documents for the current set of served resources. Documents are
 * built lazily and cached until `setResources` is called again (e.g. after a CRD is added).
 */
export class OpenApiService {
  private resourcesByPath = new Map<string, ServedResource[]>();
  private readonly documents = new Map<string, SerializedDocument>();
  private cachedIndex: OpenApiIndex | undefined;
  private cachedSwagger: string | undefined;

  constructor(resources: readonly ServedResource[] = []) {
    this.setResources(resources);
  }

  setResources(resources: readonly ServedResource[]): void {
    const byPath = new Map<string, ServedResource[]>();
    for (const resource of resources) {
      const path = groupVersionPath(resource.group, resource.version);
      const list = byPath.get(path) ?? [];
      list.push(resource);
      byPath.set(path, list);
    }
    this.resourcesByPath = byPath;
    this.documents.clear();
    this.cachedIndex = undefined;
    this.cachedSwagger = undefined;
  }

  /** /openapi/v2 as JSON: every served group-version merged into one Swagger 2.0 document. */
  swaggerV2(): string {
    if (!this.cachedSwagger) {
      const documents = [...this.resourcesByPath.values()].filter((list) => list.length > 0).map((list) => buildGroupVersionDocument(list[0].group, list[0].version, list));
      this.cachedSwagger = JSON.stringify(buildSwaggerV2(documents, KUBERNETES_VERSION));
    }
    return this.cachedSwagger;
  }

  /** `{paths: {"api/v1": {serverRelativeURL: "/openapi/v3/api/v1?hash=…"}, …}}` listing every served group-version. */
  index(): OpenApiIndex {
    if (!this.cachedIndex) {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const path of [...this.resourcesByPath.keys()].sort()) {
        const document = this.document(path);
        if (document) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${document.hash}` };
      }
      this.cachedIndex = { paths };
    }
    return this.cachedIndex;
  }

  /** The index serialised, with its own hash for an ETag. */
  indexDocument(): SerializedDocument {
    return serialize(this.index());
  }

  /**
   * One group-version document. `path` is `api/v1` or `apis/<group>/<version>`; a leading
   * `/openapi/v3/`, leading slash or query string is tolerated. Undefined when that group-version is not served.
   */
  document(path: string): SerializedDocument | undefined {
    const key = path.replace(/\?.*$/, '').replace(/^\/?(openapi\/v3\/)?/, '').replace(/\/$/, '');
    const cached = this.documents.get(key);
    if (cached) return cached;
    const resources = this.resourcesByPath.get(key);
    if (!resources || resources.length === 0) return undefined;
    const first = resources[0];
    const document = serialize(buildGroupVersionDocument(first.group, first.version, resources));
    this.documents.set(key, document);
    return document;
  }
}
