// LocalPathProvisioner: PersistentVolumes, binding and a host-directory provisioner for a one-host
// cluster, after upstream pkg/controller/volume/persistentvolume (pv_controller.go: syncClaim,
// syncVolume, findMatchingVolume, bind, reclaimVolume; the RetroactiveDefaultStorageClass step),
// pkg/controller/volume/pvcprotection and pvprotection (the kubernetes.io/pvc-protection and
// kubernetes.io/pv-protection finalizers), and rancher/local-path-provisioner (the default
// StorageClass of kind and k3s):
// - at start the StorageClass `standard` exists (default class, provisioner kubedesk.io/local-path,
//   reclaimPolicy Delete, volumeBindingMode Immediate);
// - a claim without a class is given the default class (the API server's DefaultStorageClass
//   admission does this on create; this catches claims created before a default existed);
// - an unbound claim binds to the smallest matching PersistentVolume (class, access modes, size,
//   volume mode, selector; a volume pre-bound to the claim first); failing that, a claim of a class
//   whose provisioner is kubedesk.io/local-path gets the directory `<volumesDir>/pvc-<uid>` and a
//   PersistentVolume `pvc-<uid>` (hostPath DirectoryOrCreate, claimRef to the claim, the class's
//   reclaim policy), then both are bound: volume phase Bound, claim spec.volumeName with the
//   bind-completed/bound-by-controller annotations, claim status Bound with the volume's capacity
//   and access modes (ProvisioningSucceeded);
// - the kubelet mounts `<volumesDir>/<volumeName>` for persistentVolumeClaim volumes;
// - a deleted claim keeps its finalizer while a pod that is not finished still uses it; once the
//   claim is gone its volume becomes Released, and with reclaimPolicy Delete a volume this
//   provisioner made loses its directory and is deleted (Retain keeps both);
// - a volume in phase Bound keeps its pv-protection finalizer; directories that no volume or
//   claim refers to (left while the process was down) are removed at start; claims bound by
//   earlier versions, which wrote no PersistentVolume objects, get theirs.
// Differences, on purpose: binding is Immediate (one host, so any node can use the directory);
// Block volumes, selectors on provisioned claims and the Recycle policy are refused with
// upstream's events.
import { mkdir, chmod, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { compareQuantities, parseQuantity, zeroQuantity, type Quantity } from '../../shared/kubernetes/quantity';
import { formatTime } from '../../shared/kubernetes/time';
import type { ApiClient } from '../client/apiClient';
import { type ControllerOptions, QueueController } from '../client/controllerLoop';
import type { SharedInformerFactory } from '../client/informer';
import { objectKey } from '../client/informer';
import { resources, type GroupVersionResource } from '../client/resources';
import { isAlreadyExists, isNotFound } from '../client/errors';
import { selectorMatches, specOf, statusOf } from './controllerUtils';

export const LOCAL_PATH_PROVISIONER_NAME = 'kubedesk.io/local-path';
export const DEFAULT_STORAGE_CLASS_NAME = 'standard';
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';
export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
const BETA_DEFAULT_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';
const PROVISIONED_BY_ANNOTATION = 'pv.kubernetes.io/provisioned-by';
const BIND_COMPLETED_ANNOTATION = 'pv.kubernetes.io/bind-completed';
const BOUND_BY_CONTROLLER_ANNOTATION = 'pv.kubernetes.io/bound-by-controller';

/** storage.k8s.io/v1 StorageClasses (client-go's StorageV1().StorageClasses()). */
export const storageClassesResource: GroupVersionResource = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', namespaced: false, kind: 'StorageClass' };

export interface LocalPathProvisionerOptions extends ControllerOptions {
  /** Where volumes live: `<dataDir>/volumes`; the kubelet's VolumeManager gets the same folder. */
  volumesDir: string;
  /** The default StorageClass made at start (default `standard`). */
  storageClassName?: string;
}

const orphanKey = '\u0000orphans';
const defaultClassKey = '\u0000default-class';
const claimPrefix = 'claim/';
const volumePrefix = 'volume/';
// Only names this provisioner gives (`pvc-<uid>`) are ever removed from the volumes folder.
const volumeNamePattern = /^pvc-[A-Za-z0-9-]+$/;

/** The volume name the provisioner gives a claim. */
export function volumeNameFor(claim: KubeObject): string {
  return `pvc-${claim.metadata.uid ?? ''}`;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
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

function requestedStorage(claim: KubeObject): unknown {
  const requests = isRecord(specOf(claim).resources) ? (specOf(claim).resources as Record<string, unknown>).requests : undefined;
  return isRecord(requests) ? requests.storage : undefined;
}

function capacityOf(volume: KubeObject): unknown {
  const capacity = specOf(volume).capacity;
  return isRecord(capacity) ? capacity.storage : undefined;
}

function claimRefOf(volume: KubeObject): Record<string, unknown> | undefined {
  const ref = specOf(volume).claimRef;
  return isRecord(ref) ? ref : undefined;
}

/** The class a claim asks for: "" when it has none (upstream GetPersistentVolumeClaimClass). */
function claimClass(claim: KubeObject): string {
  return text(specOf(claim).storageClassName);
}

function volumeModeOf(object: KubeObject): string {
  return text(specOf(object).volumeMode) || 'Filesystem';
}

function isDefaultClass(storageClass: KubeObject): boolean {
  const annotations = storageClass.metadata.annotations ?? {};
  return annotations[DEFAULT_CLASS_ANNOTATION] === 'true' || annotations[BETA_DEFAULT_CLASS_ANNOTATION] === 'true';
}

/** storageutil.GetDefaultClass: the newest default class, then the first by name. */
function defaultClassOf(classes: KubeObject[]): KubeObject | undefined {
  return classes.filter(isDefaultClass).sort((left, right) => {
    const byAge = (right.metadata.creationTimestamp ?? '').localeCompare(left.metadata.creationTimestamp ?? '');
    return byAge !== 0 ? byAge : (left.metadata.name ?? '').localeCompare(right.metadata.name ?? '');
  })[0];
}

function claimReference(claim: KubeObject): Record<string, unknown> {
  return { kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid, apiVersion: 'v1', resourceVersion: claim.metadata.resourceVersion };
}

/** IsVolumeBoundToClaim: the volume's claimRef names this claim (and its uid, once set). */
function refersTo(ref: Record<string, unknown>, claim: KubeObject): boolean {
  if (ref.name !== claim.metadata.name || (ref.namespace ?? '') !== (claim.metadata.namespace ?? '')) return false;
  return ref.uid === undefined || ref.uid === '' || ref.uid === claim.metadata.uid;
}

export class LocalPathProvisioner extends QueueController {
  private readonly claims = this.factory.informerFor(resources.persistentvolumeclaims);
  private readonly volumes = this.factory.informerFor(resources.persistentvolumes);
  private readonly classes = this.factory.informerFor(storageClassesResource);
  private readonly pods = this.factory.informerFor(resources.pods);
  private readonly className: string;

  constructor(client: ApiClient, factory: SharedInformerFactory, private readonly options: LocalPathProvisionerOptions) {
    super(client, factory, { name: 'local-path-provisioner', component: 'persistentvolume-controller' }, options);
    this.className = options.storageClassName ?? DEFAULT_STORAGE_CLASS_NAME;
    const enqueueClaim = (claim: KubeObject) => this.queue.add(claimPrefix + objectKey(claim));
    this.handle(this.claims, {
      onAdd: enqueueClaim,
      onUpdate: (_old, claim) => enqueueClaim(claim),
      onDelete: (claim) => {
        const volumeName = text(specOf(claim).volumeName);
        if (volumeName !== '') this.queue.add(volumePrefix + volumeName);
      },
    });
    const onVolume = (volume: KubeObject) => {
      this.queue.add(volumePrefix + (volume.metadata.name ?? ''));
      const ref = claimRefOf(volume);
      if (ref) this.queue.add(`${claimPrefix}${text(ref.namespace)}/${text(ref.name)}`);
      else this.enqueueUnboundClaims();
    };
    this.handle(this.volumes, {
      onAdd: onVolume,
      onUpdate: (_old, volume) => onVolume(volume),
      onDelete: (volume) => {
        const ref = claimRefOf(volume);
        if (ref) this.queue.add(`${claimPrefix}${text(ref.namespace)}/${text(ref.name)}`);
      },
    });
    this.handle(this.classes, { onAdd: () => this.enqueueUnboundClaims(), onUpdate: () => this.enqueueUnboundClaims() });
    // A finished or deleted pod may release a claim waiting on its protection finalizer.
    const enqueueClaimsOf = (pod: KubeObject) => {
      for (const name of claimNamesOf(pod)) this.queue.add(`${claimPrefix}${pod.metadata.namespace ?? ''}/${name}`);
    };
    this.handle(this.pods, {
      onUpdate: (old, pod) => {
        if (podIsFinished(pod) && !podIsFinished(old)) enqueueClaimsOf(pod);
      },
      onDelete: enqueueClaimsOf,
    });
  }

  override start(): void {
    this.queue.add(defaultClassKey);
    this.queue.add(orphanKey);
    super.start();
  }

  /** The host directory of a volume. */
  volumePath(volumeName: string): string {
    return path.join(this.options.volumesDir, volumeName);
  }

  async reconcile(key: string): Promise<void> {
    if (key === defaultClassKey) return this.ensureDefaultClass();
    if (key === orphanKey) return this.removeOrphanDirectories();
    if (key.startsWith(volumePrefix)) return this.syncVolume(key.slice(volumePrefix.length));
    if (key.startsWith(claimPrefix)) return this.syncClaim(key.slice(claimPrefix.length));
  }

  private enqueueUnboundClaims(): void {
    for (const claim of this.claims.list()) {
      if (!claim.metadata.deletionTimestamp && text(specOf(claim).volumeName) === '') this.queue.add(claimPrefix + objectKey(claim));
    }
  }

  private async ensureDefaultClass(): Promise<void> {
    if (this.classes.get(undefined, this.className)) return;
    try {
      await this.client.resource(storageClassesResource).create({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: this.className, annotations: { [DEFAULT_CLASS_ANNOTATION]: 'true' } },
        provisioner: LOCAL_PATH_PROVISIONER_NAME,
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'Immediate',
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }

  // ------------------------------------------------------------------ claims

  private async syncClaim(key: string): Promise<void> {
    const cached = this.claims.getByKey(key);
    if (!cached) return;
    const claim = structuredClone(cached);
    if (claim.metadata.deletionTimestamp) return this.releaseProtection(claim);
    const volumeName = text(specOf(claim).volumeName);
    if (volumeName === '') return this.syncUnboundClaim(claim);
    return this.syncClaimWithVolume(claim, volumeName);
  }

  private async syncUnboundClaim(claim: KubeObject): Promise<void> {
    const spec = specOf(claim);
    if (spec.storageClassName === undefined || spec.storageClassName === null) {
      const fallback = defaultClassOf(this.classes.list());
      if (fallback) {
        // The update brings the claim back through the queue with its class.
        await this.client.resource(resources.persistentvolumeclaims).update({ ...claim, spec: { ...spec, storageClassName: fallback.metadata.name } });
        return;
      }
    }
    const className = claimClass(claim);
    const match = this.findMatchingVolume(claim, className);
    if (match) return this.bind(structuredClone(match), claim);
    if (className === '') {
      this.recorder.event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      return;
    }
    const storageClass = this.classes.get(undefined, className);
    if (!storageClass) {
      this.recorder.event(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return;
    }
    const provisioner = text(storageClass.provisioner);
    if (provisioner !== LOCAL_PATH_PROVISIONER_NAME) {
      this.recorder.event(claim, 'Normal', 'ExternalProvisioning', `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`);
      return;
    }
    if (spec.volumeMode === 'Block') {
      this.recorder.event(claim, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${className}": local-path does not support block volumes`);
      return;
    }
    if (isRecord(spec.selector)) {
      this.recorder.event(claim, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${className}": claim Selector is not supported`);
      return;
    }
    return this.provision(claim, storageClass);
  }

  /** findMatchingVolume: a volume pre-bound to the claim, else the smallest available one that fits. */
  private findMatchingVolume(claim: KubeObject, className: string): KubeObject | undefined {
    const request = parseQuantity(requestedStorage(claim) ?? '0') ?? zeroQuantity();
    const wanted = stringList(specOf(claim).accessModes);
    const selector = specOf(claim).selector;
    let best: { volume: KubeObject; size: Quantity } | undefined;
    for (const volume of this.volumes.list()) {
      if (volume.metadata.deletionTimestamp) continue;
      const size = parseQuantity(capacityOf(volume));
      if (!size || compareQuantities(size, request) < 0) continue;
      if (volumeModeOf(volume) !== volumeModeOf(claim)) continue;
      const ref = claimRefOf(volume);
      if (ref) {
        if (refersTo(ref, claim)) return volume;
        continue;
      }
      if (statusOf(volume).phase !== 'Available') continue;
      if (text(specOf(volume).storageClassName) !== className) continue;
      const offered = stringList(specOf(volume).accessModes);
      if (!wanted.every((mode) => offered.includes(mode))) continue;
      if (isRecord(selector) && !selectorMatches(selector, volume.metadata.labels)) continue;
      if (!best || compareQuantities(size, best.size) < 0) best = { volume, size };
    }
    return best?.volume;
  }

  private async provision(claim: KubeObject, storageClass: KubeObject): Promise<void> {
    const spec = specOf(claim);
    const volumeName = volumeNameFor(claim);
    const directory = this.volumePath(volumeName);
    await mkdir(directory, { recursive: true });
    // Any container user may write, as local-path-provisioner's 0777 directories.
    await chmod(directory, 0o777);
    const volumeSpec: Record<string, unknown> = {
      capacity: { storage: requestedStorage(claim) ?? '0' },
      accessModes: Array.isArray(spec.accessModes) ? spec.accessModes : ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: text(storageClass.reclaimPolicy) || 'Delete',
      storageClassName: storageClass.metadata.name,
      volumeMode: volumeModeOf(claim),
      hostPath: { path: directory, type: 'DirectoryOrCreate' },
      claimRef: claimReference(claim),
    };
    if (Array.isArray(storageClass.mountOptions)) volumeSpec.mountOptions = storageClass.mountOptions;
    const volumes = this.client.resource(resources.persistentvolumes);
    let volume: KubeObject;
    try {
      volume = await volumes.create({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: volumeName, annotations: { [PROVISIONED_BY_ANNOTATION]: LOCAL_PATH_PROVISIONER_NAME }, finalizers: [PV_PROTECTION_FINALIZER] },
        spec: volumeSpec,
      });
      this.recorder.event(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${volumeName}`);
    } catch (error) {
      // Made on an earlier pass whose binding did not finish.
      if (!isAlreadyExists(error)) throw error;
      volume = await volumes.get(undefined, volumeName);
    }
    await this.bind(volume, claim);
  }

  /** A claim that names its volume: finish or check the binding from the claim's side. */
  private async syncClaimWithVolume(claim: KubeObject, volumeName: string): Promise<void> {
    let volume = this.volumes.get(undefined, volumeName);
    // The cache may lag behind a volume made a moment ago.
    if (!volume) volume = await this.getVolume(volumeName);
    if (!volume) {
      const annotations = claim.metadata.annotations ?? {};
      if (volumeName === volumeNameFor(claim) && annotations['volume.kubernetes.io/storage-provisioner'] === LOCAL_PATH_PROVISIONER_NAME) {
        return this.adoptDirectory(claim, volumeName);
      }
      if (statusOf(claim).phase === 'Bound') {
        await this.setClaimPhase(claim, 'Lost');
        this.recorder.event(claim, 'Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
      }
      return;
    }
    const ref = claimRefOf(volume);
    if (!ref || refersTo(ref, claim)) return this.bind(structuredClone(volume), claim);
    if ((claim.metadata.annotations ?? {})[BIND_COMPLETED_ANNOTATION] === 'yes') {
      if (statusOf(claim).phase !== 'Lost') {
        await this.setClaimPhase(claim, 'Lost');
        this.recorder.event(claim, 'Warning', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
      }
      return;
    }
    this.recorder.event(claim, 'Warning', 'FailedBinding', `volume "${volumeName}" already bound to a different claim.`);
  }

  /** A claim bound by a version that wrote no PersistentVolume objects: give its directory one. */
  private async adoptDirectory(claim: KubeObject, volumeName: string): Promise<void> {
    const className = claimClass(claim) || this.className;
    const storageClass = this.classes.get(undefined, className);
    const directory = this.volumePath(volumeName);
    await mkdir(directory, { recursive: true });
    let volume: KubeObject;
    try {
      volume = await this.client.resource(resources.persistentvolumes).create({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: volumeName, annotations: { [PROVISIONED_BY_ANNOTATION]: LOCAL_PATH_PROVISIONER_NAME }, finalizers: [PV_PROTECTION_FINALIZER] },
        spec: {
          capacity: { storage: requestedStorage(claim) ?? '0' },
          accessModes: Array.isArray(specOf(claim).accessModes) ? specOf(claim).accessModes : ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: (storageClass && text(storageClass.reclaimPolicy)) || 'Delete',
          storageClassName: className,
          volumeMode: volumeModeOf(claim),
          hostPath: { path: directory, type: 'DirectoryOrCreate' },
          claimRef: claimReference(claim),
        },
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      volume = await this.client.resource(resources.persistentvolumes).get(undefined, volumeName);
    }
    await this.bind(volume, claim);
  }

  /**
   * bind: the volume's claimRef and phase Bound, then the claim's volumeName and annotations, then
   * the claim's status. Every step is skipped when already done, so a retry resumes where it stopped.
   */
  private async bind(volume: KubeObject, claim: KubeObject): Promise<void> {
    const volumes = this.client.resource(resources.persistentvolumes);
    const claims = this.client.resource(resources.persistentvolumeclaims);
    const volumeName = volume.metadata.name ?? '';
    const ref = claimRefOf(volume);
    if (!ref || ref.uid !== claim.metadata.uid) {
      const annotations = { ...(volume.metadata.annotations ?? {}) };
      if (!ref) annotations[BOUND_BY_CONTROLLER_ANNOTATION] = 'yes';
      volume = await volumes.update({ ...volume, metadata: { ...volume.metadata, annotations }, spec: { ...specOf(volume), claimRef: claimReference(claim) } });
    }
    if (statusOf(volume).phase !== 'Bound') volume = await this.setVolumePhase(volume, 'Bound');

    const spec = specOf(claim);
    const annotations = { ...(claim.metadata.annotations ?? {}) };
    const finalizers = [...(claim.metadata.finalizers ?? [])];
    const provisioned = (volume.metadata.annotations ?? {})[PROVISIONED_BY_ANNOTATION] === LOCAL_PATH_PROVISIONER_NAME;
    let changed = false;
    const annotate = (key: string, value: string) => {
      if (annotations[key] !== value) {
        annotations[key] = value;
        changed = true;
      }
    };
    if (text(spec.volumeName) !== volumeName) {
      annotate(BOUND_BY_CONTROLLER_ANNOTATION, 'yes');
      changed = true;
    }
    annotate(BIND_COMPLETED_ANNOTATION, 'yes');
    if (provisioned) {
      annotate('volume.beta.kubernetes.io/storage-provisioner', LOCAL_PATH_PROVISIONER_NAME);
      annotate('volume.kubernetes.io/storage-provisioner', LOCAL_PATH_PROVISIONER_NAME);
    }
    if (!finalizers.includes(PVC_PROTECTION_FINALIZER)) {
      finalizers.push(PVC_PROTECTION_FINALIZER);
      changed = true;
    }
    if (changed) claim = await claims.update({ ...claim, metadata: { ...claim.metadata, annotations, finalizers }, spec: { ...spec, volumeName } });

    const status = statusOf(claim);
    const volumeSpec = specOf(volume);
    const accessModes = Array.isArray(volumeSpec.accessModes) ? volumeSpec.accessModes : [];
    const capacity = isRecord(volumeSpec.capacity) ? volumeSpec.capacity : {};
    if (status.phase !== 'Bound' || JSON.stringify(status.accessModes) !== JSON.stringify(accessModes) || JSON.stringify(status.capacity) !== JSON.stringify(capacity)) {
      await claims.patchStatus(claim.metadata.namespace, claim.metadata.name ?? '', { status: { phase: 'Bound', accessModes, capacity } }, 'merge');
    }
  }

  /** pvcprotection: drop the finalizer once no unfinished pod uses the claim. */
  private async releaseProtection(claim: KubeObject): Promise<void> {
    if (!(claim.metadata.finalizers ?? []).includes(PVC_PROTECTION_FINALIZER)) return;
    const name = claim.metadata.name ?? '';
    const inUse = this.pods.listByNamespace(claim.metadata.namespace ?? '').some((pod) => !podIsFinished(pod) && claimNamesOf(pod).includes(name));
    if (inUse) return;
    const finalizers = (claim.metadata.finalizers ?? []).filter((finalizer) => finalizer !== PVC_PROTECTION_FINALIZER);
    try {
      await this.client.resource(resources.persistentvolumeclaims).update({ ...claim, metadata: { ...claim.metadata, finalizers } });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  private async setClaimPhase(claim: KubeObject, phase: string): Promise<void> {
    await this.client.resource(resources.persistentvolumeclaims).patchStatus(claim.metadata.namespace, claim.metadata.name ?? '', { status: { phase } }, 'merge');
  }

  // ------------------------------------------------------------------ volumes

  private async syncVolume(name: string): Promise<void> {
    const cached = this.volumes.get(undefined, name);
    if (!cached) return;
    const volume = structuredClone(cached);
    const phase = text(statusOf(volume).phase);
    const ref = claimRefOf(volume);
    if (!ref) {
      if (volume.metadata.deletionTimestamp) return this.dropVolumeProtection(volume);
      if (phase !== 'Available') await this.setVolumePhase(volume, 'Available');
      return;
    }
    const claim = await this.claimOf(ref);
    if (text(ref.uid) === '') {
      // Pre-bound by its author to a claim by name: the claim's sync binds it.
      if (volume.metadata.deletionTimestamp) return this.dropVolumeProtection(volume);
      if (phase !== 'Available') await this.setVolumePhase(volume, 'Available');
      return;
    }
    if (claim && claim.metadata.uid === ref.uid) {
      const claimVolume = text(specOf(claim).volumeName);
      if (claimVolume === name) {
        if (phase !== 'Bound') await this.setVolumePhase(volume, 'Bound');
        return;
      }
      // Binding in progress: the claim's side has not been written yet.
      if (claimVolume === '') return;
      // The claim went to another volume, so this one is free again (upstream unbindVolume): the
      // controller's binding goes entirely, an author's pre-binding keeps the claim's name.
      const annotations = { ...(volume.metadata.annotations ?? {}) };
      const spec = { ...specOf(volume) };
      if (annotations[BOUND_BY_CONTROLLER_ANNOTATION] === 'yes') {
        delete annotations[BOUND_BY_CONTROLLER_ANNOTATION];
        delete spec.claimRef;
      } else {
        spec.claimRef = { ...ref, uid: undefined, resourceVersion: undefined };
      }
      const updated = await this.client.resource(resources.persistentvolumes).update({ ...volume, metadata: { ...volume.metadata, annotations }, spec });
      await this.setVolumePhase(updated, 'Available');
      return;
    }
    await this.reclaim(volume);
  }

  /** reclaimVolume: the claim is gone, so the volume is Released and its policy applies. */
  private async reclaim(volume: KubeObject): Promise<void> {
    const name = volume.metadata.name ?? '';
    const phase = text(statusOf(volume).phase);
    if (phase !== 'Released' && phase !== 'Failed') volume = await this.setVolumePhase(volume, 'Released');
    const policy = text(specOf(volume).persistentVolumeReclaimPolicy) || 'Retain';
    if (policy === 'Retain') {
      if (volume.metadata.deletionTimestamp) await this.dropVolumeProtection(volume);
      return;
    }
    if (policy === 'Delete') {
      const provisioner = (volume.metadata.annotations ?? {})[PROVISIONED_BY_ANNOTATION];
      if (provisioner === LOCAL_PATH_PROVISIONER_NAME) {
        const hostPath = specOf(volume).hostPath;
        const directory = isRecord(hostPath) ? text(hostPath.path) : '';
        if (volumeNamePattern.test(name) && directory === this.volumePath(name)) await rm(directory, { recursive: true, force: true });
        await this.dropVolumeProtection(volume);
        try {
          await this.client.resource(resources.persistentvolumes).delete(undefined, name);
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
        return;
      }
      // Another provisioner's volume is that provisioner's to delete.
      if (provisioner !== undefined) return;
    }
    if (volume.metadata.deletionTimestamp) await this.dropVolumeProtection(volume);
    if (phase === 'Failed') return;
    const message = policy === 'Delete'
      ? `error getting deleter volume plugin for volume "${name}": no deletable volume plugin matched`
      : 'No recycler plugin found for the volume!';
    await this.setVolumePhase(volume, 'Failed', message);
    this.recorder.event(volume, 'Warning', policy === 'Delete' ? 'VolumeFailedDelete' : 'VolumeFailedRecycle', message);
  }

  /** pvprotection: a volume that is not Bound may go. */
  private async dropVolumeProtection(volume: KubeObject): Promise<void> {
    const finalizers = volume.metadata.finalizers ?? [];
    if (!finalizers.includes(PV_PROTECTION_FINALIZER)) return;
    try {
      await this.client.resource(resources.persistentvolumes).update({ ...volume, metadata: { ...volume.metadata, finalizers: finalizers.filter((item) => item !== PV_PROTECTION_FINALIZER) } });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  private async setVolumePhase(volume: KubeObject, phase: string, message?: string): Promise<KubeObject> {
    const status: Record<string, unknown> = { phase, lastPhaseTransitionTime: formatTime(new Date()) };
    status.message = message ?? null;
    return this.client.resource(resources.persistentvolumes).patchStatus(undefined, volume.metadata.name ?? '', { status }, 'merge');
  }

  private async getVolume(name: string): Promise<KubeObject | undefined> {
    try {
      return await this.client.resource(resources.persistentvolumes).get(undefined, name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The claim a volume refers to; asks the API server before concluding it is gone, as data is at stake. */
  private async claimOf(ref: Record<string, unknown>): Promise<KubeObject | undefined> {
    const namespace = text(ref.namespace);
    const name = text(ref.name);
    const cached = this.claims.get(namespace, name);
    if (cached && cached.metadata.uid === ref.uid) return cached;
    try {
      return await this.client.resource(resources.persistentvolumeclaims).get(namespace, name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async removeOrphanDirectories(): Promise<void> {
    let entries: string[];
    try {
      entries = await readdir(this.options.volumesDir);
    } catch {
      return;
    }
    const used = new Set<unknown>([...this.claims.list().map((claim) => specOf(claim).volumeName), ...this.volumes.list().map((volume) => volume.metadata.name)]);
    for (const entry of entries) {
      if (volumeNamePattern.test(entry) && !used.has(entry)) await rm(this.volumePath(entry), { recursive: true, force: true });
    }
  }
}
