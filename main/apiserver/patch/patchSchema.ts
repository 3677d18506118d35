// Strategic-merge-patch metadata for built-in kinds: which lists merge (and by which key), which
// maps are replaced whole, which fields carry the retainKeys strategy. Upstream reads this from the
// Go struct tags (`patchStrategy:"merge" patchMergeKey:"name"`) of k8s.io/api types
// (core/v1, apps/v1, batch/v1, policy/v1, …) and k8s.io/apimachinery ObjectMeta; this is our own
// table of those tags. Fields absent from the table behave like untagged Go fields: maps merge
// key by key, lists are replaced whole. Untagged lists upstream (tolerations, readinessGates,
// envFrom, Endpoints subsets, containerStatuses, …) are therefore simply not listed.
import { hasOwn } from './jsonValue';

export type PatchStrategy = 'merge' | 'replace';

export interface PatchFieldSchema {
  /** Lists: `merge` merges (by mergeKey, or as a set for primitives); maps: `replace` replaces whole. */
  readonly strategy?: PatchStrategy;
  /** Lists of objects with strategy merge: the field identifying an element. */
  readonly mergeKey?: string;
  /** Upstream `retainKeys` strategy: clients send `$retainKeys` for this field (or each element). */
  readonly retainKeys?: boolean;
  /** For an object-valued field: the schema of its members. */
  readonly schema?: PatchSchema;
  /** For a list-valued field: the schema of each element. */
  readonly items?: PatchSchema;
}

/** One level of the tree: the known members of an object. */
export interface PatchSchema {
  readonly fields: Readonly<Record<string, PatchFieldSchema>>;
}

/** No metadata: every map merges, every list is replaced (JSON-merge-like, as for custom resources). */
export const emptyPatchSchema: PatchSchema = { fields: {} };

/** The metadata of `name` within `schema`, if it has any. */
export function lookupPatchField(schema: PatchSchema, name: string): PatchFieldSchema | undefined {
  return hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
}

function object(fields: Record<string, PatchFieldSchema>): PatchSchema {
  return { fields };
}

function mergeList(mergeKey: string, items?: PatchSchema, retainKeys = false): PatchFieldSchema {
  return retainKeys ? { strategy: 'merge', mergeKey, items, retainKeys } : { strategy: 'merge', mergeKey, items };
}

/** A list of primitives merged as a set (e.g. metadata.finalizers). */
const primitiveSet: PatchFieldSchema = { strategy: 'merge' };
const conditionsByType = mergeList('type');

// k8s.io/apimachinery/pkg/apis/meta/v1 ObjectMeta
const objectMeta = object({
  finalizers: primitiveSet,
  ownerReferences: mergeList('uid'),
});

// core/v1 Container and EphemeralContainerCommon (EphemeralContainer inlines it)
const container = object({
  ports: mergeList('containerPort'),
  env: mergeList('name'),
  volumeMounts: mergeList('mountPath'),
  volumeDevices: mergeList('devicePath'),
});

// core/v1 PodSpec
const podSpec = object({
  volumes: mergeList('name', undefined, true),
  initContainers: mergeList('name', container),
  containers: mergeList('name', container),
  ephemeralContainers: mergeList('name', container),
  imagePullSecrets: mergeList('name'),
  hostAliases: mergeList('ip'),
  topologySpreadConstraints: mergeList('topologyKey'),
  schedulingGates: mergeList('name'),
  resourceClaims: mergeList('name', undefined, true),
  evictionResponders: mergeList('name'),
});

// core/v1 ContainerStatus
const containerStatus = object({
  volumeMounts: mergeList('mountPath'),
  allocatedResourcesStatus: mergeList('name'),
});

// core/v1 PodStatus (container status lists themselves are untagged, so they are replaced)
const podStatus = object({
  conditions: conditionsByType,
  hostIPs: mergeList('ip'),
  podIPs: mergeList('ip'),
  resourceClaimStatuses: mergeList('name', undefined, true),
  nodeAllocatableResourceClaimStatuses: mergeList('resourceClaimName', object({ mapping: mergeList('name'), overhead: mergeList('name') })),
  containerStatuses: { items: containerStatus },
  initContainerStatuses: { items: containerStatus },
  ephemeralContainerStatuses: { items: containerStatus },
});

const podTemplateSpec = object({
  metadata: { schema: objectMeta },
  spec: { schema: podSpec },
});

/** A kind whose only tagged fields are in metadata. */
const metadataOnly = object({ metadata: { schema: objectMeta } });

function kindSchema(fields: Record<string, PatchFieldSchema>): PatchSchema {
  return object({ metadata: { schema: objectMeta }, ...fields });
}

function specAndStatus(spec: Record<string, PatchFieldSchema>, status: Record<string, PatchFieldSchema>): PatchSchema {
  return kindSchema({ spec: { schema: object(spec) }, status: { schema: object(status) } });
}

const statusWithConditions = { conditions: conditionsByType };

// batch/v1 JobSpec
const jobSpec = object({ template: { schema: podTemplateSpec } });

// admissionregistration/v1 webhooks and policies
const webhook = object({ matchConditions: mergeList('name') });
const admissionPolicy = kindSchema({ spec: { schema: object({ matchConditions: mergeList('name'), variables: mergeList('name') }) } });

