// #/helm/NAMESPACE/NAME[/tab]: one Helm release — status (what `helm status` prints, with the
// notes), values (`helm get values`, user-supplied and computed with --all), manifest (`helm get
// manifest`), resources (the manifest's objects, linked to their pages) and history (`helm
// history`), with Rollback (per revision) and Uninstall, performed as helm performs them
// (actions/helmReleaseActions.ts).
import { useEffect, useMemo, useState } from 'react';
import { chartLabel, computedValues, releaseHistories, type HelmRelease } from '../../../shared/helm/releaseStorage';
import { translateTimestampSince } from '../../../shared/printers/duration';
import { errorText } from '../../actions/actions';
import { usePermissions } from '../permissions/usePermissions';
import { refusal } from '../permissions/permissionsModel';
import { KubeApiError } from '../../api/kubeClient';
import { rollbackRelease, uninstallRelease } from '../../actions/helmReleaseActions';
import { useDialogs } from '../../components/Modal';
import { useAppState, useNow, useServices } from '../../context';
import { formatRoute } from '../../store/routes';
import { Card, MiniTable } from '../detail/cards';
import { releaseResources, releaseTone, valuesYaml } from './helmModel';
import { useHelmReleases } from './useHelmReleases';

const TABS = [
  { id: 'status', title: 'Status' },
  { id: 'values', title: 'Values' },
  { id: 'manifest', title: 'Manifest' },
  { id: 'resources', title: 'Resources' },
  { id: 'history', title: 'History' },
];

export function HelmReleaseView({ namespace, name, tab }: { namespace: string; name: string; tab?: string }) {
  const { releases, loading } = useHelmReleases();
  const history = useMemo(() => releaseHistories(releases).get(`${namespace}/${name}`) ?? [], [releases, namespace, name]);
  const current = history[history.length - 1];
  const active = TABS.some((entry) => entry.id === tab) ? (tab as string) : 'status';
  if (!current) {
    return (
      <section className="detail">
        <div className="empty" data-testid="helm-release-missing">
          {loading ? 'Loading…' : `Release “${name}” in namespace ${namespace} does not exist (or was uninstalled).`} <a href={formatRoute({ view: 'helm' })}>All releases</a>
        </div>
      </section>
    );
  }
  return (
    <section className="detail helm-release" aria-label={`Helm release ${name}`}>
      <ReleaseHeader release={current} />
      <nav className="detail-tabs" role="tablist">
        {TABS.map((entry) => (
          <a
            key={entry.id}
            role="tab"
            aria-selected={entry.id === active}
            href={formatRoute({ view: 'helmRelease', namespace, name, tab: entry.id === 'status' ? undefined : entry.id })}
            className={entry.id === active ? 'active' : ''}
            data-testid={`helm-tab-${entry.id}`}
          >
            {entry.title}
          </a>
        ))}
      </nav>
      <div className="detail-body">
        {active === 'status' && <StatusTab release={current} />}
        {active === 'values' && <ValuesTab release={current} />}
        {active === 'manifest' && (
          <pre className="code-block" data-testid="helm-manifest">
            {current.manifest}
          </pre>
        )}
        {active === 'resources' && <ResourcesTab release={current} />}
        {active === 'history' && <HistoryTab history={history} />}
      </div>
    </section>
  );
}

