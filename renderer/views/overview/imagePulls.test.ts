// Tests of deriving current image pulls from pods and their kubelet events.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { containerOfFieldPath, currentPulls, pullSummaries } from './imagePulls';

function waitingPod(name: string, reason: string): KubeObject {
  return { metadata: { name, namespace: 'default' }, status: { phase: 'Pending', containerStatuses: [{ name: 'app', state: { waiting: { reason } } }] } };
}

function pullEvent(pod: string, reason: string, second: number, image = 'nginx:1.27'): KubeObject {
  return {
    metadata: { name: `${pod}.${reason}.${second}`, namespace: 'default' },
    type: 'Normal',
    reason,
    message: reason === 'Pulling' ? `Pulling image "${image}"` : `Successfully pulled image "${image}" in 1s`,
    lastTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
    involvedObject: { kind: 'Pod', namespace: 'default', name: pod, fieldPath: 'spec.containers{app}' },
  } as KubeObject;
}

describe('currentPulls', () => {
  it.each([
    { title: 'a waiting container whose newest event is Pulling', pod: waitingPod('web', 'ContainerCreating'), events: [pullEvent('web', 'Pulling', 1)], expected: 1 },
    { title: 'a pull that finished', pod: waitingPod('web', 'ContainerCreating'), events: [pullEvent('web', 'Pulling', 1), pullEvent('web', 'Pulled', 2)], expected: 0 },
    { title: 'Pulling and Pulled in the same second', pod: waitingPod('web', 'ContainerCreating'), events: [pullEvent('web', 'Pulled', 1), pullEvent('web', 'Pulling', 1)], expected: 0 },
    { title: 'a container in back-off, not pulling', pod: waitingPod('web', 'ImagePullBackOff'), events: [pullEvent('web', 'Pulling', 1)], expected: 0 },
    { title: 'a running pod with a stale Pulling event', pod: { metadata: { name: 'web', namespace: 'default' }, status: { containerStatuses: [{ name: 'app', state: { running: {} } }] } }, events: [pullEvent('web', 'Pulling', 1)], expected: 0 },
    { title: 'a pull event of another pod', pod: waitingPod('web', 'ContainerCreating'), events: [pullEvent('db', 'Pulling', 1)], expected: 0 },
  ])('counts $title as $expected pulls', ({ pod, events, expected }) => {
    expect(currentPulls([pod], events)).toHaveLength(expected);
  });

  it('names the image and groups pods pulling the same one', () => {
    const pulls = currentPulls([waitingPod('a', 'ContainerCreating'), waitingPod('b', 'ContainerCreating')], [pullEvent('a', 'Pulling', 3), pullEvent('b', 'Pulling', 2)]);
    expect(pulls.map((pull) => `${pull.pod}:${pull.container}:${pull.image}`)).toEqual(['b:app:nginx:1.27', 'a:app:nginx:1.27']);
    expect(pullSummaries(pulls)).toEqual([{ image: 'nginx:1.27', pods: 2, since: Date.UTC(2026, 0, 1, 0, 0, 2) }]);
  });
});

describe('containerOfFieldPath', () => {
  it.each([
    ['spec.containers{web}', 'web'],
    ['spec.initContainers{setup}', 'setup'],
    ['metadata.name', undefined],
    [undefined, undefined],
  ])('reads %s as %s', (fieldPath, container) => {
    expect(containerOfFieldPath(fieldPath)).toBe(container);
  });
});
