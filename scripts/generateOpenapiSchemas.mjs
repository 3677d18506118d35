// Generates main/apiserver/openapi/schemas.generated.json: OpenAPI v3 component schemas for the
// built-in kinds kubedesk serves, named and shaped as the upstream kube-apiserver publishes them
// under /openapi/v3 (io.k8s.api.apps.v1.Deployment, `allOf: [{$ref}]` wrapping, `x-kubernetes-group-version-kind`).
//
// Source: the models of the installed dev package @kubernetes/client-node (generated from the upstream
// swagger), read as text: `<Model>.js` holds `attributeTypeMap` (field name, JSON name, type, format)
// and `<Model>.d.ts` holds the JSDoc descriptions and which fields are required. What client-node
// drops (Quantity, RawExtension, FieldsV1, the apiextensions JSON helpers) comes from small tables below.
// client-node also drops the extensions server-side apply reads (`x-kubernetes-list-type`,
// `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`, and the defaults of list-map keys): those
// come from upstream's own schema, extracted into scripts/data/upstreamApplyTypes.json by
// scripts/extractUpstreamApplyTypes.mjs.
//
// Usage: node scripts/generateOpenapiSchemas.mjs
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const generatedDirectory = join(root, 'node_modules/@kubernetes/client-node/dist/gen');
const modelsDirectory = join(generatedDirectory, 'models');
const apisDirectory = join(generatedDirectory, 'apis');
const outputFile = join(root, 'main/apiserver/openapi/schemas.generated.json');
const applyTypesFile = join(root, 'scripts/data/upstreamApplyTypes.json');
/** upstream schema name → its apply extensions (type level, and per property) */
const applyTypes = JSON.parse(readFileSync(applyTypesFile, 'utf8')).schemas;
let applyExtensionsUsed = 0;

const REF_PREFIX = '#/components/schemas/';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const APIEXTENSIONS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';

/** Served groups: client-node API file → group, version, upstream package name of its models. */
const GROUPS = [
  { api: 'CoreV1Api', group: '', version: 'v1', prefix: 'io.k8s.api.core.v1' },
  { api: 'AppsV1Api', group: 'apps', version: 'v1', prefix: 'io.k8s.api.apps.v1' },
  { api: 'BatchV1Api', group: 'batch', version: 'v1', prefix: 'io.k8s.api.batch.v1' },
  { api: 'AutoscalingV1Api', group: 'autoscaling', version: 'v1', prefix: 'io.k8s.api.autoscaling.v1' },
  { api: 'AutoscalingV2Api', group: 'autoscaling', version: 'v2', prefix: 'io.k8s.api.autoscaling.v2' },
  { api: 'CoordinationV1Api', group: 'coordination.k8s.io', version: 'v1', prefix: 'io.k8s.api.coordination.v1' },
  { api: 'DiscoveryV1Api', group: 'discovery.k8s.io', version: 'v1', prefix: 'io.k8s.api.discovery.v1' },
  { api: 'EventsV1Api', group: 'events.k8s.io', version: 'v1', prefix: 'io.k8s.api.events.v1' },
  { api: 'PolicyV1Api', group: 'policy', version: 'v1', prefix: 'io.k8s.api.policy.v1' },
  { api: 'RbacAuthorizationV1Api', group: 'rbac.authorization.k8s.io', version: 'v1', prefix: 'io.k8s.api.rbac.v1' },
  { api: 'NetworkingV1Api', group: 'networking.k8s.io', version: 'v1', prefix: 'io.k8s.api.networking.v1' },
  { api: 'StorageV1Api', group: 'storage.k8s.io', version: 'v1', prefix: 'io.k8s.api.storage.v1' },
  { api: 'ApiextensionsV1Api', group: 'apiextensions.k8s.io', version: 'v1', prefix: APIEXTENSIONS },
  { api: 'AuthenticationV1Api', group: 'authentication.k8s.io', version: 'v1', prefix: 'io.k8s.api.authentication.v1' },
  { api: 'AuthorizationV1Api', group: 'authorization.k8s.io', version: 'v1', prefix: 'io.k8s.api.authorization.v1' },
  { api: 'AdmissionregistrationV1Api', group: 'admissionregistration.k8s.io', version: 'v1', prefix: 'io.k8s.api.admissionregistration.v1' },
  { api: 'SchedulingV1Api', group: 'scheduling.k8s.io', version: 'v1', prefix: 'io.k8s.api.scheduling.v1' },
  { api: 'NodeV1Api', group: 'node.k8s.io', version: 'v1', prefix: 'io.k8s.api.node.v1' },
  { api: 'CertificatesV1Api', group: 'certificates.k8s.io', version: 'v1', prefix: 'io.k8s.api.certificates.v1' },
];

