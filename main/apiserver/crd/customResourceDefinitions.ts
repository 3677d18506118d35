// Serving CustomResourceDefinitions, folded into the API server process as kube-apiserver folds in
// apiextensions-apiserver (the CRD kind's own strategy is main/registry/kinds/apiextensions): the naming and
// establishing controllers (pkg/controller/status/naming_controller.go, pkg/controller/establish:
// NamesAccepted and Established conditions, acceptedNames), registering each served version in the
// ResourceRegistry (so discovery, OpenAPI and `kubectl api-resources` follow) and the finalizer
// controller (pkg/controller/finalizer: on deletion delete every custom object, then drop the
// `customresourcecleanup.apiextensions.k8s.io` finalizer). Reacts to the store's synchronous
// watch on a microtask, so a CRD is Established before the next request is read.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { KindStrategy } from '../../registry/strategy';
import type { Disposable, Store } from '../../storage/store';
import { ApiError } from '../apiError';
import { qualifiedResource } from '../../registry/resources';
import { nowTimestamp } from '../objectMeta';
import type { ResourceRegistry } from '../resourceRegistry';
import type { ResourceStore, WriteOptions } from '../resourceStore';
import { CLEANUP_FINALIZER, CRD_GROUP, CRD_RESOURCE, setCondition } from '../../registry/validation/apiextensions';
import { customResourceDefs } from './customResourceDef';

/** What the CRD controller works with: the API server's store and registry. */
export interface CustomResourceDefinitionsContext {
  objects: ResourceStore;
  registry: ResourceRegistry;
}

interface Registration {
  signature: string;
  group: string;
  resource: string;
  versions: string[];
}

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function internalOptions(): WriteOptions {
  return { dryRun: false, fieldValidation: 'Ignore', warnings: [] };
}

const RETRY_MS = 500;

export class CustomResourceDefinitions implements Disposable {
  private readonly registrations = new Map<string, Registration>();
  private readonly pending = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private watch: Disposable | undefined;
  private scheduled = false;
  private disposed = false;
  private readonly crdDef: KindStrategy;
  /** where the store keeps CRDs */
  private readonly crdResource: string;

  constructor(
    private readonly api: CustomResourceDefinitionsContext,
    private readonly store: Store,
  ) {
    const crdDef = api.registry.lookup(CRD_GROUP, 'v1', CRD_RESOURCE);
    if (!crdDef) throw new Error('the CustomResourceDefinition kind is not registered');
    this.crdDef = crdDef;
    this.crdResource = qualifiedResource(crdDef);
  }

  /** Registers the stored CRDs (after a restart) and follows changes from then on. */
  start(): this {
    const from = this.store.currentRevision();
    for (const crd of this.store.list(this.crdResource, {}).items) this.reconcile(crd.metadata.name ?? '');
    this.watch = this.store.watch({ resource: this.crdResource, fromRevision: from }, (event) => this.enqueue(event.name));
    return this;
  }

