// Pure helpers of the Images page's registry section: where the built-in registry is (the
// KEP-1755 ConfigMap kube-public/local-registry-hosting, key localRegistryHosting.v1, whose `host`
// is where developer tools push), what each tagged manifest holds (an image, a multi-platform
// index, a Helm chart pushed with `helm push`, another OCI artifact), short digests, and the
// commands that push a local image there and pull it back.
import { parse } from 'yaml';
import { IMAGE_REGISTRY_API, type RepositorySummary, type TagSummary } from '../../../shared/imageRegistry';
import { isRecord } from '../../../shared/kubernetes/types';
import type { PermissionCheck } from '../permissions/permissionsModel';

export const REGISTRY_HOSTING_PATH = '/api/v1/namespaces/kube-public/configmaps/local-registry-hosting';

/** The manifest path of a repository and a tag or digest (the name's slashes are path segments). */
export function manifestPath(repository: string, reference: string): string {
  return `${IMAGE_REGISTRY_API}/${repository.split('/').map(encodeURIComponent).join('/')}/manifests/${encodeURIComponent(reference)}`;
}

/**
 * What deleting a manifest needs: the API server authorizes its registry mount as the non-resource
 * URL it is (RBAC `nonResourceURLs`, e.g. `/registry/v2/*` with verb delete).
 */
export function registryDeleteCheck(repository: string, reference: string): PermissionCheck {
  return { verb: 'delete', group: '', resource: '', path: manifestPath(repository, reference) };
}

/** The `host` the ConfigMap advertises (`localhost:5000`), or undefined when it names none. */
export function registryHost(configMap: unknown): string | undefined {
  if (!isRecord(configMap) || !isRecord(configMap.data)) return undefined;
  const text = configMap.data['localRegistryHosting.v1'];
  if (typeof text !== 'string') return undefined;
  let hosting: unknown;
  try {
    hosting = parse(text);
  } catch {
    return undefined;
  }
  return isRecord(hosting) && typeof hosting.host === 'string' && hosting.host !== '' ? hosting.host : undefined;
}

export type RegistryContent = 'image' | 'index' | 'chart' | 'artifact';

const INDEX_TYPES = new Set(['application/vnd.oci.image.index.v1+json', 'application/vnd.docker.distribution.manifest.list.v2+json']);
const IMAGE_CONFIG_TYPES = new Set(['application/vnd.oci.image.config.v1+json', 'application/vnd.docker.container.image.v1+json']);
/** the config media type Helm gives a chart it pushes (helm's registry package) */
export const HELM_CHART_CONFIG = 'application/vnd.cncf.helm.config.v1+json';

/** What a tag names: an index (manifest list), a Helm chart, an image, or some other artifact. */
export function registryContent(tag: Pick<TagSummary, 'mediaType' | 'artifactType'>): RegistryContent {
  if (INDEX_TYPES.has(tag.mediaType)) return 'index';
  if (tag.artifactType === HELM_CHART_CONFIG) return 'chart';
  if (tag.artifactType === undefined || IMAGE_CONFIG_TYPES.has(tag.artifactType)) return 'image';
  return 'artifact';
}

/** `sha256:` and the first 12 hex digits, as registries' UIs abbreviate digests. */
export function shortDigest(digest: string): string {
  const [algorithm, encoded] = digest.includes(':') ? digest.split(':', 2) : ['', digest];
  return `${algorithm ? `${algorithm}:` : ''}${encoded.slice(0, 12)}`;
}

/** The name a pod (or `docker pull`, or helm) uses for a tag in the registry. */
export function registryReference(host: string, repository: string, tag: string, content: RegistryContent = 'image'): string {
  return content === 'chart' ? `oci://${host}/${repository} --version ${tag} --plain-http` : `${host}/${repository}:${tag}`;
}

/** How to push a local image (`docker tag` + `docker push`) and a packaged Helm chart (helm wants --plain-http without TLS). */
export function pushCommands(host: string): { image: string; chart: string } {
  return {
    image: `docker tag myapp:dev ${host}/myapp:dev && docker push ${host}/myapp:dev`,
    chart: `helm package ./mychart && helm push mychart-0.1.0.tgz oci://${host}/charts --plain-http`,
  };
}

/** Repositories whose name, a tag, a digest or a content kind contains every word of the filter. */
export function repositoryMatches(repository: RepositorySummary, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const text = [repository.name, ...repository.tags.flatMap((tag) => [tag.tag, tag.digest, registryContent(tag)])].join(' ').toLowerCase();
  return words.every((word) => text.includes(word));
}

/** Tags that share this tag's digest: deleting by digest removes them all. */
export function tagsSharingDigest(repository: RepositorySummary, digest: string): string[] {
  return repository.tags.filter((tag) => tag.digest === digest).map((tag) => tag.tag);
}
