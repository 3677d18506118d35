// LocalPathProvisioner: gives every PersistentVolumeClaim a host directory, in the manner of
// rancher/local-path-provisioner (the default StorageClass of kind and k3s) combined with the parts
// of upstream pkg/controller/volume/persistentvolume (binding) and pkg/controller/volume/pvcprotection
// (the kubernetes.io/pvc-protection finalizer) that a single-host cluster needs:
// - a claim without spec.volumeName, whose storageClassName is unset or this provisioner's class,
//   gets the directory `<volumesDir>/pvc-<uid>`, spec.volumeName `pvc-<uid>` with the binding
//   annotations and the protection finalizer, then status Bound with capacity = requested storage
//   and the claim's access modes (ProvisioningSucceeded);
// - the kubelet mounts `<volumesDir>/<volumeName>` for persistentVolumeClaim volumes;
// - a deleted claim keeps its finalizer while a pod that is not finished still uses it; then the
//   directory is removed (reclaim policy Delete) and the finalizer dropped; directories without a
//   claim (deleted while the process was down) are removed at start.
// Differences, on purpose: no PersistentVolume objects are written (the API server does not serve
// persistentvolumes or storageclasses yet), binding is Immediate (one host, so any node can use the
// directory), Block volumes and other classes stay Pending with upstream's warning events.
import { mkdir, chmod, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ApiClient } from '../client/apiClient';
import type { Informer, SharedInformerFactory } from '../client/informer';
import { objectKey } from '../client/informer';
import { resources } from '../client/resources';
import { WorkQueue } from '../client/workQueue';
import { runWorkers } from '../client/controllerLoop';
import { isNotFound } from '../client/errors';
import { EventRecorder } from '../client/eventRecorder';
import { specOf, statusOf } from './controllerUtils';

export const LOCAL_PATH_PROVISIONER_NAME = 'kubedesk.io/local-path';
export const DEFAULT_STORAGE_CLASS_NAME = 'standard';
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';

export interface LocalPathProvisionerOptions {
  /** Where volumes live: `<dataDir>/volumes`; the kubelet's VolumeManager gets the same folder. */
  volumesDir: string;
  /** The class this provisioner serves besides claims without one (default `standard`). */
  storageClassName?: string;
  recorder?: EventRecorder;
}

const orphanKey = '\u0000orphans';
const removeKeyPrefix = '\u0000remove/';
// Only names this provisioner gives (`pvc-<uid>`) are ever removed from the volumes folder.
const volumeNamePattern = /^pvc-[A-Za-z0-9-]+$/;

/** The volume name the provisioner gives a claim. */
export function volumeNameFor(claim: KubeObject): string {
  return `pvc-${claim.metadata.uid ?? ''}`;
}

function claimNamesOf(pod: KubeObject): string[] {
  const volumes = specOf(pod).volumes;
  if (!Array.isArray(volumes)) return [];
  const names: string[] = [];
  for (const volume of volumes) {
    if (isRecord(volume) && isRecord(volume.persistentVolumeClaim) && typeof volume.persistentVolumeClaim.claimName === 'string') names.push(volume.persistentVolumeClaim.claimName);
  }
  return names;
}