const schemas: Readonly<Record<string, PatchSchema>> = {
  // core/v1
  'v1/Pod': kindSchema({ spec: { schema: podSpec }, status: { schema: podStatus } }),
  'v1/PodTemplate': kindSchema({ template: { schema: podTemplateSpec } }),
  'v1/ReplicationController': specAndStatus({ template: { schema: podTemplateSpec } }, statusWithConditions),
  'v1/Service': specAndStatus({ ports: mergeList('port') }, statusWithConditions),
  'v1/Node': specAndStatus({ podCIDRs: primitiveSet }, { conditions: conditionsByType, addresses: mergeList('type') }),
  'v1/Namespace': kindSchema({ status: { schema: object(statusWithConditions) } }),
  'v1/PersistentVolumeClaim': kindSchema({ status: { schema: object(statusWithConditions) } }),
  'v1/ServiceAccount': kindSchema({ secrets: mergeList('name') }),
  'v1/ComponentStatus': kindSchema({ conditions: conditionsByType }),
  'v1/ConfigMap': metadataOnly,
  'v1/Secret': metadataOnly,
  'v1/Endpoints': metadataOnly,
  'v1/Event': metadataOnly,
  'v1/LimitRange': metadataOnly,
  'v1/ResourceQuota': metadataOnly,
  'v1/PersistentVolume': metadataOnly,
  'v1/Binding': metadataOnly,
  // apps/v1
  'apps/v1/Deployment': specAndStatus({ template: { schema: podTemplateSpec }, strategy: { retainKeys: true } }, statusWithConditions),
  'apps/v1/ReplicaSet': specAndStatus({ template: { schema: podTemplateSpec } }, statusWithConditions),
  'apps/v1/StatefulSet': specAndStatus({ template: { schema: podTemplateSpec } }, statusWithConditions),
  'apps/v1/DaemonSet': specAndStatus({ template: { schema: podTemplateSpec } }, statusWithConditions),
  'apps/v1/ControllerRevision': metadataOnly,
  // batch/v1
  'batch/v1/Job': kindSchema({ spec: { schema: jobSpec }, status: { schema: object(statusWithConditions) } }),
  'batch/v1/CronJob': kindSchema({ spec: { schema: object({ jobTemplate: { schema: object({ metadata: { schema: objectMeta }, spec: { schema: jobSpec } }) } }) } }),
  // autoscaling
  'autoscaling/v2/HorizontalPodAutoscaler': kindSchema({ status: { schema: object(statusWithConditions) } }),
  'autoscaling/v1/HorizontalPodAutoscaler': metadataOnly,
  'autoscaling/v1/Scale': metadataOnly,
  // policy/v1
  'policy/v1/PodDisruptionBudget': specAndStatus({ selector: { strategy: 'replace' } }, statusWithConditions),
  'policy/v1/Eviction': metadataOnly,
  // networking.k8s.io/v1
  'networking.k8s.io/v1/Ingress': metadataOnly,
  'networking.k8s.io/v1/IngressClass': metadataOnly,
  'networking.k8s.io/v1/NetworkPolicy': metadataOnly,
  'networking.k8s.io/v1/ServiceCIDR': kindSchema({ status: { schema: object(statusWithConditions) } }),
  'networking.k8s.io/v1/IPAddress': metadataOnly,
  // storage.k8s.io/v1
  'storage.k8s.io/v1/StorageClass': metadataOnly,
  'storage.k8s.io/v1/CSIDriver': metadataOnly,
  'storage.k8s.io/v1/CSINode': kindSchema({ spec: { schema: object({ drivers: mergeList('name') }) }, status: { schema: object({ storageHealth: mergeList('name') }) } }),
  'storage.k8s.io/v1/VolumeAttachment': metadataOnly,
  // rbac, coordination, discovery, scheduling, node, events, certificates
  'rbac.authorization.k8s.io/v1/Role': metadataOnly,
  'rbac.authorization.k8s.io/v1/ClusterRole': metadataOnly,
  'rbac.authorization.k8s.io/v1/RoleBinding': metadataOnly,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': metadataOnly,
  'coordination.k8s.io/v1/Lease': metadataOnly,
  'discovery.k8s.io/v1/EndpointSlice': metadataOnly,
  'scheduling.k8s.io/v1/PriorityClass': metadataOnly,
  'node.k8s.io/v1/RuntimeClass': metadataOnly,
  'events.k8s.io/v1/Event': metadataOnly,
  'certificates.k8s.io/v1/CertificateSigningRequest': metadataOnly,
  // admissionregistration.k8s.io/v1
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': kindSchema({ webhooks: mergeList('name', webhook) }),
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': kindSchema({ webhooks: mergeList('name', webhook) }),
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': admissionPolicy,
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': metadataOnly,
  // flowcontrol.apiserver.k8s.io/v1
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema': kindSchema({ status: { schema: object(statusWithConditions) } }),
  'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration': kindSchema({ status: { schema: object(statusWithConditions) } }),
  // apiextensions.k8s.io/v1 and apiregistration.k8s.io/v1 (typed, so they accept strategic merge patch)
  'apiextensions.k8s.io/v1/CustomResourceDefinition': metadataOnly,
  'apiregistration.k8s.io/v1/APIService': kindSchema({ status: { schema: object(statusWithConditions) } }),
};

/** The strategic-merge metadata of a built-in kind, or emptyPatchSchema for any other kind. */
export function patchSchemaFor(apiVersion: string, kind: string): PatchSchema {
  const key = `${apiVersion}/${kind}`;
  return hasOwn(schemas, key) ? schemas[key] : emptyPatchSchema;
}

/**
 * Whether the kind is one of the built-in types listed here. Upstream accepts strategic merge
 * patch only for built-in (Go-typed) kinds and answers 415 for custom resources.
 */
export function hasPatchSchema(apiVersion: string, kind: string): boolean {
  return hasOwn(schemas, `${apiVersion}/${kind}`);
}
