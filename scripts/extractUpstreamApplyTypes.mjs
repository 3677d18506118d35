// Extracts the OpenAPI extensions server-side apply reads — `x-kubernetes-list-type`,
// `x-kubernetes-list-map-keys`, `x-kubernetes-map-type` and the defaults of list-map key fields —
// from upstream's own generated schema, into scripts/data/upstreamApplyTypes.json, which
// scripts/generateOpenapiSchemas.mjs merges into the built-in schemas.
//
// Source: k8s.io/client-go's applyconfigurations/internal/internal.go at the kubernetes tag given
// (kubernetes-1.35.0 for kubedesk's 1.35 API). applyconfiguration-gen writes it from the same OpenAPI
// definitions kube-apiserver serves under /openapi/v3, converted by kube-openapi's schemaconv into
// structured-merge-diff's schema, which is what the apiserver's field manager uses. The conversion
// maps back one to one:
//   list  elementRelationship associative + keys → x-kubernetes-list-type: map + list-map-keys
//   list  elementRelationship associative        → x-kubernetes-list-type: set
//   list  elementRelationship atomic             → x-kubernetes-list-type: atomic (also untagged lists)
//   map   elementRelationship atomic / separable → x-kubernetes-map-type: atomic / granular
// on a field, or, for a struct type, on the type itself.
//
// Usage: node scripts/extractUpstreamApplyTypes.mjs <client-go checkout>/applyconfigurations/internal/internal.go <kubernetes tag>
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outputFile = join(root, 'scripts/data/upstreamApplyTypes.json');

const [source, tag] = process.argv.slice(2);
if (!source || !tag) {
  console.error('usage: node scripts/extractUpstreamApplyTypes.mjs <applyconfigurations/internal/internal.go> <kubernetes tag>');
  process.exit(2);
}

const text = readFileSync(source, 'utf8');
const match = text.match(/typed\.YAMLObject\(`([\s\S]*?)`\)/);
if (!match) throw new Error(`${source}: no schemaYAML found`);
const { types } = parse(match[1]);
const byName = new Map(types.map((type) => [type.name, type]));

const relationships = { atomic: 'atomic', separable: 'granular' };

/** The extensions a field (or list item, map value) type carries in OpenAPI. */
function fieldExtensions(type) {
  const extensions = {};
  if (type.list) {
    const { elementRelationship, keys } = type.list;
    if (elementRelationship === 'associative' && keys?.length) {
      extensions['x-kubernetes-list-type'] = 'map';
      extensions['x-kubernetes-list-map-keys'] = keys;
    } else if (elementRelationship === 'associative') {
      extensions['x-kubernetes-list-type'] = 'set';
    } else {
      extensions['x-kubernetes-list-type'] = 'atomic';
    }
  } else if (type.map && relationships[type.map.elementRelationship]) {
    extensions['x-kubernetes-map-type'] = relationships[type.map.elementRelationship];
  } else if (type.namedType && relationships[type.elementRelationship]) {
    extensions['x-kubernetes-map-type'] = relationships[type.elementRelationship];
  }
  return extensions;
}

const schemas = {};
function entry(name) {
  schemas[name] ??= {};
  return schemas[name];
}

for (const type of types) {
  if (!type.name.startsWith('io.k8s.') || !type.map) continue;
  // a struct (map with fields) that is atomic as a whole: +structType=atomic / +mapType=atomic
  if (type.map.fields && type.map.elementRelationship === 'atomic') entry(type.name)['x-kubernetes-map-type'] = 'atomic';
  for (const field of type.map.fields ?? []) {
    const extensions = fieldExtensions(field.type);
    if (Object.keys(extensions).length === 0) continue;
    (entry(type.name).properties ??= {})[field.name] = extensions;
    // defaults of key fields: upstream fills a missing key from them (ports' protocol TCP)
    const keys = field.type.list?.keys ?? [];
    const itemType = byName.get(field.type.list?.elementType?.namedType);
    for (const key of keys) {
      const keyField = itemType?.map?.fields?.find((candidate) => candidate.name === key);
      if (keyField && keyField.default !== undefined) {
        const properties = (entry(itemType.name).properties ??= {});
        properties[key] = { ...properties[key], default: keyField.default };
      }
    }
  }
}

const sorted = Object.fromEntries(
  Object.entries(schemas)
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([name, schema]) => [name, schema.properties ? { ...schema, properties: Object.fromEntries(Object.entries(schema.properties).sort(([left], [right]) => left.localeCompare(right))) } : schema]),
);
mkdirSync(dirname(outputFile), { recursive: true });
writeFileSync(outputFile, `${JSON.stringify({ source: `k8s.io/client-go applyconfigurations/internal/internal.go at ${tag}`, schemas: sorted }, null, 1)}\n`);
console.log(`wrote the apply types of ${Object.keys(sorted).length} schemas to ${outputFile}`);
