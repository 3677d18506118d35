// The one generic list view: kubectl's columns for any kind, live from the watch cache, with
// sorting (time columns by their times), a text/label filter, the kind's quick filters, status
// colours, each row's one-line reason when it is not ready (views/diagnosis), ticking ages, a virtualised body (only the rows on screen are in the DOM, so 5,000 pods
// scroll smoothly), multi-select with bulk actions, a per-row and right-click menu of the kind's
// actions, a Create button (the kind's template), a timeline for Events, keys that work
// without focusing the table first (the grid is one tab stop; headers and row controls are not),
// and a time slider (views/history) that shows the list as it was at a past moment, read-only.
import { memo, useCallback, useDeferredValue, useEffect, useLayoutEffect, useMemo, useRef, useState, type MouseEvent as ReactMouseEvent, type ReactNode } from 'react';
import { translateTimestampSince } from '../../shared/printers/duration';
import { actionsFor, type ActionContext } from '../actions/actions';
import { bulkActionsFor, runBulkAction } from '../actions/bulkActions';
import { ActionMenu, type MenuItem } from '../components/ActionMenu';
import { useDialogs } from '../components/Modal';
import { useAppState, useNamespacedItems, useNow, useServices } from '../context';
import { useCurrentCluster, usePermissions } from './permissions/usePermissions';
import { readOnlyReason, refusal } from './permissions/permissionsModel';
import type { KindConfig } from '../kinds/kindConfig';
import { EmptyState } from '../components/EmptyState';
import { EventTimeline } from './events/EventTimeline';
import { PastBanner, TimeSlider, usePastList } from './history/TimeSlider';
import type { DiagnosisContext } from '../../shared/diagnosis';
import { diagnosisOf, diagnosisTone, isDiagnosed, listDiagnosisKeys, reasonBesideCount } from './diagnosis/diagnosisModel';
import { useDiagnosisContext } from './diagnosis/useDiagnosis';
import { UsageCells, usageColumnTemplate, UsageHeaders } from './usage/UsageColumns';
import { useKubedeskFeatures } from './clusters/KubedeskOnly';
import { applyQuickFilters, cellOf, cellText, cycleSort, listColumns, listKeyOf, matchesFilter, moveCursor, nextSort, orderOf, parseFilter, rowOf, selectedRows, sortRows, visibleRange, type ListColumn, type ListKey, type Row } from './listModel';

const ROW_HEIGHT = 28;
const POD_LIST_LEAVES_OUT = ['pods'] as const;

type SortState = { column: string; descending?: boolean } | undefined;

/** Keys typed into a text field, the terminal dock, a menu or a dialog are theirs, not the list's. */
function keyBelongsElsewhere(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  if (target.closest('input, textarea, select, [contenteditable="true"], .dock, [role="menu"], [role="dialog"], .modal-backdrop, .picker-menu')) return true;
  return document.querySelector('.modal-backdrop, [role="dialog"]') !== null;
}

/** Enter and Space activate a focused control (a row's checkbox or ⋯ too) themselves; the list takes them only from the page or the grid. */
function activationBelongsElsewhere(target: EventTarget | null): boolean {
  if (!(target instanceof Element) || target === document.body) return false;
  if (target.closest('input, button, a, select, textarea, label')) return true;
  return target.closest('[data-testid="list-body"]') === null;
}

function useActionContext(): { context: ActionContext; element: ReactNode } {
  const services = useServices();
  const dialogs = useDialogs();
  const can = usePermissions();
  const context = useMemo<ActionContext>(() => ({ ...services, confirm: dialogs.confirm, prompt: dialogs.prompt, can }), [services, dialogs.confirm, dialogs.prompt, can]);
  return { context, element: dialogs.element };
}

