import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { builtinKinds, kindByKey } from '../kinds';
import type { KindConfig } from '../kinds/kindConfig';
import { cellOf, listColumns, matchesFilter, parseFilter, rowOf, sortRows, visibleRange } from './listModel';

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

describe('visible range', () => {
  it('renders the rows on screen plus an overscan, clamped to the list', () => {
    expect(visibleRange(0, 280, 28, 5000)).toEqual({ start: 0, end: 20 });
    expect(visibleRange(28 * 1000, 280, 28, 5000)).toEqual({ start: 990, end: 1020 });
    expect(visibleRange(28 * 4995, 280, 28, 5000)).toEqual({ start: 4985, end: 5000 });
  });
});
