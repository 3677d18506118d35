// The disconnected state: while the API server does not answer, a strip under the top bar says
// since when, that what the page shows is as of then, and when the next attempt runs (with a
// button to try now); the content is greyed as stale (App.tsx). Nothing shows while online.
import { useAppState, useNow, useServices } from '../context';

function clockTime(milliseconds: number): string {
  return new Date(milliseconds).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function ConnectionBanner() {
  const connection = useAppState((state) => state.connection);
  const services = useServices();
  const now = useNow(1000);
  if (connection.state !== 'offline') return null;
  const seconds = connection.nextAttemptAt === undefined ? undefined : Math.max(0, Math.ceil((connection.nextAttemptAt - now.getTime()) / 1000));
  return (
    <div className="connection-banner" role="alert" data-testid="connection-banner">
      <span className="connection-dot" aria-hidden="true" />
      <strong>Disconnected from the cluster</strong>
      <span>
        {connection.lostAt !== undefined ? ` since ${clockTime(connection.lostAt)}` : ''} — the data shown is as of then and may be out of date.
      </span>
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
