// What the API server's snapshots (snapshots.kubedesk.dev/v1, main/apiserver/snapshots) and its
// clients share: the name rule the API enforces on `metadata.name` (a DNS-1123 subdomain, as
// object names), the collection's path, a name for a snapshot saved without one being typed (the
// tray's "Save snapshot"), and a tolerant reading of a Snapshot object as the API returns it.
import { isRecord } from './kubernetes/types';

export const SNAPSHOTS_PATH = '/apis/snapshots.kubedesk.dev/v1/snapshots';
/** The UI's store key of the kind (plural.group). */
export const SNAPSHOT_KIND_KEY = 'snapshots.snapshots.kubedesk.dev';

export const SNAPSHOT_NAME_MESSAGE = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

const NAME_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function validSnapshotName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && NAME_PATTERN.test(name);
}

/** Why the API would refuse `name` (its field error's detail), or undefined when it takes it. */
export function snapshotNameProblem(name: string): string | undefined {
  if (name === '') return 'name or generateName is required';
  return validSnapshotName(name) ? undefined : SNAPSHOT_NAME_MESSAGE;
}

/** `snapshot-YYYYMMDD-HHMMSS` in the local time of `date`: sorts by time, and is a valid name. */
export function datedSnapshotName(date: Date): string {
  const two = (value: number) => String(value).padStart(2, '0');
  return `snapshot-${date.getFullYear()}${two(date.getMonth() + 1)}${two(date.getDate())}-${two(date.getHours())}${two(date.getMinutes())}${two(date.getSeconds())}`;
}

export interface SnapshotSummary {
  name: string;
  /** RFC 3339, '' when absent */
  created: string;
  resourceVersion: string;
  objects: number;
  sizeBytes: number;
  images: string[];
  volumes: { name: string; files: number; bytes: number }[];
}

const numberOf = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** A Snapshot object as the API returns it; undefined for anything without a name. */
export function snapshotSummary(object: unknown): SnapshotSummary | undefined {
  if (!isRecord(object) || !isRecord(object.metadata) || typeof object.metadata.name !== 'string' || object.metadata.name === '') return undefined;
  const status = isRecord(object.status) ? object.status : {};
  const volumes = Array.isArray(status.volumes)
    ? status.volumes.filter(isRecord).map((volume) => ({ name: typeof volume.name === 'string' ? volume.name : '', files: numberOf(volume.files), bytes: numberOf(volume.bytes) }))
    : [];
  return {
    name: object.metadata.name,
    created: typeof object.metadata.creationTimestamp === 'string' ? object.metadata.creationTimestamp : '',
    resourceVersion: typeof status.resourceVersion === 'string' ? status.resourceVersion : '',
    objects: numberOf(status.objects),
    sizeBytes: numberOf(status.sizeBytes),
    images: Array.isArray(status.images) ? status.images.filter((image): image is string => typeof image === 'string') : [],
    volumes,
  };
}
