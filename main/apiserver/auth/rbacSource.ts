// The RBAC objects the authorizer reads, straight from the store and cached until one of the four
// RBAC resources changes (StoreCache), the way upstream's authorizer reads through shared
// informers instead of etcd on every request.
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { Disposable, Store } from '../../storage/store';
import { StoreCache } from '../storeCache';
import { bindingOf, policyRulesOf, type Binding, type PolicyRule, type RbacSource } from './rbacAuthorizer';

const GROUP = 'rbac.authorization.k8s.io';
const CLUSTER_ROLES = `clusterroles.${GROUP}`;
const ROLES = `roles.${GROUP}`;
const CLUSTER_ROLE_BINDINGS = `clusterrolebindings.${GROUP}`;
const ROLE_BINDINGS = `rolebindings.${GROUP}`;

interface Snapshot {
  clusterRoles: Map<string, PolicyRule[]>;
  roles: Map<string, PolicyRule[]>;
  clusterRoleBindings: Binding[];
  roleBindings: Map<string, Binding[]>;
}

export class StoreRbacSource implements RbacSource, Disposable {
  private readonly cache: StoreCache;

  constructor(private readonly store: Store) {
    this.cache = new StoreCache(store);
  }

  clusterRole(name: string): PolicyRule[] | undefined {
    return this.current().clusterRoles.get(name);
  }

  role(namespace: string, name: string): PolicyRule[] | undefined {
    return this.current().roles.get(`${namespace}/${name}`);
  }

  clusterRoleBindings(): Binding[] {
    return this.current().clusterRoleBindings;
  }

  roleBindings(namespace: string): Binding[] {
    return this.current().roleBindings.get(namespace) ?? [];
  }

  dispose(): void {
    this.cache.dispose();
  }

  private current(): Snapshot {
    return this.cache.get('rbac', [CLUSTER_ROLES, ROLES, CLUSTER_ROLE_BINDINGS, ROLE_BINDINGS], () => this.build());
  }

  private build(): Snapshot {
    const all = (resource: string): KubeObject[] => this.store.list(resource, {}).items;
    const snapshot: Snapshot = { clusterRoles: new Map(), roles: new Map(), clusterRoleBindings: [], roleBindings: new Map() };
    for (const role of all(CLUSTER_ROLES)) snapshot.clusterRoles.set(role.metadata.name ?? '', policyRulesOf(role));
    for (const role of all(ROLES)) snapshot.roles.set(`${role.metadata.namespace ?? ''}/${role.metadata.name ?? ''}`, policyRulesOf(role));
    for (const binding of all(CLUSTER_ROLE_BINDINGS)) snapshot.clusterRoleBindings.push(bindingOf(binding));
    for (const object of all(ROLE_BINDINGS)) {
      const binding = bindingOf(object);
      const list = snapshot.roleBindings.get(binding.namespace) ?? [];
      list.push(binding);
      snapshot.roleBindings.set(binding.namespace, list);
    }
    return snapshot;
  }
}
