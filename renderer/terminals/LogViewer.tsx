// The log view of the dock: one pod's log, or several pods' logs merged by time (the backlog read
// from every pod and merged by timestamp, then new lines merged per frame) with each line prefixed
// by its pod's name in a stable colour; a workload's tab picks which of its pods to show (all,
// following new ones, by default). Search highlights and steps through matches, or shows only the
// matching lines (grep). Not a terminal: a virtualised list of its own
// over a bounded ring of lines (lineStore.ts), so 100,000 lines scroll smoothly and a chatty pod
// cannot grow memory without bound. Lines arriving from the sockets are appended once per
// animation frame; only the lines on screen are in the DOM. Follow keeps the view at the bottom
// while it is there, as `kubectl logs -f` in a terminal does.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { desktopBridge } from '../../shared/desktopBridge';
import { useServices } from '../context';
import { LogPodPicker, usePickedPods } from './LogPodPicker';
import { displayText, downloadText, LineStore, mergeByTimestamp, podColor, type LogLine } from './lineStore';
import { buildRowOffsets, isAtBottom, lineAtRow, visibleLines } from './logLayout';
import { highlightParts, SearchState } from './logSearch';
import { LogStream, type PodStreamState } from './logStream';
import { ContainerSelect } from './ContainerSelect';
import { usePodContainers } from './usePodContainers';

const ROW_HEIGHT = 18;
const CAPACITY = 200_000;
const SEARCH_DELAY_MS = 200;

export interface LogViewerProps {
  namespace: string;
  pods: string[];
  container?: string;
  previous: boolean;
  visible: boolean;
  title: string;
  /** a workload's pod selector: the tab offers its current pods to pick from */
  selector?: Record<string, string>;
}

