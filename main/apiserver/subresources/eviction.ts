// pods/{name}/eviction: the Eviction API (pkg/registry/core/pod/storage/eviction.go) that
// `kubectl drain` uses. A pod that is Pending, finished or already terminating is deleted at once;
// otherwise the one PodDisruptionBudget matching it must allow a disruption: its
// status.disruptionsAllowed is decremented and the pod recorded in status.disruptedPods (written
// with a resourceVersion precondition, retried on conflict), then the pod gets the DisruptionTarget
// condition and is deleted with the eviction's deleteOptions. A budget at zero answers 429
// TooManyRequests "Cannot evict pod as it would violate the pod's disruption budget." with a
// DisruptionBudget cause, as upstream, so clients retry. The pod's strategy names this handler
// (`provider: 'eviction'`); the subresource machinery has admitted the Eviction before it runs.
import type { KubeObject, StatusDetails } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { isConditionTrue, setCondition, statusConditions } from '../../../shared/kubernetes/conditions';
import type { KindStrategy } from '../../registry/strategy';
import { ApiError } from '../apiError';
import { nowTimestamp } from '../objectMeta';
import { json, successStatus, withWarnings } from '../handlers/replies';
import type { ApiReply, SubresourceHandler } from '../handlers/request';
import type { ResourceRegistry } from '../resourceRegistry';
import type { DeleteOptions, ResourceStore, WriteOptions } from '../resourceStore';
import { selectorIsEmpty, selectorMatches } from '../../../shared/kubernetes/labelSelector';

const TOO_MANY_REQUESTS_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";
/** upstream MaxDisruptedPodSize */
const MAX_DISRUPTED_POD_SIZE = 2000;
/** upstream EvictionsRetry has 20 steps */
const RETRIES = 20;

function recordOf(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** canIgnorePDB: these pods are no longer (or not yet) serving, so evicting them disrupts nothing. */
function canIgnoreBudget(pod: KubeObject): boolean {
  const phase = recordOf(pod.status).phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || Boolean(pod.metadata.deletionTimestamp);
}

/** shouldEnforceResourceVersion: a running pod must not have become ready since we looked. */
function shouldEnforceResourceVersion(pod: KubeObject): boolean {
  const phase = recordOf(pod.status).phase;
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp);
}

/** metav1.LabelSelectorAsSelector + Matches; a nil or empty selector matches nothing here, as upstream's eviction. */
function budgetSelectsPod(budget: KubeObject, pod: KubeObject): boolean {
  const selector = recordOf(budget.spec).selector;
  return !selectorIsEmpty(selector) && selectorMatches(selector, pod.metadata.labels);
}

function tooManyRequests(cause: string, retryAfterSeconds: number): ApiError {
  const details: StatusDetails = { causes: [{ reason: 'DisruptionBudget', message: cause }] };
  if (retryAfterSeconds > 0) details.retryAfterSeconds = retryAfterSeconds;
  return new ApiError(429, 'TooManyRequests', TOO_MANY_REQUESTS_MESSAGE, details);
}

/** pdbhelper.UpdateDisruptionAllowedCondition */
export function setDisruptionAllowedCondition(status: Record<string, unknown>, generation: number | undefined, now: Date): void {
  const allowed = numberOf(status.disruptionsAllowed) > 0;
  const condition = { type: 'DisruptionAllowed', status: allowed ? 'True' : 'False', reason: allowed ? 'SufficientPods' : 'InsufficientPods', message: '', observedGeneration: generation ?? 0 };
  status.conditions = setCondition(statusConditions(status), condition, nowTimestamp(now));
}

interface EvictionRequest {
  deleteOptions: DeleteOptions;
  writeOptions: WriteOptions;
}