function podIsFinished(pod: KubeObject): boolean {
  const phase = statusOf(pod).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

export class LocalPathProvisioner {
  private readonly queue = new WorkQueue<string>({ name: 'local-path-provisioner' });
  private readonly claims: Informer;
  private readonly pods: Informer;
  private readonly recorder: EventRecorder;
  private readonly className: string;
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: ApiClient,
    factory: SharedInformerFactory,
    private readonly options: LocalPathProvisionerOptions,
  ) {
    this.className = options.storageClassName ?? DEFAULT_STORAGE_CLASS_NAME;
    this.recorder = options.recorder ?? new EventRecorder(client, { component: 'persistentvolume-controller' });
    this.claims = factory.informerFor(resources.persistentvolumeclaims);
    this.pods = factory.informerFor(resources.pods);
    const enqueue = (claim: KubeObject) => this.queue.add(objectKey(claim));
    this.claims.addEventHandler({
      onAdd: enqueue,
      onUpdate: (_old, claim) => enqueue(claim),
      onDelete: (claim) => {
        const volumeName = specOf(claim).volumeName;
        if (typeof volumeName === 'string' && volumeNamePattern.test(volumeName)) this.queue.add(removeKeyPrefix + volumeName);
      },
    });
    // A finished or deleted pod may release a claim waiting on its protection finalizer.
    const enqueueClaimsOf = (pod: KubeObject) => {
      for (const name of claimNamesOf(pod)) this.queue.add(`${pod.metadata.namespace ?? ''}/${name}`);
    };
    this.pods.addEventHandler({
      onUpdate: (old, pod) => {
        if (podIsFinished(pod) && !podIsFinished(old)) enqueueClaimsOf(pod);
      },
      onDelete: enqueueClaimsOf,
    });
  }

  start(): void {
    this.queue.add(orphanKey);
    this.running = runWorkers(this.queue, (key) => this.reconcile(key), 1);
  }

  async dispose(): Promise<void> {
    this.queue.shutDown();
    await this.running;
    await this.recorder.flush();
  }

  /** The host directory of a volume. */
  volumePath(volumeName: string): string {
    return path.join(this.options.volumesDir, volumeName);
  }

  async reconcile(key: string): Promise<void> {
    if (key === orphanKey) return this.removeOrphanDirectories();
    if (key.startsWith(removeKeyPrefix)) return this.removeIfUnclaimed(key.slice(removeKeyPrefix.length));
    const cached = this.claims.getByKey(key);
    if (!cached) return;
    const claim = structuredClone(cached);
    if (claim.metadata.deletionTimestamp) return this.release(claim);
    const spec = specOf(claim);
    const volumeName = typeof spec.volumeName === 'string' ? spec.volumeName : '';
    if (volumeName === '') return this.provision(claim);
    if (volumeName === volumeNameFor(claim) && statusOf(claim).phase !== 'Bound') {
      // Bound in the spec, but the status write did not happen (a restart in between).
      await mkdir(this.volumePath(volumeName), { recursive: true });
      await this.writeBoundStatus(claim);
    }
  }

  private async provision(claim: KubeObject): Promise<void> {
    const spec = specOf(claim);
    const className = spec.storageClassName;
    if (className === '') {
      this.recorder.event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      return;
    }
    if (typeof className === 'string' && className !== this.className) {
      this.recorder.event(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return;
    }
    if (spec.volumeMode === 'Block') {
      this.recorder.event(claim, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${this.className}": local-path does not support block volumes`);
      return;
    }
    const volumeName = volumeNameFor(claim);
    const directory = this.volumePath(volumeName);
    await mkdir(directory, { recursive: true });
    // Any container user may write, as local-path-provisioner's 0777 directories.
    await chmod(directory, 0o777);
    const annotations = {
      ...(claim.metadata.annotations ?? {}),
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
      'volume.beta.kubernetes.io/storage-provisioner': LOCAL_PATH_PROVISIONER_NAME,
      'volume.kubernetes.io/storage-provisioner': LOCAL_PATH_PROVISIONER_NAME,
    };
    const finalizers = [...(claim.metadata.finalizers ?? [])];
    if (!finalizers.includes(PVC_PROTECTION_FINALIZER)) finalizers.push(PVC_PROTECTION_FINALIZER);
    const updated = await this.client.resource(resources.persistentvolumeclaims).update({ ...claim, metadata: { ...claim.metadata, annotations, finalizers }, spec: { ...spec, volumeName } });
    this.recorder.event(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${volumeName}`);
    await this.writeBoundStatus(updated);
  }

  private async writeBoundStatus(claim: KubeObject): Promise<void> {
    const spec = specOf(claim);
    const resourcesSpec = isRecord(spec.resources) ? spec.resources : {};
    const requests = isRecord(resourcesSpec.requests) ? resourcesSpec.requests : {};
    const status: Record<string, unknown> = { phase: 'Bound', accessModes: Array.isArray(spec.accessModes) ? spec.accessModes : ['ReadWriteOnce'] };
    if (requests.storage !== undefined) status.capacity = { storage: requests.storage };
    await this.client.resource(resources.persistentvolumeclaims).patchStatus(claim.metadata.namespace, claim.metadata.name ?? '', { status }, 'merge');
  }

  /** pvcprotection: drop the finalizer once no unfinished pod uses the claim, removing the directory first. */
  private async release(claim: KubeObject): Promise<void> {
    if (!(claim.metadata.finalizers ?? []).includes(PVC_PROTECTION_FINALIZER)) return;
    const name = claim.metadata.name ?? '';
    const inUse = this.pods.listByNamespace(claim.metadata.namespace ?? '').some((pod) => !podIsFinished(pod) && claimNamesOf(pod).includes(name));
    if (inUse) return;
    const volumeName = specOf(claim).volumeName;
    if (typeof volumeName === 'string' && volumeName === volumeNameFor(claim)) await rm(this.volumePath(volumeName), { recursive: true, force: true });
    const finalizers = (claim.metadata.finalizers ?? []).filter((finalizer) => finalizer !== PVC_PROTECTION_FINALIZER);
    try {
      await this.client.resource(resources.persistentvolumeclaims).update({ ...claim, metadata: { ...claim.metadata, finalizers } });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  private async removeIfUnclaimed(volumeName: string): Promise<void> {
    if (this.claims.list().some((claim) => specOf(claim).volumeName === volumeName)) return;
    await rm(this.volumePath(volumeName), { recursive: true, force: true });
  }

  private async removeOrphanDirectories(): Promise<void> {
    let entries: string[];
    try {
      entries = await readdir(this.options.volumesDir);
    } catch {
      return;
    }
    const claimed = new Set(this.claims.list().map((claim) => specOf(claim).volumeName));
    for (const entry of entries) {
      if (volumeNamePattern.test(entry) && !claimed.has(entry)) await rm(this.volumePath(entry), { recursive: true, force: true });
    }
  }
}
