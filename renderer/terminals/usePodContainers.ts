// The containers a dock tab can pick from: read once from the pod(s) when the tab opens. The
// default is the pod's kubectl.kubernetes.io/default-container annotation, else its first app
// container — what `kubectl exec` and `kubectl logs` pick without -c.
import { useEffect, useState } from 'react';
import type { KubeObject } from '../../shared/kubernetes/types';
import { useServices } from '../context';
import { containersOf, defaultContainer } from '../kinds/pods';

export { defaultContainer };

export interface PodContainers {
  /** app containers first, then init containers (logs of an init container are useful too) */
  names: string[];
  defaultName?: string;
  error?: string;
}

export function containerNames(pods: readonly KubeObject[]): string[] {
  const names: string[] = [];
  for (const init of [false, true]) {
    for (const pod of pods) for (const container of containersOf(pod)) if (container.init === init && !names.includes(container.name)) names.push(container.name);
  }
  return names;
}

export function usePodContainers(namespace: string, pods: readonly string[]): PodContainers | undefined {
  const { client } = useServices();
  const [result, setResult] = useState<PodContainers | undefined>(undefined);
  const key = pods.join('\n');
  useEffect(() => {
    let cancelled = false;
    const names = key.split('\n');
    Promise.allSettled(names.map((pod) => client.get<KubeObject>(`/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}`))).then((results) => {
      if (cancelled) return;
      const found = results.flatMap((item) => (item.status === 'fulfilled' ? [item.value] : []));
      const failure = results.find((item): item is PromiseRejectedResult => item.status === 'rejected');
      setResult({
        names: containerNames(found),
        defaultName: found[0] ? defaultContainer(found[0]) : undefined,
        error: found.length === 0 && failure ? (failure.reason instanceof Error ? failure.reason.message : String(failure.reason)) : undefined,
      });
    });
    return () => {
      cancelled = true;
    };
  }, [client, namespace, key]);
  return result;
}
