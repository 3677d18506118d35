// The local Docker image store as kubedesk's own API shows it (images.kubedesk.dev/v1): what an
// image store implementation (main/docker/dockerImages.ts) reports, the objects the API serves and
// the UI reads, and the pure rules both sides share — who uses an image, whether it may be removed,
// the progress of a pull summed over its layers (as `docker pull` prints one line per layer).
export const IMAGES_GROUP = 'images.kubedesk.dev';
export const IMAGES_VERSION = 'v1';
export const IMAGES_API_VERSION = `${IMAGES_GROUP}/${IMAGES_VERSION}`;

/** A container that uses an image, with the pod it belongs to when kubedesk's kubelet made it. */
export interface ImageUser {
  containerId: string;
  /** Docker's state: running, exited, created… */
  state: string;
  /** the kubedesk cluster id label ('' for containers kubedesk did not make) */
  cluster: string;
  podNamespace?: string;
  podName?: string;
  /** the Kubernetes container name; absent for a pod's sandbox */
  container?: string;
}

/** One image as the store reports it (`docker image ls` plus the containers using it). */
export interface LocalImage {
  /** `sha256:…` */
  id: string;
  repoTags: string[];
  repoDigests: string[];
  /** bytes */
  size: number;
  /** RFC 3339 */
  created: string;
  users: ImageUser[];
}

/** A pull's state: the layers Docker reported, summed. */
export interface PullState {
  image: string;
  phase: 'Pulling' | 'Complete' | 'Failed';
  /** bytes downloaded over the layers whose size is known */
  current: number;
  total: number;
  layers: number;
  layersDone: number;
  /** Docker's last status line, or the error */
  message: string;
  startedAt: string;
  finishedAt?: string;
}

/** What the API needs from the image store. */
export interface LocalImageStore {
  list(): Promise<LocalImage[]>;
  /** Removes the image (every tag, then the image), not forced; throws ImageInUseError when containers use it. */
  remove(id: string): Promise<void>;
  /** Pulls `reference`, reporting each Docker progress event; resolves when complete. */
  pull(reference: string, onEvent: (event: PullEvent) => void): Promise<void>;
}

/** One event of Docker's pull stream (`{"status":"Downloading","id":"a1b2","progressDetail":{…}}`). */
export interface PullEvent {
  id?: string;
  status: string;
  current?: number;
  total?: number;
}

export class ImageInUseError extends Error {
  constructor(
    message: string,
    readonly users: ImageUser[],
  ) {
    super(message);
    this.name = 'ImageInUseError';
  }
}

/** An image with no tag (`<none>:<none>` in `docker images`). */
export function isDangling(image: Pick<LocalImage, 'repoTags'>): boolean {
  return image.repoTags.filter((tag) => tag !== '<none>:<none>').length === 0;
}

/** The object name of an image in the API: its ID without `sha256:` (a valid name, unique). */
export function imageName(id: string): string {
  return id.replace(/^sha256:/, '');
}

/** `namespace/name` of the pods of `cluster` among the users, each once, sorted. */
export function podsUsing(users: readonly ImageUser[], cluster: string): string[] {
  const pods = new Set<string>();
  for (const user of users) if (user.cluster === cluster && user.podName) pods.add(`${user.podNamespace ?? ''}/${user.podName}`);
  return [...pods].sort();
}

/** Why an image may not be removed, naming the pods (and counting other containers), or undefined. */
export function removalRefusal(image: Pick<LocalImage, 'repoTags' | 'id'>, users: readonly ImageUser[], cluster: string): string | undefined {
  if (users.length === 0) return undefined;
  const pods = podsUsing(users, cluster);
  const others = users.filter((user) => user.cluster !== cluster || !user.podName).length;
  const label = image.repoTags.find((tag) => tag !== '<none>:<none>') ?? image.id.slice(0, 19);
  const parts: string[] = [];
  if (pods.length > 0) parts.push(`pod${pods.length > 1 ? 's' : ''} ${pods.join(', ')}`);
  if (others > 0) parts.push(`${others} other container${others > 1 ? 's' : ''}`);
  return `image "${label}" is in use by ${parts.join(' and ')}; delete ${pods.length > 0 ? 'those pods' : 'those containers'} first`;
}

/** Folds one pull event into the state: per layer the latest bytes, summed; "Pull complete"/"Already exists" finish a layer. */
export function applyPullEvent(state: PullState, layers: Map<string, { current: number; total: number; done: boolean }>, event: PullEvent): PullState {
  if (event.id && /^[0-9a-f]{12}$/.test(event.id)) {
    const layer = layers.get(event.id) ?? { current: 0, total: 0, done: false };
    if (event.total) layer.total = event.total;
    if (event.current !== undefined && event.status === 'Downloading') layer.current = event.current;
    if (event.status === 'Download complete' || event.status === 'Pull complete' || event.status === 'Already exists') {
      layer.current = layer.total;
      if (event.status !== 'Download complete') layer.done = true;
    }
    layers.set(event.id, layer);
  }
  let current = 0;
  let total = 0;
  let done = 0;
  for (const layer of layers.values()) {
    current += layer.current;
    total += layer.total;
    if (layer.done) done++;
  }
  const message = event.id ? `${event.id}: ${event.status}` : event.status;
  return { ...state, current, total, layers: layers.size, layersDone: done, message };
}
