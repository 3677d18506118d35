// The renderer's reading of the registry summary reply.
import { describe, expect, it } from 'vitest';
import { IMAGE_REGISTRY_SUMMARY_PATH, parseRepositorySummaries } from './imageRegistry';

describe('parseRepositorySummaries', () => {
  it('reads repositories with their tags, digests and sizes', () => {
    const reply = {
      repositories: [
        {
          name: 'team/app',
          tags: [
            { tag: '1', digest: 'sha256:abc', mediaType: 'application/vnd.oci.image.manifest.v1+json', artifactType: 'application/vnd.cncf.helm.config.v1+json', size: 1234 },
            { tag: 'multi', digest: 'sha256:def', mediaType: 'application/vnd.oci.image.index.v1+json', size: 99 },
          ],
          untaggedManifests: 1,
          size: 2000,
        },
      ],
    };
    expect(parseRepositorySummaries(reply)).toEqual(reply.repositories);
  });

  it('leaves out what does not have the shape, and reads anything else as no repositories', () => {
    expect(parseRepositorySummaries({ repositories: [{ name: 'a', tags: [{ tag: 'x' }, { tag: 'y', digest: 'd', mediaType: 'm', size: 1 }] }, { tags: [] }] })).toEqual([
      { name: 'a', tags: [{ tag: 'y', digest: 'd', mediaType: 'm', size: 1 }], untaggedManifests: 0, size: 0 },
    ]);
    expect(parseRepositorySummaries('nope')).toEqual([]);
    expect(parseRepositorySummaries({ errors: [] })).toEqual([]);
  });

  it('names the summary under the API server mount', () => {
    expect(IMAGE_REGISTRY_SUMMARY_PATH).toBe('/registry/v2/_kubedesk/repositories');
  });
});
