// Every kind the API server serves is described once (main/registry/kinds) and has what clients
// rely on: a printer (the same the UI uses), protobuf messages for the bodies kubectl and client-go
// send, and strategic-merge metadata for `kubectl apply/patch`. Adding a kind without its table
// rows fails here.
import { describe, expect, it } from 'vitest';
import { tableDefFor } from '../../shared/printers';
import { builtinKinds } from '../registry/kinds';
import { apiVersionOf, qualifiedResource } from '../registry/resources';
import { messageSchemas, topLevelMessages } from './protobuf/messages';
import { hasPatchSchema } from './patch/patchSchema';

const key = (kind: { group: string; version: string; resource: string }) => `${kind.group}/${kind.version}/${kind.resource}`;

describe('served kinds', () => {
  it('has exactly one strategy per group, version and resource, and per group, version and kind', () => {
    const resources = builtinKinds.map(key);
    expect(new Set(resources).size).toBe(resources.length);
    const kinds = builtinKinds.map((kind) => `${apiVersionOf(kind)}/${kind.kind}`);
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  it.each(builtinKinds.map((kind) => [key(kind), kind] as const))('%s prints with the table the UI uses', (_key, kind) => {
    expect(kind.printer).toBeDefined();
    expect(kind.printer.columns.length).toBeGreaterThan(0);
    expect(kind.printer.row({ apiVersion: apiVersionOf(kind), kind: kind.kind, metadata: { name: 'x' } }, new Date())).toHaveLength(kind.printer.columns.length);
    // a version served by conversion prints as its stored version
    if (!kind.conversion) expect(tableDefFor(kind.group, kind.resource), qualifiedResource(kind)).toBe(kind.printer);
  });

  it.each(builtinKinds.map((kind) => [key(kind), kind] as const))('%s decodes from protobuf', (_key, kind) => {
    const message = topLevelMessages[`${apiVersionOf(kind)}/${kind.kind}`];
    expect(message, `topLevelMessages["${apiVersionOf(kind)}/${kind.kind}"]`).toBeDefined();
    expect(messageSchemas[message], message).toBeDefined();
  });

  it.each(builtinKinds.filter((kind) => kind.verbs.includes('patch')).map((kind) => [key(kind), kind] as const))('%s has strategic-merge metadata', (_key, kind) => {
    expect(hasPatchSchema(apiVersionOf(kind), kind.kind)).toBe(true);
  });

  it.each(builtinKinds.flatMap((kind) => kind.subresources.filter((sub) => sub.type === 'create' || sub.type === 'scale').map((sub) => [`${key(kind)}/${sub.name}`, sub] as const)))('%s decodes its posted kind from protobuf', (_key, sub) => {
    expect(topLevelMessages[`${apiVersionOf(sub)}/${sub.kind}`]).toBeDefined();
  });
});
