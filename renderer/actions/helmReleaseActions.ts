// Rollback and uninstall of a Helm release from the UI, performed as helm 4 performs them
// (helm.sh/helm/v4 pkg/action/rollback.go, uninstall.go, hooks.go; pkg/kube/client.go Update and
// Delete; pkg/storage/driver/secrets.go), through the API as the user, so that `helm list`,
// `helm history` and `helm status` read afterwards exactly what helm itself would have left, and a
// later `helm upgrade` finds its objects owned by its own field manager (`helm`):
//
// - rollback to N: a new revision current+1 (pending-rollback, "Rollback to N") copying N's chart,
//   values, manifest and hooks is created; pre-rollback hooks run; every object of N's manifest is
//   applied server-side (field manager `helm`, no force) — client-side for a revision helm applied
//   client-side —, objects of the current manifest that N lacks are deleted (background
//   propagation) unless annotated helm.sh/resource-policy: keep; post-rollback hooks run; every
//   revision still `deployed` becomes `superseded` and the new one `deployed`. A failed apply marks
//   the new revision `failed` with helm's description and the current one `superseded`.
// - uninstall: the newest revision becomes `uninstalling` ("Deletion in progress (or silently
//   failed)"), pre-delete hooks run, the manifest's objects are deleted in helm's uninstall order
//   (kept ones named), post-delete hooks run; then every revision Secret is removed — or, keeping
//   history, the revision is stored `uninstalled` ("Uninstallation complete") and any other
//   deployed revision `superseded`.
// Hooks run as helm's execHook, their objects applied as written (no ownership stamps): by weight
// then name, before-hook-creation (the default) deletes a previous run's object first, Jobs and
// Pods are waited for (helm's default 5 minutes), last_run is recorded in the release,
// hook-succeeded / hook-failed delete afterwards.
import type { KubeObject } from '../../shared/kubernetes/types';
import { goTime, releaseFromSecret, releaseSecret, releaseSecretName, rollbackRevision, usesServerSideApply, withInfo, type HelmRelease } from '../../shared/helm/releaseStorage';
import { KubeApiError, type KubeClient } from '../api/kubeClient';
import { loadDiscovery, type DiscoveredResource } from '../kinds/discovery';
import { HELM_FIELD_MANAGER, applyBody, hookOutcome, hooksFor, manifestObjects, releaseHooks, removedObjects, resolveObjects, uninstallOrder, type ReleaseHook, type ResolvedObject } from './helmManifest';

/** What the operations need: the client, discovery (to map kinds to paths), a clock, a pause for polling. */
export interface HelmContext {
  client: KubeClient;
  discovered?: readonly DiscoveredResource[];
  now?(): Date;
  /** waits between polls of a hook's Job or Pod (tests give an immediate one) */
  pause?(ms: number): Promise<void>;
  /** how long a hook may run (helm's --timeout, default 5m) */
  hookTimeoutMs?: number;
  /** progress lines for the UI */
  onProgress?(message: string): void;
}

