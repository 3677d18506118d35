// One read of the history API for a view: the answer or the error's words, read again when the
// inputs change or on demand (reload) — and, when it failed like the network (Chromium drops
// requests in flight when the host's interfaces change; the server restarted), read again after a
// short pause, as a watch resumes, instead of leaving the view on a one-off error.
import { useCallback, useEffect, useState } from 'react';
import { isConnectionFailure } from '../../api/kubeClient';

export const HISTORY_READ_RETRY_MS = 2_000;

export interface HistoryRead<T> {
  data: T | undefined;
  error: string | undefined;
  reload(): void;
}

export function useHistoryRead<T>(read: (signal: AbortSignal) => Promise<T>, inputs: readonly unknown[]): HistoryRead<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    let retry: ReturnType<typeof setTimeout> | undefined;
    read(abort.signal).then(
      (loaded) => {
        setData(loaded);
        setError(undefined);
      },
      (failure: unknown) => {
        if (abort.signal.aborted) return;
        setError(failure instanceof Error ? failure.message : String(failure));
        if (isConnectionFailure(failure)) retry = setTimeout(() => setReloads((count) => count + 1), HISTORY_READ_RETRY_MS);
      },
    );
    return () => {
      abort.abort();
      clearTimeout(retry);
    };
    // the caller's inputs decide when to read again (read itself is a new closure every render)
  }, [...inputs, reloads]);

  const reload = useCallback(() => setReloads((count) => count + 1), []);
  return { data, error, reload };
}
