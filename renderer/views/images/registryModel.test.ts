import { describe, expect, it } from 'vitest';
import type { RepositorySummary } from '../../../shared/imageRegistry';
import { HELM_CHART_CONFIG, manifestPath, pushCommands, registryContent, registryDeleteCheck, registryHost, registryReference, repositoryMatches, shortDigest, tagsSharingDigest } from './registryModel';

const repository: RepositorySummary = {
  name: 'team/app',
  tags: [
    { tag: '1', digest: 'sha256:aaaa1111bbbb2222cccc', mediaType: 'application/vnd.docker.distribution.manifest.v2+json', artifactType: 'application/vnd.docker.container.image.v1+json', size: 10 },
    { tag: 'latest', digest: 'sha256:aaaa1111bbbb2222cccc', mediaType: 'application/vnd.docker.distribution.manifest.v2+json', artifactType: 'application/vnd.docker.container.image.v1+json', size: 10 },
    { tag: 'multi', digest: 'sha256:ffff', mediaType: 'application/vnd.oci.image.index.v1+json', size: 20 },
  ],
  untaggedManifests: 0,
  size: 30,
};

describe('the Images page registry model', () => {
  it('reads the host from the KEP-1755 ConfigMap, and nothing from a ConfigMap without one', () => {
    const configMap = { data: { 'localRegistryHosting.v1': 'host: localhost:5000\nhostFromContainerRuntime: localhost:5000\nhelp: push here\n' } };
    expect(registryHost(configMap)).toBe('localhost:5000');
    expect([registryHost({ data: { 'localRegistryHosting.v1': 'help: no host\n' } }), registryHost({ data: { 'localRegistryHosting.v1': ': [' } }), registryHost({}), registryHost('nope')]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('tells images, indexes, Helm charts and other artifacts apart', () => {
    expect(registryContent(repository.tags[0])).toBe('image');
    expect(registryContent(repository.tags[2])).toBe('index');
    expect(registryContent({ mediaType: 'application/vnd.docker.distribution.manifest.list.v2+json' })).toBe('index');
    expect(registryContent({ mediaType: 'application/vnd.oci.image.manifest.v1+json', artifactType: HELM_CHART_CONFIG })).toBe('chart');
    expect(registryContent({ mediaType: 'application/vnd.oci.image.manifest.v1+json', artifactType: 'application/vnd.oci.image.config.v1+json' })).toBe('image');
    expect(registryContent({ mediaType: 'application/vnd.oci.image.manifest.v1+json', artifactType: 'application/vnd.example.sbom' })).toBe('artifact');
  });

  it('shortens digests and names references as docker and helm use them', () => {
    expect(shortDigest('sha256:0123456789abcdef0123')).toBe('sha256:0123456789ab');
    expect(registryReference('localhost:5000', 'team/app', '1')).toBe('localhost:5000/team/app:1');
    expect(registryReference('localhost:5000', 'charts/web', '0.1.0', 'chart')).toBe('oci://localhost:5000/charts/web --version 0.1.0 --plain-http');
    expect(pushCommands('localhost:5001').image).toBe('docker tag myapp:dev localhost:5001/myapp:dev && docker push localhost:5001/myapp:dev');
  });

  it('filters by repository, tag and kind, and names the tags a digest deletion removes', () => {
    expect([repositoryMatches(repository, 'team latest'), repositoryMatches(repository, 'index'), repositoryMatches(repository, 'chart')]).toEqual([true, true, false]);
    expect(tagsSharingDigest(repository, 'sha256:aaaa1111bbbb2222cccc')).toEqual(['1', 'latest']);
  });
});

describe('what deleting from the registry needs', () => {
  it('names the manifest URL under the API server, path segment by segment, as a non-resource check', () => {
    expect(manifestPath('team/app', 'v1.2')).toBe('/registry/v2/team/app/manifests/v1.2');
    expect(manifestPath('app', 'sha256:0123')).toBe('/registry/v2/app/manifests/sha256%3A0123');
    expect(registryDeleteCheck('team/app', 'v1')).toEqual({ verb: 'delete', group: '', resource: '', path: '/registry/v2/team/app/manifests/v1' });
  });
});
