// KindStrategy: everything the API server knows about one kind at one group/version, declared in
// one kind file (main/registry/kinds/<group>/<kind>.ts), as upstream keeps it in
// pkg/registry/<group>/<kind>/strategy.go (PrepareForCreate, PrepareForUpdate, Validate,
// AllowCreateOnUpdate, CheckGracefulDelete…) and storage/storage.go (which subresources the kind
// has and what stands behind them). The generic store and the request handlers in main/apiserver
// call these hooks and never name a kind. Pure: imports only shared/ and the registry's libraries.
import type { KubeObject } from '../../shared/kubernetes/types';
import { selectorToString } from '../../shared/kubernetes/labelSelector';
import { formatTime } from '../../shared/kubernetes/time';
import { isRecord } from '../../shared/kubernetes/types';
import type { TableDef } from '../../shared/printers/table';
import type { FieldError } from './fieldErrors';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/**
 * Handlers that need more than the object (the store, the token issuer, the kubelets, the
 * network): a kind's strategy names the one it uses and the API server's plugins provide it
 * (`ApiServer.provideSubresource`). A declared subresource without a provider answers 405.
 */
export type SubresourceProvider =
  | 'eviction'
  | 'serviceAccountToken'
  | 'podLog'
  | 'podExec'
  | 'podAttach'
  | 'podPortForward'
  | 'podProxy'
  | 'serviceProxy'
  | 'nodeProxy';

/**
 * Allocation after validation on create and on updates of the main resource (upstream's service
 * REST BeginCreate/BeginUpdate), provided by the API server with the cluster's configuration.
 */
export type AllocatorName = 'serviceAddresses';

interface SubresourceCommon {
  /** e.g. `status`, `scale`, `eviction` */
  name: string;
  /** the kind a request to the subresource carries and admission sees (Scale, Eviction, the parent's kind…) */
  kind: string;
  group: string;
  version: string;
  verbs: string[];
}

/**
 * A subresource that writes the parent object through another update strategy (upstream
 * statusStrategy, finalizeNamespaceStrategy, csrApprovalStrategy): GET, PUT and PATCH; the kind's
 * validation runs as well.
 */
export interface UpdateSubresource extends SubresourceCommon {
  type: 'update';
  /** Copies from the stored object what this subresource may not change. */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /** Validation beyond the kind's own (e.g. finalizer names). */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /**
   * `validateUpdate` is the whole validation of a write through this subresource, the kind's own
   * create and update validation do not run (upstream strategies whose ValidateUpdate stands alone:
   * pods/ephemeralcontainers, which the pod's update rules would refuse).
   */
  replacesKindValidation?: boolean;
  /**
   * The built-in validating admission plugins see writes through this subresource, named in their
   * attributes (upstream PodSecurity checks pods/ephemeralcontainers; quota and limits skip it).
   */
  admitted?: boolean;
}

/**
 * The autoscaling/v1 Scale view of an object (upstream ScaleREST, and apiextensions' for custom
 * resources): replicas read from and written to these paths; writes are updates of the main resource.
 */
export interface ScaleSubresource extends SubresourceCommon {
  type: 'scale';
  specReplicasPath: string;
  statusReplicasPath: string;
  /** status.selector of the Scale: the label selector as a string, or undefined to leave it out */
  selector(obj: KubeObject): string | undefined;
}

/**
 * POST of an object that is not stored (Binding, Eviction, TokenRequest): admission sees that
 * object, then either `apply` changes the parent (written below the field manager, as upstream's
 * BindingREST writes the pod directly) or the provided handler acts.
 */
export interface CreateSubresource extends SubresourceCommon {
  type: 'create';
  /** field errors of the posted object; `name` is the parent's */
  validate?(body: Record<string, unknown>, name: string): FieldError[];
  /** the parent after the action; may throw StrategyError */
  apply?(current: KubeObject, body: Record<string, unknown>, now: Date): KubeObject;
  provider?: SubresourceProvider;
}

/** Streams and proxies (log, exec, attach, portforward, proxy): provided handlers, no write admission. */
export interface ConnectSubresource extends SubresourceCommon {
  type: 'connect';
  provider: SubresourceProvider;
}

/** Listed in discovery as upstream serves it; kubedesk answers 405 until it implements it. */
export interface UnservedSubresource extends SubresourceCommon {
  type: 'unserved';
}

export type Subresource = UpdateSubresource | ScaleSubresource | CreateSubresource | ConnectSubresource | UnservedSubresource;

/** What a kind file declares about a subresource; its kind defaults to the parent's. */
export type SubresourceDescription = DistributiveOmit<Subresource, 'kind' | 'group' | 'version' | 'verbs'> & Partial<Pick<SubresourceCommon, 'kind' | 'group' | 'version' | 'verbs'>>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface DeletionContext {
  /** the finalizers the object carries once deleted with these options */
  finalizers: string[];
  /** DeleteOptions.gracePeriodSeconds */
  gracePeriodSeconds?: number;
  now: Date;
}

