// NamespaceLifecycle admission (staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/
// lifecycle): no new content in a namespace that does not exist or is being terminated. The
// refusal names the object (or its generateName) as admission.NewForbidden does. Namespaces are
// read from memory (AdmissionReads), as upstream reads them from its informer's lister.
import { isRecord } from '../../../shared/kubernetes/types';
import type { KindStrategy } from '../../registry/strategy';
import { qualifiedResource } from '../../registry/resources';
import { ApiError } from '../apiError';
import type { NamespaceLifecycle } from '../resourceStore';
import type { ResourceRegistry } from '../resourceRegistry';
import type { AdmissionReads } from './admissionReads';

export function namespaceLifecycle(reads: AdmissionReads, registry: ResourceRegistry): NamespaceLifecycle {
  return (namespace: string, def: KindStrategy, name: string) => {
    const namespaces = registry.lookup('', 'v1', 'namespaces');
    if (!namespaces) return;
    const ns = reads.namespace(namespace);
    if (!ns) throw ApiError.notFound(namespaces, namespace);
    if (ns.metadata.deletionTimestamp || (isRecord(ns.status) && ns.status.phase === 'Terminating')) {
      throw new ApiError(403, 'Forbidden', `${qualifiedResource(def)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`, {
        name,
        group: def.group,
        kind: def.resource,
        causes: [{ type: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      });
    }
  };
}
