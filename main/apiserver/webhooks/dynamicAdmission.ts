// Dynamic admission: MutatingAdmissionWebhook, ValidatingAdmissionPolicy and
// ValidatingAdmissionWebhook, in upstream's plugin order (staging/src/k8s.io/apiserver/pkg/admission/
// plugin/webhook/{mutating,validating}/dispatcher.go, plugin/policy/validating).
//
// The resource store is synchronous while webhooks are remote calls, so the chain runs around the
// store call instead of inside it: `admitWrite` first makes the write as a dry run (defaulting,
// built-in mutating admission, validation — the object as upstream hands it to the webhooks), runs
// the mutating webhooks on it and applies their JSONPatches, dry-runs the mutated object again (it
// must still validate), runs the policies and the validating webhooks on that final object, and
// only then makes the real write (with the mutated object when a webhook changed it). Requests no
// webhook or policy matches take the plain write path and cost one listing of each configuration kind.
// Subresource writes are admitted the same way with the object a client of the subresource sends
// (`view`: the autoscaling/v1 Scale of /scale); POSTs of objects that are not stored (Binding,
// Eviction, TokenRequest) go through `admitObject`. A webhook or policy whose rules name another
// served version of the resource sees the request converted to it (matchPolicy Equivalent), with
// requestKind/requestResource telling what the client sent.
// Upstream runs admission inside the storage's GuaranteedUpdate, which retries the whole update —
// admission included — when another writer got in first and the client named no resourceVersion;
// so does `admitWrite`: a conflict on the real write starts again from the stored object (a
// resourceVersion the client named then fails the dry run, as upstream). Mutating webhooks with
// `reinvocationPolicy: IfNeeded` are called once more when a later webhook changed the object, or
// when the built-in plugins changed what the webhooks returned (mutating/dispatcher.go and
// reinvocation.go: one extra round at most, only for webhooks called in the first).
import { jsonEqual } from '../../../shared/kubernetes/json';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { GroupVersionKind, KindStrategy } from '../../registry/strategy';
import { apiVersionOf } from '../../registry/resources';
import { ApiError } from '../apiError';
import { applyJsonPatch } from '../patch/jsonPatch';
import type { ProxyLookup } from '../proxy/proxyLocation';
import type { ResourceRegistry } from '../resourceRegistry';
import type { ResourceStore, WriteOptions } from '../resourceStore';
import { admissionRequest, admissionReview, callingError, deniedError, parseAdmissionResponse } from './admissionReview';
import { isExemptResource, kindOf, labelsOf, namespaceSelectorMatches, objectSelectorMatches, ruleMatches, type AdmissionAttributes, type AdmissionOperation, type AdmissionUser } from './matching';
import { celRequest, evaluatePolicies, matchConditionsHold } from './validatingAdmissionPolicy';
import { postJson, webhookEndpoint, type WebhookDialer } from './webhookClient';
import type { StoreCache } from '../storeCache';

export interface DynamicAdmissionOptions {
  objects: ResourceStore;
  /** the configurations are read once per change of their kinds, not on every write */
  cache: StoreCache;
  registry: ResourceRegistry;
  dialer?: WebhookDialer;
}

export interface WriteRequest {
  operation: AdmissionOperation;
  def: KindStrategy;
  namespace: string;
  name: string;
  subresource?: string;
  /** the stored object an UPDATE starts from */
  oldObject?: KubeObject;
  /** the stored object read again (in the form of `oldObject`), when a racing write makes admission start over */
  reload?: () => KubeObject | undefined;
  user?: AdmissionUser;
  options: WriteOptions;
  /**
   * What admission sees when it is not the stored object: the kind and the object of a
   * subresource (a Scale made from the stored object). `oldObject` is then given in that form too,
   * and a mutated view is what `write` receives as `replacement`.
   */
  view?: AdmissionView;
  /** the version the client addressed, when a converted version forwarded the request */
  requestDef?: KindStrategy;
}

export interface AdmissionView {
  kind: GroupVersionKind;
  of(stored: KubeObject): KubeObject;
}