/** client-node prefixes the classes whose short name exists in several groups (CoreV1Event, EventsV1Event). */
const CLASS_PREFIXES = {
  CoreV1: 'CoreV1Api',
  EventsV1: 'EventsV1Api',
  AdmissionregistrationV1: 'AdmissionregistrationV1Api',
  ApiextensionsV1: 'ApiextensionsV1Api',
  AuthenticationV1: 'AuthenticationV1Api',
  DiscoveryV1: 'DiscoveryV1Api',
  RbacV1: 'RbacAuthorizationV1Api',
  StorageV1: 'StorageV1Api',
};

/** apimachinery meta/v1 types, which no API file lists as its own. */
const META_CLASSES = [
  'APIGroup', 'APIGroupList', 'APIResource', 'APIResourceList', 'APIVersions', 'Condition', 'DeleteOptions',
  'FieldSelectorRequirement', 'GroupVersionForDiscovery', 'LabelSelector', 'LabelSelectorRequirement', 'ListMeta',
  'ManagedFieldsEntry', 'ObjectMeta', 'OwnerReference', 'Preconditions', 'ServerAddressByClientCIDR', 'Status',
  'StatusCause', 'StatusDetails', 'WatchEvent',
].map((name) => `V1${name}`);

/** Kinds that are only served as subresources or create-only endpoints of another group's API file. */
const TOP_LEVEL_BY_HAND = {
  V1Binding: 'CoreV1Api',
  V1Eviction: 'PolicyV1Api',
  V1Scale: 'AutoscalingV1Api',
  AuthenticationV1TokenRequest: 'AuthenticationV1Api',
};

/** Fields client-node types as plain strings (or maps of strings) that upstream types as resource.Quantity. */
const QUANTITY_FIELDS = {
  V1ResourceRequirements: ['limits', 'requests'],
  V1VolumeResourceRequirements: ['limits', 'requests'],
  V1ResourceQuotaSpec: ['hard'],
  V1ResourceQuotaStatus: ['hard', 'used'],
  V1LimitRangeItem: ['default', 'defaultRequest', 'max', 'maxLimitRequestRatio', 'min'],
  V1NodeStatus: ['allocatable', 'capacity'],
  V1PersistentVolumeSpec: ['capacity'],
  V1PersistentVolumeClaimStatus: ['allocatedResources', 'capacity'],
  V1EmptyDirVolumeSource: ['sizeLimit'],
  V1ResourceFieldSelector: ['divisor'],
  V1PodSpec: ['overhead'],
  V1ContainerStatus: ['allocatedResources'],
  V1CSIStorageCapacity: ['capacity', 'maximumVolumeSize'],
  V1Overhead: ['podFixed'],
};

/** Fields client-node types as `any`: the upstream schema each one refers to. */
const ANY_FIELDS = {
  'V1ControllerRevision.data': RAW_EXTENSION,
  'V1WatchEvent.object': RAW_EXTENSION,
  'V1ManagedFieldsEntry.fieldsV1': `${META}.FieldsV1`,
  'V1CustomResourceSubresources.status': `${APIEXTENSIONS}.CustomResourceSubresourceStatus`,
  'V1JSONSchemaProps.default': `${APIEXTENSIONS}.JSON`,
  'V1JSONSchemaProps.example': `${APIEXTENSIONS}.JSON`,
  'V1JSONSchemaProps.items': `${APIEXTENSIONS}.JSONSchemaPropsOrArray`,
  'V1JSONSchemaProps.additionalItems': `${APIEXTENSIONS}.JSONSchemaPropsOrBool`,
  'V1JSONSchemaProps.additionalProperties': `${APIEXTENSIONS}.JSONSchemaPropsOrBool`,
  'V1JSONSchemaProps.dependencies': `${APIEXTENSIONS}.JSONSchemaPropsOrStringArray`,
};

const API_CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';

