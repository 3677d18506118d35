// The disconnected state: while the API server does not answer, a strip under the top bar says
// since when, that what the page shows is as of then, and when the next attempt runs (with a
// button to try now); the content is greyed as stale (App.tsx). Nothing shows while online.
// On a relayed kubeconfig context it says why in plain words, from the relay's status: cannot
// reach host:port, certificate not trusted (with its SHA-256 fingerprint), credentials refused,
// exec plugin missing or failing (what it printed) — and a context that skips TLS verification
// keeps a warning strip while it is shown.
import { useAppState, useNow, useServices } from '../context';
import { insecureWarning, stateWords } from '../api/clusters';

function clockTime(milliseconds: number): string {
  return new Date(milliseconds).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function ConnectionBanner() {
  return (
    <>
      <InsecureStrip />
      <OfflineBanner />
    </>
  );
}

/** The chosen context skips TLS verification (its kubeconfig entry, or the relay's warnings). */
function InsecureStrip() {
  const cluster = useAppState((state) => state.cluster);
  const entry = useAppState((state) => state.clusterList?.clusters.find((candidate) => !candidate.self && candidate.name === state.cluster));
  const warnings = useAppState((state) => state.clusterStatus?.warnings);
  if (cluster === '') return null;
  const lines = [...new Set([...(entry ? [insecureWarning(entry)] : []), ...(warnings ?? [])].filter((line): line is string => Boolean(line)))];
  if (lines.length === 0) return null;
  return (
    <div className="cluster-warning-strip" role="status" data-testid="cluster-warning">
      {lines.map((line) => (
        <div key={line}>⚠ {line}</div>
      ))}
    </div>
  );
}

function OfflineBanner() {
  const connection = useAppState((state) => state.connection);
  const cluster = useAppState((state) => state.cluster);
  const status = useAppState((state) => state.clusterStatus);
  const server = useAppState((state) => state.clusterList?.clusters.find((candidate) => !candidate.self && candidate.name === state.cluster)?.server);
  const services = useServices();
  const now = useNow(1000);
  if (connection.state !== 'offline') return null;
  const seconds = connection.nextAttemptAt === undefined ? undefined : Math.max(0, Math.ceil((connection.nextAttemptAt - now.getTime()) / 1000));
  const words = cluster !== '' && status ? stateWords(status, cluster, server) : undefined;
  return (
    <div className={`connection-banner${words ? ' cluster-state' : ''}`} role="alert" data-testid="connection-banner" data-state={words ? status?.state : 'offline'}>
      <span className="connection-dot" aria-hidden="true" />
      {words ? (
        <div className="cluster-state-words">
          <strong data-testid="cluster-state-title">{words.title}</strong>
          <span> — {words.advice}</span>
          {words.message && <div className="hint" data-testid="cluster-state-message">{words.message}</div>}
          {words.fingerprint && (
            <div>
              SHA-256 fingerprint of the server’s certificate: <code data-testid="cluster-state-fingerprint">{words.fingerprint}</code>
            </div>
          )}
          {words.stderr && <pre className="cluster-state-stderr" data-testid="cluster-state-stderr">{words.stderr}</pre>}
        </div>
      ) : (
        <>
          <strong>Disconnected from the cluster</strong>
          <span>
            {connection.lostAt !== undefined ? ` since ${clockTime(connection.lostAt)}` : ''} — the data shown is as of then and may be out of date.
          </span>
        </>
      )}
      <span className="connection-retry" data-testid="connection-retry-in">
        {seconds === undefined || seconds === 0 ? 'Reconnecting…' : `Reconnecting in ${seconds} s`}
        {connection.attempts > 0 ? ` (attempt ${connection.attempts + 1})` : ''}
      </span>
      <button onClick={() => services.connection?.retryNow()} data-testid="connection-retry">
        Retry now
      </button>
    </div>
  );
}
