// GarbageCollector: deletes objects whose owners are gone and carries out the Foreground and Orphan
// propagation policies, after upstream pkg/controller/garbagecollector (garbagecollector.go,
// graph_builder.go, graph.go).
// - Every resource that supports list, watch and delete is watched (found through discovery, again
//   every 30 s so CRDs come and go); events are not (upstream DefaultIgnoredResources).
// - A uid-keyed graph records each object's ownerReferences and, per owner uid, its dependents.
//   Owners never observed are still indexed by uid, so their dependents can be found.
// - Work items are `delete:<uid>` (upstream attemptToDelete) and `orphan:<uid>` (attemptToOrphan):
//   * a dependent whose owners are all absent (confirmed by a live GET of each owner, in the
//     dependent's namespace unless the owner kind is cluster-scoped) is deleted with the policy its
//     own GC finalizer asks for, Background by default; a dependent with a live owner only loses
//     its references to absent owners and to owners deleting their dependents;
//   * an owner deleted with `foregroundDeletion` has its dependents deleted (Foreground when they
//     have dependents of their own); once no dependent with blockOwnerDeletion remains, the
//     finalizer is removed and the owner goes;
//   * an owner deleted with `orphan` has its reference removed from every dependent, then the
//     finalizer removed.
// Objects are read from the shared informers' caches for the well-known resources (other controllers
// watch them anyway) and from private informers for the rest, which are dropped with their resource.
import type { KubeObject, OwnerReference } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ApiClient } from '../client/apiClient';
import { runWorkers } from '../client/controllerLoop';
import { Informer, type Disposable, type SharedInformerFactory } from '../client/informer';
import { apiVersionOf, resources, type GroupVersionResource } from '../client/resources';
import { WorkQueue } from '../client/workQueue';
import { isConflict, isNotFound } from '../client/errors';
import { EventRecorder } from '../client/eventRecorder';
import { realClock, type Clock, type Timer } from '../client/clock';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';

const DISCOVERY_PERIOD_MS = 30_000;
const DISCOVERY_RETRY_MS = 2_000;
const ABSENT_OWNER_CACHE_SIZE = 1000;
const PATCH_ATTEMPTS = 5;
/** upstream DefaultIgnoredResources */
const IGNORED_RESOURCES = new Set(['/events', 'events.k8s.io/events']);

export interface GarbageCollectorOptions {
  clock?: Clock;
  /** Concurrent work-queue workers (upstream --concurrent-gc-syncs, 20). Default 5. */
  workers?: number;
  /** Watch exactly these resources instead of discovering them (unit tests: the fake API has no discovery). */
  resources?: GroupVersionResource[];
  discoveryPeriodMs?: number;
  /** Reports failures that are retried. Default: console.warn. */
  onError?: (error: unknown) => void;
}

/** What the graph keeps of one observed object. */
interface GraphNode {
  uid: string;
  gvr: GroupVersionResource;
  apiVersion: string;
  kind: string;
  /** undefined for cluster-scoped objects */
  namespace: string | undefined;
  name: string;
  owners: OwnerReference[];
  beingDeleted: boolean;
  /** deletionTimestamp and the foregroundDeletion finalizer */
  deletingDependents: boolean;
  /** deletionTimestamp and the orphan finalizer */
  orphaning: boolean;
}

interface Monitor {
  gvr: GroupVersionResource;
  informer: Informer;
  handler: Disposable;
  /** a private informer, disposed with the monitor */
  owned: boolean;
}

interface Mapping {
  group: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  preferredVersion: string;
  versions: Set<string>;
}

/** A dependent that is cluster-scoped but names a namespaced owner: retrying cannot help (upstream namespacedOwnerOfClusterScopedObjectErr). */
class InvalidOwnerReference extends Error {}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}

function resourceKey(gvr: Pick<GroupVersionResource, 'group' | 'resource'>): string {
  return `${gvr.group}/${gvr.resource}`;
}

function hasFinalizer(object: KubeObject, finalizer: string): boolean {
  return (object.metadata.finalizers ?? []).includes(finalizer);
}

function isBlocking(reference: OwnerReference | undefined): boolean {
  return reference?.blockOwnerDeletion === true;
}

