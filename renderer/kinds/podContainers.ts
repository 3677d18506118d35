// A pod's containers by name and image (init containers first), and the container kubectl picks
// when none is named. Pure; used by container pickers, the shell rule and the detail page.
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';

export interface ContainerInfo {
  name: string;
  image: string;
  init: boolean;
}

/** The pod's containers (init containers first), for container pickers and the summary. */
export function containersOf(pod: KubeObject): ContainerInfo[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const list = (value: unknown, init: boolean): ContainerInfo[] =>
    Array.isArray(value) ? value.filter(isRecord).map((container) => ({ name: String(container.name ?? ''), image: String(container.image ?? ''), init })) : [];
  return [...list(spec.initContainers, true), ...list(spec.containers, false)];
}

/**
 * The container `kubectl exec` and `kubectl logs` pick without -c: the pod's
 * kubectl.kubernetes.io/default-container annotation when it names a container, else the first app
 * container.
 */
export function defaultContainer(pod: KubeObject): string | undefined {
  const annotated = pod.metadata.annotations?.['kubectl.kubernetes.io/default-container'];
  const containers = containersOf(pod);
  if (annotated && containers.some((container) => container.name === annotated)) return annotated;
  return containers.find((container) => !container.init)?.name ?? containers[0]?.name;
}