export function ResourceList({ config }: { config: KindConfig }) {
  const { items: liveItems, collection } = useNamespacedItems(config);
  const can = usePermissions();
  const selectedNamespaces = useAppState((state) => state.selectedNamespaces);
  // the time slider: undefined = live; a time = the list as it was then, read-only
  const [sliderOpen, setSliderOpen] = useState(false);
  const [pastTime, setPastTime] = useState<number | undefined>(undefined);
  const hasHistory = useKubedeskFeatures() !== 'absent';
  const pastList = usePastList(config, pastTime, selectedNamespaces);
  const isPast = pastTime !== undefined;
  const items = isPast ? pastList.items : liveItems;
  const navigate = useAppState((state) => state.navigate);
  const initialFilter = useAppState((state) => state.listFilters[config.key]);
  const setListFilter = useAppState((state) => state.setListFilter);
  const [filterText, setFilterText] = useState(initialFilter ?? '');
  // a link's filter applies once: consumed on mount so the sidebar link shows the whole list again
  useEffect(() => {
    if (initialFilter) setListFilter(config.key, '');
  }, [initialFilter, setListFilter, config.key]);
  const filter = useDeferredValue(filterText);
  const [sort, setSort] = useState<SortState>(config.defaultSort);
  const [quick, setQuick] = useState<ReadonlySet<string>>(() => new Set());
  const [view, setView] = useState<'list' | 'timeline'>('list');
  const [wide, setWide] = useState(false);
  const [cursor, setCursor] = useState(0);
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());
  const [menu, setMenu] = useState<{ key: string; x: number; y: number } | undefined>(undefined);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewportHeight, setViewportHeight] = useState(600);
  const bodyRef = useRef<HTMLDivElement>(null);
  const filterRef = useRef<HTMLInputElement>(null);
  const { context, element: dialogs } = useActionContext();
  // each visible row's one-line reason (shared/diagnosis); a pod's rests on the pod, not on every other pod
  const diagnosed = isDiagnosed(config.kind, config.group);
  const diagnosisWatches = useMemo(() => (diagnosed ? listDiagnosisKeys(config.kind) : []), [diagnosed, config.kind]);
  const diagnosisContext = useDiagnosisContext(diagnosed ? config.kind : '', diagnosisWatches, config.kind === 'Pod' ? POD_LIST_LEAVES_OUT : []);

  // Create is checked where it would land: the one selected namespace, or cluster-wide for a cluster-scoped kind
  const createNamespace = config.namespaced ? (selectedNamespaces.length === 1 ? selectedNamespaces[0] : undefined) : '';
  const cluster = useCurrentCluster();
  const createRefused = cluster.readOnly ? readOnlyReason(cluster.name) : createNamespace === undefined ? undefined : refusal(can, [{ verb: 'create', group: config.group, resource: config.plural, namespace: createNamespace || undefined }]);
  const columns = useMemo(() => listColumns(config, { wide, showNamespace: selectedNamespaces.length !== 1 }), [config, wide, selectedNamespaces.length]);
  const order = useMemo(() => orderOf(columns, sort), [columns, sort]);
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
    return applyQuickFilters(empty ? sortedRows : sortedRows.filter((row) => matchesFilter(row, parsed)), config, quick);
  }, [sortedRows, filter, config, quick]);
  const chosen = useMemo(() => selectedRows(rows, selected), [rows, selected]);
  const chosenObjects = useMemo(() => chosen.map((row) => row.object), [chosen]);
  const bulk = useMemo(() => bulkActionsFor(config, chosenObjects, can), [config, chosenObjects, can]);

  useEffect(() => setCursor(0), [config.key, filter, quick]);
  useLayoutEffect(() => {
    const element = bodyRef.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setViewportHeight(element.clientHeight));
    observer.observe(element);
    setViewportHeight(element.clientHeight);
    return () => observer.disconnect();
  }, [view]);

  // a past row opens the object's history (it may not exist any more)
  const open = useCallback(
    (row: Row | undefined) => {
      if (row) navigate({ view: 'detail', kindKey: config.key, namespace: row.object.metadata.namespace, name: row.object.metadata.name ?? '', ...(isPast ? { tab: 'history' } : {}) });
    },
    [navigate, config.key, isPast],
  );

  const toggle = useCallback((key: string) => {
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  }, []);

  const scrollToRow = (index: number) => {
    const element = bodyRef.current;
    if (!element) return;
    const top = index * ROW_HEIGHT;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + ROW_HEIGHT > element.scrollTop + element.clientHeight) element.scrollTop = top + ROW_HEIGHT - element.clientHeight;
  };

  const openMenuAt = useCallback((row: Row, x: number, y: number) => (isPast ? undefined : setMenu({ key: row.key, x, y })), [isPast]);
  const closeMenu = useCallback(() => setMenu(undefined), []);

  // the list's keys, read from the whole page so they work before the table has focus
  const handleKey = (event: KeyboardEvent) => {
    if (event.defaultPrevented || view !== 'list' || keyBelongsElsewhere(event.target)) return;
    const key: ListKey | undefined = listKeyOf(event);
    if (!key) return;
    const current = rows[Math.min(cursor, rows.length - 1)];
    switch (key.type) {
      case 'move':
      case 'page':
      case 'first':
      case 'last': {
        const next = moveCursor(cursor, key, rows.length, Math.floor(viewportHeight / ROW_HEIGHT) - 1);
        setCursor(next);
        scrollToRow(next);
        break;
      }
      case 'open':
        if (activationBelongsElsewhere(event.target)) return;
        open(current);
        break;
      case 'filter':
        filterRef.current?.focus();
        break;
      case 'toggle-selection':
        if (activationBelongsElsewhere(event.target) || !current || isPast) return;
        toggle(current.key);
        break;
      case 'select-all':
        if (isPast) return;
        setSelected(new Set(rows.map((row) => row.key)));
        break;
      case 'clear-selection':
        if (selected.size === 0) return;
        setSelected(new Set());
        break;
      case 'delete': {
        if (isPast) return;
        const targets = chosenObjects.length > 0 ? chosenObjects : current ? [current.object] : [];
        if (targets.length === 0) return;
        void runBulkAction(context, config, targets, 'delete');
        break;
      }
      case 'menu': {
        if (!current) return;
        const rowElement = bodyRef.current?.querySelector(`[data-key="${CSS.escape(current.key)}"]`);
        const box = rowElement?.getBoundingClientRect() ?? bodyRef.current?.getBoundingClientRect();
        openMenuAt(current, (box?.left ?? 0) + 40, (box?.top ?? 0) + ROW_HEIGHT);
        break;
      }
      case 'sort':
        setSort(cycleSort(sort, columns, key.reverse));
        break;
    }
    event.preventDefault();
  };
  const handleKeyRef = useRef(handleKey);
  handleKeyRef.current = handleKey;
  useEffect(() => {
    const listener = (event: KeyboardEvent) => handleKeyRef.current(event);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);

  const menuRow = menu ? rows.find((row) => row.key === menu.key) : undefined;
  const menuItems = useMemo<MenuItem[]>(() => {
    if (!menuRow) return [];
    const object = menuRow.object;
    const route = { view: 'detail' as const, kindKey: config.key, namespace: object.metadata.namespace, name: object.metadata.name ?? '' };
    return [
      { id: 'open', title: 'Open', run: () => navigate(route) },
      { id: 'yaml', title: 'Edit YAML', run: () => navigate({ ...route, tab: 'yaml' }) },
      ...actionsFor(config, object, can).map((action) => ({ id: action.id, title: action.title, danger: action.danger, disabled: action.disabled, run: () => void action.run(context) })),
    ];
  }, [menuRow, config, navigate, context, can]);

  const { start, end } = visibleRange(scrollTop, viewportHeight, ROW_HEIGHT, rows.length);
  const usage = config.usage === 'pod' || config.usage === 'workload' ? config : undefined;
  const template = ['32px', ...columns.map((column) => (column.definition.name === 'Name' ? 'minmax(220px, 2.5fr)' : column.age ? '80px' : column.time ? '112px' : 'minmax(90px, 1fr)')), ...usageColumnTemplate(usage), '36px'].join(' ');
  const allShownSelected = rows.length > 0 && chosen.length === rows.length;
  const empty = rows.length === 0 && (isPast ? !pastList.loading : collection.phase !== 'loading');
  useEffect(() => {
    if (isPast) setSelected(new Set());
  }, [isPast]);

  return (
    <section className={`list-view${isPast ? ' past' : ''}`} aria-label={config.title} data-past={isPast ? 'true' : undefined}>
      <header className="view-header">
        <h1>{config.title}</h1>
        <span className="count" data-testid="list-count">
          {collection.phase === 'loading' && rows.length === 0 ? 'loading…' : `${rows.length}${rows.length !== items.length ? ` of ${items.length}` : ''}`}
        </span>
        <button className="primary" disabled={isPast || createRefused !== undefined} onClick={() => navigate({ view: 'create', kindKey: config.key })} title={isPast ? 'A past view is read-only' : (createRefused ?? `Create a ${config.kind} from a YAML template`)} data-testid="list-create">
          Create
        </button>
        <button
          aria-pressed={sliderOpen}
          onClick={() => {
            if (sliderOpen) setPastTime(undefined);
            setSliderOpen(!sliderOpen);
          }}
          disabled={!hasHistory}
          title={hasHistory ? 'Show the list as it was at a past moment' : 'The past of a list belongs to local kubedesk clusters (this one does not serve history.kubedesk.dev)'}
          data-testid="list-time-travel"
        >
          Past…
        </button>
        {config.timeline && (
          <span className="segmented" role="group" aria-label="View">
            <button aria-pressed={view === 'list'} onClick={() => setView('list')} data-testid="view-list">
              List
            </button>
            <button aria-pressed={view === 'timeline'} onClick={() => setView('timeline')} data-testid="view-timeline">
              Timeline
            </button>
          </span>
        )}
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
        {(config.quickFilters ?? []).map((quickFilter) => (
          <label key={quickFilter.id} className="toggle">
            <input
              type="checkbox"
              checked={quick.has(quickFilter.id)}
              onChange={(event) => {
                const next = new Set(quick);
                if (event.target.checked) next.add(quickFilter.id);
                else next.delete(quickFilter.id);
                setQuick(next);
              }}
              data-testid={`quick-${quickFilter.id}`}
            />{' '}
            {quickFilter.label}
          </label>
        ))}
        <label className="toggle">
          <input type="checkbox" checked={wide} onChange={(event) => setWide(event.target.checked)} /> wide
        </label>
      </header>
      {sliderOpen && <TimeSlider config={config} time={pastTime} onTime={setPastTime} />}
      {isPast && <PastBanner time={pastTime} loading={pastList.loading} error={pastList.error} count={pastList.items.length} />}
      {collection.phase === 'error' && <div className="banner error">Cannot list {config.title}: {collection.error}</div>}
      {chosen.length > 0 && view === 'list' && !isPast && (
        <div className="bulk-bar" role="toolbar" aria-label={`Actions on ${chosen.length} selected`} data-testid="bulk-bar">
          <span data-testid="bulk-count">{chosen.length} selected</span>
          {bulk.map((action) => (
            <button key={action.id} className={action.danger ? 'danger-outline' : ''} disabled={action.disabled !== undefined} title={action.disabled} onClick={() => void runBulkAction(context, config, chosenObjects, action.id)} data-testid={`bulk-${action.id}`}>
              {action.title}
            </button>
          ))}
          <button className="ghost" onClick={() => setSelected(new Set())} data-testid="bulk-clear">
            Clear selection
          </button>
        </div>
      )}
      {view === 'timeline' ? (
        <EventTimeline objects={rows.map((row) => row.object)} />
      ) : (
        <div className="table" role="grid" aria-label={`${config.title} list`} aria-rowcount={empty ? 2 : rows.length + 1} aria-multiselectable>
          <div className="table-head" role="row" style={{ gridTemplateColumns: template }}>
            <div role="columnheader" className="cell head check">
              <input type="checkbox" tabIndex={-1} aria-label="Select all shown" disabled={isPast} checked={allShownSelected} onChange={() => setSelected(allShownSelected ? new Set() : new Set(rows.map((row) => row.key)))} data-testid="select-all" />
            </div>
            {columns.map((column, index) => (
              <button
                key={column.definition.name + index}
                role="columnheader"
                tabIndex={-1}
                aria-sort={order?.column === index ? (order.descending ? 'descending' : 'ascending') : 'none'}
                className="cell head"
                title={column.definition.description}
                onClick={() => setSort(nextSort(sort, column.definition.name))}
                data-testid={`column-${column.definition.name}`}
              >
                {column.definition.name}
                {order?.column === index ? (order.descending ? ' ▼' : ' ▲') : ''}
              </button>
            ))}
            <UsageHeaders config={usage} />
            <div role="columnheader" className="cell head">
              <span className="visually-hidden">Actions</span>
            </div>
          </div>
          <div className="table-body" ref={bodyRef} tabIndex={0} role="rowgroup" aria-label="Rows" onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)} data-testid="list-body">
            {empty ? (
              // a grid holds only rows: what an empty list says is one cell across the whole row
              <div role="row" aria-rowindex={2}>
                <div role="gridcell" aria-colspan={columns.length + 2 + usageColumnTemplate(usage).length}>
                  <EmptyState kind={config} filtered={items.length > 0} />
                </div>
              </div>
            ) : (
              <div style={{ height: rows.length * ROW_HEIGHT, position: 'relative' }}>
                {rows.slice(start, end).map((row, offset) => (
                  <ListRow
                    key={row.key}
                    row={row}
                    index={start + offset}
                    columns={columns}
                    template={template}
                    top={(start + offset) * ROW_HEIGHT}
                    cursor={start + offset === cursor}
                    checked={selected.has(row.key)}
                    readOnly={isPast}
                    statusColumn={config.statusColumn}
                    kind={diagnosed && !isPast ? config.kind : undefined}
                    diagnosisContext={diagnosisContext}
                    usage={usage}
                    onOpen={open}
                    onCursor={setCursor}
                    onToggle={toggle}
                    onMenu={openMenuAt}
                  />
                ))}
              </div>
            )}
          </div>
        </div>
      )}
      {menu && menuRow && <ActionMenu label={`Actions for ${config.kind} ${menuRow.object.metadata.name ?? ''}`} items={menuItems} x={menu.x} y={menu.y} onClose={closeMenu} testId="row-menu" />}
      {dialogs}
    </section>
  );
}

