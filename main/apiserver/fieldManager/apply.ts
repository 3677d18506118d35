// Server-side apply (`application/apply-patch+yaml`), after structured-merge-diff merge.Updater.Apply
// and k8s.io/apimachinery/pkg/util/managedfields/internal (structuredmerge.go, lastappliedmanager.go,
// lastappliedupdater.go, conflict.go, managedfieldsupdater.go):
// - the configuration merges onto the live object; its field set becomes the applier's Apply entry;
// - fields the applier applied last time but not now are removed, unless another manager owns them;
// - fields another manager owns whose value would change are conflicts: a 409 listing them, or with
//   force the applier takes them over;
// - the `kubectl` manager may take over fields recorded in the client-side apply annotation, and
//   keeps that annotation in step with what it applies.
import { jsonEqual } from '../../../shared/kubernetes/json';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { FieldSet, pathString, type Path } from './fieldSet';
import { comparable, decodeManagedFields, filterComparison, managerIdentifier, resetFields, stripSet, writeManaged, type Managed, type ManagerEntry } from './managedFields';
import { compareValues, mergeValues, removeItems, toFieldSet, TypeError, typingErrors, withAncestors, withNamedFieldsAsMembers } from './typed';
import { typeFor, type TypeNode } from './typeSchema';

export interface ApplyContext {
  manager: string;
  force: boolean;
  apiVersion: string;
  kind: string;
  subresource?: string;
  hasStatus: boolean;
  now: string;
}

export const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

interface Conflict {
  managerId: string;
  entry: ManagerEntry;
  path: Path;
}

/**
 * Applies `config` to `live` (undefined when the apply creates the object) and returns the new
 * object with its managedFields. Throws ApiError: 400 for a configuration carrying managedFields,
 * 409 for conflicts, 500 when the configuration does not fit the type (as upstream).
 */
export function applyConfiguration(live: KubeObject | undefined, config: unknown, context: ApplyContext): KubeObject {
  if (!isRecord(config)) throw ApiError.badRequest('error decoding YAML: the applied configuration must be an object');
  if (isRecord(config.metadata) && config.metadata.managedFields !== undefined && config.metadata.managedFields !== null) {
    throw ApiError.badRequest('metadata.managedFields must be nil');
  }
  const type = typeFor(context.apiVersion, context.kind);
  try {
    // upstream types the applied object before anything else (no duplicates allowed; the live object may have them)
    const errors = typingErrors(config, type);
    if (errors.length === 1) throw new TypeError(errors[0]);
    if (errors.length > 1) throw new TypeError(['errors:', ...errors.map((error) => `  ${error}`)].join('\n'));
    return applyTyped(live, config, context, type, context.force);
  } catch (error) {
    if (!(error instanceof ConflictList)) throw toApiError(error, context, config);
    if (context.manager === 'kubectl' && live) {
      // lastappliedmanager.go: conflicts with what client-side apply recorded are allowed, so the
      // first server-side apply after client-side applies goes through.
      const allowed = allowedFromLastApplied(live, context, type);
      if (allowed) {
        const remaining = error.conflicts.filter((conflict) => !allowed.has(conflict.path));
        if (remaining.length === 0) return applyTyped(live, config, context, type, true);
        throw conflictError(remaining);
      }
    }
    throw conflictError(error.conflicts);
  }
}

class ConflictList extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('conflicts');
  }
}

/**
 * An applied configuration that does not fit its type (a keyed-list item without its key, two
 * items with one key) is the client's bad input: 400 with upstream's text. Upstream 1.35 still
 * answers 500 here (kubernetes#139253, with a pull request to make it BadRequest); kubedesk answers
 * bad input with a 4xx.
 */
function toApiError(error: unknown, context: ApplyContext, config: Record<string, unknown>): unknown {
  if (error instanceof TypeError) {
    const metadata = isRecord(config.metadata) ? config.metadata : {};
    const group = context.apiVersion.includes('/') ? context.apiVersion.split('/')[0] : '';
    const version = context.apiVersion.split('/').pop() ?? '';
    // schema.GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`
    const gvk = `${group}/${version}, Kind=${context.kind}`;
    return ApiError.badRequest(`failed to create typed patch object (${String(metadata.namespace ?? '')}/${String(metadata.name ?? '')}; ${gvk}): ${error.message}`);
  }
  return error;
}