function ReleaseHeader({ release }: { release: HelmRelease }) {
  const { client, store } = useServices();
  const discovered = useAppState((state) => state.discovered);
  const notify = useAppState((state) => state.notify);
  const navigate = useAppState((state) => state.navigate);
  const dialogs = useDialogs();
  const [keepHistory, setKeepHistory] = useState(false);
  const [busy, setBusy] = useState(false);
  const can = usePermissions();
  // helm keeps a release's revisions as Secrets in its namespace: uninstall deletes them (or, keeping history, updates the last)
  const uninstallRefused = refusal(can, [{ verb: keepHistory ? 'update' : 'delete', group: '', resource: 'secrets', namespace: release.namespace }]);
  const uninstall = async () => {
    const detail =
      release.status === 'uninstalled'
        ? 'Its objects are gone already; this removes the history kept with --keep-history, as helm uninstall does.'
        : `Deletes every object of the release${keepHistory ? ' and keeps its history (helm uninstall --keep-history)' : ' and its history, as helm uninstall does'}.`;
    const ok = await dialogs.confirm(`Uninstall release ${release.name} from namespace ${release.namespace}?`, detail);
    if (!ok) return;
    setBusy(true);
    const task = store.getState().startTask(`Uninstalling ${release.name}`);
    try {
      const kept = await uninstallRelease({ client, discovered, onProgress: (message) => store.getState().updateTask(task, undefined, `Uninstalling ${release.name}: ${message}`) }, release.namespace, release.name, { keepHistory });
      notify('ok', `release "${release.name}" uninstalled${kept.length > 0 ? `; kept due to the resource policy: ${kept.join(', ')}` : ''}`);
      if (!keepHistory) navigate({ view: 'helm' });
    } catch (error) {
      notify('error', `Uninstall of ${release.name} failed: ${errorText(error)}`);
    } finally {
      store.getState().finishTask(task);
      setBusy(false);
    }
  };
  return (
    <header className="view-header detail-header">
      <span className="detail-kind">Helm release</span>
      <h1 data-testid="detail-name">{release.name}</h1>
      <a className="chip" href={formatRoute({ view: 'detail', kindKey: 'namespaces', name: release.namespace })} title="Namespace">
        {release.namespace}
      </a>
      <span className={`status-pill tone-${releaseTone(release.status) ?? 'muted'}`} data-testid="helm-release-status">
        {release.status}
      </span>
      <div className="detail-actions">
        <label className="helm-keep-history" title="helm uninstall --keep-history">
          <input type="checkbox" checked={keepHistory} onChange={(event) => setKeepHistory(event.target.checked)} data-testid="helm-keep-history" /> Keep history
        </label>
        <button
          className="danger-outline"
          disabled={busy || (release.status === 'uninstalled' && keepHistory) || uninstallRefused !== undefined}
          title={uninstallRefused ?? (release.status === 'uninstalled' ? 'Uninstalled with its history kept: uninstalling again removes the history' : undefined)}
          onClick={() => void uninstall()}
          data-testid="helm-uninstall"
        >
          Uninstall
        </button>
      </div>
      {dialogs.element}
    </header>
  );
}

function StatusTab({ release }: { release: HelmRelease }) {
  const now = useNow(5000);
  return (
    <div className="summary-grid">
      <Card title="Status" testId="helm-status-card">
        <dl className="fields">
          <dt>Name</dt>
          <dd className="mono">{release.name}</dd>
          <dt>Last deployed</dt>
          <dd title={release.lastDeployed}>{release.lastDeployed ? `${release.lastDeployed} (${translateTimestampSince(release.lastDeployed, now)} ago)` : '—'}</dd>
          <dt>Namespace</dt>
          <dd>{release.namespace}</dd>
          <dt>Status</dt>
          <dd className={`tone-${releaseTone(release.status) ?? 'muted'}`}>{release.status}</dd>
          <dt>Revision</dt>
          <dd className="mono">{release.version}</dd>
          <dt>Chart</dt>
          <dd className="mono">{chartLabel(release)}</dd>
          <dt>App version</dt>
          <dd className="mono">{release.appVersion || '—'}</dd>
          <dt>Description</dt>
          <dd>{release.description}</dd>
          {release.firstDeployed && (
            <>
              <dt>First deployed</dt>
              <dd>{release.firstDeployed}</dd>
            </>
          )}
        </dl>
      </Card>
      <Card title="Notes" wide testId="helm-notes">
        {release.notes ? <pre className="code-block">{release.notes}</pre> : <p className="hint">The chart has no NOTES.txt.</p>}
      </Card>
    </div>
  );
}

function ValuesTab({ release }: { release: HelmRelease }) {
  const computed = useMemo(() => valuesYaml(computedValues(release)), [release]);
  return (
    <div className="summary-grid">
      <Card title="User-supplied values (helm get values)" wide testId="helm-user-values">
        <pre className="code-block">{valuesYaml(release.config)}</pre>
      </Card>
      <Card title="Computed values (helm get values --all)" wide testId="helm-computed-values">
        <pre className="code-block">{computed}</pre>
      </Card>
    </div>
  );
}