interface ListRowProps {
  row: Row;
  index: number;
  columns: ListColumn[];
  template: string;
  top: number;
  cursor: boolean;
  checked: boolean;
  /** a past view: no selection, no menu */
  readOnly?: boolean;
  statusColumn?: string;
  /** the kind, when its rows get a one-line reason */
  kind?: string;
  diagnosisContext: DiagnosisContext;
  /** the kind, when its rows get CPU and memory sparklines */
  usage?: KindConfig;
  onOpen(row: Row): void;
  onCursor(index: number): void;
  onToggle(key: string): void;
  onMenu(row: Row, x: number, y: number): void;
}

// a row re-renders only when its object, position, cursor or selection changes (watch batches
// replace only the objects that changed, so most rows are skipped)
const ListRow = memo(function ListRow({ row, index, columns, template, top, cursor, checked, readOnly, statusColumn, kind, diagnosisContext, usage, onOpen, onCursor, onToggle, onMenu }: ListRowProps) {
  const name = row.object.metadata.name ?? '';
  const diagnosis = kind ? diagnosisOf(kind, row.object, diagnosisContext) : undefined;
  const why = diagnosis && !diagnosis.healthy ? diagnosis : undefined;
  return (
    <div
      role="row"
      aria-selected={checked}
      aria-rowindex={index + 2}
      className={`table-row${cursor ? ' selected' : ''}${checked ? ' checked' : ''}${row.object.metadata.deletionTimestamp ? ' deleting' : ''}`}
      style={{ gridTemplateColumns: template, transform: `translateY(${top}px)` }}
      onClick={(event: ReactMouseEvent) => {
        onCursor(index);
        if ((event.ctrlKey || event.metaKey) && !readOnly) onToggle(row.key);
        else onOpen(row);
      }}
      onContextMenu={(event) => {
        event.preventDefault();
        onCursor(index);
        onMenu(row, event.clientX, event.clientY);
      }}
      data-name={name}
      data-key={row.key}
    >
      <div role="gridcell" className="cell check" onClick={(event) => event.stopPropagation()}>
        <input type="checkbox" tabIndex={-1} aria-label={`Select ${name}`} checked={checked} disabled={readOnly} onChange={() => onToggle(row.key)} data-testid="row-select" />
      </div>
      {columns.map((column, columnIndex) => {
        const isName = column.definition.name === 'Name';
        const isStatus = column.definition.name === statusColumn;
        const text = column.time ? column.time.timestamp(row.object) : cellText(cellOf(row, column));
        return (
          <div role="gridcell" key={columnIndex} className={`cell${isStatus && row.tone ? ` tone-${row.tone}` : ''}${columnIndex === 0 || isName ? ' name' : ''}${isName && why ? ' with-why' : ''}`} title={why && (isName || isStatus) ? `${text} — ${why.reason}` : text}>
            {column.time ? <Age timestamp={column.time.timestamp(row.object)} /> : isName && why ? <span className="cell-text">{text}</span> : text}
            {isName && why && (
              <span className={`row-why tone-${diagnosisTone(why)}`} data-testid="row-reason" data-code={why.code}>
                {reasonBesideCount(why)}
              </span>
            )}
          </div>
        );
      })}
      {usage && <UsageCells config={usage} object={row.object} />}
      <div role="gridcell" className="cell row-menu-cell">
        <button
          className="ghost row-menu-button"
          tabIndex={-1}
          disabled={readOnly}
          aria-haspopup="menu"
          aria-label={`Actions for ${name}`}
          onClick={(event) => {
            event.stopPropagation();
            const box = event.currentTarget.getBoundingClientRect();
            onCursor(index);
            onMenu(row, box.left, box.bottom);
          }}
          data-testid="row-menu-button"
        >
          ⋯
        </button>
      </div>
    </div>
  );
});

/** An age that ticks (each visible Age cell re-renders on its own, the list does not). */
export function Age({ timestamp }: { timestamp: string | undefined }) {
  const now = useNow(1000);
  return <>{timestamp ? translateTimestampSince(timestamp, now) : '<unknown>'}</>;
}