/** Schemas client-node has no class for, written as upstream publishes them. */
const SYNTHETIC_SCHEMAS = {
  [QUANTITY]: {
    description:
      'Quantity is a fixed-point representation of a number. It provides convenient marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64() accessors.\n\nThe serialization format is:\n\n``` <quantity>        ::= <signedNumber><suffix>\n\n\t(Note that <suffix> may be empty, from the "" case in <decimalSI>.)\n\n<digit>           ::= 0 | 1 | ... | 9 <digits>          ::= <digit> | <digit><digits> <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits> <sign>            ::= "+" | "-" <signedNumber>    ::= <number> | <sign><number> <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI> <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei\n\n\t(International System of units; See: http://physics.nist.gov/cuu/Units/binary.html)\n\n<decimalSI>       ::= m | "" | k | M | G | T | P | E\n\n\t(Note that 1024 = 1Ki but 1000 = 1k; I didn\'t choose the capitalization.)\n\n<decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber> ```\n\nNo matter which of the three exponent forms is used, no quantity may represent a number greater than 2^63-1 in magnitude, nor may it have more than 3 decimal places. Numbers larger or more precise will be capped or rounded up. (E.g.: 0.1m will rounded up to 1m.) This may be extended in the future if we require larger or smaller quantities.\n\nWhen a Quantity is parsed from a string, it will remember the type of suffix it had, and will use the same type again when it is serialized.',
    oneOf: [{ type: 'string' }, { type: 'number' }],
  },
  [INT_OR_STRING]: {
    description:
      'IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    'x-kubernetes-int-or-string': true,
  },
  [`${META}.Time`]: {
    description:
      'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers.',
    format: 'date-time',
    type: 'string',
  },
  [`${META}.MicroTime`]: {
    description: 'MicroTime is version of Time with microsecond level precision.',
    format: 'date-time',
    type: 'string',
  },
  [`${META}.FieldsV1`]: {
    description:
      "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.\n\nEach key is either a '.' representing the field itself, and will always map to an empty set, or a string representing a sub-field or item. The string will follow one of these four formats: 'f:<name>', where <name> is the name of a field in a struct, or key in a map 'v:<value>', where <value> is the exact json formatted value of a list item 'i:<index>', where <index> is position of a item in atomic list 'k:<keys>', where <keys> is a map of  a list item's key fields to their unique values If a key maps to an empty Fields value, the field that key represents is part of the set.\n\nThe exact format is defined in sigs.k8s.io/structured-merge-diff",
    type: 'object',
  },
  [`${META}.Patch`]: {
    description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
    type: 'object',
  },
  [RAW_EXTENSION]: {
    description:
      'RawExtension is used to hold extensions in external versions.\n\nTo use this, make a field which has RawExtension as its type in your external version struct, and Object in your internal struct. You also need to register your various plugin types.',
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  },
  [`${APIEXTENSIONS}.JSON`]: {
    description:
      'JSON represents any valid JSON value. These types are supported: bool, int64, float64, string, []interface{}, map[string]interface{} and nil.',
    'x-kubernetes-preserve-unknown-fields': true,
  },
  [`${APIEXTENSIONS}.JSONSchemaPropsOrArray`]: {
    description:
      'JSONSchemaPropsOrArray represents a value that can either be a JSONSchemaProps or an array of JSONSchemaProps. Mainly here for serialization purposes.',
    'x-kubernetes-preserve-unknown-fields': true,
  },
  [`${APIEXTENSIONS}.JSONSchemaPropsOrBool`]: {
    description:
      'JSONSchemaPropsOrBool represents JSONSchemaProps or a boolean value. Defaults to true for the boolean property.',
    'x-kubernetes-preserve-unknown-fields': true,
  },
  [`${APIEXTENSIONS}.JSONSchemaPropsOrStringArray`]: {
    description: 'JSONSchemaPropsOrStringArray represents a JSONSchemaProps or a string array.',
    'x-kubernetes-preserve-unknown-fields': true,
  },
  [`${APIEXTENSIONS}.CustomResourceSubresourceStatus`]: {
    description:
      'CustomResourceSubresourceStatus defines how to serve the status subresource for CustomResources. Status is represented by the `.status` JSON path inside of a CustomResource. When set, * exposes a /status subresource for the custom resource * PUT requests to the /status subresource take a custom resource object, and ignore changes to anything except the status stanza * PUT/POST/PATCH requests to the custom resource ignore changes to the status stanza',
    type: 'object',
  },
};

