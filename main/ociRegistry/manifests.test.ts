// Which manifests the registry accepts and what it reads from them.
import { describe, expect, it } from 'vitest';
import { DOCKER_MANIFEST, DOCKER_MANIFEST_LIST, imageSize, ManifestError, OCI_INDEX, OCI_MANIFEST, parseManifest } from './manifests';

const digest = (character: string) => `sha256:${character.repeat(64)}`;
const config = { mediaType: 'application/vnd.oci.image.config.v1+json', digest: digest('c'), size: 10 };
const layer = { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: digest('1'), size: 100 };
const foreign = { mediaType: 'application/vnd.docker.image.rootfs.foreign.diff.tar.gzip', digest: digest('2'), size: 1000, urls: ['https://example.invalid/layer'] };

function body(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

describe('parseManifest', () => {
  it('reads an image manifest: its config and layers are the blobs it needs, foreign layers excepted', () => {
    const parsed = parseManifest(body({ schemaVersion: 2, mediaType: DOCKER_MANIFEST, config, layers: [layer, foreign] }), DOCKER_MANIFEST);
    expect(parsed.mediaType).toBe(DOCKER_MANIFEST);
    expect(parsed.blobs.map((blob) => blob.digest.text)).toEqual([digest('c'), digest('1')]);
    expect(imageSize(parsed)).toBe(1110);
  });

  it('takes the media type from the body when the Content-Type is missing or generic, and guesses OCI types without either', () => {
    expect(parseManifest(body({ schemaVersion: 2, mediaType: OCI_MANIFEST, config, layers: [] }), undefined).mediaType).toBe(OCI_MANIFEST);
    expect(parseManifest(body({ schemaVersion: 2, mediaType: OCI_MANIFEST, config, layers: [] }), 'application/json').mediaType).toBe(OCI_MANIFEST);
    expect(parseManifest(body({ schemaVersion: 2, config, layers: [] }), undefined).mediaType).toBe(OCI_MANIFEST);
    expect(parseManifest(body({ schemaVersion: 2, manifests: [] }), undefined).mediaType).toBe(OCI_INDEX);
  });

  it('reads an index or manifest list: the manifests it names', () => {
    const parsed = parseManifest(body({ schemaVersion: 2, mediaType: DOCKER_MANIFEST_LIST, manifests: [{ mediaType: DOCKER_MANIFEST, digest: digest('d'), size: 500 }] }), `${DOCKER_MANIFEST_LIST}; charset=utf-8`);
    expect(parsed.manifests.map((entry) => entry.digest.text)).toEqual([digest('d')]);
    expect(parsed.blobs).toEqual([]);
  });

  it.each([
    ['not JSON', Buffer.from('{'), DOCKER_MANIFEST, 'not valid JSON'],
    ['schema 1', body({ schemaVersion: 1 }), DOCKER_MANIFEST, 'schemaVersion must be 2'],
    ['a Content-Type the body contradicts', body({ schemaVersion: 2, mediaType: OCI_MANIFEST, config, layers: [] }), DOCKER_MANIFEST, 'does not match'],
    ['an unknown media type', body({ schemaVersion: 2, config, layers: [] }), 'application/vnd.example+json', 'unsupported manifest media type'],
    ['a bad descriptor digest', body({ schemaVersion: 2, config: { ...config, digest: 'sha256:xyz' }, layers: [] }), OCI_MANIFEST, 'config.digest'],
    ['a negative size', body({ schemaVersion: 2, config, layers: [{ ...layer, size: -1 }] }), OCI_MANIFEST, 'layers[0].size'],
    ['layers missing', body({ schemaVersion: 2, config }), OCI_MANIFEST, 'layers must be an array'],
  ])('refuses %s', (_case, content, contentType, message) => {
    expect(() => parseManifest(content, contentType)).toThrow(ManifestError);
    expect(() => parseManifest(content, contentType)).toThrow(message);
  });
});
