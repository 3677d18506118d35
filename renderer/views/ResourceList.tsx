// The one generic list view: kubectl's columns for any kind, live from the watch cache, with
// sorting, a text/label filter, status colours, ticking ages, keyboard navigation and a
// virtualised body (only the rows on screen are in the DOM, so 5,000 pods scroll smoothly).
import { useCallback, useDeferredValue, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { translateTimestampSince } from '../../shared/printers/duration';
import { useAppState, useNamespacedItems, useNow } from '../context';
import type { KindConfig } from '../kinds/kindConfig';
import { EmptyState } from '../components/EmptyState';
import { cellOf, cellText, listColumns, matchesFilter, parseFilter, rowOf, sortRows, visibleRange, type ListColumn, type Row, type SortOrder } from './listModel';

const ROW_HEIGHT = 28;

export function ResourceList({ config }: { config: KindConfig }) {
  const { items, collection } = useNamespacedItems(config);
  const selectedNamespaces = useAppState((state) => state.selectedNamespaces);
  const navigate = useAppState((state) => state.navigate);
  const initialFilter = useAppState((state) => state.listFilters[config.key]);
  const setListFilter = useAppState((state) => state.setListFilter);
  const [filterText, setFilterText] = useState(initialFilter ?? '');
  // a link's filter applies once: consumed on mount so the sidebar link shows the whole list again
  useEffect(() => {
    if (initialFilter) setListFilter(config.key, '');
  }, [initialFilter, setListFilter, config.key]);
  const filter = useDeferredValue(filterText);
  const [order, setOrder] = useState<SortOrder | undefined>(undefined);
  const [wide, setWide] = useState(false);
  const [selectedIndex, setSelectedIndex] = useState(0);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewportHeight, setViewportHeight] = useState(600);
  const bodyRef = useRef<HTMLDivElement>(null);
  const filterRef = useRef<HTMLInputElement>(null);

  const columns = useMemo(() => listColumns(config, { wide, showNamespace: selectedNamespaces.length !== 1 }), [config, wide, selectedNamespaces.length]);
  // sorted once per change of the items or the order; a keystroke in the filter only filters
  const sortedRows = useMemo(() => {
    const now = new Date();
    return sortRows(
      items.map((object) => rowOf(config, object, now)),
      columns,
      order,
    );
  }, [items, config, columns, order]);
  const rows = useMemo(() => {
    const parsed = parseFilter(filter);
    const empty = parsed.words.length === 0 && parsed.labels.length === 0 && parsed.phases.length === 0 && !parsed.healths;
    return empty ? sortedRows : sortedRows.filter((row) => matchesFilter(row, parsed));
  }, [sortedRows, filter]);

  useEffect(() => setSelectedIndex(0), [config.key, filter]);
  useLayoutEffect(() => {
    const element = bodyRef.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setViewportHeight(element.clientHeight));
    observer.observe(element);
    setViewportHeight(element.clientHeight);
    return () => observer.disconnect();
  }, []);

  const open = useCallback(
    (row: Row | undefined) => {
      if (row) navigate({ view: 'detail', kindKey: config.key, namespace: row.object.metadata.namespace, name: row.object.metadata.name ?? '' });
    },
    [navigate, config.key],
  );

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const pageRows = Math.max(1, Math.floor(viewportHeight / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: pageRows, PageUp: -pageRows, j: 1, k: -1 };
    let next = selectedIndex;
    if (event.key in moves) next = selectedIndex + moves[event.key];
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = rows.length - 1;
    else if (event.key === 'Enter') {
      open(rows[selectedIndex]);
      return;
    } else if (event.key === '/') {
      event.preventDefault();
      filterRef.current?.focus();
      return;
    } else return;
    event.preventDefault();
    next = Math.max(0, Math.min(rows.length - 1, next));
    setSelectedIndex(next);
    const element = bodyRef.current;
    if (element) {
      const top = next * ROW_HEIGHT;
      if (top < element.scrollTop) element.scrollTop = top;
      else if (top + ROW_HEIGHT > element.scrollTop + element.clientHeight) element.scrollTop = top + ROW_HEIGHT - element.clientHeight;
    }
  };

  const { start, end } = visibleRange(scrollTop, viewportHeight, ROW_HEIGHT, rows.length);
  const template = columns.map((column) => (column.definition.name === 'Name' ? 'minmax(220px, 2.5fr)' : column.age ? '80px' : 'minmax(90px, 1fr)')).join(' ');

  return (
    <section className="list-view" aria-label={config.title}>
      <header className="view-header">
        <h1>{config.title}</h1>
        <span className="count" data-testid="list-count">
          {collection.phase === 'loading' && rows.length === 0 ? 'loading…' : `${rows.length}${rows.length !== items.length ? ` of ${items.length}` : ''}`}
        </span>
        <input
          ref={filterRef}
          className="filter"
          type="search"
          placeholder="Filter: text, app=web, tier!=db   ( / )"
          aria-label="Filter"
          value={filterText}
          onChange={(event) => setFilterText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown' || event.key === 'Enter') {
              event.preventDefault();
              bodyRef.current?.focus();
            }
          }}
        />
        <label className="toggle">
          <input type="checkbox" checked={wide} onChange={(event) => setWide(event.target.checked)} /> wide
        </label>
      </header>
      {collection.phase === 'error' && <div className="banner error">Cannot list {config.title}: {collection.error}</div>}
      <div className="table" role="grid" aria-rowcount={rows.length}>
        <div className="table-head" role="row" style={{ gridTemplateColumns: template }}>
          {columns.map((column, index) => (
            <button
              key={column.definition.name + index}
              role="columnheader"
              className="cell head"
              title={column.definition.description}
              onClick={() => setOrder((current) => (current?.column === index ? (current.descending ? undefined : { column: index, descending: true }) : { column: index, descending: false }))}
            >
              {column.definition.name}
              {order?.column === index ? (order.descending ? ' ▼' : ' ▲') : ''}
            </button>
          ))}
        </div>
        <div className="table-body" ref={bodyRef} tabIndex={0} onKeyDown={onKeyDown} onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)} data-testid="list-body">
          {rows.length === 0 && collection.phase !== 'loading' ? (
            <EmptyState kind={config} filtered={items.length > 0} />
          ) : (
            <div style={{ height: rows.length * ROW_HEIGHT, position: 'relative' }}>
              {rows.slice(start, end).map((row, offset) => (
                <ListRow key={row.key} row={row} columns={columns} template={template} top={(start + offset) * ROW_HEIGHT} selected={start + offset === selectedIndex} statusColumn={config.statusColumn} onOpen={open} onSelect={() => setSelectedIndex(start + offset)} />
              ))}
            </div>
          )}
        </div>
      </div>
    </section>
  );
}

