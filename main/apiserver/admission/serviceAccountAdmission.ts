// The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount/admission.go), mutating
// half: a pod without a service account gets `default`, and unless automounting is switched off
// on the pod or its service account, a `kube-api-access-xxxxx` projected volume (token, the
// cluster CA from kube-root-ca.crt, the namespace) mounted read-only at
// /var/run/secrets/kubernetes.io/serviceaccount in every container.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { generateName } from '../objectMeta';

export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

export function admitPodServiceAccount(pod: KubeObject, lookupServiceAccount: (namespace: string, name: string) => KubeObject | undefined): void {
  if (!isRecord(pod.spec)) return;
  const spec = pod.spec;
  if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') spec.serviceAccountName = 'default';
  const account = lookupServiceAccount(pod.metadata.namespace ?? '', String(spec.serviceAccountName));
  if (spec.automountServiceAccountToken === false) return;
  if (spec.automountServiceAccountToken === undefined && account && account.automountServiceAccountToken === false) return;
  const containers = [...asArray(spec.initContainers), ...asArray(spec.containers), ...asArray(spec.ephemeralContainers)].filter(isRecord);
  const alreadyMounted = containers.some((container) => asArray(container.volumeMounts).some((mount) => isRecord(mount) && mount.mountPath === SERVICE_ACCOUNT_MOUNT_PATH));
  if (alreadyMounted) return;
  const volumes = Array.isArray(spec.volumes) ? spec.volumes : (spec.volumes = []);
  const name = generateName('kube-api-access-');
  volumes.push({
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  });
  for (const container of containers) {
    const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts : (container.volumeMounts = []);
    mounts.push({ name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH });
  }
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
