// The generic store, the API server and its request handlers name no kind (upstream's
// registry/generic/registry/store.go and endpoints/handlers never do): what a kind does lives in
// its strategy (main/registry/kinds). This reads their sources and fails on any string literal that
// names a served resource (`pods`) or kind (`Pod`), or the kind of a subresource (Scale, Eviction…).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinKinds } from '../registry/kinds';
import { qualifiedResource } from '../registry/resources';

const here = dirname(fileURLToPath(import.meta.url));

const genericFiles = [
  join(here, 'resourceStore.ts'),
  join(here, 'apiServer.ts'),
  join(here, 'resourceRegistry.ts'),
  join(here, 'discovery.ts'),
  join(here, 'tables.ts'),
  join(here, 'watch.ts'),
  ...readdirSync(join(here, 'handlers'))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => join(here, 'handlers', file)),
];

/** `/namespaces/{namespace}/` is part of every namespaced path: the router may spell it, once. */
const allowed = new Map([[join(here, 'handlers', 'routing.ts'), ["const NAMESPACE_SCOPE = 'namespaces';"]]]);

const kindNames = new Set<string>();
for (const kind of builtinKinds) {
  kindNames.add(kind.resource);
  kindNames.add(qualifiedResource(kind));
  kindNames.add(kind.kind);
  for (const sub of kind.subresources) if (sub.kind !== kind.kind) kindNames.add(sub.kind);
}

/** String literals of a TypeScript source (quotes and template literal text), with their lines. */
function literals(source: string): Array<{ text: string; line: string }> {
  const found: Array<{ text: string; line: string }> = [];
  const pattern = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;
  for (const match of source.matchAll(pattern)) {
    const text = match[1] ?? match[2] ?? match[3];
    if (text === undefined) continue; // a comment
    const start = source.lastIndexOf('\n', match.index) + 1;
    const end = source.indexOf('\n', match.index);
    found.push({ text, line: source.slice(start, end < 0 ? undefined : end).trim() });
  }
  return found;
}

describe('the generic store and the request handlers', () => {
  it('knows the kinds it must not name', () => {
    expect(kindNames).toContain('pods');
    expect(kindNames).toContain('Namespace');
    expect(kindNames).toContain('Scale');
    expect(kindNames).toContain('Eviction');
  });

  it.each(genericFiles.map((file) => [relative(here, file), file]))('%s names no kind', (_name, file) => {
    const source = readFileSync(file, 'utf8');
    const named: string[] = [];
    for (const { text, line } of literals(source)) {
      if (allowed.get(file)?.includes(line)) continue;
      // words are split at anything but letters, digits, dots and dashes (`pods/eviction`, `deployments.apps`)
      for (const token of text.split(/[^A-Za-z0-9.-]+/)) if (kindNames.has(token)) named.push(`${token} in: ${line}`);
    }
    expect(named).toEqual([]);
  });
});
