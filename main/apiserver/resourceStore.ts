// The generic write/read path for every kind, after upstream's generic registry store
// (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go) and the request handlers
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/{create,update,patch,delete,get}.go):
// type checks, strict field validation, defaulting, validation, optimistic concurrency, generation,
// finalizers and graceful deletion, dry run. What differs between kinds comes from each kind's
// strategy (main/registry/kinds): this file names no kind. Everything here works on plain JSON objects.
import { jsonEqual } from '../../shared/kubernetes/json';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { AllocatorName, KindStrategy, Subresource } from '../registry/strategy';
import { StrategyError, subresourceOf } from '../registry/strategy';
import type { FieldError } from '../registry/fieldErrors';
import { fieldErrors } from '../registry/fieldErrors';
import { apiVersionOf, qualifiedResource } from '../registry/resources';
import type { Store, ObjectKey, ListResult } from '../storage/store';
import { StorageError } from '../storage/store';
import type { HistoryOperation, WriteRecorder } from '../storage/history';
import { ApiError } from './apiError';
import { requireObjectBody } from './content';
import { generateName, newUid, nowTimestamp } from './objectMeta';
import { decodeAgainstSchema, decodeErrorMessage, strictDecodingMessage } from './openapi/fieldValidation';
import type { FieldRequirement, LabelRequirement } from './selectors';
import { matchesFields, matchesLabels } from './selectors';
import { managerName, recordUpdate, sameManagedFields } from './fieldManager/managedFields';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  fieldManager?: string;
  /** names the manager when fieldManager is absent (upstream uses the User-Agent prefix) */
  userAgent?: string;
  /** set for server-side apply: the applied object already carries its managedFields */
  apply?: { force: boolean };
  /** who writes (HTTPS requests and identified components); undefined for kubedesk's internal calls */
  user?: { name: string; groups: string[]; uid?: string; extra?: Record<string, string[]> };
  /** the authenticated user when the request impersonates `user` (recorded in history) */
  impersonator?: string;
  /** collected `Warning` header texts */
  warnings: string[];
}

/** An update: of the main resource, or through one of the kind's subresources (status, finalize…). */
export interface UpdateOptions extends WriteOptions {
  /** a subresource of the kind that writes the object: its update strategy applies */
  subresource?: string;
}

/** A patch: `mutate` turns the current object into the desired one. */
export interface PatchOptions extends UpdateOptions {
  /** builds the object when it does not exist (server-side apply creates) */
  createIfMissing?: () => unknown;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  /** Legacy form of propagationPolicy: true means Orphan, false means Background. */
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
  /** who deletes, for history (as WriteOptions) */
  user?: { name: string };
  impersonator?: string;
  userAgent?: string;
}

export interface ListQuery {
  namespace?: string;
  labels: LabelRequirement[];
  fields: FieldRequirement[];
  limit?: number;
  continueToken?: string;
}

const MAX_RETRIES = 8;

/** Mutating admission on create, after defaulting and before validation (upstream admission chain). */
export type CreateAdmission = (def: KindStrategy, obj: KubeObject, objects: ResourceStore) => void;

/**
 * An allocation a kind's strategy names (`allocator`): runs after validation on create and on
 * updates of the main resource (upstream's BeginCreate / BeginUpdate hooks, where the service REST
 * allocates cluster IPs and node ports); returns field errors to reject the write. `old` is
 * undefined on create.
 */
export type WriteAllocator = (def: KindStrategy, obj: KubeObject, old: KubeObject | undefined, objects: ResourceStore) => FieldError[];

/**
 * NamespaceLifecycle's refusal of new content in a namespace that is missing or terminating, asked
 * before anything else on create; `name` is the object's name or its generateName.
 */
export type NamespaceLifecycle = (namespace: string, def: KindStrategy, name: string) => void;