/** metrics.k8s.io/v1beta1 (metrics-server) is not in client-node: hand-made as metrics-server publishes it. */
function metricsSchemas() {
  const prefix = 'io.k8s.metrics.pkg.apis.metrics.v1beta1';
  const gvk = (kind) => [{ group: 'metrics.k8s.io', kind, version: 'v1beta1' }];
  const typeMeta = {
    apiVersion: { description: 'APIVersion defines the versioned schema of this representation of an object.', type: 'string' },
    kind: { description: 'Kind is a string value representing the REST resource this object represents.', type: 'string' },
  };
  const usage = {
    description: 'The memory and CPU usage.',
    type: 'object',
    additionalProperties: { $ref: REF_PREFIX + QUANTITY },
  };
  const objectMetadata = {
    allOf: [{ $ref: `${REF_PREFIX}${META}.ObjectMeta` }],
    default: {},
    description: `Standard object's metadata. More info: ${API_CONVENTIONS}#metadata`,
  };
  const listMetadata = {
    allOf: [{ $ref: `${REF_PREFIX}${META}.ListMeta` }],
    default: {},
    description: `Standard list metadata. More info: ${API_CONVENTIONS}#types-kinds`,
  };
  const timestamp = {
    allOf: [{ $ref: `${REF_PREFIX}${META}.Time` }],
    description: 'The following fields define time interval from which metrics were collected from the interval [Timestamp-Window, Timestamp].',
  };
  const window = { description: 'The window of time the metrics were gathered over.', type: 'string' };
  const list = (kind, item) => ({
    description: `${kind} is a list of ${item}.`,
    properties: {
      ...typeMeta,
      items: { description: `List of ${item} objects.`, items: { allOf: [{ $ref: `${REF_PREFIX}${prefix}.${item}` }], default: {} }, type: 'array' },
      metadata: listMetadata,
    },
    required: ['items'],
    type: 'object',
    'x-kubernetes-group-version-kind': gvk(kind),
  });
  return {
    [`${prefix}.ContainerMetrics`]: {
      description: 'ContainerMetrics sets resource usage metrics of a container.',
      properties: { name: { description: 'Container name corresponding to the one from pod.spec.containers.', type: 'string' }, usage },
      required: ['name', 'usage'],
      type: 'object',
    },
    [`${prefix}.NodeMetrics`]: {
      description: 'NodeMetrics sets resource usage metrics of a node.',
      properties: { ...typeMeta, metadata: objectMetadata, timestamp, usage, window },
      required: ['timestamp', 'window', 'usage'],
      type: 'object',
      'x-kubernetes-group-version-kind': gvk('NodeMetrics'),
    },
    [`${prefix}.NodeMetricsList`]: list('NodeMetricsList', 'NodeMetrics'),
    [`${prefix}.PodMetrics`]: {
      description: 'PodMetrics sets resource usage metrics of a pod.',
      properties: {
        ...typeMeta,
        containers: {
          description: 'Metrics for all containers are collected within the same time window.',
          items: { allOf: [{ $ref: `${REF_PREFIX}${prefix}.ContainerMetrics` }], default: {} },
          type: 'array',
          'x-kubernetes-list-type': 'atomic',
        },
        metadata: objectMetadata,
        timestamp,
        window,
      },
      required: ['timestamp', 'window', 'containers'],
      type: 'object',
      'x-kubernetes-group-version-kind': gvk('PodMetrics'),
    },
    [`${prefix}.PodMetricsList`]: list('PodMetricsList', 'PodMetrics'),
  };
}

// ---------------------------------------------------------------------------------------------
// Reading client-node

