// Why a PersistentVolumeClaim is not bound, after upstream's PV controller and external
// provisioners (pkg/controller/volume/persistentvolume: ProvisioningFailed and
// ExternalProvisioning events, WaitForFirstConsumer's WaitForPodScheduled, the Lost phase): a
// StorageClass that does not exist, a provisioner that failed (its own message), a claim waiting
// for its first pod, or one with no class that only a matching PersistentVolume can satisfy.
import type { KubeObject } from '../kubernetes/types';
import { arrayAt, stringAt, valueAt } from '../printers/fields';
import { eventsAbout, fromFinding, healthy, inNamespace, nameOf, namespaceOf, type Diagnosis, type DiagnosisContext } from './diagnosis';

const DEFAULT_CLASS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

function defaultClass(classes: readonly KubeObject[]): KubeObject | undefined {
  return classes.find((item) => DEFAULT_CLASS.some((annotation) => item.metadata.annotations?.[annotation] === 'true'));
}

function classList(classes: readonly KubeObject[]): string {
  const names = classes.map((item) => `${nameOf(item)}${item === defaultClass(classes) ? ' (default)' : ''}`);
  return names.length > 0 ? names.join(', ') : 'none';
}

/** Pods in the claim's namespace that mount it. */
function consumers(claim: KubeObject, context: DiagnosisContext): KubeObject[] {
  return inNamespace(context.pods, namespaceOf(claim)).filter((pod) => arrayAt(pod, 'spec', 'volumes').some((volume) => stringAt(volume, 'persistentVolumeClaim', 'claimName') === nameOf(claim)));
}

export function diagnosePersistentVolumeClaim(claim: KubeObject, context: DiagnosisContext): Diagnosis {
  const phase = stringAt(claim, 'status', 'phase') || 'Pending';
  const volumeName = stringAt(claim, 'spec', 'volumeName');
  const requested = stringAt(claim, 'spec', 'resources', 'requests', 'storage');
  if (claim.metadata.deletionTimestamp) {
    const users = consumers(claim, context).map(nameOf);
    return fromFinding({ severity: 'warning', code: 'Terminating', reason: `being deleted${users.length > 0 ? `; kept until no pod uses it (${users.join(', ')})` : ''}` });
  }
  if (phase === 'Bound') return healthy('Healthy', `healthy: bound to PersistentVolume ${volumeName}${stringAt(claim, 'status', 'capacity', 'storage') ? ` (${stringAt(claim, 'status', 'capacity', 'storage')})` : ''}`);
  if (phase === 'Lost') {
    return fromFinding({ severity: 'error', code: 'ClaimLost', reason: `its PersistentVolume ${volumeName || '(unknown)'} is gone (phase Lost): the data it held is not reachable`, hints: ['recreate the claim; a pod using it cannot start until then'] });
  }
  const className = typeof valueAt(claim, 'spec', 'storageClassName') === 'string' ? stringAt(claim, 'spec', 'storageClassName') : undefined;
  const events = eventsAbout(context, claim, 'PersistentVolumeClaim');
  const details: string[] = [`Phase: ${phase}`, `Requested: ${requested || '<unset>'}, StorageClass: ${className === undefined ? '<default>' : className === '' ? '"" (none)' : className}`];
  const classes = context.storageClasses;
  const provisioningFailed = events.find((event) => event.reason === 'ProvisioningFailed');
  const missingClassName = className && classes && !classes.some((item) => nameOf(item) === className) ? className : provisioningFailed && /storageclass\.storage\.k8s\.io "([^"]+)" not found/.exec(provisioningFailed.message)?.[1];
  if (missingClassName) {
    if (provisioningFailed) details.push(`Provisioner: ${provisioningFailed.message}`);
    if (classes) details.push(`StorageClasses: ${classList(classes)}`);
    const fallback = classes ? defaultClass(classes) : undefined;
    return fromFinding({
      severity: 'error',
      code: 'StorageClassMissing',
      reason: `StorageClass "${missingClassName}" does not exist, so nothing provisions a volume for it`,
      details,
      hints: [`use an existing class${fallback ? ` (e.g. storageClassName: ${nameOf(fallback)}, the default)` : ''} — kubectl get storageclass; storageClassName cannot change, so recreate the claim`],
    });
  }
  if (provisioningFailed) {
    return fromFinding({ severity: 'error', code: 'ClaimPending', reason: `cannot be provisioned: ${provisioningFailed.message}`, details, hints: [] });
  }
  const storageClass = className ? classes?.find((item) => nameOf(item) === className) : classes ? defaultClass(classes) : undefined;
  if (storageClass && stringAt(storageClass, 'volumeBindingMode') === 'WaitForFirstConsumer') {
    const users = consumers(claim, context);
    if (users.length === 0) return healthy('Healthy', `healthy: waiting for a pod to use it (StorageClass ${nameOf(storageClass)} binds on first use)`, details);
    return fromFinding({ severity: 'warning', code: 'ClaimPending', reason: `waiting for pod ${nameOf(users[0])} to be scheduled, then a volume is provisioned (WaitForFirstConsumer)`, details });
  }
  if (className === '') {
    return fromFinding({
      severity: 'warning',
      code: 'ClaimPending',
      reason: 'waiting for a matching PersistentVolume: storageClassName "" means no provisioner makes one',
      details,
      hints: ['create a PersistentVolume that matches (size, access modes, no class), or set a storageClassName'],
    });
  }
  if (className === undefined && classes && !defaultClass(classes)) {
    return fromFinding({ severity: 'warning', code: 'ClaimPending', reason: 'no StorageClass named and none is the default: waiting for a matching PersistentVolume', details, hints: ['set spec.storageClassName, or mark a class as default'] });
  }
  const waiting = events.find((event) => event.reason === 'ExternalProvisioning' || event.reason === 'Provisioning');
  if (waiting) details.push(`Provisioner: ${waiting.message}`);
  return fromFinding({ severity: 'warning', code: 'ClaimPending', reason: `waiting for a volume to be provisioned${storageClass ? ` by StorageClass ${nameOf(storageClass)}` : ''}`, details });
}
