// Writes the cluster's entries into a kubeconfig file the way `kubectl config set-cluster /
// set-credentials / set-context` would (client-go tools/clientcmd: file mode 0600, lists of named
// entries, current-context left alone unless unset), but without re-serialising the rest of the
// file: every other cluster, user, context, preference, extension and comment keeps its bytes.
//
// How: the yaml Document API is the source of truth for *what* the file must contain afterwards;
// the change is then applied as text splices at the source ranges the parser reports. If the spliced
// text does not parse to exactly the intended content (unusual layouts, JSON kubeconfigs), the
// Document is serialised as a whole instead — correct, just less faithful to the original bytes.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isScalar, isSeq, parseDocument, stringify, type Node as YamlNode, type YAMLMap, type YAMLSeq } from 'yaml';

export interface KubeconfigEntries {
  path: string;
  server: string;
  caCertPem: string;
  token: string;
  /** Name of the cluster, user and context entries. */
  name?: string;
}

export interface WriteKubeconfigResult {
  /** True when current-context was unset and now points at the new context. */
  currentContextSet: boolean;
  /** The current-context that was there before (kept as it is), if any. */
  previousContext?: string;
}

type ListKey = 'clusters' | 'users' | 'contexts';
type Entry = Record<string, unknown>;

const listKeys: readonly ListKey[] = ['clusters', 'contexts', 'users'];
const stringifyOptions = { lineWidth: 0, minContentWidth: 0, indentSeq: false } as const;

/**
 * Adds or replaces the cluster, user and context called `name` (default `kubedesk`). A replaced
 * context keeps keys the user added (e.g. a namespace chosen with `kubectl config set-context
 * --current --namespace`); a replaced user gets only the token, since other credentials would
 * conflict with it.
 */
export function writeKubeconfig(entries: KubeconfigEntries): WriteKubeconfigResult {
  const name = entries.name ?? 'kubedesk';
  const target = resolveTarget(entries.path);
  const text = existsSync(target) ? readFileSync(target, 'utf8') : '';
  const caData = Buffer.from(entries.caCertPem).toString('base64');

  const build: Record<ListKey, (old: Entry | undefined) => Entry> = {
    clusters: (old) => ({
      ...(old ?? {}),
      cluster: {
        ...omit(asRecord(old?.cluster), ['certificate-authority', 'insecure-skip-tls-verify']),
        'certificate-authority-data': caData,
        server: entries.server,
      },
      name,
    }),
    contexts: (old) => ({
      ...(old ?? {}),
      context: { ...asRecord(old?.context), cluster: name, user: name },
      name,
    }),
    users: (old) => (old ? { ...old, name, user: { token: entries.token } } : { name, user: { token: entries.token } }),
  };

  if (text.trim() === '') {
    const fresh = {
      apiVersion: 'v1',
      clusters: [build.clusters(undefined)],
      contexts: [build.contexts(undefined)],
      'current-context': name,
      kind: 'Config',
      preferences: {},
      users: [build.users(undefined)],
    };
    writeAtomically(target, stringify(fresh, stringifyOptions));
    return { currentContextSet: true };
  }

  const edit = planEdit(text);
  const previous = edit.currentContext();
  const currentContextSet = previous === undefined;
  for (const key of listKeys) edit.upsert(key, name, build[key]);
  if (currentContextSet) edit.setCurrentContext(name);
  writeAtomically(target, edit.result());
  return currentContextSet ? { currentContextSet } : { currentContextSet, previousContext: previous };
}

/**
 * Removes the cluster, user and context called `name` (for `kubedesk reset`). A current-context
 * that pointed at the removed context is cleared, as kind does on `kind delete cluster`.
 * Returns whether the file changed.
 */
export function removeKubeconfigEntries(path: string, name = 'kubedesk'): boolean {
  const target = resolveTarget(path);
  if (!existsSync(target)) return false;
  const text = readFileSync(target, 'utf8');
  if (text.trim() === '') return false;
  const edit = planEdit(text);
  let changed = false;
  for (const key of listKeys) changed = edit.remove(key, name) || changed;
  if (edit.currentContext() === name) {
    edit.setCurrentContext('');
    changed = true;
  }
  if (changed) writeAtomically(target, edit.result());
  return changed;
}

interface Splice {
  start: number;
  end: number;
  text: string;
}

