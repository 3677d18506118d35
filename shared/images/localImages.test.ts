import { describe, expect, it } from 'vitest';
import { applyPullEvent, imageName, isDangling, podsUsing, removalRefusal, type ImageUser, type PullState } from './localImages';

const users: ImageUser[] = [
  { containerId: 'a', state: 'running', cluster: 'c1', podNamespace: 'default', podName: 'web-1', container: 'app' },
  { containerId: 'b', state: 'exited', cluster: 'c1', podNamespace: 'default', podName: 'web-1', container: 'init' },
  { containerId: 'c', state: 'running', cluster: 'c1', podNamespace: 'apps', podName: 'api', container: 'app' },
  { containerId: 'd', state: 'running', cluster: 'other', podNamespace: 'default', podName: 'elsewhere', container: 'app' },
];

describe('local images', () => {
  it('calls an image without tags dangling', () => {
    expect(isDangling({ repoTags: [] })).toBe(true);
    expect(isDangling({ repoTags: ['<none>:<none>'] })).toBe(true);
    expect(isDangling({ repoTags: ['busybox:1'] })).toBe(false);
  });

  it('names an image object by its ID without the digest algorithm', () => {
    expect(imageName('sha256:0123abcd')).toBe('0123abcd');
  });

  it('lists the pods of this cluster that use an image, each once', () => {
    expect(podsUsing(users, 'c1')).toEqual(['apps/api', 'default/web-1']);
  });

  it('refuses removal naming the pods and counting containers outside the cluster', () => {
    expect(removalRefusal({ id: 'sha256:1', repoTags: ['app:dev'] }, users, 'c1')).toBe('image "app:dev" is in use by pods apps/api, default/web-1 and 1 other container; delete those pods first');
    expect(removalRefusal({ id: 'sha256:1', repoTags: [] }, users.slice(3), 'c1')).toBe('image "sha256:1" is in use by 1 other container; delete those containers first');
    expect(removalRefusal({ id: 'sha256:1', repoTags: ['app:dev'] }, [], 'c1')).toBeUndefined();
  });

  it('sums a pull progress over its layers as Docker reports them', () => {
    const layers = new Map<string, { current: number; total: number; done: boolean }>();
    let state: PullState = { image: 'busybox:1', phase: 'Pulling', current: 0, total: 0, layers: 0, layersDone: 0, message: '', startedAt: '' };
    state = applyPullEvent(state, layers, { status: 'Pulling from library/busybox', id: '1' });
    state = applyPullEvent(state, layers, { status: 'Pulling fs layer', id: 'aaaaaaaaaaaa' });
    state = applyPullEvent(state, layers, { status: 'Downloading', id: 'aaaaaaaaaaaa', current: 100, total: 400 });
    state = applyPullEvent(state, layers, { status: 'Already exists', id: 'bbbbbbbbbbbb' });
    expect(state).toMatchObject({ current: 100, total: 400, layers: 2, layersDone: 1, message: 'bbbbbbbbbbbb: Already exists' });
    state = applyPullEvent(state, layers, { status: 'Pull complete', id: 'aaaaaaaaaaaa' });
    expect(state).toMatchObject({ current: 400, total: 400, layersDone: 2 });
  });
});
