// ClusterRole aggregation (upstream pkg/controller/clusterroleaggregation): a ClusterRole with an
// aggregationRule gets, as its rules, the union of the rules of every other ClusterRole its
// selectors match — matched roles in name order, each rule once — so `admin`, `edit` and `view`
// grow when a CRD's author labels a role `rbac.authorization.k8s.io/aggregate-to-view: "true"`.
// Any ClusterRole change re-checks every aggregated role, as upstream's handler does.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ApiClient } from '../client/apiClient';
import { QueueController } from '../client/controllerLoop';
import type { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { isConflict, isNotFound } from '../client/errors';
import { selectorMatches } from './controllerUtils';

export class ClusterRoleAggregationController extends QueueController {
  private readonly clusterRoles = this.factory.informerFor(resources.clusterroles);

  constructor(client: ApiClient, factory: SharedInformerFactory) {
    super(client, factory, { name: 'clusterrole-aggregator', component: 'clusterrole-aggregation-controller' });
    const enqueueAggregated = () => {
      for (const role of this.clusterRoles.list()) if (isRecord(role.aggregationRule) && role.metadata.name) this.queue.add(role.metadata.name);
    };
    this.handle(this.clusterRoles, { onAdd: enqueueAggregated, onUpdate: enqueueAggregated, onDelete: enqueueAggregated });
  }

  async reconcile(name: string): Promise<void> {
    const role = this.clusterRoles.get(undefined, name);
    if (!role || !isRecord(role.aggregationRule)) return;
    const rules = aggregatedRules(role, this.clusterRoles.list());
    if (sameRules(rules, Array.isArray(role.rules) ? role.rules : [])) return;
    try {
      await this.client.resource(resources.clusterroles).update({ ...role, rules });
    } catch (error) {
      // a newer version is on its way through the informer and will be synced again
      if (isConflict(error) || isNotFound(error)) return;
      throw error;
    }
  }
}

/** The rules an aggregated ClusterRole should have, given all ClusterRoles. */
export function aggregatedRules(role: KubeObject, all: KubeObject[]): unknown[] {
  const rule = isRecord(role.aggregationRule) ? role.aggregationRule : {};
  const selectors = Array.isArray(rule.clusterRoleSelectors) ? rule.clusterRoleSelectors : [];
  // by name in byte order, as upstream's byName (Go's string <); a locale's collation would also
  // load ICU's collation data (megabytes of memory) for this one sort
  const sorted = [...all].sort((left, right) => compareNames(left.metadata.name ?? '', right.metadata.name ?? ''));
  const result: unknown[] = [];
  const seen = new Set<string>();
  for (const selector of selectors) {
    for (const candidate of sorted) {
      if (candidate.metadata.name === role.metadata.name) continue;
      if (!selectorMatches(selector, candidate.metadata.labels)) continue;
      for (const candidateRule of Array.isArray(candidate.rules) ? candidate.rules : []) {
        const key = ruleKey(candidateRule);
        if (seen.has(key)) continue;
        seen.add(key);
        result.push(candidateRule);
      }
    }
  }
  return result;
}

function sameRules(left: unknown[], right: unknown[]): boolean {
  return left.length === right.length && left.every((rule, index) => ruleKey(rule) === ruleKey(right[index]));
}

/** Rules compare field by field, an absent list equal to an empty one (equality.Semantic). */
function ruleKey(rule: unknown): string {
  const record = isRecord(rule) ? rule : {};
  const list = (value: unknown) => (Array.isArray(value) ? value : []);
  return JSON.stringify([list(record.verbs), list(record.apiGroups), list(record.resources), list(record.resourceNames), list(record.nonResourceURLs)]);
}

function compareNames(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
