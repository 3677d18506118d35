// What a kubelet would report, for controller tests without one: pods whose containers started
// and became ready.
import type { ApiClient } from '../../main/client/apiClient';
import { resources } from '../../main/client/resources';
import type { KubeObject } from '../../shared/kubernetes/types';

/** A started pod's status with its Ready condition (a fixed transition time keeps tests repeatable). */
export const runningAndReady = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2020-01-01T00:00:00Z' }] };

/**
 * Reports each pod that is not Running yet as Running and Ready; pods being deleted are left alone.
 * With `ignoreErrors`, a pod that went away meanwhile does not stop the others.
 */
export async function runPods(client: ApiClient, pods: readonly KubeObject[], options: { ignoreErrors?: boolean } = {}): Promise<void> {
  for (const pod of pods) {
    if ((pod.status as { phase?: string } | undefined)?.phase === 'Running' || pod.metadata.deletionTimestamp) continue;
    const patched = client.resource(resources.pods).patchStatus(pod.metadata.namespace ?? 'default', pod.metadata.name ?? '', { status: runningAndReady }, 'merge');
    await (options.ignoreErrors ? patched.catch(() => undefined) : patched);
  }
}
