import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { builtinKinds, kindByKey } from '../kinds';
import type { KindConfig } from '../kinds/kindConfig';
import { applyQuickFilters, cellOf, cycleSort, listColumns, listKeyOf, moveCursor, matchesFilter, nextSort, orderOf, parseFilter, rowOf, selectedRows, sortRows, visibleRange } from './listModel';

const now = new Date('2026-01-01T01:00:00Z');
const pods = kindByKey(builtinKinds, 'pods') as KindConfig;

function pod(name: string, options: { namespace?: string; labels?: Record<string, string>; created?: string; restarts?: number } = {}): KubeObject {
  return {
    metadata: { name, namespace: options.namespace ?? 'default', labels: options.labels, creationTimestamp: options.created ?? '2026-01-01T00:00:00Z', resourceVersion: '1' },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
    status: { phase: 'Running', containerStatuses: [{ name: 'c', ready: true, restartCount: options.restarts ?? 0, state: { running: {} } }] },
  };
}

describe('list rows', () => {
  it('computes a row once per object version', () => {
    const object = pod('a');
    expect(rowOf(pods, object, now)).toBe(rowOf(pods, object, now));
    expect(rowOf(pods, { ...object }, now)).not.toBe(rowOf(pods, object, now));
  });

  it('falls back to the name when a row function throws on a malformed object', () => {
    const broken: KindConfig = { ...pods, table: { columns: pods.table.columns, row: () => { throw new Error('bad'); } } };
    expect(rowOf(broken, pod('x'), now).cells).toEqual(['x']);
  });
});

