// Pure helpers of the Images page: Image objects of images.kubedesk.dev/v1 as rows (newest first,
// as `docker image ls`), sizes as Docker prints them (decimal units), and a pull's progress.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { PermissionCheck } from '../permissions/permissionsModel';

export const IMAGES_PATH = '/apis/images.kubedesk.dev/v1/images';
export const PULLS_PATH = '/apis/images.kubedesk.dev/v1/imagepulls';

/** What removing an image needs: `delete` on images.kubedesk.dev images (cluster-scoped), as `kubectl delete image.images.kubedesk.dev NAME`. */
export function imageDeleteCheck(name: string): PermissionCheck {
  return { verb: 'delete', group: 'images.kubedesk.dev', resource: 'images', name };
}

/** What pulling needs: `create` on images.kubedesk.dev imagepulls. */
export const IMAGE_PULL_CHECK: PermissionCheck = { verb: 'create', group: 'images.kubedesk.dev', resource: 'imagepulls' };

export interface ImageRow {
  name: string;
  id: string;
  /** `repository:tag` of each tag; empty for a dangling image */
  tags: string[];
  size: number;
  created: string;
  dangling: boolean;
  pods: Array<{ namespace: string; name: string; containers: string[] }>;
  otherContainers: number;
}

export function imageRows(items: readonly KubeObject[]): ImageRow[] {
  return items
    .map((item) => ({
      name: item.metadata.name ?? '',
      id: typeof item.id === 'string' ? item.id : '',
      tags: Array.isArray(item.repoTags) ? item.repoTags.filter((tag): tag is string => typeof tag === 'string') : [],
      size: typeof item.size === 'number' ? item.size : 0,
      created: item.metadata.creationTimestamp ?? '',
      dangling: item.dangling === true,
      pods: Array.isArray(item.pods)
        ? item.pods.filter(isRecord).map((pod) => ({
            namespace: typeof pod.namespace === 'string' ? pod.namespace : '',
            name: typeof pod.name === 'string' ? pod.name : '',
            containers: Array.isArray(pod.containers) ? pod.containers.filter((container): container is string => typeof container === 'string') : [],
          }))
        : [],
      otherContainers: typeof item.otherContainers === 'number' ? item.otherContainers : 0,
    }))
    .sort((a, b) => b.created.localeCompare(a.created) || (a.tags[0] ?? '').localeCompare(b.tags[0] ?? ''));
}

/** Docker's units (go-units HumanSize: decimal, 3 significant digits): `4.27MB`. */
export function humanSize(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${Number(value.toPrecision(3))}${units[unit]}`;
}

/** The short ID `docker images` prints. */
export function shortId(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, 12);
}

export function imageMatches(row: ImageRow, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const text = [...row.tags, row.id, ...row.pods.map((pod) => `${pod.namespace}/${pod.name}`), row.dangling ? 'dangling' : '', row.pods.length > 0 ? 'in-use' : 'unused'].join(' ').toLowerCase();
  return words.every((word) => text.includes(word));
}

export interface PullView {
  phase: string;
  /** 0..1 when the layer sizes are known */
  fraction?: number;
  text: string;
}

export function pullView(pull: KubeObject): PullView {
  const status = isRecord(pull.status) ? pull.status : {};
  const phase = typeof status.phase === 'string' ? status.phase : 'Pulling';
  const current = typeof status.current === 'number' ? status.current : 0;
  const total = typeof status.total === 'number' ? status.total : 0;
  const layers = typeof status.layers === 'number' ? status.layers : 0;
  const layersDone = typeof status.layersDone === 'number' ? status.layersDone : 0;
  const message = typeof status.message === 'string' ? status.message : '';
  if (phase === 'Failed') return { phase, text: message };
  // Docker reports no layer at all when the image (its config) is already in the store under another name
  if (phase === 'Complete') return { phase, fraction: 1, text: layers === 0 ? 'pulled: every layer was already here' : `pulled${total ? ` ${humanSize(total)}` : ''} (${layers} layer${layers === 1 ? '' : 's'})` };
  const fraction = total > 0 ? Math.min(1, current / total) : undefined;
  const amount = total > 0 ? `${humanSize(current)} / ${humanSize(total)}` : '';
  return { phase, fraction, text: [amount, layers ? `${layersDone}/${layers} layers` : '', message].filter(Boolean).join(' · ') };
}
