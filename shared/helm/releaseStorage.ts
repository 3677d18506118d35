// Helm 4's release storage in Kubernetes Secrets (helm.sh/helm/v4 pkg/storage/driver secrets.go and
// util.go; the record is pkg/release/v1 Release with Info): one Secret per release revision, named
// `sh.helm.release.v1.<name>.v<version>`, of type `helm.sh/release.v1`, labelled owner=helm, name,
// status, version (plus createdAt when created, modifiedAt when updated, and the release's own
// labels), whose data key `release` holds base64(gzip(JSON of the release)) — base64 once more on
// the wire, as every Secret value. Decoding accepts an ungzipped JSON body too, as helm's does.
//
// The release is kept as the JSON helm wrote (`raw`): what kubedesk writes back (a rollback's new
// revision, a status change) copies every field it does not change, so chart, values and hooks
// round-trip byte for byte through helm's own decoder. Pure, no I/O: used by the UI and tests.
import type { KubeObject } from '../kubernetes/types';
import { isRecord } from '../kubernetes/types';

export const RELEASE_SECRET_TYPE = 'helm.sh/release.v1';
/** the label selector of every release Secret */
export const RELEASE_OWNER_SELECTOR = 'owner=helm';
/** labels helm sets itself and does not count as the release's own (driver/util.go systemLabels) */
const SYSTEM_LABELS = new Set(['name', 'owner', 'status', 'version', 'createdAt', 'modifiedAt']);

/** pkg/release/common/status.go */
export type ReleaseStatus = 'unknown' | 'deployed' | 'uninstalled' | 'superseded' | 'failed' | 'uninstalling' | 'pending-install' | 'pending-upgrade' | 'pending-rollback';

/** A decoded release revision: the JSON as helm wrote it, and the labels helm reads back beside it. */
export interface HelmRelease {
  /** the release JSON object as stored (unknown fields kept) */
  raw: Record<string, unknown>;
  /** the release's own labels (Release.Labels: the Secret's labels minus helm's system labels) */
  labels: Record<string, string>;
  name: string;
  namespace: string;
  version: number;
  status: string;
  description: string;
  notes: string;
  firstDeployed?: string;
  lastDeployed?: string;
  deleted?: string;
  chartName: string;
  chartVersion: string;
  appVersion: string;
  manifest: string;
  /** the values the user supplied (Release.Config) */
  config: Record<string, unknown>;
  /** the chart's default values */
  chartValues: Record<string, unknown>;
  /** `ssa` or `csa`: how helm applied the manifest (helm 4; empty for releases written by helm 3) */
  applyMethod: string;
  hooks: unknown[];
}

/** The Secret name of one revision (driver.makeKey). */
export function releaseSecretName(name: string, version: number): string {
  return `sh.helm.release.v1.${name}.v${version}`;
}

export function isReleaseSecret(object: KubeObject): boolean {
  return object.type === RELEASE_SECRET_TYPE && object.metadata.labels?.owner === 'helm';
}

/** The Secret's `data.release` (base64 of helm's base64 text) → the release. Throws on a corrupt record. */
export async function releaseFromSecret(secret: KubeObject): Promise<HelmRelease> {
  const data = isRecord(secret.data) ? secret.data : {};
  if (typeof data.release !== 'string') throw new Error(`secret ${secret.metadata.name ?? ''} has no release data`);
  const helmText = new TextDecoder().decode(base64ToBytes(data.release));
  const raw = await decodeReleaseText(helmText);
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.metadata.labels ?? {})) if (!SYSTEM_LABELS.has(key)) labels[key] = value;
  return releaseOf(raw, labels);
}

/** helm's `decodeRelease`: base64, then gunzip when the gzip magic leads, then JSON. */
export async function decodeReleaseText(text: string): Promise<Record<string, unknown>> {
  let bytes = base64ToBytes(text);
  if (bytes.length > 3 && bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[2] === 0x08) bytes = await transform(bytes, new DecompressionStream('gzip'));
  const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
  if (!isRecord(parsed)) throw new Error('the release record is not a JSON object');
  return parsed;
}

/** helm's `encodeRelease`: JSON, gzip, base64. */
export async function encodeReleaseText(raw: Record<string, unknown>): Promise<string> {
  const gzipped = await transform(new TextEncoder().encode(JSON.stringify(raw)), new CompressionStream('gzip'));
  return bytesToBase64(gzipped);
}

/** Typed view of a release JSON object. */
export function releaseOf(raw: Record<string, unknown>, labels: Record<string, string> = {}): HelmRelease {
  const info = record(raw.info);
  const chart = record(raw.chart);
  const metadata = record(chart.metadata);
  return {
    raw,
    labels,
    name: text(raw.name),
    namespace: text(raw.namespace),
    version: typeof raw.version === 'number' ? raw.version : 0,
    status: text(info.status),
    description: text(info.description),
    notes: text(info.notes),
    firstDeployed: optionalTime(info.first_deployed),
    lastDeployed: optionalTime(info.last_deployed),
    deleted: optionalTime(info.deleted),
    chartName: text(metadata.name),
    chartVersion: text(metadata.version),
    appVersion: text(metadata.appVersion),
    manifest: text(raw.manifest),
    config: record(raw.config),
    chartValues: record(chart.values),
    applyMethod: text(raw.apply_method),
    hooks: Array.isArray(raw.hooks) ? raw.hooks : [],
  };
}

/**
 * The Secret helm's driver writes for a revision (newSecretsObject): `create` adds createdAt,
 * an update modifiedAt (an update replaces the labels, so createdAt goes, as with helm).
 */