function parseEviction(body: unknown, name: string, query: URLSearchParams): EvictionRequest {
  if (!isRecord(body)) throw ApiError.badRequest('not a Eviction object');
  if (body.kind !== undefined && body.kind !== 'Eviction') throw ApiError.badRequest(`not a Eviction object: ${String(body.kind)}`);
  const metadata = recordOf(body.metadata);
  if (metadata.name !== undefined && metadata.name !== '' && metadata.name !== name) throw ApiError.badRequest('name in URL does not match name in Eviction object');
  const queryDryRun = query.getAll('dryRun');
  const options = recordOf(body.deleteOptions);
  const bodyDryRun = Array.isArray(options.dryRun) ? options.dryRun.map(String) : [];
  if (queryDryRun.length && bodyDryRun.length && queryDryRun.join(',') !== bodyDryRun.join(',')) {
    throw ApiError.badRequest(`Non-matching dry-run options in request and content: [${queryDryRun.join(' ')}] and [${bodyDryRun.join(' ')}]`);
  }
  const dryRun = [...queryDryRun, ...bodyDryRun];
  for (const value of dryRun) {
    if (value !== 'All') throw ApiError.invalid('DeleteOptions', 'meta.k8s.io', '', [{ type: 'FieldValueNotSupported', field: 'dryRun', detail: `Unsupported value: "${value}": supported values: "All"` }]);
  }
  const deleteOptions: DeleteOptions = { dryRun: dryRun.length > 0 };
  if (options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds !== null) {
    const grace = Number(options.gracePeriodSeconds);
    if (!Number.isInteger(grace)) throw ApiError.badRequest(`gracePeriodSeconds: Invalid value: "${String(options.gracePeriodSeconds)}"`);
    deleteOptions.gracePeriodSeconds = Math.max(0, grace);
  }
  const propagation = options.propagationPolicy;
  if (propagation === 'Orphan' || propagation === 'Background' || propagation === 'Foreground') deleteOptions.propagationPolicy = propagation;
  if (isRecord(options.preconditions)) {
    const { uid, resourceVersion } = options.preconditions;
    deleteOptions.preconditions = { uid: typeof uid === 'string' ? uid : undefined, resourceVersion: typeof resourceVersion === 'string' ? resourceVersion : undefined };
  }
  return { deleteOptions, writeOptions: { dryRun: dryRun.length > 0, fieldValidation: 'Ignore', warnings: [] } };
}

/** What the eviction handler works with: the API server's store and registry. */
export interface EvictionContext {
  objects: ResourceStore;
  registry: ResourceRegistry;
}

/** The handler for `pods/eviction` (the provider the pod strategy names `eviction`). */
export function evictionHandler(api: EvictionContext, clock: () => Date = () => new Date()): SubresourceHandler {
  return (request, { def: podsDef, namespace, name, body, warnings }) => {
    if (request.method !== 'POST') throw ApiError.methodNotAllowed();
    const success = (): ApiReply => withWarnings(successStatus(), warnings);
    const { deleteOptions, writeOptions } = parseEviction(body, name, request.query);
    const budgetsDef = api.registry.lookup('policy', 'v1', 'poddisruptionbudgets');
    const callerSetResourceVersion = Boolean(deleteOptions.preconditions?.resourceVersion);

    let pod: KubeObject | undefined;
    for (let attempt = 0; ; attempt++) {
      pod = api.objects.get(podsDef, namespace, name);
      if (!canIgnoreBudget(pod)) break;
      const options = structuredClone(deleteOptions);
      if (shouldEnforceResourceVersion(pod) && !callerSetResourceVersion) options.preconditions = { ...options.preconditions, resourceVersion: pod.metadata.resourceVersion };
      try {
        api.objects.delete(podsDef, namespace, name, options);
        return success();
      } catch (error) {
        if (error instanceof ApiError && error.code === 409 && !callerSetResourceVersion && attempt < RETRIES) continue;
        throw error;
      }
    }

    const budgets = budgetsDef ? api.objects.list(budgetsDef, { namespace, labels: [], fields: [] }).items.filter((budget) => budgetSelectsPod(budget, pod)) : [];
    if (budgets.length > 1) {
      return json(500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 });
    }
    let enforcePodVersion = false;
    if (budgets.length === 1 && budgetsDef) {
      const budget = budgets[0];
      const status = recordOf(budget.status);
      const spec = recordOf(budget.spec);
      const ready = isConditionTrue(pod, 'Ready');
      if (!ready && spec.unhealthyPodEvictionPolicy === 'AlwaysAllow') {
        enforcePodVersion = true;
      } else if (!ready && numberOf(status.currentHealthy) >= numberOf(status.desiredHealthy) && numberOf(status.desiredHealthy) > 0) {
        // An unready pod does not count as healthy, so evicting it costs the budget nothing.
        enforcePodVersion = true;
      } else {
        checkAndDecrement(api, budgetsDef, budget, name, writeOptions, clock);
      }
    }

    const options = structuredClone(deleteOptions);
    if (enforcePodVersion && !callerSetResourceVersion) options.preconditions = { ...options.preconditions, resourceVersion: pod.metadata.resourceVersion };
    try {
      addDisruptionTargetAndDelete(api, podsDef, namespace, name, options, writeOptions, clock);
    } catch (error) {
      if (error instanceof ApiError && error.code === 409 && enforcePodVersion && !callerSetResourceVersion) {
        throw tooManyRequests(`The disruption budget ${budgets[0]?.metadata.name ?? ''} is still being processed by the server.`, 10);
      }
      throw error;
    }
    return success();
  };
}

