// Hooks that feed the diagnosis engine from the watch caches: the context of a kind (watching the
// caches a view needs while it is mounted, reading the others when some view keeps them), and the
// last log lines of the container a diagnosis points at (fetched once per reason, the previous
// instance of a crash-looping container, as `kubedesk why` does).
import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { logKey, type Diagnosis, type DiagnosisContext, type DiagnosisInput, type LogRequest } from '../../../shared/diagnosis';
import { useAppState, useServices } from '../../context';
import { builtinKinds, kindByKey } from '../../kinds';
import { INPUT_KEYS, diagnosisContextOf, diagnosisKeys } from './diagnosisModel';

/**
 * The diagnosis context of `kind` from the caches: `watchKeys` are watched while mounted, every
 * other cache the diagnosis reads is used when another view keeps it filled.
 */
export function useDiagnosisContext(kind: string, watchKeys: readonly string[], leaveOut: readonly DiagnosisInput[] = []): DiagnosisContext {
  const { watches } = useServices();
  const watched = watchKeys.join(',');
  useEffect(() => {
    const releases = watched
      .split(',')
      .map((key) => kindByKey(builtinKinds, key))
      .flatMap((config) => (config ? [watches.acquire(config)] : []));
    return () => releases.forEach((release) => release());
  }, [watches, watched]);
  const left = leaveOut.join(',');
  // a left-out cache is not even subscribed to: its changes do not re-render the view
  const keys = useMemo(() => {
    const skipped = new Set(left ? left.split(',').map((input) => INPUT_KEYS[input as DiagnosisInput]) : []);
    return diagnosisKeys(kind).filter((key) => !skipped.has(key));
  }, [kind, left]);
  const collections = useAppState(useShallow((state) => Object.fromEntries(keys.map((key) => [key, state.collections[key]]))));
  return useMemo(() => diagnosisContextOf(kind, collections, new Date(), left ? (left.split(',') as DiagnosisInput[]) : []), [kind, collections, left]);
}

const LOG_LINES = 5;

/** The last log lines for a diagnosis's log request, fetched once per reason (the reason changes with each restart). */
export function useLogLines(diagnosis: Diagnosis | undefined): ReadonlyMap<string, readonly string[]> | undefined {
  const { client } = useServices();
  const request: LogRequest | undefined = diagnosis && !diagnosis.healthy ? diagnosis.logRequest : undefined;
  const fetchKey = request ? `${logKey(request.namespace, request.pod, request.container)}|${request.previous}|${diagnosis?.reason ?? ''}` : '';
  const [logs, setLogs] = useState<{ key: string; lines: string[] } | undefined>(undefined);
  useEffect(() => {
    if (!request || !fetchKey) return;
    const abort = new AbortController();
    const path = `/api/v1/namespaces/${encodeURIComponent(request.namespace)}/pods/${encodeURIComponent(request.pod)}/log`;
    client.text(path, { query: { container: request.container, tailLines: String(LOG_LINES), ...(request.previous ? { previous: 'true' } : {}) }, signal: abort.signal }).then(
      (text) => {
        const lines = text.split('\n');
        if (lines[lines.length - 1] === '') lines.pop();
        setLogs({ key: fetchKey, lines: lines.slice(-LOG_LINES) });
      },
      // no log to read (the container never ran, or is gone): the diagnosis stands without it
      () => undefined,
    );
    return () => abort.abort();
    // the request's fields are all in fetchKey
  }, [client, fetchKey]);
  return useMemo(() => {
    if (!request || !logs || logs.key !== fetchKey) return undefined;
    return new Map([[logKey(request.namespace, request.pod, request.container), logs.lines]]);
  }, [logs, fetchKey]);
}