export function LogViewer({ namespace, pods: initialPods, container: initialContainer, previous: initialPrevious, visible, title, selector }: LogViewerProps) {
  const { client, connection } = useServices();
  const picker = usePickedPods(namespace, initialPods, selector);
  const pods = selector ? picker.shown : initialPods;
  const containers = usePodContainers(namespace, pods.length > 0 ? pods : initialPods);
  const [container, setContainer] = useState<string | undefined>(initialContainer);
  const [previous, setPrevious] = useState(initialPrevious);
  const [follow, setFollow] = useState(true);
  const [wrap, setWrap] = useState(false);
  const [timestamps, setTimestamps] = useState(false);
  const [searchInput, setSearchInput] = useState('');
  const [searchText, setSearchText] = useState('');
  const [onlyMatching, setOnlyMatching] = useState(false);
  const [version, setVersion] = useState(0);
  const [streamStates, setStreamStates] = useState<PodStreamState[]>([]);
  const [viewport, setViewport] = useState({ width: 800, height: 300, scrollTop: 0 });
  const [characterWidth, setCharacterWidth] = useState(7.2);
  const storeRef = useRef(new LineStore(CAPACITY));
  const pendingRef = useRef<LogLine[]>([]);
  const frameRef = useRef<number | undefined>(undefined);
  const bodyRef = useRef<HTMLDivElement>(null);
  const measureRef = useRef<HTMLSpanElement>(null);
  const followRef = useRef(follow);
  followRef.current = follow;
  const anchorRef = useRef<{ line: number; offset: number } | undefined>(undefined);

  const chosen = container ?? containers?.defaultName;
  const ready = initialContainer !== undefined || containers !== undefined;
  const podKey = pods.join('\n');
  const podNames = useMemo(() => (podKey ? podKey.split('\n') : []), [podKey]);

  // the stream: restarted (and the buffer emptied) when the container or previous changes
  useEffect(() => {
    if (!ready || podNames.length === 0) return;
    const store = storeRef.current;
    store.clear();
    pendingRef.current = [];
    setVersion((value) => value + 1);
    setFollow(true);
    const flush = () => {
      frameRef.current = undefined;
      const pending = pendingRef.current;
      if (pending.length === 0) return;
      pendingRef.current = [];
      // lines of several pods that arrived in the same frame go in by time
      let lines = pending;
      if (podNames.length > 1) {
        const groups: LogLine[][] = podNames.map(() => []);
        for (const line of pending) groups[line.source]?.push(line);
        lines = mergeByTimestamp(groups);
      }
      store.pushAll(lines);
      setVersion((value) => value + 1);
    };
    const stream = new LogStream({
      client,
      namespace,
      pods: podNames,
      containerOf: () => chosen,
      previous,
      tailLines: CAPACITY,
      mergeBacklog: podNames.length > 1,
      onLines(lines) {
        const pending = pendingRef.current;
        for (const line of lines) pending.push(line);
        // a burst larger than the ring would be dropped anyway: keep only what can be shown
        if (pending.length > CAPACITY * 2) pendingRef.current = pending.slice(-CAPACITY);
        if (frameRef.current === undefined) frameRef.current = requestAnimationFrame(flush);
      },
      onState: setStreamStates,
      connection,
    });
    return () => {
      stream.close();
      if (frameRef.current !== undefined) cancelAnimationFrame(frameRef.current);
      frameRef.current = undefined;
    };
  }, [client, namespace, podNames, chosen, previous, ready]);

  useEffect(() => {
    const timer = setTimeout(() => setSearchText(searchInput), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [searchInput]);

  // the viewport's size and the font's character width (for wrapping estimates)
  useLayoutEffect(() => {
    const body = bodyRef.current;
    if (!body) return;
    const measure = () => {
      if (body.clientWidth === 0) return;
      setViewport((current) => ({ ...current, width: body.clientWidth, height: body.clientHeight }));
      const sample = measureRef.current;
      if (sample && sample.offsetWidth > 0) setCharacterWidth(sample.offsetWidth / 100);
    };
    const observer = new ResizeObserver(measure);
    observer.observe(body);
    measure();
    return () => observer.disconnect();
  }, []);

  const store = storeRef.current;
  const showPods = podNames.length > 1;
  const textOptions = useMemo(() => ({ timestamps, podNames: showPods ? podNames : undefined }), [timestamps, showPods, podNames]);
  const columns = wrap ? Math.max(10, Math.floor((viewport.width - 16) / characterWidth)) : undefined;
  const first = store.first;

  // search: rebuilt when the query changes, extended as lines arrive
  const search = useMemo(() => (searchText ? new SearchState({ text: searchText, ...textOptions }) : undefined), [searchText, textOptions]);
  const [, setMatchStep] = useState(0);
  useMemo(() => search?.update(store), [search, store, version]);
  const currentMatch = search?.currentLine;

  // the lines shown: all held, or only the matching ones (their absolute numbers)
  const filtered = onlyMatching && search ? search.matches : undefined;
  const shownCount = filtered ? filtered.length : store.length;
  const absoluteAt = useCallback((index: number) => (filtered ? filtered[index] : first + index), [filtered, first]);
  const indexOfAbsolute = useCallback(
    (absolute: number): number => {
      if (!filtered) return absolute - first;
      let low = 0;
      let high = filtered.length - 1;
      while (low <= high) {
        const middle = (low + high) >> 1;
        if (filtered[middle] === absolute) return middle;
        if (filtered[middle] < absolute) low = middle + 1;
        else high = middle - 1;
      }
      return low;
    },
    [filtered, first],
  );
  // `version` stands for the buffer's contents, which change in place
  const offsets = useMemo(() => buildRowOffsets(shownCount, (index) => displayText(store.line(absoluteAt(index)) ?? { text: '', source: 0 }, textOptions).length, columns), [version, columns, textOptions, shownCount, absoluteAt, store]);
  const totalRows = offsets[offsets.length - 1];

  const scrollToLine = useCallback(
    (absolute: number) => {
      const body = bodyRef.current;
      if (!body) return;
      const index = indexOfAbsolute(absolute);
      if (index < 0 || index >= shownCount) return;
      setFollow(false);
      const top = Math.max(0, offsets[index] * ROW_HEIGHT - body.clientHeight / 2);
      // the scroll event comes later: the anchor must point here already, or the next render
      // would put the view back where the last scroll event left it
      const topLine = lineAtRow(offsets, Math.floor(top / ROW_HEIGHT));
      anchorRef.current = { line: absoluteAt(topLine), offset: top - offsets[topLine] * ROW_HEIGHT };
      body.scrollTop = top;
    },
    [offsets, indexOfAbsolute, absoluteAt, shownCount],
  );

  const stepMatch = useCallback(
    (direction: 1 | -1) => {
      if (!search) return;
      const line = search.step(direction);
      setMatchStep((value) => value + 1);
      if (line !== undefined) scrollToLine(line);
    },
    [search, scrollToLine],
  );

  useEffect(() => {
    // a new query shows its first match (nearest the end would hide earlier ones)
    if (search && search.currentLine !== undefined && search.matches.length > 0) scrollToLine(search.currentLine);
    // only when the query changes, not on every scroll
  }, [search]);

  // follow: stay at the bottom; not following: keep the top line in place while old lines drop
  useLayoutEffect(() => {
    const body = bodyRef.current;
    if (!body || !visible) return;
    if (follow) {
      body.scrollTop = body.scrollHeight;
      return;
    }
    const anchor = anchorRef.current;
    if (anchor && anchor.line >= store.first) {
      const index = Math.min(indexOfAbsolute(anchor.line), shownCount - 1);
      if (index < 0) return;
      const wanted = offsets[index] * ROW_HEIGHT + anchor.offset;
      if (Math.abs(body.scrollTop - wanted) > 1) body.scrollTop = wanted;
    }
  }, [offsets, follow, visible, store, indexOfAbsolute, shownCount]);

  const onScroll = useCallback(() => {
    const body = bodyRef.current;
    if (!body) return;
    const atBottom = isAtBottom(body.scrollTop, body.clientHeight, body.scrollHeight);
    if (atBottom !== followRef.current) setFollow(atBottom);
    const range = visibleLines(offsets, ROW_HEIGHT, body.scrollTop, 0, 0);
    anchorRef.current = { line: absoluteAt(range.start), offset: body.scrollTop - offsets[range.start] * ROW_HEIGHT };
    setViewport((current) => ({ ...current, scrollTop: body.scrollTop }));
  }, [offsets, absoluteAt]);

  const jumpToEnd = () => {
    setFollow(true);
    const body = bodyRef.current;
    if (body) body.scrollTop = body.scrollHeight;
  };

  const download = async () => {
    const text = downloadText(store, textOptions);
    const name = `${title.replace(/[^\w.-]+/g, '_') || 'logs'}.log`;
    const bridge = desktopBridge();
    if (bridge) {
      await bridge.saveFile(name, text);
      return;
    }
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  const range = visibleLines(offsets, ROW_HEIGHT, viewport.scrollTop, viewport.height);
  const rendered: ReactNode[] = [];
  for (let index = range.start; index < range.end; index++) {
    const absolute = absoluteAt(index);
    const line = store.line(absolute);
    if (!line) continue;
    rendered.push(<LogRow key={absolute} line={line} top={offsets[index] * ROW_HEIGHT} podName={showPods ? podNames[line.source] : undefined} timestamps={timestamps} query={searchText} current={absolute === currentMatch} />);
  }
  const names = containers?.names ?? (initialContainer ? [initialContainer] : []);
  const problems = streamStates.filter((state) => state.phase !== 'streaming' && state.message);
  const matchCount = search?.matches.length ?? 0;
  const matchIndex = search ? search.current + 1 : 0;

  return (
    <div className={`log-view${wrap ? ' wrap' : ''}`} data-testid="logs">
      <div className="dock-toolbar">
        {selector && <LogPodPicker picker={picker} shown={pods} />}
        <ContainerSelect names={names} value={chosen} onChange={setContainer} testId="log-container" />
        <label className="toggle">
          <input type="checkbox" checked={follow} onChange={(event) => (event.target.checked ? jumpToEnd() : setFollow(false))} data-testid="log-follow" /> Follow
        </label>
        <label className="toggle">
          <input type="checkbox" checked={previous} onChange={(event) => setPrevious(event.target.checked)} data-testid="log-previous" /> Previous
        </label>
        <label className="toggle">
          <input type="checkbox" checked={timestamps} onChange={(event) => setTimestamps(event.target.checked)} data-testid="log-timestamps" /> Timestamps
        </label>
        <label className="toggle">
          <input type="checkbox" checked={wrap} onChange={(event) => setWrap(event.target.checked)} data-testid="log-wrap" /> Wrap
        </label>
        <span className="dock-search">
          <input
            value={searchInput}
            placeholder="Search"
            aria-label="Search the log"
            data-testid="log-search"
            onChange={(event) => setSearchInput(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                if (searchInput !== searchText) setSearchText(searchInput);
                else stepMatch(event.shiftKey ? -1 : 1);
              }
              if (event.key === 'Escape') setSearchInput('');
            }}
          />
          {searchText && (
            <span className="hint" data-testid="log-match-count">
              {matchCount === 0 ? 'no matches' : `${matchIndex} of ${matchCount}`}
            </span>
          )}
          <button className="ghost" onClick={() => stepMatch(-1)} disabled={matchCount === 0} title="Previous match (Shift+Enter)" data-testid="log-search-previous">
            ↑
          </button>
          <button className="ghost" onClick={() => stepMatch(1)} disabled={matchCount === 0} title="Next match (Enter)" data-testid="log-search-next">
            ↓
          </button>
        </span>
        <label className="toggle" title="Show only the lines that match the search (as grep does)">
          <input type="checkbox" checked={onlyMatching} onChange={(event) => setOnlyMatching(event.target.checked)} data-testid="log-only-matching" /> Only matching
        </label>
        <div className="dock-spacer" />
        <span className="hint" data-testid="log-count">
          {filtered ? `${shownCount.toLocaleString()} of ${store.length.toLocaleString()} lines` : `${store.length.toLocaleString()} lines`}
        </span>
        <button className="ghost" onClick={() => void download()} title="Download the lines held" data-testid="log-download">
          ⤓ Download
        </button>
      </div>
      {store.first > 0 && (
        <div className="log-note" data-testid="log-dropped">
          {store.first.toLocaleString()} older lines were dropped; the newest {CAPACITY.toLocaleString()} are kept.
        </div>
      )}
      {problems.map((state) => (
        <div className="log-note" key={state.pod} data-testid="log-stream-state">
          {showPods ? `${state.pod}: ` : ''}
          {state.message}
        </div>
      ))}
      <div className="log-body" ref={bodyRef} onScroll={onScroll} tabIndex={0} data-testid="log-body">
        <span className="log-measure mono" ref={measureRef} aria-hidden="true">
          {'x'.repeat(100)}
        </span>
        <div className="log-spacer" style={{ height: totalRows * ROW_HEIGHT }}>
          {rendered}
        </div>
        {store.length === 0 && <div className="log-empty hint">{podNames.length === 0 ? 'No pods picked.' : ready ? 'No log lines yet.' : 'Loading…'}</div>}
        {store.length > 0 && filtered && shownCount === 0 && <div className="log-empty hint">No line matches “{searchText}”.</div>}
      </div>
      {!follow && (
        <button className="primary log-jump" onClick={jumpToEnd} data-testid="log-jump-end">
          ↓ Jump to end
        </button>
      )}
    </div>
  );
}

function LogRow({ line, top, podName, timestamps, query, current }: { line: LogLine; top: number; podName?: string; timestamps: boolean; query: string; current: boolean }) {
  const prefix = podName !== undefined ? `${podName} ` : '';
  const stamp = timestamps && line.timestamp ? `${line.timestamp} ` : '';
  // highlight over the whole shown text, so a match across prefix and message still shows
  const parts = highlightParts(`${prefix}${stamp}${line.text}`, query);
  const pieces: ReactNode[] = [];
  let position = 0;
  parts.forEach((part, partIndex) => {
    const start = position;
    const end = position + part.text.length;
    position = end;
    const segments: Array<{ from: number; to: number; className: string }> = [
      { from: 0, to: prefix.length, className: 'log-pod' },
      { from: prefix.length, to: prefix.length + stamp.length, className: 'log-time' },
      { from: prefix.length + stamp.length, to: Number.MAX_SAFE_INTEGER, className: '' },
    ];
    for (const [segmentIndex, segment] of segments.entries()) {
      const from = Math.max(start, segment.from);
      const to = Math.min(end, segment.to);
      if (from >= to) continue;
      const text = part.text.slice(from - start, to - start);
      const style = segment.className === 'log-pod' && podName ? { color: podColor(podName) } : undefined;
      const content = part.match ? <mark>{text}</mark> : text;
      pieces.push(
        segment.className ? (
          <span key={`${partIndex}.${segmentIndex}`} className={segment.className} style={style}>
            {content}
          </span>
        ) : (
          <span key={`${partIndex}.${segmentIndex}`}>{content}</span>
        ),
      );
    }
  });
  return (
    <div className={`log-line${current ? ' current-match' : ''}`} style={{ top }} data-testid="log-line">
      {pieces}
    </div>
  );
}