const secretsPath = (namespace: string, name?: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets${name ? `/${encodeURIComponent(name)}` : ''}`;
const WRITE = { query: { fieldManager: HELM_FIELD_MANAGER } };

/** Every stored revision of a release, oldest first (the driver's Query by name and owner labels). */
export async function releaseHistory(client: KubeClient, namespace: string, name: string): Promise<HelmRelease[]> {
  const page = await client.list(secretsPath(namespace), { labelSelector: `owner=helm,name=${name}` });
  const releases = await Promise.all(page.items.map((secret) => releaseFromSecret(secret)));
  return releases.filter((release) => release.name === name).sort((a, b) => a.version - b.version);
}

async function store(context: HelmContext, release: HelmRelease, write: 'create' | 'update'): Promise<void> {
  const secret = await releaseSecret(release, write, clock(context));
  if (write === 'create') await context.client.create(secretsPath(release.namespace), secret, WRITE);
  else await context.client.replace(secretsPath(release.namespace, secret.metadata.name), secret, WRITE);
}

function clock(context: HelmContext): Date {
  return context.now ? context.now() : new Date();
}

async function discovery(context: HelmContext): Promise<readonly DiscoveredResource[]> {
  if (context.discovered && context.discovered.length > 0) return context.discovered;
  return loadDiscovery(context.client);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isNotFound(error: unknown): boolean {
  return error instanceof KubeApiError && error.code === 404;
}

/**
 * kube.Client.Update for one object: server-side apply as `helm` (create or update), or client-side.
 * Release objects carry helm's ownership stamps (setMetadataVisitor); hooks go as written.
 */
async function applyObject(context: HelmContext, object: ResolvedObject, release: HelmRelease, serverSide: boolean, stamp = true): Promise<void> {
  const body = stamp ? applyBody(object, release.name, release.namespace) : { ...object.object, metadata: { ...object.object.metadata, ...(object.namespaced ? { namespace: object.namespace } : {}) } };
  if (serverSide) {
    await context.client.patch(object.path, body, 'apply', { query: { fieldManager: HELM_FIELD_MANAGER, force: 'false', fieldValidation: 'Strict' } });
    return;
  }
  try {
    await context.client.get(object.path);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await context.client.create(object.path.slice(0, object.path.lastIndexOf('/')), body, WRITE);
    return;
  }
  try {
    await context.client.patch(object.path, body, 'strategic', WRITE);
  } catch (error) {
    // custom resources take no strategic merge patch (415), as kubectl falls back
    if (!(error instanceof KubeApiError && error.code === 415)) throw error;
    await context.client.patch(object.path, body, 'merge', WRITE);
  }
}

/** Deletes with background propagation; a missing object counts as deleted (kube.Client.Delete). */
async function deleteObject(context: HelmContext, object: ResolvedObject): Promise<void> {
  try {
    await context.client.delete(object.path, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

async function deadlinePoll<T>(context: HelmContext, timeoutMs: number, check: () => Promise<T | undefined>, what: string): Promise<T> {
  const pause = context.pause ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(1000);
  }
}

async function deleteHookObjects(context: HelmContext, hook: ReleaseHook, objects: ResolvedObject[]): Promise<void> {
  if (hook.kind === 'CustomResourceDefinition') return;
  for (const object of objects) await deleteObject(context, object);
  for (const object of objects) {
    await deadlinePoll(context, context.hookTimeoutMs ?? 300_000, async () => {
      try {
        await context.client.get(object.path);
        return undefined;
      } catch (error) {
        if (isNotFound(error)) return true;
        throw error;
      }
    }, `${object.kind} ${object.name} to be deleted`);
  }
}

/** execHook: runs the release's hooks of one event, recording each hook's last_run in the release. */
async function runHooks(context: HelmContext, release: HelmRelease, event: string, serverSide: boolean): Promise<void> {
  const hooks = hooksFor(releaseHooks(release.hooks), event);
  if (hooks.length === 0) return;
  const resources = await discovery(context);
  const done: Array<{ hook: ReleaseHook; objects: ResolvedObject[] }> = [];
  for (const hook of hooks) {
    const objects = resolveObjects(manifestObjects(hook.manifest, release.namespace), resources);
    if (hook.deletePolicies.includes('before-hook-creation')) await deleteHookObjects(context, hook, objects);
    context.onProgress?.(`running ${event} hook ${hook.name}`);
    hook.raw.last_run = { started_at: goTime(clock(context)), phase: 'Running' };
    await store(context, release, 'update');
    hook.raw.last_run = { started_at: (hook.raw.last_run as Record<string, unknown>).started_at, phase: 'Unknown' };
    let failure: Error | undefined;
    try {
      for (const object of objects) await applyObject(context, object, release, serverSide, false);
      for (const object of objects) {
        const outcome = await deadlinePoll(context, context.hookTimeoutMs ?? 300_000, async () => {
          const live = await context.client.get<KubeObject>(object.path);
          const state = hookOutcome(object.kind, live);
          return state === 'running' ? undefined : state;
        }, `${event} hook ${hook.name}`);
        if (outcome === 'failed') throw new Error(`${object.kind.toLowerCase()} ${object.name} failed`);
      }
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
    }
    const lastRun = hook.raw.last_run as Record<string, unknown>;
    hook.raw.last_run = { ...lastRun, completed_at: goTime(clock(context)), phase: failure ? 'Failed' : 'Succeeded' };
    if (failure) {
      if (hook.deletePolicies.includes('hook-failed')) await deleteHookObjects(context, hook, objects).catch(() => undefined);
      for (const earlier of done) if (earlier.hook.deletePolicies.includes('hook-succeeded')) await deleteHookObjects(context, earlier.hook, earlier.objects);
      throw new Error(`${event} hook ${hook.path || hook.name} failed: ${failure.message}`);
    }
    done.push({ hook, objects });
  }
  for (const { hook, objects } of done.reverse()) if (hook.deletePolicies.includes('hook-succeeded')) await deleteHookObjects(context, hook, objects);
}

/** `helm rollback NAME REVISION -n NAMESPACE`; resolves to the new revision number. */
export async function rollbackRelease(context: HelmContext, namespace: string, name: string, version: number): Promise<number> {
  const history = await releaseHistory(context.client, namespace, name);
  if (history.length === 0) throw new Error(`release: not found`);
  const current = history[history.length - 1];
  const target = history.find((release) => release.version === version);
  if (!target) throw new Error(`release has no ${version} version`);
  const resources = await discovery(context);
  const currentObjects = resolveObjects(manifestObjects(current.manifest, current.namespace), resources);
  const targetObjects = resolveObjects(manifestObjects(target.manifest, current.namespace), resources);
  let next = rollbackRevision(current, target, clock(context));
  const serverSide = usesServerSideApply(next);
  await store(context, next, 'create');
  try {
    await runHooks(context, next, 'pre-rollback', serverSide);
    context.onProgress?.(`applying ${targetObjects.length} objects of revision ${version}`);
    const errors: string[] = [];
    for (const object of targetObjects) {
      // kube.Client.update: a missing object is created (a failure stops there), an existing one
      // updated (failures collected, joined with " && ")
      const exists = await context.client.get(object.path).then(
        () => true,
        (error: unknown) => (isNotFound(error) ? false : Promise.reject(new Error(`could not get information about the resource: ${errorMessage(error)}`))),
      );
      try {
        await applyObject(context, object, next, serverSide);
      } catch (error) {
        const message = serverSide && error instanceof KubeApiError && error.code === 409 ? `conflict occurred while applying object ${object.namespace}/${object.name} ${object.group}/${object.version}, Kind=${object.kind}: ${error.message}` : errorMessage(error);
        if (!exists) throw new Error(`failed to create resource: ${message}`);
        errors.push(message);
      }
    }
    for (const object of removedObjects(currentObjects, targetObjects)) {
      let live: KubeObject;
      try {
        live = await context.client.get<KubeObject>(object.path);
      } catch {
        continue;
      }
      if (live.metadata.annotations?.['helm.sh/resource-policy'] === 'keep') continue;
      try {
        await deleteObject(context, object);
      } catch (error) {
        errors.push(`failed to delete resource ${object.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (errors.length > 0) throw new Error(errors.join(' && '));
  } catch (error) {
    const message = `Rollback "${name}" failed: ${error instanceof Error ? error.message : String(error)}`;
    await store(context, withInfo(current, { status: 'superseded' }), 'update');
    next = withInfo(next, { status: 'failed', description: message });
    await store(context, next, 'update');
    throw new Error(message);
  }
  await runHooks(context, next, 'post-rollback', serverSide);
  for (const deployed of await releaseHistory(context.client, namespace, name)) {
    if (deployed.status === 'deployed') await store(context, withInfo(deployed, { status: 'superseded' }), 'update');
  }
  await store(context, withInfo(next, { status: 'deployed' }), 'update');
  return next.version;
}

