// ResourceQuotaController: keeps each ResourceQuota's status (hard = spec.hard, used = what the
// namespace's objects count for every tracked name), after upstream
// pkg/controller/resourcequota/resource_quota_controller.go. Quotas are recomputed when they change,
// when pods, services, claims, config maps or secrets in their namespace change (upstream's
// replenishment), and on a periodic full resync for the other `count/<resource>` names.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { canonicalQuantity, formatQuantity } from '../../shared/kubernetes/quantity';
import type { ApiClient } from '../client/apiClient';
import { QueueController } from '../client/controllerLoop';
import type { Informer, SharedInformerFactory } from '../client/informer';
import { resources, type GroupVersionResource } from '../client/resources';
import { isConflict, isNotFound } from '../client/errors';
import { quotaHard, quotaUsed, resourceCountedBy } from '../registry/resourceQuotaUsage';

const RESYNC_MS = 30_000;
/** Kinds watched for replenishment; other counted kinds are listed on each sync. */
const watchedKinds: GroupVersionResource[] = [resources.pods, resources.services, resources.persistentvolumeclaims, resources.configmaps, resources.secrets];

export interface ResourceQuotaControllerOptions {
  resyncMs?: number;
  now?: () => Date;
}

export class ResourceQuotaController extends QueueController {
  private readonly quotas = this.factory.informerFor(resources.resourcequotas);
  private readonly watched = new Map<string, Informer>();
  private readonly now: () => Date;

  constructor(client: ApiClient, factory: SharedInformerFactory, private readonly options: ResourceQuotaControllerOptions = {}) {
    super(client, factory, { name: 'resourcequota', component: 'resourcequota-controller', workers: 2 });
    this.now = options.now ?? (() => new Date());
    this.handle(this.quotas, {
      onAdd: (quota) => this.enqueue(quota),
      // Our own status writes come back as updates; only spec changes or drifted status need work.
      onUpdate: (old, quota) => {
        if (JSON.stringify(old.spec) !== JSON.stringify(quota.spec) || !isRecord(quota.status)) this.enqueue(quota);
      },
    });
    for (const gvr of watchedKinds) {
      const informer = factory.informerFor(gvr);
      this.watched.set(gvr.resource, informer);
      const replenish = (obj: KubeObject) => this.enqueueNamespace(obj.metadata.namespace ?? '');
      this.handle(informer, {
        onAdd: (obj, initial) => {
          if (!initial) replenish(obj);
        },
        onUpdate: (_old, obj) => replenish(obj),
        onDelete: replenish,
      });
    }
  }

  override start(): void {
    for (const quota of this.quotas.list()) this.enqueue(quota);
    super.start();
    const resync = setInterval(() => {
      for (const quota of this.quotas.list()) this.enqueue(quota);
    }, this.options.resyncMs ?? RESYNC_MS);
    resync.unref?.();
    this.onDispose(() => clearInterval(resync));
  }

  private enqueueNamespace(namespace: string): void {
    if (!namespace) return;
    for (const quota of this.quotas.listByNamespace(namespace)) this.queue.add(`${namespace}/${quota.metadata.name ?? ''}`);
  }

  /** Recomputes one quota's status and writes it when it changed. */
  async reconcile(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const quota = this.quotas.get(namespace, name);
    if (!quota || quota.metadata.deletionTimestamp) return;
    const status = await this.computeStatus(quota);
    const current = isRecord(quota.status) ? quota.status : {};
    if (JSON.stringify(current.hard ?? {}) === JSON.stringify(status.hard) && JSON.stringify(current.used ?? {}) === JSON.stringify(status.used)) return;
    try {
      await this.client.resource(resources.resourcequotas).updateStatus({ ...quota, status });
    } catch (error) {
      if (isNotFound(error)) return;
      if (isConflict(error)) {
        this.queue.add(key);
        return;
      }
      throw error;
    }
  }

  async computeStatus(quota: KubeObject): Promise<{ hard: Record<string, string>; used: Record<string, string> }> {
    const namespace = quota.metadata.namespace ?? '';
    const hardSpec = isRecord(quota.spec) && isRecord(quota.spec.hard) ? quota.spec.hard : {};
    const kinds = new Map<string, { group: string; resource: string }>();
    for (const name of quotaHard(quota).keys()) {
      const kind = resourceCountedBy(name);
      if (kind) kinds.set(`${kind.group}/${kind.resource}`, kind);
    }
    const objects: { group: string; resource: string; items: KubeObject[] }[] = [];
    for (const { group, resource } of kinds.values()) {
      objects.push({ group, resource, items: await this.listKind(group, resource, namespace) });
    }
    const used = quotaUsed(quota, objects, this.now());
    const hard: Record<string, string> = {};
    for (const [name, value] of Object.entries(hardSpec)) hard[name] = canonicalQuantity(value);
    const usedText: Record<string, string> = {};
    for (const name of Object.keys(hard)) {
      const amount = used.get(name);
      if (amount) usedText[name] = formatQuantity(amount);
    }
    return { hard, used: usedText };
  }

  private async listKind(group: string, resource: string, namespace: string): Promise<KubeObject[]> {
    if (group === '') {
      const informer = this.watched.get(resource);
      if (informer) return informer.listByNamespace(namespace);
    }
    const gvr = Object.values(resources).find((candidate) => candidate.group === group && candidate.resource === resource);
    if (!gvr) return [];
    try {
      return (await this.client.resource(gvr).listAll(namespace)).items;
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }
}
