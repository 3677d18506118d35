// #/helm: the Helm releases of every namespace (or of the selected ones), as `helm list -A --all`
// shows them — name, namespace, revision, updated, status, chart, app version — read from Helm's
// own release Secrets, live from their watch. No helm binary and no Helm plugin: the records are
// Helm's storage format (shared/helm/releaseStorage.ts).
import { useMemo } from 'react';
import { chartLabel, latestReleases } from '../../../shared/helm/releaseStorage';
import { translateTimestampSince } from '../../../shared/printers/duration';
import { useAppState, useNow } from '../../context';
import { formatRoute } from '../../store/routes';
import { releaseTone } from './helmModel';
import { useHelmReleases } from './useHelmReleases';

export function HelmReleases() {
  const { releases, broken, loading, error } = useHelmReleases();
  const selected = useAppState((state) => state.selectedNamespaces);
  const now = useNow(5000);
  const rows = useMemo(() => latestReleases(releases).filter((release) => selected.length === 0 || selected.includes(release.namespace)), [releases, selected]);
  return (
    <section className="list-view helm-view">
      <div className="view-header">
        <h1>Helm releases</h1>
        <span className="count">{rows.length}</span>
      </div>
      {error && <div className="banner error">{error}</div>}
      {broken.map((entry) => (
        <div key={entry.secret} className="banner warn">
          Secret {entry.secret} is not a readable Helm release: {entry.error}
        </div>
      ))}
      {rows.length === 0 ? (
        loading ? (
          <div className="empty">Loading…</div>
        ) : (
          <div className="empty" data-testid="helm-empty">
            <p>No Helm releases{selected.length > 0 ? ' in the selected namespaces' : ''}.</p>
            <p className="hint">
              Install a chart with <code>helm install NAME CHART</code>: helm keeps each revision in a Secret of type <code>helm.sh/release.v1</code>, which this page reads.
            </p>
          </div>
        )
      ) : (
        <table className="mini-table helm-table card" data-testid="helm-releases">
          <thead>
            <tr>
              <th>Name</th>
              <th>Namespace</th>
              <th>Revision</th>
              <th>Updated</th>
              <th>Status</th>
              <th>Chart</th>
              <th>App version</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((release) => (
              <tr key={`${release.namespace}/${release.name}`} data-testid="helm-release-row" data-name={release.name} data-namespace={release.namespace}>
                <td>
                  <a href={formatRoute({ view: 'helmRelease', namespace: release.namespace, name: release.name })}>{release.name}</a>
                </td>
                <td>{release.namespace}</td>
                <td className="mono" data-testid="helm-revision">
                  {release.version}
                </td>
                <td title={release.lastDeployed}>{release.lastDeployed ? `${translateTimestampSince(release.lastDeployed, now)} ago` : '—'}</td>
                <td>
                  <span className={`tone-${releaseTone(release.status) ?? 'muted'}`} data-testid="helm-status">
                    {release.status}
                  </span>
                  {!release.listed && <span className="hint"> (helm list --all)</span>}
                </td>
                <td className="mono">{chartLabel(release)}</td>
                <td className="mono">{release.appVersion}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
