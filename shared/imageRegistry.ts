// What the built-in image registry tells the web UI (docs/architecture.md, "Local image
// registry"): the registry's distribution API is served by the API server under
// IMAGE_REGISTRY_API (`${IMAGE_REGISTRY_API}/_catalog`, `…/NAME/tags/list`, `DELETE
// …/NAME/manifests/DIGEST|TAG`), and IMAGE_REGISTRY_SUMMARY_PATH answers every repository with
// its tags, digests and sizes in one request. The types are shared by the server that writes the
// summary and the renderer that reads it; the parser narrows the reply at the renderer's boundary.
import { isRecord } from './kubernetes/types';

export const IMAGE_REGISTRY_API = '/registry/v2';
export const IMAGE_REGISTRY_SUMMARY_PATH = `${IMAGE_REGISTRY_API}/_kubedesk/repositories`;

export interface TagSummary {
  tag: string;
  /** the manifest's digest (`sha256:…`); DELETE …/manifests/DIGEST removes the image and its tags */
  digest: string;
  mediaType: string;
  /**
   * what the manifest holds: its OCI artifactType, else its config's media type
   * (`application/vnd.cncf.helm.config.v1+json` for a Helm chart); absent for an index
   */
  artifactType?: string;
  /** bytes: the manifest plus every blob it (or, for an index, its manifests) names, each counted once */
  size: number;
}

export interface RepositorySummary {
  name: string;
  tags: TagSummary[];
  /** manifests no tag names (pushed by digest, or left when a tag moved) */
  untaggedManifests: number;
  /** bytes of the distinct manifests and blobs the repository's manifests name */
  size: number;
}

/** The summary reply's repositories; entries that do not have the shape are left out. */
export function parseRepositorySummaries(reply: unknown): RepositorySummary[] {
  if (!isRecord(reply) || !Array.isArray(reply.repositories)) return [];
  const repositories: RepositorySummary[] = [];
  for (const entry of reply.repositories) {
    if (!isRecord(entry) || typeof entry.name !== 'string' || !Array.isArray(entry.tags)) continue;
    const tags: TagSummary[] = [];
    for (const tag of entry.tags) {
      if (isRecord(tag) && typeof tag.tag === 'string' && typeof tag.digest === 'string' && typeof tag.mediaType === 'string' && typeof tag.size === 'number') {
        const summary: TagSummary = { tag: tag.tag, digest: tag.digest, mediaType: tag.mediaType, size: tag.size };
        if (typeof tag.artifactType === 'string') summary.artifactType = tag.artifactType;
        tags.push(summary);
      }
    }
    repositories.push({
      name: entry.name,
      tags,
      untaggedManifests: typeof entry.untaggedManifests === 'number' ? entry.untaggedManifests : 0,
      size: typeof entry.size === 'number' ? entry.size : 0,
    });
  }
  return repositories;
}