/** checkAndDecrement, retried on conflict with a fresh read of the budget. */
function checkAndDecrement(api: EvictionContext, budgetsDef: KindStrategy, initial: KubeObject, podName: string, writeOptions: WriteOptions, clock: () => Date): void {
  let budget = initial;
  const budgetName = budget.metadata.name ?? '';
  for (let attempt = 0; ; attempt++) {
    const status = structuredClone(recordOf(budget.status));
    const generation = budget.metadata.generation ?? 0;
    if (numberOf(status.observedGeneration) < generation) throw tooManyRequests(`The disruption budget ${budgetName} is still being processed by the server.`, 10);
    const allowed = numberOf(status.disruptionsAllowed);
    if (allowed < 0) throw new ApiError(403, 'Forbidden', `poddisruptionbudget.policy "${budgetName}" is forbidden: pdb disruptions allowed is negative`, { name: budgetName, group: 'policy', kind: 'poddisruptionbudget' });
    const disrupted = recordOf(status.disruptedPods);
    if (Object.keys(disrupted).length > MAX_DISRUPTED_POD_SIZE) {
      throw new ApiError(403, 'Forbidden', `poddisruptionbudget.policy "${budgetName}" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller`, { name: budgetName, group: 'policy', kind: 'poddisruptionbudget' });
    }
    if (allowed === 0) {
      throw tooManyRequests(`The disruption budget ${budgetName} needs ${numberOf(status.desiredHealthy)} healthy pods and has ${numberOf(status.currentHealthy)} currently`, 0);
    }
    status.disruptionsAllowed = allowed - 1;
    if (allowed - 1 === 0) setDisruptionAllowedCondition(status, generation, clock());
    if (writeOptions.dryRun) return;
    status.disruptedPods = { ...disrupted, [podName]: nowTimestamp(clock()) };
    try {
      api.objects.update(budgetsDef, budget.metadata.namespace ?? '', budgetName, { ...budget, status }, { ...writeOptions, warnings: [], subresource: 'status' });
      return;
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 409) || attempt >= RETRIES) throw error;
      budget = api.objects.get(budgetsDef, budget.metadata.namespace ?? '', budgetName);
    }
  }
}

/** addConditionAndDeletePod: mark the pod DisruptionTarget, then delete it honouring the preconditions. */
function addDisruptionTargetAndDelete(api: EvictionContext, podsDef: KindStrategy, namespace: string, name: string, options: DeleteOptions, writeOptions: WriteOptions, clock: () => Date): void {
  let deleteOptions = options;
  if (!options.dryRun) {
    const { object } = api.objects.patch(
      podsDef,
      namespace,
      name,
      (current) => {
        const conditions = options.preconditions;
        if (conditions?.uid && conditions.uid !== current.metadata.uid) {
          throw ApiError.conflict(podsDef, name, `Precondition failed: UID in precondition: ${conditions.uid}, UID in object meta: ${current.metadata.uid ?? ''}`);
        }
        if (conditions?.resourceVersion && conditions.resourceVersion !== current.metadata.resourceVersion) {
          throw ApiError.conflict(podsDef, name, `Precondition failed: ResourceVersion in precondition: ${conditions.resourceVersion}, ResourceVersion in meta: ${current.metadata.resourceVersion ?? ''}`);
        }
        const status = recordOf(current.status);
        const list = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
        const existing = list.find((condition) => condition.type === 'DisruptionTarget');
        const condition = {
          type: 'DisruptionTarget',
          status: 'True',
          lastProbeTime: null,
          lastTransitionTime: existing && existing.status === 'True' && typeof existing.lastTransitionTime === 'string' ? existing.lastTransitionTime : nowTimestamp(clock()),
          reason: 'EvictionByEvictionAPI',
          message: 'Eviction API: evicting',
        };
        return { ...current, status: { ...status, conditions: [...list.filter((entry) => entry.type !== 'DisruptionTarget'), condition] } };
      },
      { ...writeOptions, warnings: [], subresource: 'status' },
    );
    // We changed the pod ourselves: carry the caller's version precondition over to the new version.
    if (options.preconditions?.resourceVersion) deleteOptions = { ...options, preconditions: { ...options.preconditions, resourceVersion: object.metadata.resourceVersion } };
  }
  api.objects.delete(podsDef, namespace, name, deleteOptions);
}
