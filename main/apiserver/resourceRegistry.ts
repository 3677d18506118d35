// The set of served resources, looked up by path (group, version, resource) or by kind. Starts with
// the built-in kinds; CustomResourceDefinitions add to it at run time (onDidChange lets discovery
// and OpenAPI rebuild).
import type { KindStrategy } from '../registry/strategy';
import { qualifiedResource } from '../registry/resources';

export class ResourceRegistry {
  private readonly byPath = new Map<string, KindStrategy>();
  private readonly byKind = new Map<string, KindStrategy>();
  private readonly list: KindStrategy[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(defs: KindStrategy[]) {
    for (const def of defs) this.add(def, false);
  }

  add(def: KindStrategy, notify = true): void {
    const key = pathKey(def.group, def.version, def.resource);
    const existing = this.byPath.get(key);
    if (existing) this.list.splice(this.list.indexOf(existing), 1, def);
    else this.list.push(def);
    this.byPath.set(key, def);
    const kindKey = `${def.group}/${def.version}/${def.kind}`;
    if (!this.byKind.has(kindKey) || existing) this.byKind.set(kindKey, def);
    if (notify) for (const listener of this.listeners) listener();
  }

  remove(group: string, version: string, resource: string): void {
    const key = pathKey(group, version, resource);
    const def = this.byPath.get(key);
    if (!def) return;
    this.byPath.delete(key);
    this.list.splice(this.list.indexOf(def), 1);
    this.byKind.delete(`${def.group}/${def.version}/${def.kind}`);
    for (const listener of this.listeners) listener();
  }

  lookup(group: string, version: string, resource: string): KindStrategy | undefined {
    return this.byPath.get(pathKey(group, version, resource));
  }

  lookupKind(group: string, version: string, kind: string): KindStrategy | undefined {
    return this.byKind.get(`${group}/${version}/${kind}`);
  }

  /** every resource served under group (all versions) */
  all(): readonly KindStrategy[] {
    return this.list;
  }

  groupVersions(): { group: string; versions: string[] }[] {
    const groups = new Map<string, string[]>();
    for (const def of this.list) {
      const versions = groups.get(def.group) ?? [];
      if (!versions.includes(def.version)) versions.push(def.version);
      groups.set(def.group, versions);
    }
    return [...groups].map(([group, versions]) => ({ group, versions }));
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}

function pathKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}

export { qualifiedResource };
