// What the generic list and detail views need to know about one kind: where it lives in the API,
// how kubectl prints it (the shared printers, so the UI's columns match `kubectl get`), how its
// status is coloured, and a readable summary for the detail page. Per-kind files are mostly this
// configuration (as Headlamp's lib/k8s classes and list views are).
import type { KubeObject } from '../../shared/kubernetes/types';
import type { TableDef } from '../../shared/printers/table';

export type Tone = 'ok' | 'warn' | 'error' | 'info' | 'muted' | undefined;

export type Section = 'Workloads' | 'Network' | 'Config' | 'Storage' | 'Cluster' | 'Custom resources';

/** A line of the detail page's summary: label and text, or links to other objects. */
export interface SummaryField {
  label: string;
  value: string;
  /** a link to another object, shown instead of plain text */
  link?: ObjectLink;
  tone?: Tone;
}

export interface ObjectLink {
  kindKey: string;
  namespace?: string;
  name: string;
}

export interface KindConfig {
  /** plural.group (`pods`, `deployments.apps`, `widgets.example.com`): the route and store key */
  key: string;
  kind: string;
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
  /** sidebar and page title (`Pods`) */
  title: string;
  section: Section;
  table: TableDef;
  /** Column whose cell gets the row's tone (defaults to none). */
  statusColumn?: string;
  /** Colour of a row's status; undefined = neutral. */
  tone?(object: KubeObject): Tone;
  /** A health bucket of an object (pods: shared/printers/podHealth), matched by the list filter's `health:` term. */
  health?(object: KubeObject): string;
  /** Readable spec/status lines for the detail page. */
  summary?(object: KubeObject): SummaryField[];
  /** Label selector of the pods this object runs (workloads, Services); the detail page lists them. */
  podSelector?(object: KubeObject): Record<string, string> | undefined;
  /** false = reachable by route and palette but not listed in the sidebar (it has its own page) */
  inSidebar?: boolean;
  /** Short names for the command palette (`deploy`, `po`). */
  shortNames?: string[];
}

export function apiVersionOf(config: Pick<KindConfig, 'group' | 'version'>): string {
  return config.group ? `${config.group}/${config.version}` : config.version;
}

/** The REST path of a collection or of one object; no namespace on a namespaced kind = all namespaces. */
export function resourcePath(config: Pick<KindConfig, 'group' | 'version' | 'plural' | 'namespaced'>, namespace?: string, name?: string): string {
  const base = config.group ? `/apis/${config.group}/${config.version}` : `/api/${config.version}`;
  const scope = config.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${scope}/${config.plural}${name ? `/${encodeURIComponent(name)}` : ''}`;
}

/** Store key of an object inside its collection. */
export function objectKey(object: KubeObject): string {
  return object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name ?? ''}` : (object.metadata.name ?? '');
}