/** The manifest's objects, each read once when the tab opens: present, or missing (deleted by hand). */
function ResourcesTab({ release }: { release: HelmRelease }) {
  const { client } = useServices();
  const discovered = useAppState((state) => state.discovered);
  const wantDiscovery = useAppState((state) => state.wantDiscovery);
  useEffect(() => wantDiscovery(), [wantDiscovery]);
  const resources = useMemo(() => releaseResources(release, discovered), [release, discovered]);
  const [present, setPresent] = useState<Record<string, boolean>>({});
  useEffect(() => {
    let current = true;
    void Promise.all(
      resources.map(async (resource) => {
        if (!resource.path) return [resource.path, undefined] as const;
        const found = await client.get(resource.path).then(
          () => true,
          (error: unknown) => (error instanceof KubeApiError && error.code === 404 ? false : undefined),
        );
        return [resource.path, found] as const;
      }),
    ).then((entries) => {
      if (current) setPresent(Object.fromEntries(entries.filter((entry): entry is readonly [string, boolean] => entry[0] !== undefined && entry[1] !== undefined)));
    });
    return () => {
      current = false;
    };
  }, [client, resources]);
  return (
    <Card title={`Resources (${resources.length})`} wide>
      <MiniTable testId="helm-resources" columns={['Kind', 'Name', 'Namespace', 'API version', 'In the cluster']}>
        {resources.map((resource) => {
          const state = resource.path === undefined ? undefined : present[resource.path];
          return (
            <tr key={`${resource.apiVersion}/${resource.kind}/${resource.namespace}/${resource.name}`} data-testid="helm-resource-row" data-present={state === undefined ? undefined : String(state)}>
              <td>{resource.kind}</td>
              <td>{resource.kindKey ? <a href={formatRoute({ view: 'detail', kindKey: resource.kindKey, namespace: resource.namespace || undefined, name: resource.name })}>{resource.name}</a> : resource.name}</td>
              <td>{resource.namespace || '—'}</td>
              <td className="mono">{resource.apiVersion}</td>
              <td className={state === false ? 'tone-error' : undefined}>{state === undefined ? '…' : state ? 'present' : 'missing'}</td>
            </tr>
          );
        })}
      </MiniTable>
    </Card>
  );
}

function HistoryTab({ history }: { history: HelmRelease[] }) {
  const { client, store } = useServices();
  const discovered = useAppState((state) => state.discovered);
  const notify = useAppState((state) => state.notify);
  const dialogs = useDialogs();
  const [busy, setBusy] = useState(false);
  const current = history[history.length - 1];
  const can = usePermissions();
  // a rollback writes a new revision Secret and marks the others superseded
  const rollbackRefused = refusal(can, [
    { verb: 'create', group: '', resource: 'secrets', namespace: current.namespace },
    { verb: 'update', group: '', resource: 'secrets', namespace: current.namespace },
  ]);
  const rollback = async (target: HelmRelease) => {
    const ok = await dialogs.confirm(`Roll back ${current.name} to revision ${target.version}?`, `Writes revision ${current.version + 1} with the chart, values and manifest of revision ${target.version} (${chartLabel(target)}), as helm rollback does.`);
    if (!ok) return;
    setBusy(true);
    const task = store.getState().startTask(`Rolling back ${current.name}`);
    try {
      const version = await rollbackRelease({ client, discovered, onProgress: (message) => store.getState().updateTask(task, undefined, `Rolling back ${current.name}: ${message}`) }, current.namespace, current.name, target.version);
      notify('ok', `Rollback was a success: ${current.name} is at revision ${version} (rolled back to ${target.version})`);
    } catch (error) {
      notify('error', errorText(error));
    } finally {
      store.getState().finishTask(task);
      setBusy(false);
    }
  };
  return (
    <Card title="History (helm history)" wide>
      <MiniTable testId="helm-history" columns={['Revision', 'Updated', 'Status', 'Chart', 'App version', 'Description', '']}>
        {[...history].reverse().map((release) => (
          <tr key={release.version} data-testid="helm-history-row" data-revision={release.version} data-status={release.status}>
            <td className="mono">{release.version}</td>
            <td>{release.lastDeployed ?? '—'}</td>
            <td className={`tone-${releaseTone(release.status) ?? 'muted'}`}>{release.status}</td>
            <td className="mono">{chartLabel(release)}</td>
            <td className="mono">{release.appVersion}</td>
            <td>{release.description}</td>
            <td className="row-actions">
              {(release.version !== current.version || current.status === 'uninstalled') && (
                <button disabled={busy || rollbackRefused !== undefined} title={rollbackRefused} onClick={() => void rollback(release)} data-testid={`helm-rollback-${release.version}`} aria-label={`Roll back to revision ${release.version}`}>
                  Roll back
                </button>
              )}
            </td>
          </tr>
        ))}
      </MiniTable>
      {dialogs.element}
    </Card>
  );
}
