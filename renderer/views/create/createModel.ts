// Create-from-YAML, the pure part: split a multi-document YAML text (`---`) into objects with the
// line each starts on and its parse errors, and plan each object's server-side apply: the kind's
// REST path from apiVersion/kind, the namespace (the document's, else the default as kubectl's
// `--namespace` would give), and the reasons a document cannot be applied, in kubectl's words.
import { parseAllDocuments } from 'yaml';
import { isRecord } from '../../../shared/kubernetes/types';
import { kindOf } from '../../kinds';
import { resourcePath, type KindConfig } from '../../kinds/kindConfig';
import type { YamlProblem } from '../../editor/yamlModel';

export interface YamlDocument {
  /** 1-based position among the non-empty documents */
  index: number;
  /** 1-based line where the document's content starts */
  line: number;
  object?: Record<string, unknown>;
  problems: YamlProblem[];
}

export interface ApplyPlan {
  config: KindConfig;
  kind: string;
  name: string;
  namespace?: string;
  /** the object's path, PATCHed with application/apply-patch+yaml */
  path: string;
  body: Record<string, unknown>;
}

export type PlanResult = { ok: true; plan: ApplyPlan } | { ok: false; message: string };

export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset && index < text.length; index++) if (text.charCodeAt(index) === 10) line++;
  return line;
}

/** The documents of a YAML stream; empty ones (only comments or `---`) are skipped. */
export function splitDocuments(text: string): YamlDocument[] {
  const parsed = parseAllDocuments(text, { prettyErrors: true });
  if (!Array.isArray(parsed)) return [];
  const documents: YamlDocument[] = [];
  for (const document of parsed) {
    const problems: YamlProblem[] = document.errors.map((error) => ({ line: error.linePos?.[0].line ?? 0, column: error.linePos?.[0].col ?? 0, message: error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '') }));
    const start = document.contents?.range[0] ?? document.range[0];
    const value: unknown = problems.length === 0 ? document.toJS() : undefined;
    if (problems.length === 0 && (value === null || value === undefined)) continue;
    const line = lineAt(text, start);
    if (problems.length === 0 && !isRecord(value)) problems.push({ line, column: 1, message: 'the document is not a mapping (an object with apiVersion, kind, metadata)' });
    documents.push({ index: documents.length + 1, line, object: problems.length === 0 && isRecord(value) ? value : undefined, problems });
  }
  return documents;
}

/** Where and how one object is applied, or why it cannot be. */
export function planApply(object: Record<string, unknown>, kinds: KindConfig[], defaultNamespace: string): PlanResult {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  if (!apiVersion) return { ok: false, message: 'apiVersion not set' };
  if (!kind) return { ok: false, message: 'kind not set' };
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  if (!name) return { ok: false, message: `${kind}: metadata.name is required (server-side apply cannot use generateName)` };
  const config = kindOf(kinds, apiVersion, kind);
  if (!config) return { ok: false, message: `no matches for kind "${kind}" in version "${apiVersion}" (is its CustomResourceDefinition installed?)` };
  if (config.version !== apiVersion.split('/').pop()) return { ok: false, message: `no matches for kind "${kind}" in version "${apiVersion}" (the cluster serves ${config.group ? `${config.group}/` : ''}${config.version})` };
  if (!config.namespaced) {
    const body = { ...object };
    if (typeof metadata.namespace === 'string' && metadata.namespace !== '') body.metadata = withoutKey(metadata, 'namespace');
    return { ok: true, plan: { config, kind, name, path: resourcePath(config, undefined, name), body } };
  }
  const namespace = typeof metadata.namespace === 'string' && metadata.namespace !== '' ? metadata.namespace : defaultNamespace;
  return { ok: true, plan: { config, kind, name, namespace, path: resourcePath(config, namespace, name), body: { ...object, metadata: { ...metadata, namespace } } } };
}

/** The namespace objects without one go to: the only selected namespace, else `default`. */
export function defaultNamespaceOf(selected: string[]): string {
  return selected.length === 1 ? selected[0] : 'default';
}

/** A short `kind/name` label for a result line (kubectl's `deployment.apps/web`). */
export function planLabel(plan: ApplyPlan): string {
  const resource = plan.kind.toLowerCase();
  return `${plan.config.group ? `${resource}.${plan.config.group}` : resource}/${plan.name}`;
}

function withoutKey(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...record };
  delete copy[key];
  return copy;
}

export const STARTER_YAML = `# One or more objects, separated by ---. Each is applied with server-side apply.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: hello
  labels:
    app: hello
spec:
  replicas: 2
  selector:
    matchLabels:
      app: hello
  template:
    metadata:
      labels:
        app: hello
    spec:
      containers:
        - name: web
          image: nginx:1.27-alpine
          ports:
            - containerPort: 80
---
apiVersion: v1
kind: Service
metadata:
  name: hello
spec:
  selector:
    app: hello
  ports:
    - port: 80
      targetPort: 80
`;
