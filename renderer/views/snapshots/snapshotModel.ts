// The Snapshots page's model: the SnapshotList as rows (newest first), a restore's dry run
// (`NAME/restore?dryRun=All`) as the groups of objects the confirmation lists, and the words of
// a restore's result. Pure, so the page and its tests agree.
import { isRecord } from '../../../shared/kubernetes/types';
import { snapshotSummary, SNAPSHOTS_PATH, type SnapshotSummary } from '../../../shared/snapshots';
import { youLabel, type Can, type Identity, type PermissionCheck } from '../permissions/permissionsModel';

/**
 * What saving, restoring and deleting snapshots needs: the API asks for every verb on every resource
 * (a snapshot holds and replaces every object, Secrets included), which only cluster-admin-like
 * roles grant.
 */
export const SNAPSHOT_ADMIN_CHECK: PermissionCheck = { verb: '*', group: '*', resource: '*' };

/**
 * Why the snapshot actions are off, or undefined when they may run (or the answer is not in yet):
 * the read-only switch's own reason, else who the user is and what snapshots need.
 */
export function snapshotRefusal(can: Can, identity: Identity | undefined, readOnly: boolean): string | undefined {
  const verdict = can(SNAPSHOT_ADMIN_CHECK);
  if (verdict.state !== 'denied') return undefined;
  if (readOnly) return verdict.reason;
  return `${youLabel(identity)} may not save, restore or delete snapshots: they hold and replace every object of the cluster, which needs cluster-admin`;
}

export interface RestoreChange {
  resource: string;
  namespace: string;
  name: string;
}

export type ChangeType = 'deleted' | 'created' | 'updated' | 'replaced';

export interface RestorePlanView {
  /** the revision the plan was made against */
  resourceVersion: string;
  changes: Record<ChangeType, RestoreChange[]>;
  missingImages: string[];
}

export interface ChangeGroup {
  type: ChangeType;
  title: string;
  description: string;
  items: RestoreChange[];
}

/** Where a snapshot's requests go. */
export function snapshotPath(name: string, subresource?: 'restore' | 'export'): string {
  return `${SNAPSHOTS_PATH}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}

/** The snapshots of a SnapshotList, newest first (then by name). */
export function snapshotRows(body: unknown): SnapshotSummary[] {
  const items = isRecord(body) && Array.isArray(body.items) ? body.items : [];
  const rows = items.map(snapshotSummary).filter((row): row is SnapshotSummary => row !== undefined);
  return rows.sort((a, b) => b.created.localeCompare(a.created) || a.name.localeCompare(b.name));
}

function changesOf(value: unknown): RestoreChange[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((change) => ({
    resource: typeof change.resource === 'string' ? change.resource : '',
    namespace: typeof change.namespace === 'string' ? change.namespace : '',
    name: typeof change.name === 'string' ? change.name : '',
  }));
}

/** A dry-run SnapshotRestore; undefined when the answer is not one. */
export function restorePlan(body: unknown): RestorePlanView | undefined {
  if (!isRecord(body) || body.kind !== 'SnapshotRestore' || !isRecord(body.status) || body.status.dryRun !== true) return undefined;
  const status = body.status;
  const changes = isRecord(status.changes) ? status.changes : {};
  return {
    resourceVersion: typeof status.resourceVersion === 'string' ? status.resourceVersion : '',
    changes: { deleted: changesOf(changes.deleted), created: changesOf(changes.created), updated: changesOf(changes.updated), replaced: changesOf(changes.replaced) },
    missingImages: Array.isArray(status.missingImages) ? status.missingImages.filter((image): image is string => typeof image === 'string') : [],
  };
}

const GROUPS: { type: ChangeType; title: string; description: string }[] = [
  { type: 'deleted', title: 'Removed', description: 'made since the snapshot; they will be deleted' },
  { type: 'created', title: 'Brought back', description: 'deleted since the snapshot; they come back with their names and uids' },
  { type: 'updated', title: 'Changed back', description: 'changed since the snapshot; they get the saved contents' },
  { type: 'replaced', title: 'Replaced', description: 'deleted and made again since the snapshot; the new ones are replaced by the saved ones' },
];

/** The non-empty groups of a plan, in the order the confirmation shows them. */
export function changeGroups(plan: RestorePlanView): ChangeGroup[] {
  return GROUPS.map((group) => ({ ...group, items: plan.changes[group.type] })).filter((group) => group.items.length > 0);
}

export function planIsEmpty(plan: RestorePlanView): boolean {
  return changeGroups(plan).length === 0;
}

/** `ConfigMap default/settings` (the kind's name when known, else the resource), as kubectl's `kind/name` reads. */
export function changeLabel(change: RestoreChange, kindOf: (resource: string) => string | undefined): string {
  const kind = kindOf(change.resource) ?? change.resource;
  return `${kind} ${change.namespace ? `${change.namespace}/` : ''}${change.name}`;
}

/** The notice after a restore, from the SnapshotRestore's counts. */
export function restoreResultText(name: string, body: unknown): string {
  const status = isRecord(body) && isRecord(body.status) ? body.status : {};
  const count = (field: string) => (typeof status[field] === 'number' ? status[field] : 0);
  const parts = [`${count('created')} brought back`, `${count('deleted')} removed`, `${count('updated')} changed back`, `${count('replaced')} replaced`];
  const missing = Array.isArray(status.missingImages) ? status.missingImages.filter((image): image is string => typeof image === 'string') : [];
  return `Restored “${name}”: ${parts.join(', ')}${missing.length ? `; images to pull: ${missing.join(', ')}` : ''}.`;
}
