// What goes into configMap, secret and downwardAPI volumes (and the matching projected sources), as
// the upstream plugins build their AtomicWriter payloads: pkg/volume/configmap (MakePayload: data
// and binaryData, items with per-item modes, "configmap references non-existent config key"),
// pkg/volume/secret (MakePayload: base64-decoded data, "references non-existent secret key") and
// pkg/volume/downwardapi (CollectData: metadata fields and container resources). defaultMode is
// 0644 unless the volume says otherwise.
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { extractFieldPathAsString, podContainerResourceValue } from '../env/fieldPath';
import type { DownwardAPIVolumeFile, KeyToPath } from '../env/podSpec';
import type { Payload } from './atomicWriter';

export const defaultVolumeMode = 0o644;

function entries(value: unknown): [string, string][] {
  if (!isRecord(value)) return [];
  return Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
}

function fromItems(items: KeyToPath[] | undefined, all: Map<string, Buffer>, defaultMode: number, optional: boolean, missing: (key: string) => string): Payload {
  const payload: Payload = {};
  if (!items || items.length === 0) {
    for (const [key, data] of all) payload[key] = { data, mode: defaultMode };
    return payload;
  }
  for (const item of items) {
    const data = all.get(item.key);
    if (data === undefined) {
      if (optional) continue;
      throw new Error(missing(item.key));
    }
    payload[item.path || item.key] = { data, mode: item.mode ?? defaultMode };
  }
  return payload;
}

/** A config map's files; `configMap` undefined means an optional config map that does not exist. */
export function configMapPayload(configMap: KubeObject | undefined, items: KeyToPath[] | undefined, defaultMode: number, optional: boolean): Payload {
  const all = new Map<string, Buffer>();
  for (const [key, value] of entries(configMap?.data)) all.set(key, Buffer.from(value, 'utf8'));
  for (const [key, value] of entries(configMap?.binaryData)) all.set(key, Buffer.from(value, 'base64'));
  return fromItems(items, all, defaultMode, optional, (key) => `configmap references non-existent config key: ${key}`);
}

/** A secret's files (data is base64 in the API); `secret` undefined means an optional secret that does not exist. */
export function secretPayload(secret: KubeObject | undefined, items: KeyToPath[] | undefined, defaultMode: number, optional: boolean): Payload {
  const all = new Map<string, Buffer>();
  for (const [key, value] of entries(secret?.data)) all.set(key, Buffer.from(value, 'base64'));
  return fromItems(items, all, defaultMode, optional, (key) => `references non-existent secret key: ${key}`);
}

/** Metadata fields and container resources of the pod as files; every failing item is reported. */
export function downwardAPIPayload(pod: KubeObject, items: DownwardAPIVolumeFile[] | undefined, defaultMode: number, nodeAllocatable?: Record<string, string | number>): Payload {
  const payload: Payload = {};
  const errors: string[] = [];
  for (const item of items ?? []) {
    const mode = item.mode ?? defaultMode;
    try {
      if (item.fieldRef) {
        payload[item.path] = { data: Buffer.from(extractFieldPathAsString(pod, item.fieldRef.fieldPath)), mode };
      } else if (item.resourceFieldRef) {
        const selector = item.resourceFieldRef;
        payload[item.path] = { data: Buffer.from(podContainerResourceValue(selector, pod, selector.containerName ?? '', nodeAllocatable)), mode };
      }
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (errors.length > 0) throw new Error(aggregate(errors));
  return payload;
}

/** upstream utilerrors.NewAggregate's text: one message as is, several in brackets. */
export function aggregate(messages: string[]): string {
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}
