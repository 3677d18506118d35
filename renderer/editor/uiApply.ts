// The UI writes as one field manager, kubedesk-ui. Its actions (Scale…, Restart, Cordon…) send the
// same patches as the kubectl commands they stand for, so the API server records them as Update
// entries; its YAML tab and create-from-YAML use server-side apply, an Apply entry. Server-side
// apply reports every field another manager entry owns as a conflict — and "kubedesk-ui, Update"
// is another entry than "kubedesk-ui, Apply", so a replica count set with Scale… would conflict
// with the YAML tab's next apply. kubectl solves the same problem between its client-side and
// server-side apply (client-go util/csaupgrade, run by `kubectl apply --server-side`): before
// applying, it moves the fields its own Update entry owns into its Apply entry with a JSON patch
// of metadata.managedFields guarded by the resourceVersion. The UI does the same for its own
// entries, so it never conflicts with itself, while conflicts with kubectl, helm or controllers
// are still reported (and can be forced).
import { formatTime } from '../../shared/kubernetes/time';
import { isRecord, type KubeObject, type ManagedFieldsEntry } from '../../shared/kubernetes/types';
import { KubeApiError, type KubeClient } from '../api/kubeClient';

export type JsonPatchOperation = { op: 'test' | 'replace'; path: string; value: unknown };

/** The union of two FieldsV1 trees (the sets of fields two entries own). */
export function unionFieldsV1(left: unknown, right: unknown): Record<string, unknown> {
  const result: Record<string, unknown> = isRecord(left) ? { ...left } : {};
  if (!isRecord(right)) return result;
  for (const [key, value] of Object.entries(right)) result[key] = key in result ? unionFieldsV1(result[key], value) : isRecord(value) ? unionFieldsV1({}, value) : {};
  return result;
}

/**
 * The JSON patch moving the fields `manager`'s own Update entries hold (not those written through
 * the status subresource) into its Apply entry, guarded by the object's resourceVersion; undefined
 * when the manager has no such Update entry.
 */
export function adoptOwnUpdatesPatch(object: KubeObject, manager: string, now: Date): JsonPatchOperation[] | undefined {
  const entries: ManagedFieldsEntry[] = Array.isArray(object.metadata.managedFields) ? object.metadata.managedFields : [];
  const isOwnUpdate = (entry: ManagedFieldsEntry) => entry.manager === manager && entry.operation === 'Update' && entry.subresource !== 'status' && entry.fieldsType === 'FieldsV1';
  const updates = entries.filter(isOwnUpdate);
  if (updates.length === 0 || !object.metadata.resourceVersion) return undefined;
  const isOwnApply = (entry: ManagedFieldsEntry) => entry.manager === manager && entry.operation === 'Apply' && !entry.subresource;
  const previous = entries.find(isOwnApply);
  let fields: Record<string, unknown> = isRecord(previous?.fieldsV1) ? previous.fieldsV1 : {};
  for (const update of updates) fields = unionFieldsV1(fields, update.fieldsV1);
  const apply: ManagedFieldsEntry = { manager, operation: 'Apply', apiVersion: previous?.apiVersion ?? object.apiVersion ?? updates[0].apiVersion, time: formatTime(now), fieldsType: 'FieldsV1', fieldsV1: fields };
  const kept = entries.filter((entry) => !isOwnUpdate(entry) && !isOwnApply(entry));
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: object.metadata.resourceVersion },
    { op: 'replace', path: '/metadata/managedFields', value: [apply, ...kept] },
  ];
}

export interface UiApplyOptions {
  manager: string;
  force?: boolean;
  dryRun?: boolean;
  /** the live object when the caller has just read it (null: it does not exist); otherwise it is read first */
  live?: KubeObject | null;
}

/**
 * Server-side apply as the UI: first its own Update entries become part of its Apply entry (a real
 * write, so not on a dry run), then the apply. A lost race on the resourceVersion reads again and
 * retries; a failure of this preparation never stops the apply, which then reports what it finds.
 */
export async function applyAsUi<T extends KubeObject = KubeObject>(client: KubeClient, path: string, body: unknown, options: UiApplyOptions): Promise<T> {
  if (!options.dryRun && options.live !== null) await adoptOwnUpdates(client, path, options.manager, options.live);
  return client.patch<T>(path, body, 'apply', { query: { fieldManager: options.manager, force: options.force ? 'true' : undefined, dryRun: options.dryRun ? 'All' : undefined } });
}

async function adoptOwnUpdates(client: KubeClient, path: string, manager: string, live: KubeObject | undefined): Promise<void> {
  let current = live;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      current ??= await client.get<KubeObject>(path);
      const patch = adoptOwnUpdatesPatch(current, manager, new Date());
      if (!patch) return;
      await client.patch(path, patch, 'json', { query: { fieldManager: manager } });
      return;
    } catch (error) {
      // a failed `test` (422) or a conflict (409) is a lost race: read again. 404: the apply creates
      // the object; anything else: let the apply speak
      if (!(error instanceof KubeApiError) || (error.code !== 422 && error.code !== 409)) return;
      current = undefined;
    }
  }
}
