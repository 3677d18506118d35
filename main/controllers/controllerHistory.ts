// ControllerRevision helpers shared by the StatefulSet and DaemonSet controllers, after upstream
// pkg/controller/history/controller_history.go (NewControllerRevision, HashControllerRevision,
// ControllerRevisionName, EqualRevision, FindEqualRevisions, SortControllerRevisions, realHistory's
// create-with-collision-retry) and the `getPatch` both controllers use: a revision's data is
// `{"spec":{"template":{…,"$patch":"replace"}}}`, which `kubectl rollout undo` applies as a
// strategic merge patch. Hashes are FNV-32 of key-sorted JSON (plus the collision count), encoded
// with apimachinery's rand.SafeEncodeString alphabet, so names look like upstream's (`web-7c5d9f8b6`).
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ApiClient } from '../client/apiClient';
import type { Informer } from '../client/informer';
import { resources } from '../client/resources';
import { isAlreadyExists } from '../client/errors';
import { controllerRef, isControlledBy, numberOr, selectorMatches } from './controllerUtils';

/** history.ControllerRevisionHashLabel */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

export interface ControllerRevision extends KubeObject {
  data?: unknown;
  revision?: number;
}

/** JSON with object keys sorted, so equal data always hashes and compares equal. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => stableStringify(item === undefined ? null : item)).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableStringify(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** FNV-1 32-bit (Go's hash/fnv New32) over the UTF-8 bytes of the text. */
export function fnv32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash = Math.imul(hash, 0x01000193) >>> 0;
    hash = (hash ^ byte) >>> 0;
  }
  return hash >>> 0;
}

const safeAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** apimachinery rand.SafeEncodeString: each byte mapped into an alphabet without vowels or look-alikes. */
export function safeEncodeString(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) encoded += safeAlphabet[byte % safeAlphabet.length];
  return encoded;
}

/** HashControllerRevision: the hash of the data, varied by the collision count when there is one. */
export function hashControllerRevision(data: unknown, collisionCount?: number): string {
  let text = stableStringify(data);
  if (collisionCount !== undefined && collisionCount !== 0) text += String(collisionCount);
  return safeEncodeString(String(fnv32(text)));
}

/** ControllerRevisionName: `<prefix>-<hash>`, the prefix cut to 223 characters to leave room. */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

function templateOf(owner: KubeObject): Record<string, unknown> {
  const spec = isRecord(owner.spec) ? owner.spec : {};
  return isRecord(spec.template) ? spec.template : {};
}

/** getPatch: the owner's pod template as a patch that replaces spec.template wholesale. */
export function templatePatch(owner: KubeObject): Record<string, unknown> {
  return { spec: { template: { ...structuredClone(templateOf(owner)), $patch: 'replace' } } };
}

/** The pod template a revision records (its patch without the `$patch` directive). */
export function templateFromRevision(revision: ControllerRevision): Record<string, unknown> {
  const data = isRecord(revision.data) ? revision.data : {};
  const spec = isRecord(data.spec) ? data.spec : {};
  const template = isRecord(spec.template) ? structuredClone(spec.template) : {};
  delete template.$patch;
  return template;
}

/** ApplyRevision: a copy of the owner whose spec.template is the revision's. */
export function applyRevision<T extends KubeObject>(owner: T, revision: ControllerRevision): T {
  const copy: KubeObject = structuredClone(owner);
  copy.spec = { ...(isRecord(copy.spec) ? copy.spec : {}), template: templateFromRevision(revision) };
  return copy as T;
}

export function revisionNumber(revision: ControllerRevision): number {
  return numberOr(revision.revision, 0);
}

/**
 * NewControllerRevision: a revision owned (as controller) by the parent, labelled with the template's
 * labels plus the hash label, named `<parent>-<hash>`.
 */