function unescapeDescription(text) {
  return text.replace(/\\(["'\\])/g, '$1').trim();
}

/** `<Model>.js` → [{name, baseName, type, format}] */
function readAttributeTypeMap(className) {
  const text = readFileSync(join(modelsDirectory, `${className}.js`), 'utf8');
  const match = text.match(new RegExp(`${className}\\.attributeTypeMap = (\\[[\\s\\S]*?\\]);`));
  if (!match) return undefined;
  return JSON.parse(match[1]);
}

/** `<Model>.d.ts` → class description, per-field descriptions and required fields. */
function readDeclarations(className) {
  const lines = readFileSync(join(modelsDirectory, `${className}.d.ts`), 'utf8').split('\n');
  let pending = [];
  let inComment = false;
  let classDescription = '';
  const fieldDescriptions = new Map();
  const required = new Set();
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed.startsWith('/**')) {
      inComment = true;
      pending = [];
      continue;
    }
    if (inComment) {
      if (trimmed.startsWith('*/')) {
        inComment = false;
      } else {
        pending.push(trimmed.replace(/^\* ?/, ''));
      }
      continue;
    }
    if (trimmed.startsWith('export declare class')) {
      classDescription = unescapeDescription(pending.join('\n'));
      pending = [];
      continue;
    }
    const field = trimmed.match(/^'([^']+)'(\?)?:/);
    if (field) {
      if (pending.length > 0) fieldDescriptions.set(field[1], unescapeDescription(pending.join('\n')));
      if (!field[2]) required.add(field[1]);
      pending = [];
    } else if (trimmed !== '') {
      pending = [];
    }
  }
  return { classDescription, fieldDescriptions, required };
}

/** Return types of an API file's operations, by operation name (`listNamespacedDeployment` → `V1DeploymentList`). */
function readOperationReturnTypes(apiFile) {
  const text = readFileSync(join(apisDirectory, `${apiFile}.d.ts`), 'utf8');
  const result = new Map();
  for (const match of text.matchAll(/(\w+)WithHttpInfo\(response: ResponseContext\): Promise<HttpInfo<(\w+)>>/g)) {
    result.set(match[1], match[2]);
  }
  return result;
}

const modelClasses = new Set(
  readdirSync(modelsDirectory)
    .filter((file) => file.endsWith('.js'))
    .map((file) => file.slice(0, -3)),
);

/** Class names a client-node type string refers to (`Array<V1Container>`, `{ [key: string]: V1X; }`). */
function referencedClasses(type) {
  return [...type.matchAll(/[A-Z][A-Za-z0-9]*/g)].map((match) => match[0]).filter((name) => modelClasses.has(name));
}

function shortName(className) {
  for (const prefix of Object.keys(CLASS_PREFIXES)) {
    if (className.startsWith(prefix) && className.length > prefix.length && /[A-Z]/.test(className[prefix.length])) {
      return className.slice(prefix.length);
    }
  }
  return className.replace(/^V[12](?=[A-Z])/, '');
}

// ---------------------------------------------------------------------------------------------
// Assigning each class to its upstream package

const groupByApi = new Map(GROUPS.map((group) => [group.api, group]));
/** className → upstream schema name */
const upstreamName = new Map();
/** className → GVK list for top-level kinds */
const kinds = new Map();

function assign(className, prefix) {
  if (!upstreamName.has(className)) upstreamName.set(className, `${prefix}.${shortName(className)}`);
}

for (const className of META_CLASSES) assign(className, META);

const topLevelByGroup = new Map(GROUPS.map((group) => [group.api, []]));
function addTopLevel(className, api) {
  const group = groupByApi.get(api);
  if (upstreamName.has(className) || !modelClasses.has(className)) return;
  assign(className, group.prefix);
  kinds.set(className, [{ group: group.group, kind: shortName(className), version: group.version }]);
  topLevelByGroup.get(api).push(className);
}

for (const [className, api] of Object.entries(TOP_LEVEL_BY_HAND)) addTopLevel(className, api);
for (const group of GROUPS) {
  const operations = readOperationReturnTypes(group.api);
  for (const [operation, listClass] of operations) {
    if (!operation.startsWith('list') || !listClass.endsWith('List')) continue;
    const items = readAttributeTypeMap(listClass)?.find((attribute) => attribute.baseName === 'items');
    const itemClass = items?.type.match(/^Array<(\w+)>$/)?.[1];
    if (!itemClass) continue;
    addTopLevel(itemClass, group.api);
    addTopLevel(listClass, group.api);
  }
  // Create-only kinds (TokenReview, SubjectAccessReview…): nothing lists them.
  for (const [operation, returned] of operations) {
    if (operation.startsWith('create') && !returned.startsWith('V1Status')) addTopLevel(returned, group.api);
  }
}

