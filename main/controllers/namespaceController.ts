// NamespaceController: finishes the deletion of a namespace, after upstream
// pkg/controller/namespace/namespace_controller.go and deletion/namespaced_resources_deleter.go.
// A deleted namespace stays Terminating while it holds objects: the controller deletes every
// namespaced resource in it (discovered through the API, so CRDs count too), waits until they are
// gone, then removes the `kubernetes` finalizer through /finalize, which lets the namespace go.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ApiClient } from '../client/apiClient';
import { QueueController } from '../client/controllerLoop';
import type { SharedInformerFactory } from '../client/informer';
import { resources, type GroupVersionResource } from '../client/resources';
import { isNotFound } from '../client/errors';

const FINALIZER = 'kubernetes';
const RECHECK_MS = 1000;
const DISCOVERY_TTL_MS = 10_000;

export class NamespaceController extends QueueController {
  private readonly namespaces = this.factory.informerFor(resources.namespaces);
  private discovered: { at: number; resources: GroupVersionResource[] } | undefined;

  constructor(client: ApiClient, factory: SharedInformerFactory) {
    super(client, factory, { name: 'namespace', component: 'namespace-controller', workers: 2 });
    const enqueue = (ns: KubeObject) => {
      if (ns.metadata.deletionTimestamp && ns.metadata.name) this.queue.add(ns.metadata.name);
    };
    this.handle(this.namespaces, { onAdd: enqueue, onUpdate: (_old, ns) => enqueue(ns) });
  }

  async reconcile(name: string): Promise<void> {
    const ns = this.namespaces.get(undefined, name);
    if (!ns || !ns.metadata.deletionTimestamp) return;
    const finalizers = isRecord(ns.spec) && Array.isArray(ns.spec.finalizers) ? ns.spec.finalizers.filter((f): f is string => typeof f === 'string') : [];
    if (!finalizers.includes(FINALIZER)) return;
    let remaining = 0;
    for (const gvr of await this.namespacedResources()) {
      const client = this.client.resource(gvr);
      try {
        await client.deleteCollection(name, undefined, { propagationPolicy: 'Background' });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      const left = await client.list(name, { limit: 1 });
      remaining += left.items.length;
    }
    if (remaining > 0) {
      // Objects with finalizers or grace periods take time; check again soon, as upstream estimates.
      this.queue.addAfter(name, RECHECK_MS);
      return;
    }
    try {
      await this.client.request({
        method: 'PUT',
        path: `/api/v1/namespaces/${encodeURIComponent(name)}/finalize`,
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers: finalizers.filter((f) => f !== FINALIZER) } },
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** Every namespaced resource that supports list and deletecollection, from discovery. */
  private async namespacedResources(): Promise<GroupVersionResource[]> {
    const now = Date.now();
    if (this.discovered && now - this.discovered.at < DISCOVERY_TTL_MS) return this.discovered.resources;
    const found: GroupVersionResource[] = [];
    const collect = (body: unknown, group: string, version: string) => {
      if (!isRecord(body) || !Array.isArray(body.resources)) return;
      for (const entry of body.resources) {
        if (!isRecord(entry) || typeof entry.name !== 'string' || entry.name.includes('/') || entry.namespaced !== true) continue;
        const verbs = Array.isArray(entry.verbs) ? entry.verbs : [];
        if (!verbs.includes('deletecollection') || !verbs.includes('list')) continue;
        // events go last upstream so that deletion events stay visible until the end
        found.push({ group, version, resource: entry.name, namespaced: true, kind: typeof entry.kind === 'string' ? entry.kind : undefined });
      }
    };
    collect(await this.client.request({ method: 'GET', path: '/api/v1' }), '', 'v1');
    const groups = await this.client.request({ method: 'GET', path: '/apis' });
    if (isRecord(groups) && Array.isArray(groups.groups)) {
      for (const group of groups.groups) {
        if (!isRecord(group) || typeof group.name !== 'string' || !isRecord(group.preferredVersion)) continue;
        const version = String(group.preferredVersion.version);
        collect(await this.client.request({ method: 'GET', path: `/apis/${group.name}/${version}` }), group.name, version);
      }
    }
    found.sort((a, b) => Number(a.resource === 'events') - Number(b.resource === 'events'));
    this.discovered = { at: now, resources: found };
    return found;
  }
}
