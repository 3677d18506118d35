// ServiceAccountController and RootCaPublisher: every active namespace gets a `default`
// ServiceAccount (upstream pkg/controller/serviceaccount/serviceaccounts_controller.go) and a
// `kube-root-ca.crt` ConfigMap holding the cluster CA (pkg/controller/certificates/rootcacertpublisher).
// Both recreate their object if it is deleted, and leave terminating namespaces alone.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ApiClient } from '../client/apiClient';
import { QueueController } from '../client/controllerLoop';
import type { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { isAlreadyExists, isForbidden, isNotFound } from '../client/errors';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';

export class NamespaceDefaultsController extends QueueController {
  private readonly namespaces = this.factory.informerFor(resources.namespaces);
  private readonly serviceAccounts = this.factory.informerFor(resources.serviceaccounts, { fieldSelector: 'metadata.name=default' });
  private readonly configMaps = this.factory.informerFor(resources.configmaps, { fieldSelector: `metadata.name=${ROOT_CA_CONFIGMAP}` });

  constructor(client: ApiClient, factory: SharedInformerFactory, private readonly caCertPem: string) {
    super(client, factory, { name: 'namespace-defaults', component: 'service-account-controller' });
    const byName = (ns: KubeObject) => ns.metadata.name && this.queue.add(ns.metadata.name);
    const byNamespace = (obj: KubeObject) => obj.metadata.namespace && this.queue.add(obj.metadata.namespace);
    this.handle(this.namespaces, { onAdd: byName, onUpdate: (_old, ns) => byName(ns) });
    this.handle(this.serviceAccounts, { onDelete: byNamespace });
    this.handle(this.configMaps, { onUpdate: (_old, cm) => byNamespace(cm), onDelete: byNamespace });
  }

  async reconcile(namespace: string): Promise<void> {
    const ns = this.namespaces.get(undefined, namespace);
    if (!ns || ns.metadata.deletionTimestamp || (isRecord(ns.status) && ns.status.phase === 'Terminating')) return;
    if (!this.serviceAccounts.get(namespace, 'default')) {
      await this.createIgnoringExisting(() => this.client.resource(resources.serviceaccounts).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } }));
    }
    const configMap = this.configMaps.get(namespace, ROOT_CA_CONFIGMAP);
    const data = { 'ca.crt': this.caCertPem };
    if (!configMap) {
      await this.createIgnoringExisting(() =>
        this.client.resource(resources.configmaps).create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { 'kubernetes.io/description': 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.' } },
          data,
        }),
      );
    } else if (!isRecord(configMap.data) || configMap.data['ca.crt'] !== this.caCertPem) {
      await this.client.resource(resources.configmaps).patch(namespace, ROOT_CA_CONFIGMAP, { data }, 'merge');
    }
  }

  private async createIgnoringExisting(create: () => Promise<unknown>): Promise<void> {
    try {
      await create();
    } catch (error) {
      // A namespace that just started terminating refuses new content; nothing to do then.
      if (isAlreadyExists(error) || isForbidden(error) || isNotFound(error)) return;
      throw error;
    }
  }
}