const wellKnown = new Map<string, GroupVersionResource>(Object.values(resources).map((gvr) => [`${resourceKey(gvr)}@${gvr.version}`, gvr]));

export class GarbageCollector {
  private readonly queue: WorkQueue<string>;
  private readonly clock: Clock;
  private readonly recorder: EventRecorder;
  private readonly nodes = new Map<string, GraphNode>();
  /** owner uid → dependent uids; owners that were never observed have entries too */
  private readonly dependents = new Map<string, Set<string>>();
  /** `uid|namespace` of owners confirmed absent; a uid never comes back, so entries stay true */
  private readonly absentOwners = new Set<string>();
  private readonly monitors = new Map<string, Monitor>();
  private mappings = new Map<string, Mapping>();
  private synced = false;
  private disposed = false;
  private discoveryTimer: Timer | undefined;
  private lastDiscovery = -Infinity;
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly factory: SharedInformerFactory,
    private readonly options: GarbageCollectorOptions = {},
  ) {
    this.clock = options.clock ?? realClock;
    this.queue = new WorkQueue<string>({ name: 'garbage-collector', clock: this.clock });
    this.recorder = new EventRecorder(client, { component: 'garbage-collector-controller' }, this.clock);
    if (options.resources) this.setMonitors(options.resources, options.resources);
  }

  start(): void {
    this.running = this.run();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.discoveryTimer?.cancel();
    this.queue.shutDown();
    await this.running;
    for (const monitor of this.monitors.values()) this.dropMonitor(monitor, false);
    this.monitors.clear();
  }

  /** For tests: whether the graph holds this uid, and the dependents it knows for an owner uid. */
  graphSnapshot(): { nodes: string[]; dependents: Record<string, string[]> } {
    return {
      nodes: [...this.nodes.keys()],
      dependents: Object.fromEntries([...this.dependents].map(([owner, set]) => [owner, [...set]])),
    };
  }

  private async run(): Promise<void> {
    while (!this.options.resources && !this.disposed) {
      try {
        await this.discover();
        break;
      } catch (error) {
        this.report(error);
        await new Promise<void>((resolve) => this.clock.setTimeout(resolve, DISCOVERY_RETRY_MS));
      }
    }
    if (this.disposed) return;
    await Promise.all([...this.monitors.values()].map((monitor) => monitor.informer.waitForSync()));
    if (this.disposed) return;
    this.synced = true;
    this.scanGraph();
    this.scheduleDiscovery();
    await runWorkers(this.queue, (key) => this.reconcile(key), this.options.workers ?? 5, {
      onError: (key, error) => this.report(error, key),
    });
  }

  // ---- discovery and monitors ----

  private scheduleDiscovery(): void {
    if (this.options.resources || this.disposed) return;
    this.discoveryTimer = this.clock.setTimeout(() => {
      void this.discover()
        .catch((error: unknown) => this.report(error))
        .finally(() => this.scheduleDiscovery());
    }, this.options.discoveryPeriodMs ?? DISCOVERY_PERIOD_MS);
  }

  /** Reads discovery: every served version for mapping owner references, preferred versions to watch. */
  private async discover(): Promise<void> {
    this.lastDiscovery = this.clock.now();
    const all: GroupVersionResource[] = [];
    const preferred: GroupVersionResource[] = [];
    const collect = (body: unknown, group: string, version: string, isPreferred: boolean) => {
      if (!isRecord(body) || !Array.isArray(body.resources)) return;
      for (const entry of body.resources) {
        if (!isRecord(entry) || typeof entry.name !== 'string' || entry.name.includes('/') || typeof entry.kind !== 'string') continue;
        const gvr: GroupVersionResource = { group, version, resource: entry.name, namespaced: entry.namespaced === true, kind: entry.kind };
        all.push(gvr);
        const verbs = Array.isArray(entry.verbs) ? entry.verbs : [];
        if (isPreferred && ['list', 'watch', 'delete'].every((verb) => verbs.includes(verb))) preferred.push(gvr);
      }
    };
    collect(await this.client.request({ method: 'GET', path: '/api/v1' }), '', 'v1', true);
    const groups = await this.client.request({ method: 'GET', path: '/apis' });
    if (isRecord(groups) && Array.isArray(groups.groups)) {
      for (const group of groups.groups) {
        if (!isRecord(group) || typeof group.name !== 'string') continue;
        const preferredVersion = isRecord(group.preferredVersion) ? String(group.preferredVersion.version) : undefined;
        const versions = Array.isArray(group.versions) ? group.versions.filter(isRecord).map((entry) => String(entry.version)) : [];
        for (const version of versions.length ? versions : preferredVersion ? [preferredVersion] : []) {
          try {
            collect(await this.client.request({ method: 'GET', path: `/apis/${group.name}/${version}` }), group.name, version, version === (preferredVersion ?? versions[0]));
          } catch (error) {
            // One broken group version (an aggregated API that is down) must not stop collection.
            if (!isNotFound(error)) this.report(error);
          }
        }
      }
    }
    if (this.disposed) return;
    this.setMonitors(all, preferred);
  }

  private setMonitors(all: GroupVersionResource[], watched: GroupVersionResource[]): void {
    const mappings = new Map<string, Mapping>();
    for (const gvr of all) {
      if (!gvr.kind) continue;
      const key = `${gvr.group}/${gvr.kind}`;
      const existing = mappings.get(key);
      if (existing) existing.versions.add(gvr.version);
      else mappings.set(key, { group: gvr.group, resource: gvr.resource, kind: gvr.kind, namespaced: gvr.namespaced, preferredVersion: gvr.version, versions: new Set([gvr.version]) });
    }
    for (const gvr of watched) {
      const mapping = gvr.kind ? mappings.get(`${gvr.group}/${gvr.kind}`) : undefined;
      if (mapping) mapping.preferredVersion = gvr.version;
    }
    this.mappings = mappings;
    const wanted = new Map<string, GroupVersionResource>();
    for (const gvr of watched) if (!IGNORED_RESOURCES.has(resourceKey(gvr))) wanted.set(resourceKey(gvr), gvr);
    for (const [key, monitor] of [...this.monitors]) {
      const still = wanted.get(key);
      if (still && still.version === monitor.gvr.version) continue;
      this.dropMonitor(monitor);
      this.monitors.delete(key);
    }
    for (const [key, gvr] of wanted) {
      if (this.monitors.has(key)) continue;
      this.monitors.set(key, this.createMonitor(gvr));
    }
  }

  private createMonitor(gvr: GroupVersionResource): Monitor {
    const shared = wellKnown.get(`${resourceKey(gvr)}@${gvr.version}`);
    let informer: Informer;
    if (shared) {
      informer = this.factory.informerFor(shared);
    } else {
      informer = new Informer(this.client.resource(gvr), { onError: (error) => this.report(error, resourceKey(gvr)) });
      informer.start();
    }
    const handler = informer.addEventHandler({
      onAdd: (object) => this.observe(gvr, object),
      onUpdate: (_old, object) => this.observe(gvr, object),
      onDelete: (object) => this.forget(object),
    });
    return { gvr, informer, handler, owned: !shared };
  }

  private dropMonitor(monitor: Monitor, forgetObjects = true): void {
    monitor.handler.dispose();
    if (monitor.owned) monitor.informer.dispose();
    if (!forgetObjects) return;
    // Objects of a resource that disappeared are gone: their dependents get checked.
    for (const node of [...this.nodes.values()]) if (resourceKey(node.gvr) === resourceKey(monitor.gvr)) this.forget({ metadata: { uid: node.uid } });
  }

  // ---- the graph (upstream GraphBuilder.processGraphChanges) ----

  private observe(gvr: GroupVersionResource, object: KubeObject): void {
    const uid = object.metadata.uid;
    if (!uid) return;
    const existing = this.nodes.get(uid);
    const deleting = Boolean(object.metadata.deletionTimestamp);
    const node: GraphNode = {
      uid,
      gvr,
      apiVersion: apiVersionOf(gvr),
      kind: gvr.kind ?? object.kind ?? '',
      namespace: gvr.namespaced ? object.metadata.namespace : undefined,
      name: object.metadata.name ?? '',
      owners: (object.metadata.ownerReferences ?? []).filter((reference) => typeof reference.uid === 'string' && reference.uid !== ''),
      beingDeleted: deleting,
      deletingDependents: deleting && hasFinalizer(object, FOREGROUND_FINALIZER),
      orphaning: deleting && hasFinalizer(object, ORPHAN_FINALIZER),
    };
    this.nodes.set(uid, node);
    const before = new Map((existing?.owners ?? []).map((reference) => [reference.uid, reference]));
    const after = new Map(node.owners.map((reference) => [reference.uid, reference]));
    const added: OwnerReference[] = [];
    for (const [ownerUid, reference] of before) {
      const next = after.get(ownerUid);
      if (!next) this.removeDependent(ownerUid, uid);
      // An owner waiting for blocking dependents may be free to go now.
      if (isBlocking(reference) && !isBlocking(next)) this.enqueueIfDeletingDependents(ownerUid);
    }
    for (const [ownerUid, reference] of after) {
      if (before.has(ownerUid)) continue;
      this.addDependent(ownerUid, uid);
      added.push(reference);
    }
    if (!this.synced) return;
    if (added.some((reference) => !this.ownerIsSolid(node, reference))) this.queue.add(`delete:${uid}`);
    if (!existing) this.checkDependentsOfNewNode(node);
    if (node.orphaning && !existing?.orphaning) {
      this.queue.add(`orphan:${uid}`);
    } else if (node.deletingDependents && !existing?.deletingDependents) {
      for (const dependent of this.dependents.get(uid) ?? []) this.queue.add(`delete:${dependent}`);
      this.queue.add(`delete:${uid}`);
    }
  }

  private forget(object: KubeObject): void {
    const uid = object.metadata.uid;
    const node = uid ? this.nodes.get(uid) : undefined;
    if (!uid || !node) return;
    this.nodes.delete(uid);
    for (const reference of node.owners) {
      this.removeDependent(reference.uid, uid);
      this.enqueueIfDeletingDependents(reference.uid);
    }
    this.rememberAbsent(uid, node.namespace);
    if (!this.synced) return;
    for (const dependent of this.dependents.get(uid) ?? []) this.queue.add(`delete:${dependent}`);
  }

  /** After the first sync: queue everything the events seen so far call for. */
  private scanGraph(): void {
    for (const node of this.nodes.values()) {
      if (node.orphaning) this.queue.add(`orphan:${node.uid}`);
      else if (node.deletingDependents) {
        this.queue.add(`delete:${node.uid}`);
        for (const dependent of this.dependents.get(node.uid) ?? []) this.queue.add(`delete:${dependent}`);
      }
      if (node.owners.some((reference) => !this.ownerIsSolid(node, reference))) this.queue.add(`delete:${node.uid}`);
    }
  }

  /** Dependents that named this uid before it was observed, with coordinates that do not fit it. */
  private checkDependentsOfNewNode(owner: GraphNode): void {
    for (const dependentUid of this.dependents.get(owner.uid) ?? []) {
      const dependent = this.nodes.get(dependentUid);
      const reference = dependent?.owners.find((entry) => entry.uid === owner.uid);
      if (!dependent || !reference || this.referenceMatches(dependent, reference, owner)) continue;
      if (owner.namespace !== undefined && owner.namespace !== dependent.namespace) this.reportInvalidNamespace(dependent, reference);
      this.queue.add(`delete:${dependentUid}`);
    }
  }

  private addDependent(ownerUid: string, dependentUid: string): void {
    let set = this.dependents.get(ownerUid);
    if (!set) this.dependents.set(ownerUid, (set = new Set()));
    set.add(dependentUid);
  }

  private removeDependent(ownerUid: string, dependentUid: string): void {
    const set = this.dependents.get(ownerUid);
    if (!set) return;
    set.delete(dependentUid);
    if (set.size === 0) this.dependents.delete(ownerUid);
  }

  private enqueueIfDeletingDependents(ownerUid: string): void {
    if (this.synced && this.nodes.get(ownerUid)?.deletingDependents) this.queue.add(`delete:${ownerUid}`);
  }

  private rememberAbsent(uid: string, namespace: string | undefined): void {
    if (this.absentOwners.size >= ABSENT_OWNER_CACHE_SIZE) {
      // Oldest first: a Set iterates in insertion order.
      const oldest = this.absentOwners.values().next().value;
      if (oldest !== undefined) this.absentOwners.delete(oldest);
    }
    this.absentOwners.add(`${uid}|${namespace ?? ''}`);
  }

  /** The observed owner is the one the reference names: same group, kind and name, and in reach of the dependent. */
  private referenceMatches(dependent: GraphNode, reference: OwnerReference, owner: GraphNode): boolean {
    if (groupOf(reference.apiVersion) !== owner.gvr.group || reference.kind !== owner.kind || reference.name !== owner.name) return false;
    // Cluster-scoped owners can be named from anywhere; namespaced ones only from their namespace.
    return owner.namespace === undefined || owner.namespace === dependent.namespace;
  }

  private ownerIsSolid(dependent: GraphNode, reference: OwnerReference): boolean {
    const owner = this.nodes.get(reference.uid);
    return owner !== undefined && this.referenceMatches(dependent, reference, owner) && !owner.deletingDependents;
  }

  // ---- processing (upstream GarbageCollector.attemptToDeleteItem / attemptToOrphanWorker) ----

  async reconcile(key: string): Promise<void> {
    const colon = key.indexOf(':');
    const action = key.slice(0, colon);
    const uid = key.slice(colon + 1);
    if (action === 'orphan') await this.attemptToOrphan(uid);
    else await this.attemptToDelete(uid);
  }

  private async attemptToDelete(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    // Being deleted is a one-way trip: its dependents are handled once it is gone.
    if (!node || (node.beingDeleted && !node.deletingDependents)) return;
    const latest = await this.getLatest(node);
    if (!latest) return;
    if (latest.metadata.deletionTimestamp) {
      if (hasFinalizer(latest, FOREGROUND_FINALIZER)) await this.processDeletingDependents(node, latest);
      return;
    }
    const references = (latest.metadata.ownerReferences ?? []).filter((reference) => reference.uid);
    if (references.length === 0) return;
    let classified;
    try {
      classified = await this.classifyReferences(node, references);
    } catch (error) {
      if (error instanceof InvalidOwnerReference) return;
      throw error;
    }
    const { solid, dangling, waiting } = classified;
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // References to owners waiting for their dependents must go too, or those owners never finish.
      await this.removeOwnerReferences(node, latest, [...dangling, ...waiting].map((reference) => reference.uid));
      return;
    }
    const ownDependents = [...(this.dependents.get(uid) ?? [])];
    if (waiting.length > 0 && ownDependents.length > 0) {
      if (ownDependents.some((dependent) => this.nodes.get(dependent)?.deletingDependents)) {
        // A cycle of foreground deletions would wait forever: stop this object from blocking its owners.
        await this.unblockOwnerReferences(node, latest);
      }
      await this.deleteObject(node, latest, 'Foreground');
      return;
    }
    const policy = hasFinalizer(latest, ORPHAN_FINALIZER) ? 'Orphan' : hasFinalizer(latest, FOREGROUND_FINALIZER) ? 'Foreground' : 'Background';
    await this.deleteObject(node, latest, policy);
  }

  private async processDeletingDependents(node: GraphNode, latest: KubeObject): Promise<void> {
    const blocking = [...(this.dependents.get(node.uid) ?? [])]
      .map((uid) => this.nodes.get(uid))
      .filter((dependent): dependent is GraphNode => dependent !== undefined && isBlocking(dependent.owners.find((reference) => reference.uid === node.uid)));
    if (blocking.length === 0) {
      await this.removeFinalizer(node, latest, FOREGROUND_FINALIZER);
      return;
    }
    for (const dependent of blocking) if (!dependent.deletingDependents) this.queue.add(`delete:${dependent.uid}`);
  }

  private async attemptToOrphan(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node) return;
    const latest = await this.getLatest(node);
    if (!latest || !latest.metadata.deletionTimestamp || !hasFinalizer(latest, ORPHAN_FINALIZER)) return;
    const results = await Promise.allSettled(
      [...(this.dependents.get(uid) ?? [])].map(async (dependentUid) => {
        const dependent = this.nodes.get(dependentUid);
        if (!dependent) return;
        const current = await this.getLatest(dependent);
        if (!current || !(current.metadata.ownerReferences ?? []).some((reference) => reference.uid === uid)) return;
        await this.removeOwnerReferences(dependent, current, [uid]);
      }),
    );
    const failed = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed.length > 0) {
      const reasons = failed.map((result) => (result.reason instanceof Error ? result.reason.message : String(result.reason)));
      throw new Error(`failed to orphan dependents of ${node.kind} ${node.namespace ? `${node.namespace}/` : ''}${node.name}: ${reasons.join('; ')}`);
    }
    await this.removeFinalizer(node, latest, ORPHAN_FINALIZER);
  }

  /** upstream classifyReferences: solid (owner exists), dangling (absent), waiting (owner deleting its dependents in the foreground). */
  private async classifyReferences(node: GraphNode, references: OwnerReference[]): Promise<{ solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] }> {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const reference of references) {
      const state = await this.ownerState(node, reference);
      if (state === 'absent') dangling.push(reference);
      else if (state === 'deletingDependents') waiting.push(reference);
      else solid.push(reference);
    }
    return { solid, dangling, waiting };
  }

  private async ownerState(dependent: GraphNode, reference: OwnerReference): Promise<'absent' | 'present' | 'deletingDependents'> {
    const observed = this.nodes.get(reference.uid);
    // The graph is trusted for owners it has seen; absence is always confirmed with the server.
    if (observed && this.referenceMatches(dependent, reference, observed)) return observed.deletingDependents ? 'deletingDependents' : 'present';
    if (observed && observed.namespace !== undefined && observed.namespace !== dependent.namespace) this.reportInvalidNamespace(dependent, reference);
    const mapping = await this.mappingFor(reference);
    if (mapping.namespaced && dependent.namespace === undefined) {
      this.recorder.event(this.involvedObject(dependent), 'Warning', 'OwnerRefInvalidNamespace', `ownerRef ${describeReference(reference, '')} does not exist in namespace ""`);
      throw new InvalidOwnerReference(`${dependent.kind} ${dependent.name} is cluster-scoped but names the namespaced owner ${reference.kind} ${reference.name}`);
    }
    const namespace = mapping.namespaced ? dependent.namespace : undefined;
    if (this.absentOwners.has(`${reference.uid}|${namespace ?? ''}`)) return 'absent';
    const referenced = versionOf(reference.apiVersion);
    const version = mapping.versions.has(referenced) ? referenced : mapping.preferredVersion;
    let owner: KubeObject;
    try {
      owner = await this.client.resource({ group: mapping.group, version, resource: mapping.resource, namespaced: mapping.namespaced, kind: mapping.kind }).get(namespace, reference.name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.rememberAbsent(reference.uid, namespace);
      return 'absent';
    }
    if (owner.metadata.uid !== reference.uid) {
      this.rememberAbsent(reference.uid, namespace);
      return 'absent';
    }
    return owner.metadata.deletionTimestamp && hasFinalizer(owner, FOREGROUND_FINALIZER) ? 'deletingDependents' : 'present';
  }

  private async mappingFor(reference: OwnerReference): Promise<Mapping> {
    const key = `${groupOf(reference.apiVersion)}/${reference.kind}`;
    let mapping = this.mappings.get(key);
    // A kind not known yet may belong to a CRD created since the last discovery.
    if (!mapping && !this.options.resources && this.clock.now() - this.lastDiscovery > DISCOVERY_RETRY_MS) {
      await this.discover();
      mapping = this.mappings.get(key);
    }
    if (!mapping) throw new Error(`unable to map owner reference ${reference.apiVersion} ${reference.kind} to a resource`);
    return mapping;
  }

  // ---- writes ----

  /** The live object, or undefined when it is gone (or replaced by another with the same name). */
  private async getLatest(node: GraphNode): Promise<KubeObject | undefined> {
    try {
      const latest = await this.client.resource(node.gvr).get(node.namespace, node.name);
      return latest.metadata.uid === node.uid ? latest : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async deleteObject(node: GraphNode, latest: KubeObject, policy: 'Orphan' | 'Foreground' | 'Background'): Promise<void> {
    const resource = this.client.resource(node.gvr);
    try {
      await resource.delete(node.namespace, node.name, { propagationPolicy: policy, preconditions: { uid: node.uid, resourceVersion: latest.metadata.resourceVersion } });
    } catch (error) {
      if (isNotFound(error)) return;
      if (!isConflict(error)) throw error;
      // Status updates change the resourceVersion often; only new owner references make the decision stale.
      const current = await this.getLatest(node);
      if (!current) return;
      if (JSON.stringify(current.metadata.ownerReferences ?? []) !== JSON.stringify(latest.metadata.ownerReferences ?? [])) throw error;
      try {
        await resource.delete(node.namespace, node.name, { propagationPolicy: policy, preconditions: { uid: node.uid } });
      } catch (retryError) {
        if (!isNotFound(retryError)) throw retryError;
      }
    }
  }

  private async removeOwnerReferences(node: GraphNode, latest: KubeObject, ownerUids: string[]): Promise<void> {
    const remove = new Set(ownerUids);
    await this.patchMetadata(node, latest, (current) => {
      const references = current.metadata.ownerReferences ?? [];
      const kept = references.filter((reference) => !remove.has(reference.uid));
      if (kept.length === references.length) return undefined;
      return { ownerReferences: kept.length > 0 ? kept : null };
    });
  }

  private async unblockOwnerReferences(node: GraphNode, latest: KubeObject): Promise<void> {
    await this.patchMetadata(node, latest, (current) => {
      const references = current.metadata.ownerReferences ?? [];
      if (!references.some((reference) => reference.blockOwnerDeletion)) return undefined;
      return { ownerReferences: references.map((reference) => (reference.blockOwnerDeletion ? { ...reference, blockOwnerDeletion: false } : reference)) };
    });
  }

  private async removeFinalizer(node: GraphNode, latest: KubeObject, finalizer: string): Promise<void> {
    await this.patchMetadata(node, latest, (current) => {
      const finalizers = current.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return undefined;
      const kept = finalizers.filter((entry) => entry !== finalizer);
      return { finalizers: kept.length > 0 ? kept : null };
    });
  }

  /**
   * A merge patch of metadata guarded by the read resourceVersion and uid. Controllers write status
   * all the time, so on a conflict the object is read again and the change recomputed (as upstream
   * retries on conflict); `change` returns undefined when there is nothing left to do.
   */
  private async patchMetadata(node: GraphNode, latest: KubeObject, change: (current: KubeObject) => Record<string, unknown> | undefined): Promise<void> {
    let current: KubeObject | undefined = latest;
    for (let attempt = 0; current; attempt++) {
      const metadata = change(current);
      if (!metadata) return;
      try {
        await this.client.resource(node.gvr).patch(node.namespace, node.name, { metadata: { ...metadata, uid: node.uid, resourceVersion: current.metadata.resourceVersion } }, 'merge');
        return;
      } catch (error) {
        if (isNotFound(error)) return;
        if (!isConflict(error) || attempt >= PATCH_ATTEMPTS - 1) throw error;
      }
      current = await this.getLatest(node);
    }
  }

  private involvedObject(node: GraphNode): KubeObject {
    return { apiVersion: node.apiVersion, kind: node.kind, metadata: { name: node.name, namespace: node.namespace, uid: node.uid } };
  }

  private reportInvalidNamespace(dependent: GraphNode, reference: OwnerReference): void {
    const namespace = dependent.namespace ?? '';
    this.recorder.event(this.involvedObject(dependent), 'Warning', 'OwnerRefInvalidNamespace', `ownerRef ${describeReference(reference, namespace)} does not exist in namespace "${namespace}"`);
  }

  private report(error: unknown, item?: string): void {
    if (this.options.onError) this.options.onError(error);
    else console.warn(`[garbage-collector]${item ? ` ${item}:` : ''}`, error instanceof Error ? error.message : error);
  }
}

/** upstream objectReference.String() */
function describeReference(reference: OwnerReference, namespace: string): string {
  return `[${reference.apiVersion}/${reference.kind}, namespace: ${namespace}, name: ${reference.name}, uid: ${reference.uid}]`;
}