function ListRow({ row, columns, template, top, selected, statusColumn, onOpen, onSelect }: { row: Row; columns: ListColumn[]; template: string; top: number; selected: boolean; statusColumn?: string; onOpen(row: Row): void; onSelect(): void }) {
  return (
    <div
      role="row"
      className={`table-row${selected ? ' selected' : ''}${row.object.metadata.deletionTimestamp ? ' deleting' : ''}`}
      style={{ gridTemplateColumns: template, transform: `translateY(${top}px)` }}
      onClick={() => {
        onSelect();
        onOpen(row);
      }}
      data-name={row.object.metadata.name}
    >
      {columns.map((column, index) => (
        <div role="gridcell" key={index} className={`cell${column.definition.name === statusColumn && row.tone ? ` tone-${row.tone}` : ''}${index === 0 || column.definition.name === 'Name' ? ' name' : ''}`} title={cellText(cellOf(row, column))}>
          {column.age ? <Age timestamp={row.object.metadata.creationTimestamp} /> : cellText(cellOf(row, column))}
        </div>
      ))}
    </div>
  );
}

/** An age that ticks (each visible Age cell re-renders on its own, the list does not). */
export function Age({ timestamp }: { timestamp: string | undefined }) {
  const now = useNow(1000);
  return <>{timestamp ? translateTimestampSince(timestamp, now) : '<unknown>'}</>;
}
