// The built-in kinds as the API server's registry takes them (main/registry/kinds), and the names
// a kind goes by: its group-qualified resource and its apiVersion.
import type { KindStrategy } from './strategy';
import { builtinKinds } from './kinds';

/** All built-in resources, in discovery order. */
export function builtinResources(): KindStrategy[] {
  return [...builtinKinds];
}

/** `pods` for the core group, `deployments.apps` otherwise (upstream GroupResource.String()). */
export function qualifiedResource(def: Pick<KindStrategy, 'group' | 'resource'>): string {
  return def.group ? `${def.resource}.${def.group}` : def.resource;
}

export function apiVersionOf(def: Pick<KindStrategy, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}