describe('list columns', () => {
  it('shows kubectl default columns, the wide ones on request, and Namespace when several namespaces show', () => {
    expect(listColumns(pods, { wide: false, showNamespace: false }).map((column) => column.definition.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    expect(listColumns(pods, { wide: true, showNamespace: true }).map((column) => column.definition.name)).toEqual(['Namespace', 'Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    const nodes = kindByKey(builtinKinds, 'nodes') as KindConfig;
    expect(listColumns(nodes, { wide: false, showNamespace: true })[0].definition.name).toBe('Name');
  });
});

describe('filter', () => {
  const rows = [pod('web-1', { labels: { app: 'web', tier: 'front' } }), pod('db-0', { labels: { app: 'db' }, namespace: 'data' }), pod('worker', {})].map((object) => rowOf(pods, object, now));
  const names = (text: string) => rows.filter((row) => matchesFilter(row, parseFilter(text))).map((row) => row.object.metadata.name);
  const cases: [string, (string | undefined)[]][] = [
    ['', ['web-1', 'db-0', 'worker']],
    ['web', ['web-1']],
    ['WEB', ['web-1']],
    ['data', ['db-0']],
    ['app=web', ['web-1']],
    ['app!=web', ['db-0', 'worker']],
    ['label:tier', ['web-1']],
    ['app=db running', ['db-0']],
    ['app=db web', []],
    ['phase:Running', ['web-1', 'db-0', 'worker']],
    ['phase:pending', []],
    ['phase:Pending phase:Running web', ['web-1']],
    ['health:healthy', ['web-1', 'db-0', 'worker']],
    ['health:failing', []],
  ];
  for (const [text, expected] of cases) {
    it(`"${text}" keeps ${expected.join(', ') || 'nothing'}`, () => {
      expect(names(text)).toEqual(expected);
    });
  }
});

describe('health filter', () => {
  it('tells a not-ready Running pod from a ready one, as READY 0/1 says', () => {
    const notReady: KubeObject = { ...pod('probe'), status: { phase: 'Running', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, state: { running: {} } }] } };
    const rows = [pod('ready'), notReady].map((object) => rowOf(pods, object, now));
    const names = (text: string) => rows.filter((row) => matchesFilter(row, parseFilter(text))).map((row) => row.object.metadata.name);
    expect(names('health:not-ready')).toEqual(['probe']);
    expect(names('health:healthy')).toEqual(['ready']);
    expect(rows.map((row) => row.tone)).toEqual(['ok', 'warn']);
  });
});

describe('sort', () => {
  const objects = [pod('b', { restarts: 10, created: '2026-01-01T00:30:00Z' }), pod('a', { restarts: 2, created: '2026-01-01T00:00:00Z' }), pod('c', { restarts: 1, namespace: 'aaa', created: '2026-01-01T00:50:00Z' })];
  const rows = objects.map((object) => rowOf(pods, object, now));
  const columns = listColumns(pods, { wide: false, showNamespace: true });

  it('sorts by namespace and name by default', () => {
    expect(sortRows(rows, columns, undefined).map((row) => row.object.metadata.name)).toEqual(['c', 'a', 'b']);
  });

  it('sorts restarts numerically, both ways', () => {
    const restarts = columns.findIndex((column) => column.definition.name === 'Restarts');
    expect(sortRows(rows, columns, { column: restarts, descending: false }).map((row) => cellOf(row, columns[restarts]))).toEqual(['1', '2', '10']);
    expect(sortRows(rows, columns, { column: restarts, descending: true }).map((row) => row.object.metadata.name)).toEqual(['b', 'a', 'c']);
  });

  it('sorts ages by creation time, youngest first', () => {
    const age = columns.findIndex((column) => column.age);
    expect(sortRows(rows, columns, { column: age, descending: false }).map((row) => row.object.metadata.name)).toEqual(['c', 'b', 'a']);
  });
});

describe('events', () => {
  const events = kindByKey(builtinKinds, 'events') as KindConfig;
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
  const event = (name: string, lastSeconds: number, options: { type?: string; resourceVersion?: string; firstSeconds?: number } = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default', creationTimestamp: ago(options.firstSeconds ?? lastSeconds), resourceVersion: options.resourceVersion ?? '1' },
    involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' },
    type: options.type ?? 'Normal',
    reason: 'Test',
    firstTimestamp: ago(options.firstSeconds ?? lastSeconds),
    lastTimestamp: ago(lastSeconds),
    count: 1,
  });
  // printed LAST SEEN: 2m58s, 4m50s, 18s — text order would put 18s last
  const rows = [event('a', 178), event('b', 290, { type: 'Warning', firstSeconds: 600 }), event('c', 18)].map((object) => rowOf(events, object, now));
  const columns = listColumns(events, { wide: true, showNamespace: false });

  it('shows LAST SEEN and FIRST SEEN as time columns', () => {
    expect(columns.filter((column) => column.time).map((column) => column.definition.name)).toEqual(['Last Seen', 'First Seen']);
    expect(rows.map((row) => cellOf(row, columns[0]))).toEqual(['2m58s', '4m50s', '18s']);
  });

  it('lists newest first by default, by the real times, and oldest first the other way', () => {
    const order = orderOf(columns, events.defaultSort);
    expect(sortRows(rows, columns, order).map((row) => row.object.metadata.name)).toEqual(['c', 'a', 'b']);
    expect(sortRows(rows, columns, order && { ...order, descending: true }).map((row) => row.object.metadata.name)).toEqual(['b', 'a', 'c']);
  });

  it('orders events of the same second newest write first, whatever order they arrive in', () => {
    const same = [event('x', 30, { resourceVersion: '11' }), event('y', 30, { resourceVersion: '12' }), event('z', 30, { resourceVersion: '10' })].map((object) => rowOf(events, object, now));
    const order = orderOf(columns, events.defaultSort);
    expect(sortRows(same, columns, order).map((row) => row.object.metadata.name)).toEqual(['y', 'x', 'z']);
    expect(sortRows([...same].reverse(), columns, order).map((row) => row.object.metadata.name)).toEqual(['y', 'x', 'z']);
  });

  it('sorts FIRST SEEN by its own time', () => {
    const first = columns.findIndex((column) => column.definition.name === 'First Seen');
    expect(sortRows(rows, columns, { column: first, descending: true }).map((row) => row.object.metadata.name)).toEqual(['b', 'a', 'c']);
  });

  it('keeps only Warnings with the quick filter', () => {
    expect(applyQuickFilters(rows, events, new Set(['warnings'])).map((row) => row.object.metadata.name)).toEqual(['b']);
    expect(applyQuickFilters(rows, events, new Set())).toBe(rows);
  });
});

describe('sort orders by column name', () => {
  const columns = listColumns(pods, { wide: false, showNamespace: true });

  it('finds the column by name whatever columns show, and cycles ascending, descending, default', () => {
    expect(orderOf(columns, { column: 'Age' })).toEqual({ column: 5, descending: false });
    expect(orderOf(listColumns(pods, { wide: false, showNamespace: false }), { column: 'Age', descending: true })).toEqual({ column: 4, descending: true });
    expect(orderOf(columns, { column: 'Nope' })).toBeUndefined();
    expect(nextSort(undefined, 'Age')).toEqual({ column: 'Age', descending: false });
    expect(nextSort({ column: 'Age' }, 'Age')).toEqual({ column: 'Age', descending: true });
    expect(nextSort({ column: 'Age', descending: true }, 'Age')).toBeUndefined();
    expect(nextSort({ column: 'Age', descending: true }, 'Name')).toEqual({ column: 'Name', descending: false });
  });
});

describe('selection', () => {
  it('keeps the selected rows that are still listed, in list order', () => {
    const rows = [pod('a'), pod('b'), pod('c')].map((object) => rowOf(pods, object, now));
    expect(selectedRows(rows, new Set(['default/c', 'default/a', 'default/gone'])).map((row) => row.key)).toEqual(['default/a', 'default/c']);
    expect(selectedRows(rows, new Set())).toEqual([]);
  });
});

describe('visible range', () => {
  it('renders the rows on screen plus an overscan, clamped to the list', () => {
    expect(visibleRange(0, 280, 28, 5000)).toEqual({ start: 0, end: 20 });
    expect(visibleRange(28 * 1000, 280, 28, 5000)).toEqual({ start: 990, end: 1020 });
    expect(visibleRange(28 * 4995, 280, 28, 5000)).toEqual({ start: 4985, end: 5000 });
  });
});

describe('list keys', () => {
  const press = (key: string, modifiers: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => listKeyOf({ key, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...modifiers });

  it('maps the navigation, selection and action keys', () => {
    expect([press('ArrowDown'), press('k'), press('PageDown'), press('Home'), press('End')]).toEqual([{ type: 'move', by: 1 }, { type: 'move', by: -1 }, { type: 'page', direction: 1 }, { type: 'first' }, { type: 'last' }]);
    expect([press('Enter'), press('/'), press(' '), press('a', { ctrlKey: true }), press('Escape'), press('Delete'), press('F10', { shiftKey: true }), press('ContextMenu')].map((key) => key?.type)).toEqual(['open', 'filter', 'toggle-selection', 'select-all', 'clear-selection', 'delete', 'menu', 'menu']);
    expect([press('k', { ctrlKey: true }), press('ArrowDown', { altKey: true }), press('q'), press('?')]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('moves the cursor within the list', () => {
    expect(moveCursor(5, { type: 'page', direction: 1 }, 100, 20)).toBe(25);
    expect(moveCursor(5, { type: 'page', direction: -1 }, 100, 20)).toBe(0);
    expect(moveCursor(5, { type: 'last' }, 100, 20)).toBe(99);
    expect(moveCursor(99, { type: 'move', by: 1 }, 100, 20)).toBe(99);
    expect(moveCursor(3, { type: 'first' }, 0, 20)).toBe(0);
  });

  it('cycles the sort column with s and reverses it with S', () => {
    const columns = listColumns(pods, { wide: false, showNamespace: false });
    expect(cycleSort(undefined, columns, false)).toEqual({ column: 'Name', descending: false });
    expect(cycleSort({ column: 'Name' }, columns, false)).toEqual({ column: 'Ready', descending: false });
    expect(cycleSort({ column: 'Age' }, columns, false)).toEqual({ column: 'Name', descending: false });
    expect(cycleSort({ column: 'Age' }, columns, true)).toEqual({ column: 'Age', descending: true });
    expect(cycleSort(undefined, columns, true)).toEqual({ column: 'Name', descending: true });
  });
});
