// The data keys of ConfigMaps and Secrets, decoded for the detail page: ConfigMap `data` is text
// and `binaryData` base64; Secret `data` is base64 (the API server never returns `stringData`,
// it merges it into `data` on write). Decoding is strict UTF-8, so binary content (a keystore, an
// image) is reported as binary with its size instead of showing mojibake. Pure.
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import type { DataEntry } from './kindConfig';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** base64 → its bytes; undefined when the text is not base64. */
export function base64Bytes(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    return bytes;
  } catch {
    return undefined;
  }
}

/** base64 → UTF-8 text, or `binary` when the bytes are not text. */
export function decodeBase64(text: string): { value: string; binary: boolean; size: number } {
  const bytes = base64Bytes(text);
  if (!bytes) return { value: '', binary: true, size: text.length };
  try {
    return { value: utf8.decode(bytes), binary: false, size: bytes.length };
  } catch {
    return { value: '', binary: true, size: bytes.length };
  }
}

function stringEntries(value: unknown): [string, string][] {
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => (typeof item === 'string' ? [[key, item] as [string, string]] : []));
}

function byKey(left: DataEntry, right: DataEntry): number {
  return left.key < right.key ? -1 : left.key > right.key ? 1 : 0;
}

/** A ConfigMap's `data` (text) and `binaryData` (base64) keys, sorted by key. */
export function configMapEntries(configMap: KubeObject): DataEntry[] {
  const entries: DataEntry[] = stringEntries(configMap.data).map(([key, value]) => ({ key, value, binary: false, size: new TextEncoder().encode(value).length }));
  for (const [key, value] of stringEntries(configMap.binaryData)) {
    const decoded = decodeBase64(value);
    entries.push({ key, value: '', binary: true, size: decoded.size });
  }
  return entries.sort(byKey);
}

/** A Secret's `data` keys, base64-decoded, sorted by key. */
export function secretEntries(secret: KubeObject): DataEntry[] {
  return stringEntries(secret.data)
    .map(([key, value]) => ({ key, ...decodeBase64(value) }))
    .sort(byKey);
}

/** One key's decoded value of a ConfigMap (data or binaryData) or Secret; undefined when absent. */
export function dataValue(object: KubeObject | undefined, key: string, secret: boolean): DataEntry | undefined {
  if (!object) return undefined;
  return (secret ? secretEntries(object) : configMapEntries(object)).find((entry) => entry.key === key);
}
