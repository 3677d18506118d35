// The lists' time slider: choose a past moment (a slider over the history's span, or a typed time
// as `kubedesk get --as-of` takes it: 10m, 2h or RFC 3339) and the list shows the kind as it was
// then, from the history API's pastobjects — read-only, marked as a past view. A time before the
// history starts says so (the API's 410). usePastList reads the past list for a chosen time.
import { useEffect, useState } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { translateTimestampSince } from '../../../shared/printers/duration';
import { filterByNamespaces, useServices } from '../../context';
import type { KindConfig } from '../../kinds/kindConfig';
import { parseHistoryTime } from '../../../shared/history/historyFormat';
import { readHistoryStart, readPastList, SLIDER_SPANS, SLIDER_STEPS, sliderPosition, sliderTime } from './historyModel';

export function usePastList(config: KindConfig, time: number | undefined, namespaces: string[]): { items: KubeObject[]; loading: boolean; error?: string } {
  const { client } = useServices();
  const [state, setState] = useState<{ items: KubeObject[]; loading: boolean; error?: string }>({ items: [], loading: false });
  const namespace = namespaces.length === 1 ? namespaces[0] : undefined;
  const namespacesKey = namespaces.join(',');
  useEffect(() => {
    if (time === undefined) {
      setState({ items: [], loading: false });
      return;
    }
    const abort = new AbortController();
    setState((current) => ({ ...current, loading: true }));
    const timer = setTimeout(() => {
      readPastList(client, config, namespace, time, abort.signal).then(
        (items) => setState({ items: filterByNamespaces(items, config.namespaced, namespaces), loading: false }),
        (failure: unknown) => {
          if (!abort.signal.aborted) setState({ items: [], loading: false, error: failure instanceof Error ? failure.message : String(failure) });
        },
      );
    }, 200);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [client, config, namespace, namespacesKey, time]);
  return state;
}

export function TimeSlider({ config, time, onTime }: { config: KindConfig; time: number | undefined; onTime(time: number | undefined): void }) {
  const { client } = useServices();
  const [start, setStart] = useState<number | undefined>(undefined);
  const [span, setSpan] = useState<(typeof SLIDER_SPANS)[number]['id']>('all');
  // the slider's right end: the moment it opened (a moving end would move every position)
  const [end, setEnd] = useState(() => Date.now());
  const [typed, setTyped] = useState('');
  const [typedError, setTypedError] = useState<string | undefined>(undefined);

  useEffect(() => {
    const abort = new AbortController();
    void readHistoryStart(client, config, abort.signal).then((found) => {
      if (!abort.signal.aborted) setStart(found);
    });
    return () => abort.abort();
  }, [client, config]);

  const spanMs = SLIDER_SPANS.find((candidate) => candidate.id === span)?.ms;
  const from = spanMs !== undefined ? end - spanMs : (start ?? end - 3_600_000);
  const position = time === undefined ? SLIDER_STEPS : sliderPosition(time, from, end);
  const applyTyped = () => {
    if (typed.trim() === '') return;
    const parsed = parseHistoryTime(typed, Date.now());
    if (parsed === undefined) {
      setTypedError('a duration such as 10m or 2h, or an RFC 3339 time');
      return;
    }
    setTypedError(undefined);
    onTime(parsed);
  };

  return (
    <div className="time-slider" role="group" aria-label="Time travel" data-testid="time-slider" data-start={new Date(from).toISOString()} data-end={new Date(end).toISOString()}>
      <label>
        Span{' '}
        <select value={span} onChange={(event) => setSpan(event.target.value as typeof span)} data-testid="time-span">
          {SLIDER_SPANS.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.label}
            </option>
          ))}
        </select>
      </label>
      <span className="hint">{new Date(from).toLocaleString()}</span>
      <input
        type="range"
        min={0}
        max={SLIDER_STEPS}
        step={1}
        value={position}
        aria-label="Moment to show"
        aria-valuetext={time === undefined ? 'now (live)' : new Date(time).toLocaleString()}
        onChange={(event) => {
          const next = Number(event.target.value);
          onTime(next >= SLIDER_STEPS ? undefined : sliderTime(next, from, end));
        }}
        data-testid="time-range"
      />
      <span className="hint">now</span>
      <label>
        As of{' '}
        <input
          type="text"
          value={typed}
          placeholder="10m, 2h or 2026-01-02T15:04:05Z"
          onChange={(event) => setTyped(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') applyTyped();
          }}
          aria-invalid={typedError !== undefined}
          data-testid="time-typed"
        />
      </label>
      <button onClick={applyTyped} data-testid="time-go">
        Show
      </button>
      <button
        onClick={() => {
          setEnd(Date.now());
          setTyped('');
          onTime(undefined);
        }}
        disabled={time === undefined}
        data-testid="time-live"
      >
        Back to live
      </button>
      {typedError && <span className="tone-error" role="alert">{typedError}</span>}
    </div>
  );
}

/** The banner over a past list: when it shows, that it is read-only, and why it may be empty. */
export function PastBanner({ time, loading, error, count }: { time: number; loading: boolean; error?: string; count: number }) {
  const when = new Date(time);
  return (
    <div className={`banner ${error ? 'error' : 'warn'} past-banner`} role="status" data-testid="list-past-banner" data-time={when.toISOString()}>
      <strong>Past view</strong> — as it was at {when.toLocaleString()} ({translateTimestampSince(when.toISOString(), new Date())} ago), read-only.{' '}
      {loading ? 'Loading…' : error ? error : `${count} object${count === 1 ? '' : 's'} then.`}
    </div>
  );
}