interface KubeconfigEdit {
  currentContext(): string | undefined;
  upsert(key: ListKey, name: string, build: (old: Entry | undefined) => Entry): void;
  remove(key: ListKey, name: string): boolean;
  setCurrentContext(name: string): void;
  result(): string;
}

// Applies each change twice: to a Document (the intended content) and as splices on the original
// text (the faithful rendering). result() returns the splices when they reproduce the Document.
function planEdit(text: string): KubeconfigEdit {
  const original = parseDocument(text);
  if (original.errors.length > 0) throw new Error(`cannot parse kubeconfig: ${original.errors[0].message}`);
  const intended: Document = parseDocument(text);
  if (intended.contents === null) intended.contents = intended.createNode({ apiVersion: 'v1', kind: 'Config' });
  const root = intended.contents;
  if (!isMap(root)) throw new Error('cannot edit kubeconfig: the document is not a mapping');
  const intendedRoot: YAMLMap = root;
  const originalRoot = isMap(original.contents) && !original.contents.flow ? original.contents : undefined;

  const splices: Splice[] = [];
  let splicesPossible = originalRoot !== undefined;
  const appended: string[] = [];

  function intendedList(key: ListKey): YAMLSeq {
    const value = intendedRoot.get(key, true);
    if (isSeq(value)) return value;
    if (value !== undefined && !(isScalar(value) && value.value === null)) {
      throw new Error(`cannot edit kubeconfig: ${key} is not a list`);
    }
    const list = intended.createNode([]) as YAMLSeq;
    intendedRoot.set(key, list);
    return list;
  }

  function originalPair(key: string): { keyEnd: number; value: YamlNode | null } | undefined {
    if (!originalRoot) return undefined;
    for (const pair of originalRoot.items) {
      if (isScalar(pair.key) && pair.key.value === key && pair.key.range) {
        return { keyEnd: pair.key.range[1], value: (pair.value as YamlNode | null) ?? null };
      }
    }
    return undefined;
  }

  return {
    currentContext() {
      const value = intendedRoot.get('current-context');
      return typeof value === 'string' && value !== '' ? value : undefined;
    },

    upsert(key, name, build) {
      const list = intendedList(key);
      const matches = indexesNamed(list, name);
      const first = matches[0];
      const entry = build(first === undefined ? undefined : asRecord(toPlain(list.items[first])));
      const rendered = renderEntry(entry);
      if (first === undefined) list.add(intended.createNode(entry));
      else list.items[first] = intended.createNode(entry);
      for (const index of matches.slice(1).reverse()) list.items.splice(index, 1);

      if (!splicesPossible) return;
      const pair = originalPair(key);
      if (!pair) {
        appended.push(`${key}:\n${indentEntry(rendered, 0)}`);
        return;
      }
      const value = pair.value;
      if (isSeq(value) && !value.flow && value.items.length > 0 && value.range) {
        const column = itemColumn(text, value.items[0] as YamlNode);
        const originalMatches = indexesNamed(value, name);
        if (column === undefined) {
          splicesPossible = false;
          return;
        }
        if (originalMatches.length === 0) {
          const at = value.range[1];
          splices.push({ start: at, end: at, text: (text[at - 1] === '\n' ? '' : '\n') + indentEntry(rendered, column) });
          return;
        }
        const [firstMatch, ...duplicates] = originalMatches;
        const replaced = value.items[firstMatch] as YamlNode;
        if (!replaced.range) {
          splicesPossible = false;
          return;
        }
        const replacement = indentEntry(rendered, column).slice(column + 2);
        const endsWithNewline = text[replaced.range[1] - 1] === '\n';
        splices.push({ start: replaced.range[0], end: replaced.range[1], text: endsWithNewline ? replacement : replacement.slice(0, -1) });
        for (const index of duplicates) splicesPossible = removeItemSplice(text, value.items[index] as YamlNode, splices) && splicesPossible;
        return;
      }
      // Missing value, `null`, `[]`: give the key a block list.
      const valueEnd = value?.range ? value.range[1] : pair.keyEnd + 1;
      splices.push({ start: pair.keyEnd, end: valueEnd, text: `:\n${indentEntry(rendered, 0).slice(0, -1)}` });
    },

    remove(key, name) {
      const value = intendedRoot.get(key, true);
      if (!isSeq(value)) return false;
      const matches = indexesNamed(value, name);
      if (matches.length === 0) return false;
      for (const index of [...matches].reverse()) value.items.splice(index, 1);

      if (!splicesPossible) return true;
      const pair = originalPair(key);
      const list = pair?.value;
      if (!pair || !isSeq(list) || list.flow || !list.range) {
        splicesPossible = false;
        return true;
      }
      if (value.items.length === 0) {
        // An emptied list stays a list (`clusters: []`) rather than turning into null.
        splices.push({ start: pair.keyEnd, end: list.range[1], text: ': []\n' });
        return true;
      }
      for (const index of indexesNamed(list, name)) splicesPossible = removeItemSplice(text, list.items[index] as YamlNode, splices) && splicesPossible;
      return true;
    },

    setCurrentContext(name) {
      intendedRoot.set('current-context', name);
      if (!splicesPossible) return;
      const rendered = stringify(name, stringifyOptions).trimEnd();
      const pair = originalPair('current-context');
      if (!pair) {
        appended.push(`current-context: ${rendered}\n`);
      } else if (pair.value?.range) {
        const [start, end] = pair.value.range;
        const separator = start === end && text[pair.keyEnd] === ':' ? ' ' : '';
        splices.push(start === end ? { start: pair.keyEnd + 1, end: pair.keyEnd + 1, text: separator + rendered } : { start, end, text: rendered });
      } else {
        splicesPossible = false;
      }
    },

    result() {
      const expected = intended.toJS() as unknown;
      if (splicesPossible && originalRoot?.range) {
        let output = text;
        const at = originalRoot.range[1];
        const tail = appended.join('');
        const all = tail ? [...splices, { start: at, end: at, text: (output[at - 1] === '\n' || at === 0 ? '' : '\n') + tail }] : splices;
        for (const splice of [...all].sort((left, right) => right.start - left.start)) {
          output = output.slice(0, splice.start) + splice.text + output.slice(splice.end);
        }
        const check = parseDocument(output);
        if (check.errors.length === 0 && isDeepStrictEqual(check.toJS(), expected)) return output;
      }
      return intended.toString(stringifyOptions);
    },
  };
}

