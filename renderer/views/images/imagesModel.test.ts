import { describe, expect, it } from 'vitest';
import { IMAGE_PULL_CHECK, humanSize, imageDeleteCheck, imageMatches, imageRows, pullView, shortId } from './imagesModel';

const items = [
  { metadata: { name: 'aaaa', creationTimestamp: '2026-11-27T05:00:00Z' }, id: 'sha256:aaaa111122223333', repoTags: ['app:dev'], size: 4_270_000, dangling: false, pods: [{ namespace: 'default', name: 'web', containers: ['app'] }], otherContainers: 0 },
  { metadata: { name: 'bbbb', creationTimestamp: '2026-11-27T06:00:00Z' }, id: 'sha256:bbbb', repoTags: [], size: 10, dangling: true, pods: [], otherContainers: 0 },
];

describe('the Images page model', () => {
  it('turns Image objects into rows, newest first as docker image ls', () => {
    expect(imageRows(items).map((row) => [row.name, row.tags, row.dangling, row.pods.length])).toEqual([
      ['bbbb', [], true, 0],
      ['aaaa', ['app:dev'], false, 1],
    ]);
  });

  it('prints sizes and IDs as Docker does', () => {
    expect([humanSize(10), humanSize(4_270_000), humanSize(1_234_567_890)]).toEqual(['10B', '4.27MB', '1.23GB']);
    expect(shortId('sha256:0123456789abcdef')).toBe('0123456789ab');
  });

  it('filters by tag, pod, dangling and unused', () => {
    const [dangling, used] = imageRows(items);
    expect([imageMatches(used, 'app default/web'), imageMatches(used, 'unused'), imageMatches(dangling, 'dangling unused')]).toEqual([true, false, true]);
  });

  it('describes a pull in progress, complete or failed', () => {
    expect(pullView({ metadata: {}, status: { phase: 'Pulling', current: 500_000, total: 2_000_000, layers: 2, layersDone: 1, message: 'x: Downloading' } })).toEqual({ phase: 'Pulling', fraction: 0.25, text: '500kB / 2MB · 1/2 layers · x: Downloading' });
    expect(pullView({ metadata: {}, status: { phase: 'Complete', total: 2_000_000, layers: 1 } })).toEqual({ phase: 'Complete', fraction: 1, text: 'pulled 2MB (1 layer)' });
    expect(pullView({ metadata: {}, status: { phase: 'Complete', total: 0, layers: 0 } })).toEqual({ phase: 'Complete', fraction: 1, text: 'pulled: every layer was already here' });
    expect(pullView({ metadata: {}, status: { phase: 'Failed', message: 'no such host' } })).toEqual({ phase: 'Failed', text: 'no such host' });
  });
});

describe('what the Images page actions need', () => {
  it('asks for delete on the image and create on imagepulls in images.kubedesk.dev', () => {
    expect(imageDeleteCheck('sha256-abc')).toEqual({ verb: 'delete', group: 'images.kubedesk.dev', resource: 'images', name: 'sha256-abc' });
    expect(IMAGE_PULL_CHECK).toEqual({ verb: 'create', group: 'images.kubedesk.dev', resource: 'imagepulls' });
  });
});