/**
 * A version served by converting from the stored version (upstream's conversion functions in
 * pkg/apis/<group>/<version>/conversion.go): requests are forwarded to `storageVersion`.
 */
export interface Conversion {
  storageVersion: string;
  /** an object (or, with `partial`, an apply configuration) of this version in the storage version */
  toStorage(obj: Record<string, unknown>, partial?: boolean): Record<string, unknown>;
  /** a stored object in this version */
  fromStorage(obj: KubeObject): KubeObject;
}

/** Raised by a strategy hook for refusals that are not field errors (upstream errors.NewConflict…). */
export class StrategyError extends Error {
  constructor(
    readonly reason: 'Conflict' | 'MethodNotAllowed',
    message: string,
  ) {
    super(message);
    this.name = 'StrategyError';
  }
}

/** Who makes a request (upstream user.Info from the request context). */
export interface RequestUser {
  name: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** What a create knows besides the object (upstream's request context). */
export interface CreateContext {
  /** undefined for kubedesk's internal writes, which carry no user */
  user?: RequestUser;
}

/** The full description of a kind, with every hook present (defineKind fills what a kind leaves out). */
export interface KindStrategy {
  group: string; // '' for core
  version: string;
  /** plural, e.g. `deployments` */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: Subresource[];
  /** true when the kind has a status subresource: main-resource writes keep the old status, /status writes keep the old spec */
  hasStatus: boolean;
  /** true when metadata.generation increments on changes outside metadata and status */
  hasGeneration: boolean;
  /** Upstream defaults (pkg/apis/<group>/v1/defaults.go). Mutates the object; the store tolerates a throw. */
  defaults(obj: KubeObject): void;
  /** Strategy PrepareForCreate: runs before defaults (status reset, generated fields, the requester of a CSR). */
  prepareForCreate(obj: KubeObject, context?: CreateContext): void;
  /** Strategy PrepareForUpdate of the main resource: keep what the main resource may not change. */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /** Upstream ValidateXxx, on the defaulted object; also run on every update. */
  validateCreate(obj: KubeObject): FieldError[];
  /** What upstream's ValidateXxxCreate checks beyond ValidateXxx, on create only (a pod's ephemeral containers). */
  validateCreateOnly?(obj: KubeObject): FieldError[];
  /** Upstream ValidateXxxUpdate (immutable fields etc.). */
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
  /** PUT of a missing object creates it (upstream AllowCreateOnUpdate). */
  allowCreateOnUpdate: boolean;
  /**
   * Upstream BeforeDelete/CheckGracefulDelete: `next` is a copy of the stored object with the
   * deletion's finalizers; returns it as it waits for deletion, or undefined to remove it now.
   */
  gracefulDelete(next: KubeObject, context: DeletionContext): KubeObject | undefined;
  /** Whether an object being deleted and holding no finalizer may go (pods wait for their grace period). */
  readyToRemove(obj: KubeObject): boolean;
  /**
   * What happens to dependents when a delete names no propagation policy and the object holds no
   * garbage-collection finalizer (upstream DefaultGarbageCollectionPolicy): `Background` for all but
   * core/v1 ReplicationControllers, which orphan for backwards compatibility.
   */
  defaultGarbageCollectionPolicy: 'Background' | 'Orphan';
  /** DELETE answers with the deleted object rather than a Status (upstream ReturnDeletedObject). */
  returnDeletedObject: boolean;
  allocator?: AllocatorName;
  conversion?: Conversion;
  /** `kubectl get` columns (shared/printers, the same the UI prints) */
  printer: TableDef;
  /** Field-selector values beyond metadata.name / metadata.namespace (upstream ToSelectableFields). */
  selectableFields(obj: KubeObject): Record<string, string>;
  /**
   * Prunes fields a schema outside the generated OpenAPI does not know (custom resources) and
   * returns them as `unknown field "…"` texts; absent for kinds the generated schemas cover.
   */
  pruneUnknownFields?(obj: KubeObject): string[];
  /** the schema OpenAPI publishes for a kind outside the generated schemas */
  openAPIV3Schema?: unknown;
}

/** What a kind file writes: identity and printer, and only the hooks where the kind differs. */
export type KindDescription = Pick<KindStrategy, 'group' | 'version' | 'resource' | 'kind' | 'namespaced' | 'printer'> &
  Partial<Omit<KindStrategy, 'group' | 'version' | 'resource' | 'kind' | 'namespaced' | 'printer' | 'subresources' | 'hasStatus'>> & {
    subresources?: SubresourceDescription[];
  };

export const standardVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** Fills the hooks a kind leaves out with the generic store's behaviour. */
export function defineKind(description: KindDescription): KindStrategy {
  const subresources = (description.subresources ?? []).map((sub): Subresource => ({
    ...sub,
    kind: sub.kind ?? description.kind,
    group: sub.group ?? description.group,
    version: sub.version ?? description.version,
    verbs: sub.verbs ?? defaultVerbs(sub.type),
  }) as Subresource);
  return {
    singular: description.kind.toLowerCase(),
    listKind: `${description.kind}List`,
    shortNames: [],
    categories: [],
    verbs: standardVerbs,
    hasGeneration: false,
    defaults: () => undefined,
    prepareForCreate: () => undefined,
    prepareForUpdate: () => undefined,
    validateCreate: () => [],
    validateUpdate: () => [],
    allowCreateOnUpdate: false,
    gracefulDelete: waitForFinalizers,
    readyToRemove: () => true,
    defaultGarbageCollectionPolicy: 'Background',
    returnDeletedObject: false,
    selectableFields: () => ({}),
    ...description,
    subresources,
    hasStatus: subresources.some((sub) => sub.name === 'status'),
  };
}

function defaultVerbs(type: Subresource['type']): string[] {
  return type === 'create' ? ['create'] : ['get', 'patch', 'update'];
}

/** The group, version and kind of a subresource's objects. */
export function subresourceKind(subresource: Pick<Subresource, 'group' | 'version' | 'kind'>): GroupVersionKind {
  return { group: subresource.group, version: subresource.version, kind: subresource.kind };
}

/** The subresource of that name, or undefined. */
export function subresourceOf(strategy: Pick<KindStrategy, 'subresources'>, name: string): Subresource | undefined {
  return strategy.subresources.find((sub) => sub.name === name);
}

// ---------------------------------------------------------------- building blocks kind files share

/**
 * The generic store's deletion: an object holding finalizers waits for them with a
 * deletionTimestamp (set once, grace period 0, generation bumped); otherwise it goes at once.
 */
export function waitForFinalizers(next: KubeObject, context: DeletionContext): KubeObject | undefined {
  if (context.finalizers.length === 0) return undefined;
  if (!next.metadata.deletionTimestamp) {
    next.metadata.deletionTimestamp = formatTime(context.now);
    next.metadata.deletionGracePeriodSeconds = 0;
    if (next.metadata.generation !== undefined) next.metadata.generation += 1;
  }
  return next;
}

/** Main-resource updates keep the stored status (kinds whose status is written through /status). */
export function keepStoredStatus(obj: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete obj.status;
  else obj.status = structuredClone(old.status);
}

/** A status write keeps everything but metadata and status from the stored object (upstream statusStrategy). */
export function keepAllButStatus(obj: KubeObject, old: KubeObject): void {
  for (const key of Object.keys(obj)) if (key !== 'metadata' && key !== 'status' && key !== 'apiVersion' && key !== 'kind') delete obj[key];
  for (const [key, value] of Object.entries(old)) if (key !== 'metadata' && key !== 'status' && key !== 'apiVersion' && key !== 'kind') obj[key] = structuredClone(value);
}

/** The `status` subresource of kinds whose status is written apart from their spec. */
export function statusSubresource(): SubresourceDescription {
  return { name: 'status', type: 'update', prepareForUpdate: keepAllButStatus };
}

function labelSelectorOfSpec(obj: KubeObject): string {
  return isRecord(obj.spec) ? selectorToString(obj.spec.selector) : '';
}

/**
 * The autoscaling/v1 Scale of workloads with spec.replicas and status.replicas (upstream
 * pkg/registry/apps/*\/storage ScaleREST); its status.selector is `selector` of the object, by
 * default the LabelSelector in spec.selector as a string.
 */
export function replicasScaleSubresource(selector: (obj: KubeObject) => string = labelSelectorOfSpec): SubresourceDescription {
  return {
    name: 'scale',
    type: 'scale',
    group: 'autoscaling',
    version: 'v1',
    kind: 'Scale',
    specReplicasPath: 'spec.replicas',
    statusReplicasPath: 'status.replicas',
    selector,
  };
}

/**
 * The status half of a kind whose status the cluster writes through /status (upstream's
 * statusStrategy beside the kind's strategy): the `status` subresource (after the Scale of
 * spec.replicas, with `scale`), a create that starts from `initial` whatever status the client
 * sent, and main-resource updates that keep the stored status.
 */
export function withStatus(initial: Record<string, unknown>, options: { scale?: boolean } = {}): Pick<KindDescription, 'subresources' | 'prepareForCreate' | 'prepareForUpdate'> {
  return {
    subresources: options.scale ? [replicasScaleSubresource(), statusSubresource()] : [statusSubresource()],
    prepareForCreate: (obj) => {
      obj.status = structuredClone(initial);
    },
    prepareForUpdate: keepStoredStatus,
  };
}

/** A create-time step that leaves a body of the wrong shape for validation to report. */
export function leniently(step: (obj: KubeObject) => void): (obj: KubeObject) => void {
  return (obj) => {
    try {
      step(obj);
    } catch {
      // validation reports the malformed field
    }
  };
}

/** A string of a field for selectable fields: '' when absent. */
export function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : String(value);
}

/** The value at a path of nested records, or undefined. */
export function valueAt(obj: unknown, ...path: string[]): unknown {
  let current: unknown = obj;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}