/** A POST of an object that is not stored (Binding, Eviction, TokenRequest) to a subresource. */
export interface ObjectRequest {
  def: KindStrategy;
  namespace: string;
  name: string;
  subresource: string;
  /** the posted object's kind */
  kind: GroupVersionKind;
  object: KubeObject;
  user?: AdmissionUser;
  options: WriteOptions;
}

export type WriteResult = { object: KubeObject; created?: boolean };
/** Makes the store write with these options; `replacement` is the object to write instead of the request's own. */
export type StoreWrite<T extends WriteResult> = (options: WriteOptions, replacement: KubeObject | undefined) => T;

/** How often admission starts over after losing a race with another writer (upstream retries until it wins). */
const MAX_RACE_RETRIES = 8;

/** A conflict on the real write after admission: another writer changed the object meanwhile. */
class WriteRaced extends Error {
  constructor(readonly conflict: ApiError) {
    super(conflict.message);
  }
}

/**
 * A write of the object admission produced: an update's conflict means the stored object changed
 * after the first dry run (which would have refused the client's own stale resourceVersion), so
 * admission starts over, as upstream's GuaranteedUpdate retries.
 */
function raced<T>(request: WriteRequest, write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (request.operation === 'UPDATE' && error instanceof ApiError && error.code === 409 && error.reason === 'Conflict') throw new WriteRaced(error);
    throw error;
  }
}

/** What a round of mutating webhooks did. */
interface MutationRound {
  object: KubeObject;
  /** IfNeeded webhooks to call again: those called before a later one changed the object */
  reinvoke: Set<Webhook>;
  /** IfNeeded webhooks called after the last change (called again only if a built-in plugin changes the object) */
  sinceLastChange: Webhook[];
  changed: boolean;
}

interface Webhook {
  configuration: string;
  spec: Record<string, unknown>;
  name: string;
  /** the request as this webhook's rules matched it (another version under matchPolicy Equivalent) */
  attributes: AdmissionAttributes;
}

export class DynamicAdmission {
  private dialer: WebhookDialer | undefined;

  constructor(private readonly options: DynamicAdmissionOptions) {
    this.dialer = options.dialer;
  }

  /** How service-backed webhooks are reached (the composition root passes main/network's PodDialer). */
  setDialer(dialer: WebhookDialer): void {
    this.dialer = dialer;
  }