  dispose(): void {
    this.disposed = true;
    this.watch?.dispose();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private enqueue(name: string): void {
    this.pending.add(name);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      const names = [...this.pending];
      this.pending.clear();
      for (const next of names) {
        try {
          this.reconcile(next);
        } catch (error) {
          console.error(`kubedesk: customresourcedefinition ${next}:`, error instanceof Error ? error.message : error);
          this.retryLater(next);
        }
      }
    });
  }

  private retryLater(name: string): void {
    if (this.disposed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.enqueue(name);
    }, RETRY_MS);
    timer.unref?.();
    this.timers.add(timer);
  }

  private reconcile(name: string): void {
    if (this.disposed || name === '') return;
    const crd = this.api.objects.tryGet(this.crdDef, '', name);
    if (!crd) {
      this.unregister(name);
      return;
    }
    const terminating = crd.metadata.deletionTimestamp !== undefined;
    const conflict = this.namesConflict(crd);
    if (conflict && !this.registrations.has(name)) {
      this.writeStatus(crd, (status, timestamp) => {
        setCondition(status, { type: 'NamesAccepted', status: 'False', reason: 'NameConflict', message: conflict }, timestamp);
        setCondition(status, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, timestamp);
      });
      return;
    }
    this.register(crd, terminating);
    this.writeStatus(crd, (status, timestamp) => {
      status.acceptedNames = acceptedNames(crd);
      setCondition(status, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, timestamp);
      setCondition(status, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, timestamp);
    });
    if (terminating) this.cleanup(name);
  }

  /** Another CRD of the same group already holds one of this CRD's names (naming controller). */
  private namesConflict(crd: KubeObject): string | undefined {
    const spec = record(crd.spec);
    const names = record(spec.names);
    const mine = [text(names.plural), text(names.singular), ...(Array.isArray(names.shortNames) ? names.shortNames.map(text) : [])].filter((entry) => entry !== '');
    for (const other of this.store.list(this.crdResource, {}).items) {
      if (other.metadata.name === crd.metadata.name || record(other.spec).group !== spec.group) continue;
      const accepted = record(record(other.status).acceptedNames);
      const theirs = new Set([text(accepted.plural), text(accepted.singular), ...(Array.isArray(accepted.shortNames) ? accepted.shortNames.map(text) : [])].filter((entry) => entry !== ''));
      for (const entry of mine) if (theirs.has(entry)) return `"${entry}" is already in use`;
      if (text(accepted.kind) !== '' && accepted.kind === names.kind) return `"${text(names.kind)}" is already in use`;
      if (text(accepted.listKind) !== '' && accepted.listKind === names.listKind) return `"${text(names.listKind)}" is already in use`;
    }
    return undefined;
  }

  private register(crd: KubeObject, terminating: boolean): void {
    const name = crd.metadata.name ?? '';
    const signature = JSON.stringify({ spec: crd.spec, terminating });
    if (this.registrations.get(name)?.signature === signature) return;
    this.unregister(name);
    const defs = customResourceDefs(crd, terminating);
    for (const def of defs) this.api.registry.add(def);
    const spec = record(crd.spec);
    const resource = text(record(spec.names).plural);
    this.registrations.set(name, { signature, group: text(spec.group), resource, versions: defs.map((def) => def.version) });
  }

  private unregister(name: string): void {
    const registration = this.registrations.get(name);
    if (!registration) return;
    this.registrations.delete(name);
    for (const version of registration.versions) this.api.registry.remove(registration.group, version, registration.resource);
  }

  private writeStatus(crd: KubeObject, change: (status: Record<string, unknown>, timestamp: string) => void): void {
    const status = structuredClone(record(crd.status));
    change(status, nowTimestamp(new Date()));
    if (JSON.stringify(status) === JSON.stringify(crd.status ?? {})) return;
    this.api.objects.patch(this.crdDef, '', crd.metadata.name ?? '', (current) => ({ ...current, status: mergeStatus(record(current.status), status) }), { ...internalOptions(), subresource: 'status' });
  }

  /** Finalizer controller: delete every custom object, then release the CRD. */
  private cleanup(name: string): void {
    const crd = this.api.objects.tryGet(this.crdDef, '', name);
    if (!crd || !(crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) return;
    const spec = record(crd.spec);
    const everyVersion = { ...crd, spec: { ...spec, versions: (Array.isArray(spec.versions) ? spec.versions : []).map((version) => ({ ...record(version), served: true })) } };
    const [def] = customResourceDefs(everyVersion, true);
    const resource = `${text(record(spec.names).plural)}.${text(spec.group)}`;
    let remaining = 0;
    if (def) {
      for (const item of this.store.list(resource, {}).items) {
        if (item.metadata.deletionTimestamp) {
          remaining++;
          continue;
        }
        try {
          const { deleted } = this.api.objects.delete(def, item.metadata.namespace ?? '', item.metadata.name ?? '', { dryRun: false });
          if (!deleted) remaining++;
        } catch (error) {
          if (!(error instanceof ApiError && error.code === 404)) remaining++;
        }
      }
    }
    if (remaining > 0) {
      this.writeStatus(crd, (status, timestamp) => {
        setCondition(status, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: `could not confirm zero CustomResources remaining: ${remaining} remaining` }, timestamp);
      });
      this.retryLater(name);
      return;
    }
    this.unregister(name);
    this.api.objects.patch(this.crdDef, '', name, (current) => ({ ...current, metadata: { ...current.metadata, finalizers: (current.metadata.finalizers ?? []).filter((finalizer) => finalizer !== CLEANUP_FINALIZER) } }), internalOptions());
  }
}

function mergeStatus(current: Record<string, unknown>, desired: Record<string, unknown>): Record<string, unknown> {
  // storedVersions may have grown meanwhile (a spec update); keep the union.
  const stored = new Set([...(Array.isArray(current.storedVersions) ? current.storedVersions : []), ...(Array.isArray(desired.storedVersions) ? desired.storedVersions : [])]);
  return { ...current, ...desired, storedVersions: [...stored] };
}

function acceptedNames(crd: KubeObject): Record<string, unknown> {
  const names = record(record(crd.spec).names);
  const accepted: Record<string, unknown> = { plural: names.plural, singular: names.singular };
  if (Array.isArray(names.shortNames) && names.shortNames.length > 0) accepted.shortNames = names.shortNames;
  accepted.kind = names.kind;
  accepted.listKind = names.listKind;
  if (Array.isArray(names.categories) && names.categories.length > 0) accepted.categories = names.categories;
  return accepted;
}

/** Wires CRD serving into an API server; dispose stops following the store. */
export function startCustomResourceDefinitions(api: CustomResourceDefinitionsContext, store: Store): CustomResourceDefinitions {
  return new CustomResourceDefinitions(api, store).start();
}
