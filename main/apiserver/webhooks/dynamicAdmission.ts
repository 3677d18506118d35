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
// Upstream differences: the real write may interleave with another writer between the dry run and
// the commit (the update then fails with a conflict rather than being retried), and mutating
// webhooks are called once each (reinvocationPolicy IfNeeded is not honoured).
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { ResourceDef } from '../../registry/types';
import { ApiError } from '../apiError';
import { applyJsonPatch } from '../patch/jsonPatch';
import type { ProxyLookup } from '../proxy/proxyLocation';
import type { ResourceRegistry } from '../resourceRegistry';
import type { ResourceStore, WriteOptions } from '../resourceStore';
import { admissionRequest, admissionReview, callingError, deniedError, parseAdmissionResponse } from './admissionReview';
import { isExemptResource, labelsOf, namespaceSelectorMatches, objectSelectorMatches, ruleMatches, type AdmissionAttributes, type AdmissionOperation, type AdmissionUser } from './matching';
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
  def: ResourceDef;
  namespace: string;
  name: string;
  subresource?: string;
  /** the stored object an UPDATE starts from */
  oldObject?: KubeObject;
  user?: AdmissionUser;
  options: WriteOptions;
}

export type WriteResult = { object: KubeObject; created?: boolean };
/** Makes the store write with these options; `replacement` is the object to write instead of the request's own. */
export type StoreWrite<T extends WriteResult> = (options: WriteOptions, replacement: KubeObject | undefined) => T;

interface Webhook {
  configuration: string;
  spec: Record<string, unknown>;
  name: string;
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
    const { def } = request;
    if (isExemptResource(def)) return write(request.options, undefined);
    const base: AdmissionAttributes = {
      operation: request.operation,
      def,
      namespace: request.namespace,
      name: request.name,
      subresource: request.subresource ?? '',
      oldObject: request.oldObject,
      dryRun: request.options.dryRun,
      user: request.user,
      options: writeOptionsFor(request.options),
    };
    // The object selector needs the object, which the dry run below produces; rules and namespace decide first.
    const mutatingCandidates = this.webhooks('mutatingwebhookconfigurations', base, false);
    const validatingCandidates = this.webhooks('validatingwebhookconfigurations', base, false);
    if (mutatingCandidates.length === 0 && validatingCandidates.length === 0 && !this.hasPolicies()) return write(request.options, undefined);
    const dryRun = (): WriteOptions => ({ ...request.options, dryRun: true, warnings: [] });
    // Upstream's mutating webhooks see the object before the store sets uid and creationTimestamp.
    const written = write(dryRun(), undefined).object;
    const first = request.operation === 'CREATE' ? withoutServerFields(written) : written;
    let candidate = first;
    const mutating = mutatingCandidates.filter((webhook) => objectSelectorMatches(webhook.spec.objectSelector, { ...base, object: first }));
    if (mutating.length > 0) {
      candidate = await this.mutate(mutating, { ...base, object: first }, request.options.warnings);
    }
    let replacement: KubeObject | undefined;
    let final = written;
    if (!jsonEqual(candidate, first)) {
      replacement = candidate;
      final = write(dryRun(), replacement).object;
    }
    // A created object's generated name and allocations must be the ones admission saw.
    if (request.operation === 'CREATE' && replacement === undefined) replacement = final;
    const attributes: AdmissionAttributes = { ...base, object: final, name: final.metadata.name ?? base.name };
    request.options.warnings.push(...this.policies(attributes));
    const validating = validatingCandidates.filter((webhook) => objectSelectorMatches(webhook.spec.objectSelector, attributes));
    await this.validate(validating, attributes, request.options.warnings);
    return write(request.options, replacement);
  }

  /** DELETE: validating policies and webhooks (and mutating webhooks, whose patches cannot apply) see the old object. */
  async admitDelete(request: Omit<WriteRequest, 'options'> & { oldObject: KubeObject; dryRun: boolean; options?: Record<string, unknown> }, warnings: string[] = []): Promise<void> {
    if (isExemptResource(request.def)) return;
    const attributes: AdmissionAttributes = {
      operation: 'DELETE',
      def: request.def,
      namespace: request.namespace,
      name: request.name,
      subresource: request.subresource ?? '',
      oldObject: request.oldObject,
      dryRun: request.dryRun,
      user: request.user,
      options: request.options ?? {},
    };
    const mutating = this.webhooks('mutatingwebhookconfigurations', attributes);
    if (mutating.length > 0) await this.mutate(mutating, attributes, warnings);
    warnings.push(...this.policies(attributes));
    await this.validate(this.webhooks('validatingwebhookconfigurations', attributes), attributes, warnings);
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

  /** Webhooks whose rules and selectors match, configurations in name order as upstream sorts them. */
  private webhooks(resource: string, attributes: AdmissionAttributes, checkObject = true): Webhook[] {
    const configurations = [...this.list(resource)].sort((left, right) => (left.metadata.name ?? '').localeCompare(right.metadata.name ?? ''));
    const matched: Webhook[] = [];
    for (const configuration of configurations) {
      for (const spec of Array.isArray(configuration.webhooks) ? configuration.webhooks : []) {
        if (!isRecord(spec)) continue;
        const rules = Array.isArray(spec.rules) ? spec.rules : [];
        if (!rules.some((rule) => ruleMatches(rule, attributes))) continue;
        if (!namespaceSelectorMatches(spec.namespaceSelector, attributes, (name) => this.namespaceLabels(name))) continue;
        if (checkObject && !objectSelectorMatches(spec.objectSelector, attributes)) continue;
        matched.push({ configuration: configuration.metadata.name ?? '', spec, name: String(spec.name ?? '') });
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

  private async mutate(webhooks: Webhook[], attributes: AdmissionAttributes, warnings: string[]): Promise<KubeObject> {
    let current = attributes.object;
    for (const webhook of webhooks) {
      const reply = await this.call(webhook, { ...attributes, object: current }, true);
      if (!reply) continue;
      warnings.push(...reply.warnings);
      if (reply.patch !== undefined && current !== undefined) {
        let patched: unknown;
        try {
          patched = applyJsonPatch(structuredClone(current), reply.patch);
        } catch (error) {
          throw ApiError.internal(`JSON Patch: ${error instanceof Error ? error.message : String(error)}`);
        }
        if (!isRecord(patched) || !isRecord(patched.metadata)) throw ApiError.internal('JSON Patch: the patched object is not a Kubernetes object');
        current = patched as KubeObject;
      }
    }
    return current ?? ({ metadata: {} } as KubeObject);
  }

  private async validate(webhooks: Webhook[], attributes: AdmissionAttributes, warnings: string[]): Promise<void> {
    // Upstream calls validating webhooks in parallel and reports the first rejection.
    const replies = await Promise.allSettled(webhooks.map((webhook) => this.call(webhook, attributes, false)));
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

function withoutServerFields(obj: KubeObject): KubeObject {
  const copy = structuredClone(obj);
  delete copy.metadata.uid;
  delete copy.metadata.creationTimestamp;
  return copy;
}

function jsonEqual(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}