  async admitWrite<T extends WriteResult>(request: WriteRequest, write: StoreWrite<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const current = attempt === 0 || !request.reload ? request : { ...request, oldObject: request.reload() };
      try {
        return await this.admitWriteOnce(current, write);
      } catch (error) {
        if (!(error instanceof WriteRaced)) throw error;
        if (attempt >= MAX_RACE_RETRIES || !request.reload) throw error.conflict;
      }
    }
  }

  private async admitWriteOnce<T extends WriteResult>(request: WriteRequest, write: StoreWrite<T>): Promise<T> {
    const { def } = request;
    if (isExemptResource(def)) return write(request.options, undefined);
    const view = request.view;
    const base = this.primary({
      operation: request.operation,
      def,
      namespace: request.namespace,
      name: request.name,
      subresource: request.subresource ?? '',
      oldObject: request.oldObject,
      dryRun: request.options.dryRun,
      user: request.user,
      options: writeOptionsFor(request.options),
      ...(view ? { kind: view.kind } : {}),
    }, request.requestDef);
    // The object selector needs the object, which the dry run below produces; rules and namespace decide first.
    const mutatingCandidates = this.webhooks('mutatingwebhookconfigurations', base, false);
    const validatingCandidates = this.webhooks('validatingwebhookconfigurations', base, false);
    if (mutatingCandidates.length === 0 && validatingCandidates.length === 0 && !this.hasPolicies()) return write(request.options, undefined);
    const dryRun = (): WriteOptions => ({ ...request.options, dryRun: true, warnings: [] });
    const seen = (stored: KubeObject): KubeObject => this.asSeen(view ? view.of(stored) : stored, base, def);
    // Upstream's mutating webhooks see the object before the store sets uid and creationTimestamp.
    const written = write(dryRun(), undefined).object;
    const first = request.operation === 'CREATE' ? withoutServerFields(seen(written)) : seen(written);
    const mutating = mutatingCandidates.filter((webhook) => objectSelectorMatches(webhook.spec.objectSelector, this.seenBy(webhook, base, first)));
    let replacement: KubeObject | undefined;
    let final = seen(written);
    if (mutating.length > 0) {
      const round = await this.mutate(mutating, { ...base, object: first }, request.options.warnings);
      if (!jsonEqual(round.object, first)) {
        replacement = this.asWritten(round.object, base, def, view);
        // the built-in plugins run again on what the webhooks returned (upstream's reinvocation round)
        const mutated = replacement;
        final = seen(raced(request, () => write(dryRun(), mutated)).object);
      }
      const reinvoke = new Set(round.reinvoke);
      const comparable = (obj: KubeObject) => withoutStoreFields(request.operation === 'CREATE' ? withoutServerFields(obj) : obj);
      if (round.changed && !jsonEqual(comparable(final), comparable(round.object))) for (const webhook of round.sinceLastChange) reinvoke.add(webhook);
      if (round.changed && reinvoke.size > 0) {
        const again = request.operation === 'CREATE' ? withoutServerFields(final) : final;
        const second = await this.mutate(mutating.filter((webhook) => reinvoke.has(webhook)), { ...base, object: again }, request.options.warnings);
        if (second.changed) {
          const mutated = this.asWritten(second.object, base, def, view);
          replacement = mutated;
          final = seen(raced(request, () => write(dryRun(), mutated)).object);
        }
      }
    }
    // A created object's generated name and allocations must be the ones admission saw.
    if (request.operation === 'CREATE' && replacement === undefined) replacement = written;
    const attributes: AdmissionAttributes = { ...base, object: final, name: final.metadata.name || base.name };
    request.options.warnings.push(...this.policies(attributes));
    const validating = validatingCandidates.filter((webhook) => objectSelectorMatches(webhook.spec.objectSelector, this.seenBy(webhook, attributes, final)));
    await this.validate(validating, attributes, request.options.warnings);
    return raced(request, () => write(request.options, replacement));
  }

  /**
   * A POST of an object that is not stored (upstream: the Binding, Eviction or TokenRequest is what
   * admission sees, with the parent's resource and the subresource's name): mutating webhooks may
   * change it, then policies and validating webhooks judge it. Returns the object to act on.
   */
  async admitObject(request: ObjectRequest): Promise<KubeObject> {
    if (isExemptResource(request.def)) return request.object;
    const base: AdmissionAttributes = {
      operation: 'CREATE',
      def: request.def,
      namespace: request.namespace,
      name: request.name,
      subresource: request.subresource,
      object: request.object,
      dryRun: request.options.dryRun,
      user: request.user,
      options: writeOptionsFor(request.options),
      kind: request.kind,
    };
    let object = request.object;
    const mutating = this.webhooks('mutatingwebhookconfigurations', base);
    if (mutating.length > 0) {
      const round = await this.mutate(mutating, base, request.options.warnings);
      object = round.object;
      if (round.changed && round.reinvoke.size > 0) object = (await this.mutate(mutating.filter((webhook) => round.reinvoke.has(webhook)), { ...base, object }, request.options.warnings)).object;
    }
    const attributes: AdmissionAttributes = { ...base, object };
    request.options.warnings.push(...this.policies(attributes));
    await this.validate(this.webhooks('validatingwebhookconfigurations', attributes), attributes, request.options.warnings);
    return object;
  }

  /** DELETE: validating policies and webhooks (and mutating webhooks, whose patches cannot apply) see the old object. */
  async admitDelete(request: Omit<WriteRequest, 'options'> & { oldObject: KubeObject; dryRun: boolean; options?: Record<string, unknown> }, warnings: string[] = []): Promise<void> {
    if (isExemptResource(request.def)) return;
    const attributes = this.primary({
      operation: 'DELETE',
      def: request.def,
      namespace: request.namespace,
      name: request.name,
      subresource: request.subresource ?? '',
      oldObject: request.oldObject,
      dryRun: request.dryRun,
      user: request.user,
      options: request.options ?? {},
    }, request.requestDef);
    const mutating = this.webhooks('mutatingwebhookconfigurations', attributes);
    if (mutating.length > 0) await this.mutate(mutating, attributes, warnings);
    warnings.push(...this.policies(attributes));
    await this.validate(this.webhooks('validatingwebhookconfigurations', attributes), attributes, warnings);
  }

  /**
   * The request as admission first sees it: as the version the client addressed when a converted
   * version forwarded it (the stored object converted back to that version).
   */
  private primary(attributes: AdmissionAttributes, requestDef: KindStrategy | undefined): AdmissionAttributes {
    if (!requestDef || requestDef === attributes.def) return attributes;
    const converted = this.variant(attributes, requestDef);
    return { ...converted, requestDef, requestKind: { group: requestDef.group, version: requestDef.version, kind: requestDef.kind } };
  }

  /** The request as another version of its resource sees it; objects of a subresource's own kind stay as they are. */
  private variant(attributes: AdmissionAttributes, def: KindStrategy): AdmissionAttributes {
    const convert = (obj: KubeObject | undefined) => (obj && !attributes.kind ? convertObject(obj, attributes.def, def) : obj);
    return {
      ...attributes,
      def,
      object: convert(attributes.object),
      oldObject: convert(attributes.oldObject),
      requestDef: attributes.requestDef ?? attributes.def,
      requestKind: attributes.requestKind ?? kindOf(attributes),
    };
  }

  /** Other served versions of the request's resource (upstream matchPolicy Equivalent). */
  private equivalents(attributes: AdmissionAttributes): AdmissionAttributes[] {
    const { def } = attributes;
    const others = this.options.registry.all().filter((candidate) => candidate !== def && candidate.group === def.group && candidate.resource === def.resource && candidate.version !== def.version);
    return others.map((other) => this.variant(attributes, other));
  }

  /** The stored object in the version admission sees first. */
  private asSeen(stored: KubeObject, base: AdmissionAttributes, storedDef: KindStrategy): KubeObject {
    return base.def === storedDef || base.kind ? stored : convertObject(stored, storedDef, base.def);
  }

  /** A mutated object in the form `write` takes (the stored version, or the subresource's view). */
  private asWritten(object: KubeObject, base: AdmissionAttributes, storedDef: KindStrategy, view: AdmissionView | undefined): KubeObject {
    return view || base.def === storedDef ? object : convertObject(object, base.def, storedDef);
  }

  /** `object` (in the form `from` sees it) as `to` sees it. */
  private convert(object: KubeObject, from: AdmissionAttributes, to: AdmissionAttributes): KubeObject {
    return from.def === to.def || from.kind ? object : convertObject(object, from.def, to.def);
  }

  /** The request as this webhook sees it, with `object` (given as `attributes` sees it) converted to its version. */
  private seenBy(webhook: Webhook, attributes: AdmissionAttributes, object: KubeObject | undefined): AdmissionAttributes {
    return { ...webhook.attributes, object: object && this.convert(object, attributes, webhook.attributes) };
  }

  /** The stored configurations of one admissionregistration kind; shared, so callers must not change it. */
  private list(resource: string): readonly KubeObject[] {
    const def = this.options.registry.lookup('admissionregistration.k8s.io', 'v1', resource);
    if (!def) return [];
    return this.options.cache.get(`admission/${resource}`, [`${resource}.admissionregistration.k8s.io`], () => Object.freeze(this.options.objects.list(def, { labels: [], fields: [] }).items));
  }

  private hasPolicies(): boolean {
    return this.list('validatingadmissionpolicybindings').length > 0;
  }

  /**
   * Webhooks whose rules and selectors match, configurations in name order as upstream sorts them;
   * under matchPolicy Equivalent (the default) a rule may match another served version of the
   * resource, and the webhook then sees the request as that version.
   */
  private webhooks(resource: string, attributes: AdmissionAttributes, checkObject = true): Webhook[] {
    const configurations = [...this.list(resource)].sort((left, right) => (left.metadata.name ?? '').localeCompare(right.metadata.name ?? ''));
    const matched: Webhook[] = [];
    let equivalents: AdmissionAttributes[] | undefined;
    for (const configuration of configurations) {
      for (const spec of Array.isArray(configuration.webhooks) ? configuration.webhooks : []) {
        if (!isRecord(spec)) continue;
        const rules = Array.isArray(spec.rules) ? spec.rules : [];
        let variant: AdmissionAttributes | undefined = rules.some((rule) => ruleMatches(rule, attributes)) ? attributes : undefined;
        if (!variant && spec.matchPolicy !== 'Exact') {
          equivalents ??= this.equivalents(attributes);
          variant = equivalents.find((candidate) => rules.some((rule) => ruleMatches(rule, candidate)));
        }
        if (!variant) continue;
        if (!namespaceSelectorMatches(spec.namespaceSelector, variant, (name) => this.namespaceLabels(name))) continue;
        if (checkObject && !objectSelectorMatches(spec.objectSelector, variant)) continue;
        matched.push({ configuration: configuration.metadata.name ?? '', spec, name: String(spec.name ?? ''), attributes: variant });
      }
    }
    return matched;
  }

  private namespaceObject(name: string): KubeObject | undefined {
    const def = this.options.registry.lookup('', 'v1', 'namespaces');
    return def ? this.options.objects.tryGet(def, '', name) : undefined;
  }

  private namespaceLabels(name: string): Record<string, string> | undefined {
    const namespace = this.namespaceObject(name);
    return namespace ? labelsOf(namespace) : undefined;
  }

  /**
   * Calls each mutating webhook in turn on the object as it sees it; returns the object as
   * `attributes` sees it, and which IfNeeded webhooks a later change calls for again (upstream's
   * webhookReinvokeContext: a change marks every IfNeeded webhook called since the last change).
   */
  private async mutate(webhooks: Webhook[], attributes: AdmissionAttributes, warnings: string[]): Promise<MutationRound> {
    let current = attributes.object;
    const reinvoke = new Set<Webhook>();
    let sinceLastChange: Webhook[] = [];
    let changed = false;
    for (const webhook of webhooks) {
      const seen = this.seenBy(webhook, attributes, current);
      const reply = await this.call(webhook, seen, true);
      if (!reply) continue;
      warnings.push(...reply.warnings);
      if (reply.patch !== undefined && seen.object !== undefined) {
        let patched: unknown;
        try {
          patched = applyJsonPatch(structuredClone(seen.object), reply.patch);
        } catch (error) {
          throw ApiError.internal(`JSON Patch: ${error instanceof Error ? error.message : String(error)}`);
        }
        if (!isRecord(patched) || !isRecord(patched.metadata)) throw ApiError.internal('JSON Patch: the patched object is not a Kubernetes object');
        if (!jsonEqual(patched, seen.object)) {
          changed = true;
          for (const earlier of sinceLastChange) reinvoke.add(earlier);
          sinceLastChange = [];
        }
        current = this.convert(patched as KubeObject, webhook.attributes, attributes);
      }
      if (webhook.spec.reinvocationPolicy === 'IfNeeded') sinceLastChange.push(webhook);
    }
    return { object: current ?? ({ metadata: {} } as KubeObject), reinvoke, sinceLastChange, changed };
  }

  private async validate(webhooks: Webhook[], attributes: AdmissionAttributes, warnings: string[]): Promise<void> {
    // Upstream calls validating webhooks in parallel and reports the first rejection.
    const replies = await Promise.allSettled(webhooks.map((webhook) => this.call(webhook, this.seenBy(webhook, attributes, attributes.object), false)));
    for (const reply of replies) {
      if (reply.status === 'rejected') throw reply.reason;
      if (reply.value) warnings.push(...reply.value.warnings);
    }
  }

  private policies(attributes: AdmissionAttributes): string[] {
    const bindings = this.list('validatingadmissionpolicybindings');
    if (bindings.length === 0) return [];
    return evaluatePolicies(attributes, {
      policies: this.list('validatingadmissionpolicies'),
      bindings,
      equivalents: (request) => this.equivalents(request),
      namespaceLabels: (name) => this.namespaceLabels(name),
      namespaceObject: (name) => this.namespaceObject(name),
      params: (paramKind, namespace, name) => {
        const [group, version] = String(paramKind.apiVersion ?? '').includes('/') ? String(paramKind.apiVersion).split('/') : ['', String(paramKind.apiVersion ?? '')];
        const def = this.options.registry.lookupKind(group, version, String(paramKind.kind ?? ''));
        return def ? this.options.objects.tryGet(def, def.namespaced ? namespace : '', name) : undefined;
      },
    });
  }

  /** One webhook call; undefined when it failed under failurePolicy Ignore or its matchConditions do not hold. */
  private async call(webhook: Webhook, attributes: AdmissionAttributes, mutating: boolean) {
    const ignore = webhook.spec.failurePolicy === 'Ignore';
    try {
      const variables = { object: attributes.object ?? null, oldObject: attributes.oldObject ?? null, request: celRequest(attributes) };
      if (!matchConditionsHold(webhook.spec.matchConditions, variables)) return undefined;
    } catch (error) {
      if (ignore) return undefined;
      throw ApiError.internal(`failed calling webhook "${webhook.name}": failed to evaluate match condition: ${error instanceof Error ? error.message : String(error)}`);
    }
    const timeoutSeconds = typeof webhook.spec.timeoutSeconds === 'number' ? webhook.spec.timeoutSeconds : 10;
    const clientConfig = isRecord(webhook.spec.clientConfig) ? webhook.spec.clientConfig : {};
    const request = admissionRequest(attributes, attributes.object);
    let reply;
    try {
      const endpoint = webhookEndpoint(clientConfig, timeoutSeconds, { lookup: this.lookup(), dialer: this.dialer });
      const body = Buffer.from(JSON.stringify(admissionReview(request)));
      const answer = await postJson(endpoint, typeof clientConfig.caBundle === 'string' && clientConfig.caBundle !== '' ? clientConfig.caBundle : undefined, body, timeoutSeconds);
      try {
        reply = parseAdmissionResponse(answer, String(request.uid), mutating);
      } catch (error) {
        throw new Error(`received invalid webhook response: ${error instanceof Error ? error.message : String(error)}`, { cause: 'response' });
      }
    } catch (error) {
      if (ignore) return undefined;
      if (error instanceof Error && error.cause === 'response') throw ApiError.internal(`failed calling webhook "${webhook.name}": ${error.message}`);
      throw callingError(webhook.name, error);
    }
    if (!reply.allowed) throw deniedError(webhook.name, reply.status);
    return reply;
  }

  private lookup(): ProxyLookup {
    const { registry, objects } = this.options;
    return {
      service: (namespace, name) => {
        const def = registry.lookup('', 'v1', 'services');
        return def ? objects.tryGet(def, namespace, name) : undefined;
      },
      endpointSlices: (namespace, serviceName) => {
        const def = registry.lookup('discovery.k8s.io', 'v1', 'endpointslices');
        return def ? objects.list(def, { namespace, labels: [{ key: 'kubernetes.io/service-name', operator: 'In', values: [serviceName] }], fields: [] }).items : [];
      },
      pod: (namespace, name) => {
        const def = registry.lookup('', 'v1', 'pods');
        return def ? objects.tryGet(def, namespace, name) : undefined;
      },
    };
  }
}

