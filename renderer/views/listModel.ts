// The pure part of the generic list: rows (kubectl's cells, cached per object), the text/label
// filter, sorting by a column, and which columns show. Tested without a browser.
import type { KubeObject } from '../../shared/kubernetes/types';
import type { ColumnDefinition } from '../../shared/printers/table';
import type { KindConfig, Tone } from '../kinds/kindConfig';

export interface Row {
  key: string;
  object: KubeObject;
  cells: unknown[];
  tone: Tone;
  /** the kind's health bucket (KindConfig.health), for `health:` filter terms */
  health?: string;
  /** lowercase text the filter's words search, built on first use and kept with the cached row */
  haystack?: string;
}

export interface ListColumn {
  definition: ColumnDefinition;
  /** index into Row.cells; -1 = the Namespace column the UI adds */
  index: number;
  /** an Age column: rendered live from metadata.creationTimestamp */
  age: boolean;
}

export interface SortOrder {
  column: number;
  descending: boolean;
}

const rowCache = new WeakMap<KubeObject, { config: KindConfig; row: Row }>();

/** The row of an object, computed once per object version (objects are replaced, never mutated). */
export function rowOf(config: KindConfig, object: KubeObject, now: Date): Row {
  const cached = rowCache.get(object);
  if (cached && cached.config === config) return cached.row;
  let cells: unknown[];
  try {
    cells = config.table.row(object, now);
  } catch {
    cells = [object.metadata.name ?? ''];
  }
  const row: Row = { key: `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`, object, cells, tone: config.tone?.(object), health: config.health?.(object) };
  rowCache.set(object, { config, row });
  return row;
}

/** Columns shown: priority-0 columns (kubectl's default set), `wide` adds the rest; Namespace first when several namespaces show. */
export function listColumns(config: KindConfig, options: { wide: boolean; showNamespace: boolean }): ListColumn[] {
  const columns: ListColumn[] = [];
  config.table.columns.forEach((definition, index) => {
    if (definition.priority > 0 && !options.wide) return;
    columns.push({ definition, index, age: definition.name === 'Age' });
  });
  if (options.showNamespace && config.namespaced) columns.unshift({ definition: { name: 'Namespace', type: 'string', format: '', description: 'Namespace of the object', priority: 0 }, index: -1, age: false });
  return columns;
}

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '<none>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export function cellOf(row: Row, column: ListColumn): unknown {
  return column.index === -1 ? (row.object.metadata.namespace ?? '') : row.cells[column.index];
}

interface ParsedFilter {
  words: string[];
  labels: { key: string; value?: string; negate: boolean }[];
  /** `phase:Running` terms (lowercase): status.phase must be one of them */
  phases: string[];
  /** `health:failing` terms (lowercase): the row's health must be one of them (the overview's pod counts) */
  healths?: string[];
}

/** `web app=nginx tier!=db env` → words and label terms (`key=value`, `key!=value`, `label:key`). */
export function parseFilter(text: string): ParsedFilter {
  const parsed: ParsedFilter = { words: [], labels: [], phases: [] };
  for (const token of text.trim().split(/\s+/).filter(Boolean)) {
    const notEqual = token.indexOf('!=');
    const equal = token.indexOf('=');
    if (notEqual > 0) parsed.labels.push({ key: token.slice(0, notEqual), value: token.slice(notEqual + 2), negate: true });
    else if (equal > 0) parsed.labels.push({ key: token.slice(0, equal), value: token.slice(equal + 1).replace(/^=/, ''), negate: false });
    else if (token.toLowerCase().startsWith('phase:') && token.length > 6) parsed.phases.push(token.slice(6).toLowerCase());
    else if (token.toLowerCase().startsWith('health:') && token.length > 7) (parsed.healths ??= []).push(token.slice(7).toLowerCase());
    else if (token.startsWith('label:') && token.length > 6) parsed.labels.push({ key: token.slice(6), negate: false });
    else parsed.words.push(token.toLowerCase());
  }
  return parsed;
}

export function matchesFilter(row: Row, filter: ParsedFilter): boolean {
  const labels = row.object.metadata.labels ?? {};
  for (const term of filter.labels) {
    const has = Object.hasOwn(labels, term.key);
    const matches = term.value === undefined ? has : has && labels[term.key] === term.value;
    if (term.negate ? matches : !matches) return false;
  }
  if (filter.phases.length > 0) {
    const status: unknown = row.object.status;
    const phase = typeof status === 'object' && status !== null && 'phase' in status && typeof status.phase === 'string' ? status.phase.toLowerCase() : '';
    if (!filter.phases.includes(phase)) return false;
  }
  if (filter.healths && !filter.healths.includes(row.health ?? '')) return false;
  if (filter.words.length === 0) return true;
  const haystack = (row.haystack ??= `${row.object.metadata.namespace ?? ''} ${row.cells.map(cellText).join(' ')}`.toLowerCase());
  return filter.words.every((word) => haystack.includes(word));
}

// one collator for every comparison: String.localeCompare with options builds one per call, which
// made sorting 5,000 rows cost tens of milliseconds on every watch batch
const collator = new Intl.Collator(undefined, { numeric: true });

function compareValues(left: unknown, right: unknown): number {
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  return collator.compare(cellText(left), cellText(right));
}

function creationTime(row: Row): number {
  const value = Date.parse(row.object.metadata.creationTimestamp ?? '');
  return Number.isNaN(value) ? 0 : value;
}

/** Sorted rows: by the chosen column (ages by creation time, newest = smallest age), else by namespace then name as kubectl. */
export function sortRows(rows: Row[], columns: ListColumn[], order: SortOrder | undefined): Row[] {
  const sorted = [...rows];
  const column = order ? columns[order.column] : undefined;
  const byName = (left: Row, right: Row) => collator.compare(left.key, right.key);
  if (!column || !order) return sorted.sort(byName);
  const direction = order.descending ? -1 : 1;
  sorted.sort((left, right) => {
    const result = column.age ? creationTime(right) - creationTime(left) : compareValues(cellOf(left, column), cellOf(right, column));
    return result !== 0 ? result * direction : byName(left, right);
  });
  return sorted;
}

/** The slice of rows to render for a scroll position (virtualised list). */
export function visibleRange(scrollTop: number, viewportHeight: number, rowHeight: number, total: number, overscan = 10): { start: number; end: number } {
  const start = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const end = Math.min(total, Math.ceil((scrollTop + viewportHeight) / rowHeight) + overscan);
  return { start, end };
}
