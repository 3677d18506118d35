// kubedesk/import-restrictions: what each folder MAY import, as kubernetes' import-restrictions.yaml
// (staging/publishing/import-restrictions.yaml, hack/verify-imports.sh) lists allowed prefixes per
// package. Imports are resolved before they are judged: a relative path becomes a path in the
// repository (so `../client`, `../client/index` and `../../main/client/informer` are all
// main/client), a bare specifier becomes its package name (`react-dom/client` → react-dom), and
// Node's built-in modules are `node:*`. Each file is judged by the most specific entry whose
// folder (or file) contains it, so one rule object covers the whole tree and no later config block
// can quietly replace an earlier ban.
import { builtinModules } from 'node:module';
import path from 'node:path';

const builtins = new Set(builtinModules);

/** The repository path (no extension) or package a specifier names, from the importing file. */
export function importTarget(specifier, filename, root) {
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    const absolute = path.resolve(path.dirname(filename), specifier);
    return { kind: 'path', name: path.relative(root, absolute).split(path.sep).join('/').replace(/\.(m?[jt]sx?)$/, '') };
  }
  if (specifier.startsWith('node:') || builtins.has(specifier.split('/')[0])) return { kind: 'package', name: 'node:*' };
  const parts = specifier.split('/');
  return { kind: 'package', name: specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0] };
}

function contains(prefix, name) {
  return name === prefix || name.startsWith(`${prefix}/`);
}

/** The most specific entry for a repository-relative file: the one naming the longest folder (or the file itself). */
export function entryFor(entries, file) {
  const name = file.replace(/\.(m?[jt]sx?)$/, '');
  let best;
  let bestLength = -1;
  for (const entry of entries) {
    for (const pattern of entry.files) {
      const folder = pattern.replace(/\.(m?[jt]sx?)$/, '');
      if (contains(folder, name) && folder.length > bestLength) {
        best = entry;
        bestLength = folder.length;
      }
    }
  }
  return best;
}

/** A unit test beside the code may import what its folder may, and the test doubles, fixtures and vitest. */
export function isUnitTest(file) {
  return /\.test\.tsx?$/.test(file) && !file.startsWith('test/');
}

function allowed(allow, target) {
  if (target.kind === 'path') return allow.some((prefix) => !isPackage(prefix) && contains(prefix, target.name));
  return allow.includes(target.name);
}

function isPackage(prefix) {
  return prefix === 'node:*' || !/^(main|shared|renderer|preload|test|bench|scripts)(\/|$)/.test(prefix);
}

export const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'each folder imports only what its allow-list names' },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' }, entries: { type: 'array' }, unitTests: { type: 'array' } },
        required: ['root', 'entries'],
        additionalProperties: false,
      },
    ],
    messages: { notAllowed: "'{{specifier}}' ({{target}}) may not be imported here: {{reason}}. {{folder}} may import: {{allowed}}." },
  },
  create(context) {
    const { root, entries, unitTests = [] } = context.options[0];
    const file = path.relative(root, context.filename).split(path.sep).join('/');
    const entry = entryFor(entries, file);
    if (!entry) return {};
    const allow = isUnitTest(file) ? [...entry.allow, ...(entry.testsAlsoAllow ?? []), ...unitTests] : entry.allow;
    const check = (node, source) => {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const target = importTarget(source.value, context.filename, root);
      if (allowed(allow, target)) return;
      context.report({ node: source, messageId: 'notAllowed', data: { specifier: source.value, target: target.name, reason: entry.reason, folder: entry.files.join(', '), allowed: allow.join(', ') } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
    };
  },
};