function indexesNamed(list: YAMLSeq, name: string): number[] {
  const indexes: number[] = [];
  list.items.forEach((item, index) => {
    if (isMap(item) && (item as YAMLMap).get('name') === name) indexes.push(index);
  });
  return indexes;
}

function toPlain(node: unknown): unknown {
  return node instanceof Object && 'toJSON' in node && typeof node.toJSON === 'function' ? (node.toJSON() as unknown) : node;
}

function renderEntry(entry: Entry): string {
  return new Document(entry).toString(stringifyOptions);
}

// Turns a rendered mapping into a list item whose dash sits at `column`.
function indentEntry(rendered: string, column: number): string {
  const pad = ' '.repeat(column);
  const lines = rendered.endsWith('\n') ? rendered.slice(0, -1).split('\n') : rendered.split('\n');
  return lines.map((line, index) => (index === 0 ? `${pad}- ${line}` : line === '' ? '' : `${pad}  ${line}`)).join('\n') + '\n';
}

// The column of the `-` in front of an item, when the item follows `- ` on its own line.
function itemColumn(text: string, item: YamlNode): number | undefined {
  if (!item.range) return undefined;
  const lineStart = text.lastIndexOf('\n', item.range[0] - 1) + 1;
  const prefix = text.slice(lineStart, item.range[0]);
  const match = /^( *)- +$/.exec(prefix);
  return match ? match[1].length : undefined;
}

function removeItemSplice(text: string, item: YamlNode, splices: Splice[]): boolean {
  if (!item.range || itemColumn(text, item) === undefined) return false;
  const lineStart = text.lastIndexOf('\n', item.range[0] - 1) + 1;
  splices.push({ start: lineStart, end: item.range[1], text: '' });
  return true;
}

function asRecord(value: unknown): Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Entry) : {};
}

function omit(record: Entry, keys: string[]): Entry {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));
}

// Like clientcmd, edit the file a symlink points at rather than replacing the link.
function resolveTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

// Temp file + rename so readers (kubectl, other tools) never see a half-written kubeconfig; the
// temp file is created 0600 so the credentials are never readable by others, even briefly.
function writeAtomically(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, content, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