export function newControllerRevision(parent: KubeObject, templateLabels: Record<string, string> | undefined, data: unknown, revision: number, collisionCount?: number): ControllerRevision {
  const hash = hashControllerRevision(data, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(parent.metadata.name ?? '', hash),
      namespace: parent.metadata.namespace,
      labels: { ...(templateLabels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ownerReferences: [controllerRef(parent)],
    },
    data,
    revision,
  };
}

/** SortControllerRevisions: by revision number, then creation time, then name. */
export function sortRevisions(revisions: ControllerRevision[]): ControllerRevision[] {
  return [...revisions].sort((left, right) => {
    const byNumber = revisionNumber(left) - revisionNumber(right);
    if (byNumber !== 0) return byNumber;
    const byTime = (left.metadata.creationTimestamp ?? '').localeCompare(right.metadata.creationTimestamp ?? '');
    if (byTime !== 0) return byTime;
    return (left.metadata.name ?? '').localeCompare(right.metadata.name ?? '');
  });
}

/** EqualRevision: the same data (upstream compares hash labels only when both parse as integers, which ours never do). */
export function equalRevision(left: ControllerRevision | undefined, right: ControllerRevision | undefined): boolean {
  if (!left || !right) return left === right;
  return stableStringify(left.data ?? null) === stableStringify(right.data ?? null);
}

export function findEqualRevisions(revisions: ControllerRevision[], needle: ControllerRevision): ControllerRevision[] {
  return revisions.filter((revision) => equalRevision(revision, needle));
}

/** nextRevision: one more than the highest revision number (1 for none). */
export function nextRevision(revisions: ControllerRevision[]): number {
  let highest = 0;
  for (const revision of revisions) highest = Math.max(highest, revisionNumber(revision));
  return highest + 1;
}

/** Reads revisions from an informer's cache and writes them through the API, as upstream realHistory. */
export class ControllerHistory {
  constructor(
    private readonly client: ApiClient,
    private readonly revisions: Informer,
  ) {}

  /** The parent's revisions: those it controls, in the parent's namespace, matching its selector. */
  listRevisions(parent: KubeObject, selector: unknown): ControllerRevision[] {
    return this.revisions.listByNamespace(parent.metadata.namespace ?? '').filter((revision) => isControlledBy(revision, parent) && selectorMatches(selector, revision.metadata.labels)) as ControllerRevision[];
  }

  /**
   * CreateControllerRevision: creates the revision under `<parent>-<hash>`; when that name is taken by
   * different data, bumps the collision count and tries the next hash. Returns the stored revision
   * (an existing one with equal data counts) and the collision count used.
   */
  async createControllerRevision(parent: KubeObject, revision: ControllerRevision, collisionCount: number): Promise<{ revision: ControllerRevision; collisionCount: number }> {
    const api = this.client.resource<ControllerRevision>(resources.controllerrevisions);
    let count = collisionCount;
    for (let attempt = 0; attempt < 100; attempt++) {
      const candidate = structuredClone(revision);
      candidate.metadata.name = controllerRevisionName(parent.metadata.name ?? '', hashControllerRevision(revision.data, count));
      try {
        return { revision: await api.create(candidate), collisionCount: count };
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
        const existing = await api.get(parent.metadata.namespace, candidate.metadata.name ?? '');
        if (equalRevision(existing, candidate)) return { revision: existing, collisionCount: count };
        count++;
      }
    }
    throw new Error(`could not find a free ControllerRevision name for ${parent.metadata.namespace ?? ''}/${parent.metadata.name ?? ''}`);
  }

  /** UpdateControllerRevision: gives an existing revision a new number (a rollback to an earlier template). */
  async updateRevisionNumber(revision: ControllerRevision, newRevision: number): Promise<ControllerRevision> {
    if (revisionNumber(revision) === newRevision) return revision;
    return this.client.resource<ControllerRevision>(resources.controllerrevisions).patch(revision.metadata.namespace, revision.metadata.name ?? '', { revision: newRevision }, 'merge');
  }

  async deleteRevision(revision: ControllerRevision): Promise<void> {
    await this.client.resource(resources.controllerrevisions).delete(revision.metadata.namespace, revision.metadata.name ?? '');
  }
}