export interface ResourceStoreOptions {
  clock?: () => Date;
  /** the allocations kinds may name, by name */
  allocators?: Partial<Record<AllocatorName, WriteAllocator>>;
  namespaceLifecycle?: NamespaceLifecycle;
  /** told of every committed write (the object history); never of dry runs */
  history?: WriteRecorder;
}

/**
 * Validating admission (upstream's ValidationInterface plugins: LimitRanger, ResourceQuota,
 * PodSecurity): runs after validation and allocation on create and on updates of the main resource.
 * Throws ApiError to reject; may add `Warning` texts to `options.warnings`.
 */
export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE';
  def: KindStrategy;
  obj: KubeObject;
  old?: KubeObject;
  options: WriteOptions;
  objects: ResourceStore;
  /** a subresource the write goes through, when its kind lets admission see it (absent: the main resource) */
  subresource?: string;
}
export type ValidatingAdmission = (attributes: AdmissionAttributes) => void;

export class ResourceStore {
  private readonly admission: CreateAdmission[] = [];
  private readonly validating: ValidatingAdmission[] = [];
  private readonly clock: () => Date;

  constructor(
    private readonly store: Store,
    private readonly options: ResourceStoreOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date());
  }

  /** Adds a mutating admission plugin on create (run in the order added). */
  addMutatingAdmission(plugin: CreateAdmission): void {
    this.admission.push(plugin);
  }

  /** Adds a validating admission plugin (run in the order added). */
  addValidatingAdmission(plugin: ValidatingAdmission): void {
    this.validating.push(plugin);
  }

  private validateAdmission(attributes: AdmissionAttributes): void {
    for (const plugin of this.validating) plugin(attributes);
  }

  private allocate(def: KindStrategy, obj: KubeObject, old: KubeObject | undefined): void {
    const allocator = def.allocator && this.options.allocators?.[def.allocator];
    if (!allocator) return;
    const errors = allocator(def, obj, old, this);
    if (errors.length) throw ApiError.invalid(def.kind, def.group, obj.metadata.name ?? '', errors);
  }

  key(def: KindStrategy, namespace: string, name: string): ObjectKey {
    return { resource: qualifiedResource(def), namespace: def.namespaced ? namespace : '', name };
  }

  get(def: KindStrategy, namespace: string, name: string): KubeObject {
    const obj = this.store.get(this.key(def, namespace, name));
    if (!obj) throw ApiError.notFound(def, name);
    return withTypeMeta(def, obj);
  }

  tryGet(def: KindStrategy, namespace: string, name: string): KubeObject | undefined {
    const obj = this.store.get(this.key(def, namespace, name));
    return obj ? withTypeMeta(def, obj) : undefined;
  }

  currentRevision(): number {
    return this.store.currentRevision();
  }

  /** Matching function for list and watch. */
  matcher(def: KindStrategy, query: Pick<ListQuery, 'labels' | 'fields'>): (obj: KubeObject) => boolean {
    const { labels, fields } = query;
    if (labels.length === 0 && fields.length === 0) return () => true;
    return (obj) => {
      if (labels.length && !matchesLabels(labels, obj.metadata.labels)) return false;
      if (fields.length) {
        const values = { 'metadata.name': obj.metadata.name ?? '', 'metadata.namespace': obj.metadata.namespace ?? '', ...safeFields(def, obj) };
        if (!matchesFields(fields, values)) return false;
      }
      return true;
    };
  }

  list(def: KindStrategy, query: ListQuery): { items: KubeObject[]; resourceVersion: string; continueToken?: string; remainingItemCount?: number } {
    let after: { namespace: string; name: string } | undefined;
    if (query.continueToken) after = decodeContinue(query.continueToken);
    const filter = this.matcher(def, query);
    const namespace = def.namespaced ? query.namespace || undefined : undefined;
    const result: ListResult = this.store.list(qualifiedResource(def), { namespace, limit: query.limit, after, filter });
    const items = result.items.map((obj) => withTypeMeta(def, obj));
    const out: { items: KubeObject[]; resourceVersion: string; continueToken?: string; remainingItemCount?: number } = { items, resourceVersion: String(result.revision) };
    if (result.last) {
      out.continueToken = encodeContinue(result.revision, result.last);
      if (result.remaining !== undefined) out.remainingItemCount = result.remaining;
    }
    return out;
  }

  create(def: KindStrategy, namespace: string, body: unknown, options: WriteOptions): KubeObject {
    const obj = this.decodeObject(def, body, options);
    const metadata = obj.metadata;
    if (def.namespaced) {
      if (metadata.namespace && metadata.namespace !== namespace) {
        throw ApiError.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      metadata.namespace = namespace;
      this.options.namespaceLifecycle?.(namespace, def, metadata.name || metadata.generateName || 'Unknown');
    } else {
      delete metadata.namespace;
    }
    if (!metadata.name && metadata.generateName) metadata.name = generateName(metadata.generateName);
    if (!metadata.name) {
      throw ApiError.invalid(def.kind, def.group, '', [fieldErrors.required('metadata.name', 'name or generateName is required')]);
    }
    metadata.uid = newUid();
    metadata.creationTimestamp = nowTimestamp(this.clock());
    delete metadata.resourceVersion;
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    delete metadata.selfLink;
    if (def.hasGeneration) metadata.generation = 1;
    else delete metadata.generation;
    this.runStrategy(def, obj, () => {
      def.prepareForCreate(obj, { user: options.user });
      applyDefaults(def, obj);
      this.recordManager(obj, options, def, undefined);
      for (const admit of this.admission) admit(def, obj, this);
      return [...def.validateCreate(obj), ...(def.validateCreateOnly?.(obj) ?? [])];
    });
    this.allocate(def, obj, undefined);
    this.validateAdmission({ operation: 'CREATE', def, obj, options, objects: this });
    const key = this.key(def, namespace, metadata.name);
    if (options.dryRun) {
      if (this.store.get(key)) throw ApiError.alreadyExists(def, metadata.name);
      return obj;
    }
    try {
      return this.recorded(def, key, this.store.create(key, obj), 'CREATE', options);
    } catch (error) {
      throw this.mapStorageError(error, def, metadata.name);
    }
  }

  /** PUT of the main resource or of a subresource that writes the object (status, finalize…). */
  update(def: KindStrategy, namespace: string, name: string, body: unknown, options: UpdateOptions): { object: KubeObject; created: boolean } {
    const incoming = this.decodeObject(def, body, options);
    if (incoming.metadata.name && incoming.metadata.name !== name) {
      throw ApiError.badRequest(`the name of the object (${incoming.metadata.name}) does not match the name on the URL (${name})`);
    }
    if (def.namespaced && incoming.metadata.namespace && incoming.metadata.namespace !== namespace) {
      throw ApiError.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    incoming.metadata.name = name;
    const precondition = incoming.metadata.resourceVersion;
    const subresource = writingSubresource(def, options.subresource);
    for (let attempt = 0; ; attempt++) {
      const existing = this.store.get(this.key(def, namespace, name));
      if (!existing) {
        if (!subresource && def.allowCreateOnUpdate) {
          return { object: this.create(def, namespace, incoming, options), created: true };
        }
        throw ApiError.notFound(def, name);
      }
      try {
        const object = this.applyUpdate(def, existing, structuredClone(incoming), options, precondition, subresource, 'UPDATE');
        return { object, created: false };
      } catch (error) {
        if (error instanceof StorageError && error.code === 'Conflict' && !precondition && attempt < MAX_RETRIES) continue;
        throw this.mapStorageError(error, def, name);
      }
    }
  }

  /**
   * PATCH: `mutate` turns the current object into the desired one (and may throw ApiError). Retries
   * on concurrent writes like upstream's patcher. `options.createIfMissing` builds the object for apply.
   */
  patch(def: KindStrategy, namespace: string, name: string, mutate: (current: KubeObject) => unknown, options: PatchOptions): { object: KubeObject; created: boolean } {
    const subresource = writingSubresource(def, options.subresource);
    for (let attempt = 0; ; attempt++) {
      const existing = this.store.get(this.key(def, namespace, name));
      if (!existing) {
        if (options.createIfMissing && !subresource) return { object: this.create(def, namespace, options.createIfMissing(), options), created: true };
        throw ApiError.notFound(def, name);
      }
      const current = withTypeMeta(def, existing);
      const patched = strategyErrors(def, name, () => mutate(structuredClone(current)));
      const desired = this.decodeObject(def, patched, options, 'patch');
      // A resourceVersion in the patch is a precondition; otherwise the read version is.
      const patchPrecondition = desired.metadata.resourceVersion !== current.metadata.resourceVersion ? desired.metadata.resourceVersion : undefined;
      if (desired.metadata.name !== name) throw ApiError.badRequest(`the name of the object (${String(desired.metadata.name)}) does not match the name on the URL (${name})`);
      try {
        const operation = options.apply ? 'APPLY' : 'PATCH';
        return { object: this.applyUpdate(def, existing, desired, options, patchPrecondition ?? current.metadata.resourceVersion, subresource, operation), created: false };
      } catch (error) {
        if (error instanceof StorageError && error.code === 'Conflict' && !patchPrecondition && attempt < MAX_RETRIES) continue;
        if (error instanceof StorageError && error.code === 'Conflict' && !patchPrecondition) throw ApiError.conflict(def, name);
        throw this.mapStorageError(error, def, name);
      }
    }
  }

  /**
   * The update itself. `subresource` says how: absent for the main resource (the kind's
   * PrepareForUpdate, validation, allocation, validating admission, generation), and so for the
   * scale subresource, which only records itself in managedFields; an update subresource applies
   * its own strategy instead and leaves generation alone; a create subresource
   * that changes its parent (pods/binding) writes the whole object below the field manager, with
   * the kind's create validation only, as upstream's BindingREST writes the pod directly.
   */
  private applyUpdate(
    def: KindStrategy,
    existingRaw: KubeObject,
    desired: KubeObject,
    options: WriteOptions,
    precondition: string | undefined,
    subresource: Subresource | undefined,
    operation: HistoryOperation,
  ): KubeObject {
    const existing = withTypeMeta(def, existingRaw);
    const name = existing.metadata.name ?? '';
    if (precondition && precondition !== existing.metadata.resourceVersion) {
      throw ApiError.conflict(def, name);
    }
    const next = desired;
    if (next.metadata.uid && next.metadata.uid !== existing.metadata.uid) {
      throw ApiError.conflict(def, name, `Precondition failed: UID in precondition: ${next.metadata.uid}, UID in object meta: ${existing.metadata.uid}`);
    }
    // Fields owned by the server survive every update.
    next.metadata.uid = existing.metadata.uid;
    next.metadata.namespace = existing.metadata.namespace;
    next.metadata.creationTimestamp = existing.metadata.creationTimestamp;
    setOrDelete(next.metadata, 'deletionTimestamp', existing.metadata.deletionTimestamp);
    setOrDelete(next.metadata, 'deletionGracePeriodSeconds', existing.metadata.deletionGracePeriodSeconds);
    setOrDelete(next.metadata, 'generation', existing.metadata.generation);
    delete next.metadata.selfLink;
    if (existing.metadata.deletionTimestamp && newFinalizers(next, existing).length > 0) {
      throw ApiError.invalid(def.kind, def.group, name, [fieldErrors.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${newFinalizers(next, existing).map((f) => `"${f}"`).join(', ')}}`)]);
    }
    // An unconditional update (no resourceVersion) acts on the stored version; upstream's store
    // copies it before validation, which requires one.
    if (!next.metadata.resourceVersion) next.metadata.resourceVersion = existing.metadata.resourceVersion;
    const mainResource = subresource === undefined || subresource.type === 'scale';
    this.runStrategy(def, next, () => {
      if (subresource?.type === 'update') subresource.prepareForUpdate(next, existing);
      else if (mainResource) def.prepareForUpdate(next, existing);
      applyDefaults(def, next);
      const ownValidation = subresource?.type === 'update' && subresource.replacesKindValidation === true;
      const errors = ownValidation ? [] : def.validateCreate(next);
      // pods/binding writes fields the main resource may not change (spec.nodeName): the binding's
      // own checks ran before, as upstream's BindingREST does not go through pod update validation.
      if (subresource?.type === 'create') return errors;
      const updateErrors = ownValidation ? [] : def.validateUpdate(next, existing);
      const subresourceErrors = subresource?.type === 'update' ? (subresource.validateUpdate?.(next, existing) ?? []) : [];
      return dedupe([...errors, ...updateErrors, ...subresourceErrors]);
    });
    if (mainResource) this.allocate(def, next, existing);
    if (mainResource) this.validateAdmission({ operation: 'UPDATE', def, obj: next, old: existing, options, objects: this });
    else if (subresource?.type === 'update' && subresource.admitted) this.validateAdmission({ operation: 'UPDATE', def, obj: next, old: existing, options, objects: this, subresource: subresource.name });
    if (def.hasGeneration && subresource?.type !== 'update' && !jsonEqual(withoutMetaAndStatus(next), withoutMetaAndStatus(existing))) {
      next.metadata.generation = (existing.metadata.generation ?? 0) + 1;
    }
    next.metadata.resourceVersion = existing.metadata.resourceVersion;
    // pods/binding writes below the field manager: managedFields stay as they are (as upstream)
    if (subresource?.type !== 'create') this.recordManager(next, options, def, existing, subresource?.name);
    if (jsonEqual(withoutManagedFields(next), withoutManagedFields(existing)) && sameManagedFields(next, existing)) return existing;
    const key = this.key(def, existing.metadata.namespace ?? '', name);
    const expected = Number(existing.metadata.resourceVersion);
    if (next.metadata.deletionTimestamp && readyToRemove(def, next)) {
      if (options.dryRun) return next;
      // the last finalizer went: the write removes the object
      return this.recorded(def, key, this.store.delete(key, expected), 'DELETE', { ...options, subresource: subresource?.name }, true);
    }
    if (options.dryRun) return next;
    return this.recorded(def, key, this.store.update(key, next, expected), operation, { ...options, subresource: subresource?.name });
  }

  /**
   * DELETE: immediate, or pending (deletionTimestamp) while finalizers remain, or graceful for
   * pods bound to a node (the kubelet finishes it). Returns the final or pending state and whether
   * the object is gone.
   */
  delete(def: KindStrategy, namespace: string, name: string, options: DeleteOptions): { object: KubeObject; deleted: boolean } {
    for (let attempt = 0; ; attempt++) {
      const existingRaw = this.store.get(this.key(def, namespace, name));
      if (!existingRaw) throw ApiError.notFound(def, name);
      const existing = withTypeMeta(def, existingRaw);
      const conditions = options.preconditions;
      if (conditions?.uid && conditions.uid !== existing.metadata.uid) {
        throw ApiError.conflict(def, name, `Precondition failed: UID in precondition: ${conditions.uid}, UID in object meta: ${existing.metadata.uid}`);
      }
      if (conditions?.resourceVersion && conditions.resourceVersion !== existing.metadata.resourceVersion) {
        throw ApiError.conflict(def, name, `Precondition failed: ResourceVersion in precondition: ${conditions.resourceVersion}, ResourceVersion in meta: ${existing.metadata.resourceVersion}`);
      }
      const key = this.key(def, namespace, name);
      const expected = Number(existing.metadata.resourceVersion);
      try {
        const pending = this.pendingDeletion(def, existing, options);
        if (pending) {
          if (options.dryRun) return { object: pending, deleted: false };
          if (jsonEqual(pending, existing)) return { object: existing, deleted: false };
          return { object: this.recorded(def, key, this.store.update(key, pending, expected), 'DELETE', options), deleted: false };
        }
        if (options.dryRun) return { object: existing, deleted: true };
        return { object: this.recorded(def, key, this.store.delete(key, expected), 'DELETE', options, true), deleted: true };
      } catch (error) {
        if (error instanceof StorageError && error.code === 'Conflict' && attempt < MAX_RETRIES) continue;
        throw this.mapStorageError(error, def, name);
      }
    }
  }

  /** The object with deletionTimestamp set, when deletion has to wait; undefined to delete now. */
  private pendingDeletion(def: KindStrategy, existing: KubeObject, options: DeleteOptions): KubeObject | undefined {
    const next = structuredClone(existing);
    // The propagation policy becomes a finalizer the garbage collector acts on (upstream
    // deletionFinalizersForGarbageCollection); the object then waits for it like for any other.
    const finalizers = deletionFinalizers(existing.metadata.finalizers ?? [], options, def.defaultGarbageCollectionPolicy);
    if (finalizers !== existing.metadata.finalizers && (finalizers.length > 0 || existing.metadata.finalizers !== undefined)) {
      if (finalizers.length > 0) next.metadata.finalizers = finalizers;
      else delete next.metadata.finalizers;
    }
    return def.gracefulDelete(next, { finalizers, gracePeriodSeconds: options.gracePeriodSeconds, now: this.clock() });
  }

  /** Type checks, unknown fields, apiVersion/kind, metadata shape. Returns a fresh object. */
  decodeObject(def: KindStrategy, body: unknown, options: WriteOptions, source: 'body' | 'patch' = 'body'): KubeObject {
    const raw = requireObjectBody(body);
    const apiVersion = apiVersionOf(def);
    if (raw.apiVersion !== undefined && raw.apiVersion !== apiVersion) {
      throw ApiError.badRequest(`the API version in the data (${String(raw.apiVersion)}) does not match the expected API version (${apiVersion})`);
    }
    if (raw.kind !== undefined && raw.kind !== def.kind) {
      throw ApiError.badRequest(`the kind in the data (${String(raw.kind)}) does not match the expected kind (${def.kind})`);
    }
    if (raw.metadata !== undefined && raw.metadata !== null && !isRecord(raw.metadata)) {
      throw ApiError.badRequest(`json: cannot unmarshal ${jsonTypeName(raw.metadata)} into Go struct field ${def.kind}.metadata of type v1.ObjectMeta`);
    }
    // Every caller passes a freshly decoded or cloned body, so it is used in place.
    const obj = raw as KubeObject;
    obj.apiVersion = apiVersion;
    obj.kind = def.kind;
    if (!isRecord(obj.metadata)) obj.metadata = {};
    // Upstream reports the first decode error only, wrapped by the create/update handlers
    // (handlers/rest.go transformDecodeError); a patch result is reported bare.
    const wrap = (cause: string) => (source === 'body' ? decodeErrorMessage(apiVersion, def.kind, def.kind, cause) : cause);
    // One walk over the body: type errors, unknown fields, and their pruning.
    const decoded = decodeAgainstSchema(obj, apiVersion, def.kind, options.fieldValidation !== 'Ignore');
    if (decoded.typeError !== undefined) throw ApiError.badRequest(wrap(decoded.typeError));
    const unknown = decoded.unknownFields;
    if (unknown.length) {
      if (options.fieldValidation === 'Strict') throw ApiError.badRequest(wrap(strictDecodingMessage(unknown)));
      options.warnings.push(...unknown);
    }
    // kinds outside the generated schemas prune against their own (custom resources: the CRD's structural schema)
    const customUnknown = def.pruneUnknownFields?.(obj);
    if (customUnknown?.length && options.fieldValidation !== 'Ignore') {
      if (options.fieldValidation === 'Strict') throw ApiError.badRequest(wrap(strictDecodingMessage(customUnknown)));
      options.warnings.push(...customUnknown);
    }
    return obj;
  }

  private runStrategy(def: KindStrategy, obj: KubeObject, run: () => FieldError[]): void {
    let errors: FieldError[];
    try {
      errors = run();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof StrategyError) throw strategyError(def, obj.metadata.name ?? '', error);
      // A validator that trips over an odd shape is still the client's bad input, not a server fault.
      errors = [{ type: 'FieldValueInvalid', field: '', detail: `Invalid value: internal validation error: ${error instanceof Error ? error.message : String(error)}` }];
    }
    if (errors.length) throw ApiError.invalid(def.kind, def.group, obj.metadata.name ?? '', errors);
  }

  /**
   * Tells the history (ResourceStoreOptions.history) of a committed write and returns the stored
   * object with its type meta. The recorder only queues: the write path does not wait for it.
   */
  private recorded(
    def: KindStrategy,
    key: ObjectKey,
    stored: KubeObject,
    operation: HistoryOperation,
    options: { user?: { name: string }; impersonator?: string; fieldManager?: string; userAgent?: string; subresource?: string },
    removed = false,
  ): KubeObject {
    const object = withTypeMeta(def, stored);
    this.options.history?.record({
      key,
      object,
      operation,
      removed,
      subresource: options.subresource,
      user: options.user?.name,
      impersonator: options.impersonator,
      // the manager upstream would name in managedFields (the User-Agent prefix without fieldManager)
      fieldManager: options.fieldManager ?? (options.userAgent !== undefined ? managerName(undefined, options.userAgent) : undefined),
      userAgent: options.userAgent,
    });
    return object;
  }

  /** managedFields for a non-apply write (an apply computed them with the merge). */
  private recordManager(obj: KubeObject, options: WriteOptions, def: KindStrategy, live: KubeObject | undefined, subresource?: string): void {
    if (options.apply) return;
    recordUpdate(live, obj, { manager: managerName(options.fieldManager, options.userAgent), apiVersion: apiVersionOf(def), kind: def.kind, subresource, hasStatus: def.hasStatus, now: nowTimestamp(this.clock()) });
  }

  private mapStorageError(error: unknown, def: KindStrategy, name: string): unknown {
    if (!(error instanceof StorageError)) return error;
    switch (error.code) {
      case 'NotFound':
        return ApiError.notFound(def, name);
      case 'AlreadyExists':
        return ApiError.alreadyExists(def, name);
      case 'Conflict':
        return ApiError.conflict(def, name);
      case 'Expired':
        return ApiError.expired(error.message);
    }
  }
}

function safeFields(def: KindStrategy, obj: KubeObject): Record<string, string> {
  try {
    return def.selectableFields(obj);
  } catch {
    return {};
  }
}

const ORPHAN_FINALIZER = 'orphan';
const FOREGROUND_FINALIZER = 'foregroundDeletion';

/**
 * The finalizers an object carries once deleted with these options, after upstream
 * shouldOrphanDependents / shouldDeleteDependents: an explicit policy (or legacy orphanDependents)
 * wins over the garbage-collection finalizers already present, which win over the kind's default
 * (Background: neither finalizer; Orphan: the orphan finalizer). The order of other finalizers is kept.
 */
export function deletionFinalizers(existing: string[], options: Pick<DeleteOptions, 'propagationPolicy' | 'orphanDependents'>, defaultPolicy: 'Background' | 'Orphan' = 'Background'): string[] {
  let policy: 'Orphan' | 'Foreground' | 'Background' | undefined;
  if (options.orphanDependents !== undefined) policy = options.orphanDependents ? 'Orphan' : 'Background';
  else if (options.propagationPolicy) policy = options.propagationPolicy;
  else if (existing.includes(ORPHAN_FINALIZER)) policy = 'Orphan';
  else if (existing.includes(FOREGROUND_FINALIZER)) policy = 'Foreground';
  else policy = defaultPolicy;
  const kept = existing.filter((finalizer) => finalizer !== ORPHAN_FINALIZER && finalizer !== FOREGROUND_FINALIZER);
  if (policy === 'Orphan') kept.push(ORPHAN_FINALIZER);
  if (policy === 'Foreground') kept.push(FOREGROUND_FINALIZER);
  // Unchanged sets keep their order, so a repeated delete is a no-op write.
  if (kept.length === existing.length && kept.every((finalizer) => existing.includes(finalizer))) return existing;
  return kept;
}

/** An object being deleted goes once no finalizer holds it and its kind lets it (a pod's grace period…). */
function readyToRemove(def: KindStrategy, obj: KubeObject): boolean {
  if ((obj.metadata.finalizers ?? []).length > 0) return false;
  return def.readyToRemove(obj);
}

/** The subresource a write goes through, which must be one of the kind's that writes the object. */
function writingSubresource(def: KindStrategy, name: string | undefined): Subresource | undefined {
  if (name === undefined) return undefined;
  const subresource = subresourceOf(def, name);
  if (!subresource || (subresource.type !== 'update' && subresource.type !== 'create' && subresource.type !== 'scale')) throw new Error(`${qualifiedResource(def)}/${name} does not write the object`);
  return subresource;
}

/** Defaulting never fails a write: a body of the wrong shape is left for validation to report. */
function applyDefaults(def: KindStrategy, obj: KubeObject): void {
  try {
    def.defaults(obj);
  } catch {
    // validation reports the malformed field
  }
}

/** A strategy's refusal as the Status upstream answers with. */
function strategyError(def: KindStrategy, name: string, error: StrategyError): ApiError {
  if (error.reason === 'Conflict') return ApiError.conflict(def, name, error.message);
  return new ApiError(405, 'MethodNotAllowed', error.message);
}

/** Runs a strategy step outside runStrategy (a patch's mutation), mapping its refusals. */
function strategyErrors<T>(def: KindStrategy, name: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof StrategyError) throw strategyError(def, name, error);
    throw error;
  }
}

function newFinalizers(next: KubeObject, existing: KubeObject): string[] {
  const before = new Set(existing.metadata.finalizers ?? []);
  return (next.metadata.finalizers ?? []).filter((finalizer) => !before.has(finalizer));
}

function setOrDelete<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

function withoutMetaAndStatus(obj: KubeObject): Record<string, unknown> {
  const { metadata: _metadata, status: _status, ...rest } = obj;
  return rest;
}

function withoutManagedFields(obj: KubeObject): KubeObject {
  const { managedFields: _managedFields, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const key = `${error.field}\u0000${error.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function withTypeMeta(def: KindStrategy, obj: KubeObject): KubeObject {
  if (obj.apiVersion === apiVersionOf(def) && obj.kind === def.kind) return obj;
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = obj;
  return { apiVersion: apiVersionOf(def), kind: def.kind, ...rest } as KubeObject;
}

function jsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'number' ? 'number' : typeof value === 'string' ? 'string' : typeof value === 'boolean' ? 'bool' : 'object';
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

export function encodeContinue(revision: number, last: { namespace: string; name: string }): string {
  const token: ContinueToken = { v: 'meta.k8s.io/v1', rv: revision, start: `${last.namespace}/${last.name}` };
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

export function decodeContinue(token: string): { namespace: string; name: string } {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (isRecord(parsed) && parsed.v === 'meta.k8s.io/v1' && typeof parsed.start === 'string') {
      const index = parsed.start.indexOf('/');
      if (index >= 0) return { namespace: parsed.start.slice(0, index), name: parsed.start.slice(index + 1) };
    }
  } catch {
    // fall through to the upstream error below
  }
  throw ApiError.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}
