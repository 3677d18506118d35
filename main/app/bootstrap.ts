// Objects every cluster starts with, created through the API like upstream's bootstrap
// controllers (pkg/controlplane/controller/systemnamespaces, kubernetesservice): the system
// namespaces and the `kubernetes` Service. Existing objects are left alone, so a restart is a no-op.
import type { KubeObject } from '../../shared/kubernetes/types';
import type { ApiClient } from '../client/apiClient';
import { resources } from '../client/resources';
import { isAlreadyExists } from '../client/errors';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
export const KUBERNETES_SERVICE_IP = '10.96.0.1';

export async function bootstrapObjects(client: ApiClient): Promise<void> {
  const namespaces = client.resource(resources.namespaces);
  for (const name of SYSTEM_NAMESPACES) {
    await ignoreExisting(namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }));
  }
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: KUBERNETES_SERVICE_IP,
      clusterIPs: [KUBERNETES_SERVICE_IP],
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
      sessionAffinity: 'None',
    },
  };
  await ignoreExisting(client.resource(resources.services).create(service));
}

async function ignoreExisting(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}
