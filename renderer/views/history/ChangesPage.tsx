// The Changes page: the cluster-wide change feed of the object history (the history API's
// revisions, newest first, as `kubedesk changes` prints it), filtered by namespace, kind, user and
// age; live (re-read every few seconds) or refreshed on demand. Each row links to the object's
// History tab. HistoryPages is the header both history pages share (Changes | Recently deleted).
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useAppState, useServices } from '../../context';
import { formatRoute } from '../../store/routes';
import { Age } from '../ResourceList';
import { MiniTable } from '../detail/cards';
import { feedRequest, feedRows, kindKeyOf, readRevisions, type FeedFilter, type Revision } from './historyModel';

const LIVE_INTERVAL_MS = 3000;
const SINCE_CHOICES = [
  ['', 'any time'],
  ['15m', 'last 15 minutes'],
  ['1h', 'last hour'],
  ['24h', 'last day'],
  ['7d', 'last 7 days'],
] as const;

export function HistoryPages({ current, children, tools }: { current: 'changes' | 'deleted'; children: ReactNode; tools?: ReactNode }) {
  return (
    <section className="history-page" aria-label={current === 'changes' ? 'Changes' : 'Recently deleted'}>
      <header className="view-header">
        <h1>{current === 'changes' ? 'Changes' : 'Recently deleted'}</h1>
        <nav className="segmented" aria-label="History views">
          <a className={current === 'changes' ? 'active' : ''} aria-current={current === 'changes' ? 'page' : undefined} href={formatRoute({ view: 'changes' })} data-testid="history-nav-changes">
            Changes
          </a>
          <a className={current === 'deleted' ? 'active' : ''} aria-current={current === 'deleted' ? 'page' : undefined} href={formatRoute({ view: 'deleted' })} data-testid="history-nav-deleted">
            Recently deleted
          </a>
        </nav>
        {tools}
      </header>
      {children}
    </section>
  );
}

/** The one namespace the picker selects, else '' (all). */
function useSingleNamespace(): string {
  const selected = useAppState((state) => state.selectedNamespaces);
  return selected.length === 1 ? selected[0] : '';
}

export function ChangesPage() {
  const { client } = useServices();
  const pickerNamespace = useSingleNamespace();
  const [filter, setFilter] = useState<FeedFilter>({ namespace: pickerNamespace, kind: '', user: '', since: '' });
  const [live, setLive] = useState(true);
  const [feed, setFeed] = useState<Revision[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [reloads, setReloads] = useState(0);
  const [tick, setTick] = useState(0);

  useEffect(() => setFilter((current) => ({ ...current, namespace: pickerNamespace })), [pickerNamespace]);
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setTick((count) => count + 1), LIVE_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [live]);
  useEffect(() => {
    const abort = new AbortController();
    // typing waits a moment before asking
    const timer = setTimeout(() => {
      const { path, query } = feedRequest(filter);
      readRevisions(client, path, query, abort.signal).then(
        (loaded) => {
          setFeed(loaded);
          setError(undefined);
        },
        (failure: unknown) => {
          if (!abort.signal.aborted) setError(failure instanceof Error ? failure.message : String(failure));
        },
      );
    }, 250);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [client, filter, reloads, tick]);

  const rows = useMemo(() => feedRows(feed ?? []), [feed]);
  const set = (field: keyof FeedFilter) => (value: string) => setFilter((current) => ({ ...current, [field]: value }));
  return (
    <HistoryPages
      current="changes"
      tools={
        <>
          <label className="toggle">
            <input type="checkbox" checked={live} onChange={(event) => setLive(event.target.checked)} data-testid="changes-live" /> live
          </label>
          <button onClick={() => setReloads((count) => count + 1)} data-testid="changes-refresh">
            Refresh
          </button>
        </>
      }
    >
      <div className="history-filters" role="search" aria-label="Filter changes">
        <label>
          Namespace <input type="text" value={filter.namespace} placeholder="all" onChange={(event) => set('namespace')(event.target.value)} data-testid="changes-namespace" />
        </label>
        <label>
          Kind <input type="text" value={filter.kind} placeholder="any (deploy, cm…)" onChange={(event) => set('kind')(event.target.value)} data-testid="changes-kind" />
        </label>
        <label>
          User <input type="text" value={filter.user} placeholder="anyone" onChange={(event) => set('user')(event.target.value)} data-testid="changes-user" />
        </label>
        <label>
          Since{' '}
          <select value={filter.since} onChange={(event) => set('since')(event.target.value)} data-testid="changes-since">
            {SINCE_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <span className="hint" data-testid="changes-count">
          {feed === undefined ? 'loading…' : `${rows.length} change${rows.length === 1 ? '' : 's'}`}
        </span>
      </div>
      {error && (
        <div className="banner error" data-testid="changes-error">
          {error}
        </div>
      )}
      <div className="history-feed">
        <MiniTable testId="changes-table" columns={['When', 'Namespace', 'Object', 'Operation', 'By', 'Changes']}>
          {rows.map((row) => {
            const { target } = row.revision;
            return (
              <tr key={row.id} data-object={row.object} data-namespace={target.namespace} data-operation={row.revision.operation}>
                <td title={row.revision.time}>
                  <Age timestamp={row.revision.time} /> ago
                </td>
                <td>{target.namespace || <span className="hint">cluster</span>}</td>
                <td>
                  <a href={formatRoute({ view: 'detail', kindKey: kindKeyOf(target), namespace: target.namespace || undefined, name: target.name, tab: 'history' })}>{row.object}</a>
                </td>
                <td>{row.operation}</td>
                <td>{row.by}</td>
                <td className="message">{row.changes}</td>
              </tr>
            );
          })}
        </MiniTable>
        {feed !== undefined && rows.length === 0 && <div className="hint empty-note">No changes match.</div>}
      </div>
    </HistoryPages>
  );
}