/** `helm uninstall NAME -n NAMESPACE [--keep-history]`; resolves to the objects kept by policy (`[Kind] name` lines). */
export async function uninstallRelease(context: HelmContext, namespace: string, name: string, options: { keepHistory?: boolean } = {}): Promise<string[]> {
  const history = await releaseHistory(context.client, namespace, name);
  if (history.length === 0) throw new Error(`uninstall: Release not loaded: ${name}: release: not found`);
  const purge = async () => {
    for (const release of history) await context.client.delete(secretsPath(namespace, releaseSecretName(release.name, release.version))).catch((error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error)));
  };
  let release = history[history.length - 1];
  if (release.status === 'uninstalled') {
    if (options.keepHistory) throw new Error(`the release named "${name}" is already deleted`);
    await purge();
    return [];
  }
  release = withInfo(release, { status: 'uninstalling', deleted: goTime(clock(context)), description: 'Deletion in progress (or silently failed)' });
  await runHooks(context, release, 'pre-delete', true);
  await store(context, release, 'update');
  const objects = uninstallOrder(resolveObjects(manifestObjects(release.manifest, release.namespace), await discovery(context)));
  const kept = objects.filter((object) => object.keep).map((object) => `[${object.kind}] ${object.name}`);
  context.onProgress?.(`deleting ${objects.length - kept.length} objects`);
  const errors: string[] = [];
  for (const object of objects) {
    if (object.keep) continue;
    try {
      await deleteObject(context, object);
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (errors.length > 0) throw new Error(`failed to delete release: ${name} (${errors.join('; ')})`);
  await runHooks(context, release, 'post-delete', true);
  release = withInfo(release, { status: 'uninstalled', description: 'Uninstallation complete' });
  if (!options.keepHistory) {
    await purge();
    return kept;
  }
  await store(context, release, 'update');
  for (const other of await releaseHistory(context.client, namespace, name)) {
    if (other.status === 'deployed') await store(context, withInfo(other, { status: 'superseded' }), 'update');
  }
  return kept;
}
