// Pure helpers of the Helm pages: the tone of a release status, the objects of a release manifest
// with the UI routes of their detail pages, and values printed as `helm get values` prints them.
import { stringify } from 'yaml';
import type { HelmRelease } from '../../../shared/helm/releaseStorage';
import type { Tone } from '../../kinds/kindConfig';
import type { DiscoveredResource } from '../../kinds/discovery';
import { manifestObjects, resolveObjects } from '../../actions/helmManifest';

export function releaseTone(status: string): Tone {
  if (status === 'deployed') return 'ok';
  if (status === 'failed') return 'error';
  if (status.startsWith('pending') || status === 'uninstalling') return 'warn';
  return 'muted';
}

export interface ReleaseResource {
  kind: string;
  apiVersion: string;
  name: string;
  /** '' for cluster-scoped objects */
  namespace: string;
  /** the UI route key of the kind, when discovery knows it */
  kindKey?: string;
  /** the object's REST path, when discovery knows the kind */
  path?: string;
}

/** The objects a release manifest declares, with where their detail pages and REST paths are. */
export function releaseResources(release: Pick<HelmRelease, 'manifest' | 'namespace'>, discovered: readonly DiscoveredResource[]): ReleaseResource[] {
  return manifestObjects(release.manifest, release.namespace).map((object) => {
    const resolved = discovered.some((candidate) => candidate.group === object.group && candidate.kind === object.kind) ? resolveObjects([object], discovered)[0] : undefined;
    return {
      kind: object.kind,
      apiVersion: object.apiVersion,
      name: object.name,
      namespace: resolved ? resolved.namespace : object.namespace,
      kindKey: resolved?.kindKey,
      ...(resolved ? { path: resolved.path } : {}),
    };
  });
}

/** Values as YAML; `null` for none, as `helm get values` prints it. */
export function valuesYaml(values: Record<string, unknown>): string {
  return Object.keys(values).length === 0 ? 'null\n' : stringify(values);
}