export async function releaseSecret(release: HelmRelease, write: 'create' | 'update', now: Date): Promise<KubeObject> {
  const labels: Record<string, string> = { ...release.labels };
  labels[write === 'create' ? 'createdAt' : 'modifiedAt'] = String(Math.floor(now.getTime() / 1000));
  labels.name = release.name;
  labels.owner = 'helm';
  labels.status = release.status;
  labels.version = String(release.version);
  const helmText = await encodeReleaseText(release.raw);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: releaseSecretName(release.name, release.version), namespace: release.namespace, labels },
    type: RELEASE_SECRET_TYPE,
    data: { release: bytesToBase64(new TextEncoder().encode(helmText)) },
  };
}

/** A copy of the release with info fields changed (status, description, deleted…). */
export function withInfo(release: HelmRelease, info: Record<string, unknown>): HelmRelease {
  const raw = { ...release.raw, info: { ...record(release.raw.info), ...info } };
  return releaseOf(raw, release.labels);
}

/** Go's time.Time JSON: RFC 3339 with nanoseconds where known. */
export function goTime(date: Date): string {
  return date.toISOString();
}

/**
 * The new revision a rollback writes (pkg/action/rollback.go prepareRollback): the target's chart,
 * config, manifest, hooks, notes and labels; the current revision's first-deployed time; version
 * current+1, status pending-rollback, description `Rollback to N`; the apply method the target used
 * (helm 4's `--server-side=auto`: server-side apply unless the target was applied client-side).
 */
export function rollbackRevision(current: HelmRelease, target: HelmRelease, now: Date): HelmRelease {
  const targetInfo = record(target.raw.info);
  const info: Record<string, unknown> = {
    ...(record(current.raw.info).first_deployed !== undefined ? { first_deployed: record(current.raw.info).first_deployed } : {}),
    last_deployed: goTime(now),
    description: `Rollback to ${target.version}`,
    status: 'pending-rollback',
    ...(typeof targetInfo.notes === 'string' && targetInfo.notes !== '' ? { notes: targetInfo.notes } : {}),
  };
  const raw: Record<string, unknown> = { name: current.name, info };
  for (const field of ['chart', 'config', 'manifest', 'hooks'] as const) if (target.raw[field] !== undefined) raw[field] = target.raw[field];
  raw.version = current.version + 1;
  raw.namespace = current.namespace;
  raw.apply_method = target.applyMethod === 'csa' ? 'csa' : 'ssa';
  return releaseOf(raw, { ...target.labels });
}

/** Whether rollback and later writes use server-side apply for this revision (apply_method). */
export function usesServerSideApply(release: HelmRelease): boolean {
  return release.applyMethod !== 'csa';
}

/** Revisions grouped by release (namespace/name), each oldest first. */
export function releaseHistories(releases: readonly HelmRelease[]): Map<string, HelmRelease[]> {
  const byKey = new Map<string, HelmRelease[]>();
  for (const release of releases) {
    const key = `${release.namespace}/${release.name}`;
    const list = byKey.get(key) ?? [];
    list.push(release);
    byKey.set(key, list);
  }
  for (const list of byKey.values()) list.sort((a, b) => a.version - b.version);
  return byKey;
}

/**
 * What `helm list -A --all` shows: the newest revision of each release, by name then namespace
 * (helm sorts by name). `helm list` without `--all` hides uninstalled (kept history) and
 * pending ones; `listed` says whether a row is one helm list shows by default.
 */
export function latestReleases(releases: readonly HelmRelease[]): Array<HelmRelease & { listed: boolean }> {
  const latest: Array<HelmRelease & { listed: boolean }> = [];
  for (const history of releaseHistories(releases).values()) {
    const newest = history[history.length - 1];
    latest.push({ ...newest, listed: newest.status === 'deployed' || newest.status === 'failed' });
  }
  return latest.sort((a, b) => a.name.localeCompare(b.name) || a.namespace.localeCompare(b.namespace));
}

/**
 * `helm get values --all`: the chart's defaults coalesced with the user's values (pkg/chart/common/util
 * coalesce): maps merge key by key, the user's scalar or list wins, a user `null` deletes the key.
 */
export function computedValues(release: HelmRelease): Record<string, unknown> {
  return coalesce(release.chartValues, release.config);
}

function coalesce(defaults: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === null) delete result[key];
    else if (isRecord(value) && isRecord(result[key])) result[key] = coalesce(result[key] as Record<string, unknown>, value);
    else result[key] = value;
  }
  return result;
}

/** helm list's chart column: `name-version`. */
export function chartLabel(release: Pick<HelmRelease, 'chartName' | 'chartVersion'>): string {
  return release.chartVersion ? `${release.chartName}-${release.chartVersion}` : release.chartName;
}

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function optionalTime(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && !value.startsWith('0001-01-01') ? value : undefined;
}

async function transform(bytes: Uint8Array, stream: { writable: WritableStream<BufferSource>; readable: ReadableStream<Uint8Array> }): Promise<Uint8Array> {
  const writer = stream.writable.getWriter();
  void writer.write(bytes as Uint8Array<ArrayBuffer>).then(() => writer.close()).catch(() => undefined);
  const chunks: Uint8Array[] = [];
  const reader = stream.readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text.replace(/\s+/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  const step = 0x8000;
  for (let index = 0; index < bytes.length; index += step) binary += String.fromCharCode(...bytes.subarray(index, index + step));
  return btoa(binary);
}