function writeOptionsFor(options: WriteOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (options.dryRun) out.dryRun = ['All'];
  if (options.fieldManager) out.fieldManager = options.fieldManager;
  if (options.fieldValidation) out.fieldValidation = options.fieldValidation;
  return out;
}

/**
 * An object of one served version as another: through the versions' conversions to and from the
 * stored version (autoscaling/v1 HorizontalPodAutoscalers), or by apiVersion alone (custom
 * resources, whose versions share one schema without conversion).
 */
export function convertObject(obj: KubeObject, from: KindStrategy, to: KindStrategy): KubeObject {
  if (from === to) return obj;
  const stored = from.conversion ? (from.conversion.toStorage(structuredClone(obj)) as KubeObject) : obj;
  if (to.conversion) return to.conversion.fromStorage(stored);
  return { ...stored, apiVersion: apiVersionOf(to), kind: to.kind };
}

/** The object without what the store itself writes on every dry run (for telling whether plugins changed it). */
function withoutStoreFields(obj: KubeObject): KubeObject {
  const copy = structuredClone(obj);
  delete copy.metadata.resourceVersion;
  delete copy.metadata.managedFields;
  delete copy.metadata.generation;
  return copy;
}

function withoutServerFields(obj: KubeObject): KubeObject {
  const copy = structuredClone(obj);
  delete copy.metadata.uid;
  delete copy.metadata.creationTimestamp;
  return copy;
}
