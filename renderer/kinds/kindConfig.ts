// What the generic list and detail views need to know about one kind: where it lives in the API,
// how kubectl prints it (the shared printers, so the UI's columns match `kubectl get`), how its
// status is coloured, and a readable summary for the detail page. Per-kind files are mostly this
// configuration (as Headlamp's lib/k8s classes and list views are).
import type { KubeObject } from '../../shared/kubernetes/types';
import type { TableDef } from '../../shared/printers/table';
import type { ContainerDetail } from './podDetails';

export type Tone = 'ok' | 'warn' | 'error' | 'info' | 'muted' | undefined;

export type Section = 'Workloads' | 'Network' | 'Config' | 'Storage' | 'Cluster' | 'Custom resources';

/** A line of the detail page's summary: label and text, or links to other objects. */
export interface SummaryField {
  label: string;
  value: string;
  /** a link to another object, shown instead of plain text */
  link?: ObjectLink;
  tone?: Tone;
  /** shown on hover (the raw value behind a readable one, e.g. `24684096Ki` behind `23.5 GiB`) */
  hint?: string;
}

export interface ObjectLink {
  kindKey: string;
  namespace?: string;
  name: string;
}

/** A cell of a detail table: text, optionally a link (to an object, or an external URL), a hover hint, a tone, or a secret kept hidden until revealed. */
export interface DetailCell {
  text: string;
  link?: ObjectLink;
  /** an external URL (opened in the browser) */
  href?: string;
  hint?: string;
  tone?: Tone;
  mono?: boolean;
  /** a secret value: hidden behind Reveal / Copy */
  secret?: boolean;
}

/** One key of a ConfigMap's or Secret's data, decoded. */
export interface DataEntry {
  key: string;
  /** the text (UTF-8 decoded for Secrets and binaryData); empty for binary content */
  value: string;
  /** not valid UTF-8 text: only the size is shown */
  binary: boolean;
  /** size in bytes */
  size: number;
}

/** A card of the detail page, described as data and drawn by one generic component per type. */
export type DetailSection =
  | { type: 'fields'; id: string; title: string; fields: SummaryField[]; wide?: boolean }
  | { type: 'table'; id: string; title: string; columns: string[]; rows: DetailCell[][]; empty?: string; wide?: boolean }
  | { type: 'data'; id: string; title: string; entries: DataEntry[]; secret: boolean }
  | { type: 'containers'; id: string; title: string; containers: ContainerDetail[] };

/** Other objects a detail page may read (from the watch caches of the kind's relatedKinds). */
export interface ObjectLookup {
  get(kindKey: string, namespace: string | undefined, name: string): KubeObject | undefined;
  items(kindKey: string): KubeObject[];
  /** the kind's cache is filled (a missing object is really missing) */
  ready(kindKey: string): boolean;
}

/** A column whose cells are times: drawn as a ticking age and sorted by the time itself. */
export interface TimeColumn {
  timestamp(object: KubeObject): string | undefined;
  /** orders objects of equal time, newest first (negative when `left` is newer) */
  newestFirst?(left: KubeObject, right: KubeObject): number;
}

/** A toggle in the list's header that keeps only some objects (Events: Warnings only). */
export interface QuickFilter {
  id: string;
  label: string;
  matches(object: KubeObject): boolean;
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
  /**
   * Resource usage from usage.kubedesk.dev: CPU and memory sparkline columns in the list (pods;
   * workloads, summed over the pods podSelector matches) and a chart card on the detail page.
   */
  usage?: 'pod' | 'workload' | 'node';
  /** false = reachable by route and palette but not listed in the sidebar (it has its own page) */
  inSidebar?: boolean;
  /** Short names for the command palette (`deploy`, `po`). */
  shortNames?: string[];
  /** More cards for the detail page (data, ports, endpoints, containers…), drawn by generic components. */
  sections?(object: KubeObject, lookup: ObjectLookup): DetailSection[];
  /** Store keys of the kinds `sections` reads through the lookup (watched while the page is open). */
  relatedKinds?: string[];
  /** Time columns by column name, besides Age (which is always metadata.creationTimestamp). */
  timeColumns?: Record<string, TimeColumn>;
  /** The list's order before the user picks one (default: namespace, then name, as kubectl). */
  defaultSort?: { column: string; descending?: boolean };
  quickFilters?: QuickFilter[];
  /** the list offers a timeline view (Events) */
  timeline?: boolean;
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