function applyTyped(live: KubeObject | undefined, config: Record<string, unknown>, context: ApplyContext, type: TypeNode, force: boolean): KubeObject {
  let managed: Managed;
  try {
    managed = decodeManagedFields(live?.metadata.managedFields);
  } catch (error) {
    throw ApiError.internal(`failed to decode managed fields: ${error instanceof Error ? error.message : String(error)}`);
  }
  const liveValue = live ? structuredClone(live) : ({ metadata: {} } as KubeObject);
  delete liveValue.metadata.managedFields;
  const merged = mergeValues(liveValue, config, type);
  if (!isRecord(merged)) throw ApiError.badRequest('the applied configuration must be an object');

  const ignored = resetFields(context, liveValue, config);
  const applierId = managerIdentifier({ manager: context.manager, operation: 'Apply', apiVersion: context.apiVersion, subresource: context.subresource });
  const previous = managed.get(applierId);
  const applied = stripSet(toFieldSet(config, type).recursiveDifference(ignored));
  managed.set(applierId, { manager: context.manager, operation: 'Apply', apiVersion: context.apiVersion, time: previous?.time, subresource: context.subresource, set: applied });
  if (previous) prune(merged, managed, previous.set.recursiveDifference(ignored), type);

  const comparison = filterComparison(compareValues(comparable(liveValue), comparable(merged as KubeObject), type), ignored);
  const changed = comparison.added.union(comparison.modified);
  const conflicts: Conflict[] = [];
  for (const [id, entry] of managed) {
    if (id === applierId) continue;
    const overlap = entry.set.intersection(changed);
    for (const path of overlap.paths()) conflicts.push({ managerId: id, entry, path });
  }
  if (conflicts.length > 0 && !force) throw new ConflictList(conflicts);
  for (const [id, entry] of managed) {
    if (id === applierId) continue;
    entry.set = entry.set.difference(changed).difference(comparison.removed);
    if (entry.set.isEmpty()) managed.delete(id);
  }
  if (applied.isEmpty()) managed.delete(applierId);

  const result = merged as KubeObject;
  const changedObject = !jsonEqual(comparable(liveValue), comparable(result));
  const entry = managed.get(applierId);
  if (entry && changedObject) entry.time = context.now;
  if (context.manager === 'kubectl' && live && hasLastApplied(live)) setLastApplied(result, config);
  writeManaged(result, managed);
  return result;
}

/**
 * Removes what the applier applied last time and no longer applies, unless some manager (the
 * applier's new configuration included) still owns it or something beneath it (Updater.prune).
 */
function prune(merged: Record<string, unknown>, managed: Managed, lastSet: FieldSet, type: TypeNode): void {
  let owned = new FieldSet();
  for (const entry of managed.values()) owned = owned.union(entry.set);
  const removable = withNamedFieldsAsMembers(lastSet).difference(withAncestors(owned));
  // The object's identity is never pruned, whatever the sets say.
  const metadata = removable.children.get('f:metadata');
  if (metadata) metadata.member = false;
  for (const element of ['f:apiVersion', 'f:kind']) removable.children.delete(element);
  removeItems(merged, removable, type);
}

function hasLastApplied(obj: KubeObject): boolean {
  const value = obj.metadata.annotations?.[lastAppliedAnnotation];
  return typeof value === 'string' && value.length > 0;
}

/** Fields the client-side apply annotation recorded with the values the object still has. */
function allowedFromLastApplied(live: KubeObject, context: ApplyContext, type: TypeNode): FieldSet | undefined {
  const text = live.metadata.annotations?.[lastAppliedAnnotation];
  if (typeof text !== 'string' || text === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(lastApplied) || lastApplied.apiVersion !== context.apiVersion) return undefined;
  try {
    const set = toFieldSet(lastApplied, type);
    const comparison = compareValues(comparable(lastApplied), comparable(live), type);
    return set.difference(comparison.modified).difference(comparison.added).difference(comparison.removed);
  } catch {
    return undefined;
  }
}

/** lastappliedupdater.go: the annotation becomes the applied configuration (without itself). */
function setLastApplied(obj: KubeObject, config: Record<string, unknown>): void {
  const copy = structuredClone(config);
  if (isRecord(copy.metadata) && isRecord(copy.metadata.annotations)) {
    delete copy.metadata.annotations[lastAppliedAnnotation];
    if (Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations;
  }
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [lastAppliedAnnotation]: `${JSON.stringify(sortKeys(copy))}\n` };
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
    return out;
  }
  return value;
}

/** How conflict messages name a manager (conflict.go printManager). */
function printManager(entry: ManagerEntry): string {
  let text = JSON.stringify(entry.manager);
  if (entry.subresource) text = `${text} with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === 'Update') return `${text} using ${entry.apiVersion}`;
  return text;
}

/** The 409 upstream answers (errors.NewApplyConflict with conflict.go's message and causes). */
export function conflictError(conflicts: Conflict[]): ApiError {
  const causes = conflicts.map((conflict) => ({ type: 'FieldManagerConflict', message: `conflict with ${printManager(conflict.entry)}`, field: pathString(conflict.path) }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].entry)}: ${pathString(conflicts[0].path)}`;
  } else {
    const byManager = new Map<string, Conflict[]>();
    for (const conflict of conflicts) byManager.set(conflict.managerId, [...(byManager.get(conflict.managerId) ?? []), conflict]);
    const lines: string[] = [];
    for (const id of [...byManager.keys()].sort()) {
      const group = byManager.get(id) ?? [];
      lines.push(`conflicts with ${printManager(group[0].entry)}:`);
      for (const conflict of group) lines.push(`- ${pathString(conflict.path)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}
