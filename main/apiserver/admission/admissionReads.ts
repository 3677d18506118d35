// What the built-in admission plugins read on every write — the request's namespace, the
// namespace's ResourceQuotas and LimitRanges — kept in memory until the store commits a change to
// that resource (StoreCache), as upstream's plugins read through shared informers' listers rather
// than etcd on each request. A create in a known namespace then reads nothing from SQLite.
// The lists are shared: callers must not change the objects or the arrays.
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { KindStrategy } from '../../registry/strategy';
import { qualifiedResource } from '../../registry/resources';
import type { Store } from '../../storage/store';
import type { ResourceRegistry } from '../resourceRegistry';
import type { StoreCache } from '../storeCache';

const NONE: readonly KubeObject[] = Object.freeze([]);

export class AdmissionReads {
  constructor(
    private readonly store: Store,
    private readonly registry: ResourceRegistry,
    private readonly cache: StoreCache,
  ) {}

  /** The namespace object, or undefined when it does not exist (or namespaces are not served). */
  namespace(name: string): KubeObject | undefined {
    const def = this.registry.lookup('', 'v1', 'namespaces');
    if (!def) return undefined;
    return this.byName(def).get(name);
  }

  /** The namespace's LimitRanges. */
  limitRanges(namespace: string): readonly KubeObject[] {
    return this.inNamespace('', 'v1', 'limitranges', namespace);
  }

  /** The namespace's ResourceQuotas. */
  resourceQuotas(namespace: string): readonly KubeObject[] {
    return this.inNamespace('', 'v1', 'resourcequotas', namespace);
  }

  private inNamespace(group: string, version: string, resource: string, namespace: string): readonly KubeObject[] {
    const def = this.registry.lookup(group, version, resource);
    if (!def) return NONE;
    const resourceName = qualifiedResource(def);
    const grouped = this.cache.get(`admission\u0000by-namespace\u0000${resourceName}`, [resourceName], () => {
      const byNamespace = new Map<string, KubeObject[]>();
      for (const obj of this.listAll(resourceName)) {
        const key = obj.metadata.namespace ?? '';
        const list = byNamespace.get(key);
        if (list) list.push(obj);
        else byNamespace.set(key, [obj]);
      }
      return byNamespace;
    });
    return grouped.get(namespace) ?? NONE;
  }

  private byName(def: KindStrategy): ReadonlyMap<string, KubeObject> {
    const resourceName = qualifiedResource(def);
    return this.cache.get(`admission\u0000by-name\u0000${resourceName}`, [resourceName], () => new Map(this.listAll(resourceName).map((obj) => [obj.metadata.name ?? '', obj])));
  }

  private listAll(resourceName: string): KubeObject[] {
    return this.store.list(resourceName, {}).items;
  }
}