// Nested classes belong to the first group (in GROUPS order, core first) whose kinds reach them:
// PodTemplateSpec is core even though apps reaches it too.
const attributeCache = new Map();
function attributesOf(className) {
  if (!attributeCache.has(className)) attributeCache.set(className, readAttributeTypeMap(className) ?? []);
  return attributeCache.get(className);
}
function assignReachable(start, prefix) {
  const queue = [...start];
  while (queue.length > 0) {
    const className = queue.shift();
    for (const attribute of attributesOf(className)) {
      for (const referenced of referencedClasses(attribute.type)) {
        if (upstreamName.has(referenced)) continue;
        const explicitApi = Object.entries(CLASS_PREFIXES).find(([classPrefix]) => referenced.startsWith(classPrefix))?.[1];
        assign(referenced, explicitApi ? groupByApi.get(explicitApi).prefix : prefix);
        queue.push(referenced);
      }
    }
  }
}
assignReachable(META_CLASSES, META);
for (const group of GROUPS) assignReachable(topLevelByGroup.get(group.api), group.prefix);

// ---------------------------------------------------------------------------------------------
// Building schemas

function reference(name) {
  return { $ref: REF_PREFIX + name };
}

/** Schema of one value of client-node type `type` (no description). */
function valueSchema(type, format, quantity) {
  const array = type.match(/^Array<(.+)>$/);
  if (array) return { type: 'array', items: itemSchema(array[1], format, quantity) };
  const map = type.match(/^\{ \[key: string\]: (.+); \}$/);
  if (map) return { type: 'object', additionalProperties: itemSchema(map[1], format, quantity) };
  if (quantity && type === 'string') return reference(QUANTITY);
  switch (type) {
    case 'string':
      return format === 'byte' ? { type: 'string', format: 'byte' } : { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'number':
      if (format === 'int32' || format === 'int64') return { type: 'integer', format };
      return format ? { type: 'number', format } : { type: 'number' };
    case 'V1MicroTime':
      return reference(`${META}.MicroTime`);
    case 'Date':
      return reference(format === 'date-time-micro' ? `${META}.MicroTime` : `${META}.Time`);
    case 'IntOrString':
      return reference(INT_OR_STRING);
    case 'any':
      return reference(RAW_EXTENSION);
    default: {
      const name = upstreamName.get(type);
      if (!name) throw new Error(`no upstream name for client-node type ${type}`);
      return reference(name);
    }
  }
}

/** Array items and map values: upstream wraps struct references as `allOf` with `default: {}`. */
function itemSchema(type, format, quantity) {
  const schema = valueSchema(type, format, quantity);
  if (schema.$ref && schema.$ref !== REF_PREFIX + QUANTITY && upstreamName.has(type)) {
    return { allOf: [schema], default: {} };
  }
  return schema;
}

const classByUpstreamName = new Map();
function targetDescription(ref) {
  const name = ref.slice(REF_PREFIX.length);
  if (SYNTHETIC_SCHEMAS[name]) return SYNTHETIC_SCHEMAS[name].description;
  if (classByUpstreamName.size === 0) for (const [className, upstream] of upstreamName) classByUpstreamName.set(upstream, className);
  const className = classByUpstreamName.get(name);
  return className ? readDeclarations(className).classDescription : '';
}

function sameText(left, right) {
  const normalize = (text) => text.replace(/\s+/g, ' ').trim();
  return normalize(left) === normalize(right);
}

function buildSchema(className, reachable) {
  const { classDescription, fieldDescriptions, required } = readDeclarations(className);
  const attributes = attributesOf(className);
  const isList = kinds.has(className) && className.endsWith('List') && attributes.some((attribute) => attribute.baseName === 'items');
  const properties = {};
  for (const attribute of [...attributes].sort((left, right) => left.baseName.localeCompare(right.baseName))) {
    const quantity = (QUANTITY_FIELDS[className] ?? []).includes(attribute.baseName);
    let schema;
    const anyTarget = ANY_FIELDS[`${className}.${attribute.baseName}`];
    if (attribute.type === 'any' && anyTarget) schema = reference(anyTarget);
    else if (attribute.type === '{ [key: string]: any; }' && anyTarget) {
      schema = { type: 'object', additionalProperties: reference(anyTarget) };
    } else schema = valueSchema(attribute.type, attribute.format, quantity);
    let description = fieldDescriptions.get(attribute.name) ?? fieldDescriptions.get(attribute.baseName) ?? '';
    if (!description && attribute.baseName === 'metadata' && schema.$ref === `${REF_PREFIX}${META}.ObjectMeta`) {
      description = `Standard object's metadata. More info: ${API_CONVENTIONS}#metadata`;
    } else if (!description && attribute.baseName === 'metadata' && schema.$ref === `${REF_PREFIX}${META}.ListMeta`) {
      description = `Standard list metadata. More info: ${API_CONVENTIONS}#types-kinds`;
    } else if (!description && schema.$ref && upstreamName.has(attribute.type)) {
      // client-node drops the descriptions of fields that refer to another type. Reusing the referred
      // type's description keeps `kubectl explain` field lists from showing "<no description>"; it
      // sits beside the `$ref` rather than in upstream's `allOf` wrapping because explain prints the
      // field's and the type's descriptions one after the other for an `allOf`, which would repeat it.
      schema = { $ref: schema.$ref, description: readDeclarations(attribute.type).classDescription };
    }
    if (schema.$ref && description && sameText(description, targetDescription(schema.$ref))) {
      // client-node copied the referred type's description onto the field (IntOrString fields): same case as above.
      schema = { $ref: schema.$ref, description };
    } else if (schema.$ref && schema.description) {
      // already complete (see above)
    } else if (schema.$ref) {
      schema = description ? { allOf: [schema], description } : schema;
    } else if (description) {
      schema = { description, ...schema };
    }
    for (const referenced of referencedClasses(attribute.type)) reachable.add(referenced);
    const extensions = applyTypes[upstreamName.get(className)]?.properties?.[attribute.baseName];
    if (extensions) {
      schema = { ...schema, ...extensions };
      applyExtensionsUsed++;
    }
    properties[attribute.baseName] = schema;
  }
  const result = {};
  if (classDescription) result.description = classDescription;
  if (Object.keys(properties).length > 0) result.properties = properties;
  const requiredList = attributes.filter((attribute) => required.has(attribute.name)).map((attribute) => attribute.baseName);
  if (requiredList.length > 0) result.required = requiredList;
  result.type = 'object';
  if (kinds.has(className)) result['x-kubernetes-group-version-kind'] = kinds.get(className);
  const mapType = applyTypes[upstreamName.get(className)]?.['x-kubernetes-map-type'];
  if (mapType) result['x-kubernetes-map-type'] = mapType;
  if (isList) result['x-kubernetes-list-kind'] = true;
  return result;
}

const schemas = {};
const pending = [...upstreamName.keys()];
const done = new Set();
while (pending.length > 0) {
  const className = pending.shift();
  if (done.has(className)) continue;
  done.add(className);
  const reachable = new Set();
  schemas[upstreamName.get(className)] = buildSchema(className, reachable);
  for (const referenced of reachable) if (!done.has(referenced)) pending.push(referenced);
}
// Marker used only while generating; upstream has no such extension.
for (const schema of Object.values(schemas)) delete schema['x-kubernetes-list-kind'];

// Upstream publishes these meta kinds with the GVKs they are served under.
schemas[`${META}.Status`]['x-kubernetes-group-version-kind'] = [{ group: '', kind: 'Status', version: 'v1' }];
schemas[`${META}.DeleteOptions`]['x-kubernetes-group-version-kind'] = GROUPS.map((group) => ({
  group: group.group,
  kind: 'DeleteOptions',
  version: group.version,
}));
schemas[`${META}.WatchEvent`]['x-kubernetes-group-version-kind'] = GROUPS.map((group) => ({
  group: group.group,
  kind: 'WatchEvent',
  version: group.version,
}));

Object.assign(schemas, SYNTHETIC_SCHEMAS, metricsSchemas());

// Every $ref must resolve, or kubectl explain and the validator would dead-end.
const missing = new Set();
JSON.stringify(schemas, (key, value) => {
  if (key === '$ref' && typeof value === 'string' && !schemas[value.slice(REF_PREFIX.length)]) missing.add(value);
  return value;
});
if (missing.size > 0) throw new Error(`unresolved references: ${[...missing].join(', ')}`);

const sorted = Object.fromEntries(Object.entries(schemas).sort(([left], [right]) => left.localeCompare(right)));
mkdirSync(dirname(outputFile), { recursive: true });
const text = JSON.stringify(sorted);
writeFileSync(outputFile, text + '\n');
console.log(`wrote ${Object.keys(sorted).length} schemas, ${text.length} bytes, to ${outputFile} (${applyExtensionsUsed} fields with apply extensions)`);
