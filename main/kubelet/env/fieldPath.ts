// Downward API values shared by env vars and downwardAPI volumes: pod fields after upstream
// pkg/fieldpath (ExtractFieldPathAsString, FormatMap, SplitMaybeSubscriptedPath) and container
// resources after pkg/api/v1/resource (ExtractContainerResourceValue: values divided by the divisor
// and rounded up; CPU in millis). A container without a limit reports the node's allocatable, as the
// kubelet's defaultPodLimitsForDownwardAPI arranges.
import { milliValue, newQuantity, parseQuantity, quantityValue, zeroQuantity, type Quantity } from '../../../shared/kubernetes/quantity';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { allContainers, type Container, type ResourceFieldSelector } from './podSpec';

/** Go's strconv.Quote, which FormatMap uses (%q) for label and annotation values. */
export function goQuote(value: string): string {
  let out = '"';
  for (const character of value) {
    const code = character.codePointAt(0) ?? 0;
    switch (character) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (character === ' ' || /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(character)) out += character;
    else if (code < 0x80) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** `key="value"` lines sorted by key, no trailing newline (upstream fieldpath.FormatMap). */
export function formatMap(map: Record<string, string> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((key) => `${key}=${goQuote(map?.[key] ?? '')}`)
    .join('\n');
}

/** `metadata.labels['app']` → ['metadata.labels', 'app']. */
export function splitSubscriptedPath(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const trimmed = fieldPath.slice(0, -2);
  const opener = trimmed.indexOf("['");
  if (opener <= 0) return undefined;
  return [trimmed.slice(0, opener), trimmed.slice(opener + 2)];
}

/** The metadata fields both env vars and volumes may reference. */
export function extractFieldPathAsString(pod: KubeObject, fieldPath: string): string {
  const subscripted = splitSubscriptedPath(fieldPath);
  if (subscripted) {
    const [path, key] = subscripted;
    if (path === 'metadata.annotations') return pod.metadata.annotations?.[key] ?? '';
    if (path === 'metadata.labels') return pod.metadata.labels?.[key] ?? '';
    throw new Error(`fieldPath "${fieldPath}" does not support subscript`);
  }
  switch (fieldPath) {
    case 'metadata.annotations':
      return formatMap(pod.metadata.annotations);
    case 'metadata.labels':
      return formatMap(pod.metadata.labels);
    case 'metadata.name':
      return pod.metadata.name ?? '';
    case 'metadata.namespace':
      return pod.metadata.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata.uid ?? '';
  }
  throw new Error(`unsupported fieldPath: ${fieldPath}`);
}

const one: Quantity = newQuantity(1);

function quantityOf(value: string | number | undefined): Quantity {
  return parseQuantity(value) ?? zeroQuantity();
}

function isZero(quantity: Quantity): boolean {
  return quantity.nanos === 0n;
}

function divideRoundingUp(value: number, divisor: number): string {
  return String(Math.ceil(value / divisor));
}

function isScalarResource(name: string): boolean {
  return name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-');
}

/**
 * A container's resource as a string, e.g. `limits.cpu` with divisor `1m` → "500". `limits.*` falls
 * back to `nodeAllocatable` when the container sets no limit (cpu, memory, ephemeral-storage).
 */
export function containerResourceValue(selector: ResourceFieldSelector, container: Container, nodeAllocatable?: Record<string, string | number>): string {
  let divisor = quantityOf(selector.divisor);
  if (isZero(divisor)) divisor = one;
  const dot = selector.resource.indexOf('.');
  const section = selector.resource.slice(0, dot);
  const name = selector.resource.slice(dot + 1);
  if (dot < 0 || (section !== 'limits' && section !== 'requests') || (name !== 'cpu' && !isScalarResource(name))) {
    throw new Error(`unsupported container resource : ${selector.resource}`);
  }
  let raw = container.resources?.[section]?.[name];
  if (raw === undefined && section === 'limits' && (name === 'cpu' || name === 'memory' || name === 'ephemeral-storage')) raw = nodeAllocatable?.[name];
  const quantity = quantityOf(raw);
  if (name === 'cpu') return divideRoundingUp(milliValue(quantity), milliValue(divisor));
  return divideRoundingUp(quantityValue(quantity), quantityValue(divisor));
}

/** As containerResourceValue, for the container the selector names (upstream ExtractResourceValueByContainerName). */
export function podContainerResourceValue(selector: ResourceFieldSelector, pod: KubeObject, containerName: string, nodeAllocatable?: Record<string, string | number>): string {
  const container = allContainers(pod).find((candidate) => candidate.name === containerName);
  if (!container) throw new Error(`container ${containerName} not found`);
  return containerResourceValue(selector, container, nodeAllocatable);
}
