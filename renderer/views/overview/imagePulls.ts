// Which image pulls are under way, derived from the cluster's own records: the kubelet emits a
// Normal "Pulling" event (`Pulling image "X"`, involvedObject.fieldPath spec.containers{name}) when
// it starts a pull and "Pulled" / "Failed" / "BackOff" when it ends (upstream
// pkg/kubelet/images/image_manager.go), while the container waits with reason ContainerCreating
// (or PodInitializing). A pull is current when the newest pull event of a container is "Pulling"
// and that container still waits.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { eventTime } from './overviewModel';

export interface ImagePull {
  namespace: string;
  pod: string;
  container: string;
  image: string;
  /** when the pull started (ms since the epoch) */
  since: number;
}

const PULL_REASONS = new Set(['Pulling', 'Pulled', 'Failed', 'BackOff', 'ErrImagePull', 'ImagePullBackOff', 'ErrImageNeverPull']);
const WAITING_FOR_PULL = new Set(['ContainerCreating', 'PodInitializing', 'PullImage', 'Pulling']);

/** `spec.containers{web}` / `spec.initContainers{setup}` → `web` / `setup`. */
export function containerOfFieldPath(fieldPath: unknown): string | undefined {
  if (typeof fieldPath !== 'string') return undefined;
  const match = /^spec\.(?:initContainers|containers|ephemeralContainers)\{(.+)\}$/.exec(fieldPath);
  return match ? match[1] : undefined;
}

function waitingReasons(pod: KubeObject): Map<string, string> {
  const reasons = new Map<string, string>();
  const status = isRecord(pod.status) ? pod.status : {};
  for (const list of [status.initContainerStatuses, status.containerStatuses]) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (!isRecord(entry) || typeof entry.name !== 'string' || !isRecord(entry.state) || !isRecord(entry.state.waiting)) continue;
      const reason = entry.state.waiting.reason;
      reasons.set(entry.name, typeof reason === 'string' ? reason : '');
    }
  }
  return reasons;
}

/** Pulls in progress, oldest first. Linear in pods + events. */
export function currentPulls(pods: Iterable<KubeObject>, events: Iterable<KubeObject>): ImagePull[] {
  // newest pull-related event per pod container
  const latest = new Map<string, { reason: string; time: number; image: string }>();
  for (const event of events) {
    const record: Record<string, unknown> = event;
    if (typeof record.reason !== 'string' || !PULL_REASONS.has(record.reason)) continue;
    const involved = isRecord(record.involvedObject) ? record.involvedObject : undefined;
    if (!involved || involved.kind !== 'Pod' || typeof involved.name !== 'string') continue;
    const container = containerOfFieldPath(involved.fieldPath);
    if (!container) continue;
    const namespace = typeof involved.namespace === 'string' ? involved.namespace : (event.metadata.namespace ?? '');
    const key = `${namespace}/${involved.name}/${container}`;
    const time = eventTime(event);
    const previous = latest.get(key);
    // on equal times a finishing event wins: Pulling and Pulled can share a second
    if (previous && (previous.time > time || (previous.time === time && record.reason === 'Pulling'))) continue;
    const image = typeof record.message === 'string' ? (/image "([^"]+)"/.exec(record.message)?.[1] ?? '') : '';
    latest.set(key, { reason: record.reason, time, image });
  }
  if (latest.size === 0) return [];
  const pulls: ImagePull[] = [];
  for (const pod of pods) {
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    for (const [container, reason] of waitingReasons(pod)) {
      if (!WAITING_FOR_PULL.has(reason)) continue;
      const event = latest.get(`${namespace}/${name}/${container}`);
      if (event?.reason === 'Pulling') pulls.push({ namespace, pod: name, container, image: event.image, since: event.time });
    }
  }
  return pulls.sort((left, right) => left.since - right.since);
}

/** "Pulling image X…" lines, one per image (several pods pulling the same image share a line). */
export function pullSummaries(pulls: ImagePull[]): { image: string; pods: number; since: number }[] {
  const byImage = new Map<string, { image: string; pods: number; since: number }>();
  for (const pull of pulls) {
    const entry = byImage.get(pull.image);
    if (entry) {
      entry.pods++;
      entry.since = Math.min(entry.since, pull.since);
    } else byImage.set(pull.image, { image: pull.image, pods: 1, since: pull.since });
  }
  return [...byImage.values()];
}
