// Settings → Clusters: the kubeconfig contexts this app can show (from GET /ui/clusters: server,
// how the user authenticates, TLS verification, read-only) and the local kubedesk clusters
// (GET /ui/local-clusters, as `kubedesk cluster list` shows them) with Create (name, nodes),
// Start, Stop, Open and Delete after a confirmation. A created cluster's context kubedesk-<name>
// appears in the picker once it is in the kubeconfig.
import { useCallback, useEffect, useState } from 'react';
import { useAppState, useServices } from '../../context';
import { useDialogs } from '../../components/Modal';
import { choiceName, clusterGroup, orderClusters, serverHost, type ClusterEntry } from '../../api/clusters';
import { localClusterActions, localClusterNameProblem, parseLocalClusters, statusMessage, type LocalCluster } from './clusterModel';
import { loadClusterList } from './ClusterPicker';
import { parseJson } from '../../api/kubeClient';
import { ReadOnlySwitch } from './ReadOnlySwitch';

const AUTH_WORDS: Record<ClusterEntry['authKind'], string> = {
  'client-certificate': 'client certificate',
  token: 'token',
  'token-file': 'token file',
  exec: 'credential plugin (exec)',
  basic: 'user name and password',
  'auth-provider': 'auth-provider (not supported)',
  none: 'none',
};

/** How often the list is re-read while a local cluster is starting. */
const STARTING_POLL_MS = 2000;

export function ClusterSettings() {
  return (
    <>
      <KubeconfigClusters />
      <LocalClusters />
    </>
  );
}

function KubeconfigClusters() {
  const { store } = useServices();
  const list = useAppState((state) => state.clusterList);
  const current = useAppState((state) => state.cluster);
  useEffect(() => {
    void loadClusterList(store);
  }, [store]);
  return (
    <fieldset className="settings-group cluster-settings" data-testid="settings-clusters">
      <legend>Clusters</legend>
      {!list && <p className="hint">This server lists no other clusters.</p>}
      {list?.error && <p className="banner warn">{list.error}</p>}
      {list && (
        <>
          <p className="hint">From {list.kubeconfigFiles.length ? list.kubeconfigFiles.join(', ') : 'the kubeconfig'}. Credentials stay in the app; this page never sees them.</p>
          <table>
            <thead>
              <tr>
                <th>Context</th>
                <th>Server</th>
                <th>Signs in with</th>
                <th>Writes</th>
              </tr>
            </thead>
            <tbody>
              {orderClusters(list.clusters).map((entry) => (
                <tr key={entry.name} data-testid={`settings-cluster-${entry.name}`}>
                  <td>
                    {entry.name}
                    {choiceName(entry) === current && <span className="hint"> (shown)</span>}
                    {entry.self && <span className="hint"> — this cluster</span>}
                    {clusterGroup(entry) === 'local' && <span className="hint"> — local</span>}
                  </td>
                  <td>
                    {serverHost(entry.server)}
                    {entry.insecure && <div className="tone-warn">⚠ TLS verification off (insecure-skip-tls-verify)</div>}
                  </td>
                  <td>
                    {AUTH_WORDS[entry.authKind]}
                    {entry.impersonate?.user && <div className="hint">as {entry.impersonate.user}</div>}
                  </td>
                  <td>
                    <ReadOnlySwitch cluster={entry} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </fieldset>
  );
}

function LocalClusters() {
  const { store } = useServices();
  const switchCluster = useAppState((state) => state.switchCluster);
  const dialogs = useDialogs();
  const [clusters, setClusters] = useState<LocalCluster[] | undefined>(undefined);
  const [unavailable, setUnavailable] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [name, setName] = useState('');
  const [nodes, setNodes] = useState(1);

  const reload = useCallback(async () => {
    try {
      const response = await fetch('/ui/local-clusters', { credentials: 'same-origin', cache: 'no-store' });
      if (response.status === 404) {
        setUnavailable(true);
        return;
      }
      const body = (await response.json()) as unknown;
      if (!response.ok) throw new Error(statusMessage(body, response.status));
      setClusters(parseLocalClusters(body));
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);
  const starting = clusters?.some((cluster) => cluster.state === 'starting') ?? false;
  useEffect(() => {
    if (!starting) return;
    const timer = setInterval(() => void reload(), STARTING_POLL_MS);
    return () => clearInterval(timer);
  }, [starting, reload]);

  const send = async (label: string, method: string, path: string, body?: unknown) => {
    setBusy(label);
    setError('');
    try {
      const response = await fetch(path, { method, credentials: 'same-origin', headers: body === undefined ? {} : { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!response.ok) {
        throw new Error(statusMessage(parseJson(await response.text()), response.status));
      }
      return true;
    } catch (failure) {
      setError(`${label}: ${failure instanceof Error ? failure.message : String(failure)}`);
      return false;
    } finally {
      setBusy(undefined);
      await reload();
      // a created or deleted cluster's context comes or goes in the picker
      void loadClusterList(store);
    }
  };
  const problem = name ? localClusterNameProblem(name) : undefined;
  const create = async () => {
    if (await send(`Create ${name}`, 'POST', '/ui/local-clusters', { name, nodes })) setName('');
  };
  const act = async (cluster: LocalCluster, action: 'start' | 'stop' | 'delete') => {
    const path = `/ui/local-clusters/${encodeURIComponent(cluster.name)}`;
    if (action === 'delete') {
      const sure = await dialogs.confirm(`Delete the local cluster ${cluster.name}?`, `Its objects, its containers and its data directory (${cluster.dataDir}) are removed, and the context ${cluster.context} leaves the kubeconfig. This cannot be undone.`);
      if (sure) await send(`Delete ${cluster.name}`, 'DELETE', path);
      return;
    }
    await send(`${action === 'start' ? 'Start' : 'Stop'} ${cluster.name}`, 'POST', `${path}/${action}`);
  };

  return (
    <fieldset className="settings-group cluster-settings" data-testid="settings-local-clusters">
      <legend>Local kubedesk clusters</legend>
      {unavailable && <p className="hint">This server does not manage local clusters.</p>}
      {error && (
        <p className="banner error" role="alert" data-testid="local-cluster-error">
          {error}
        </p>
      )}
      {!unavailable && clusters && clusters.length === 0 && <p className="hint">None yet — create one below (as `kubedesk cluster create NAME` does).</p>}
      {!unavailable && clusters && clusters.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Nodes</th>
              <th>Address</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {clusters.map((cluster) => (
              <tr key={cluster.name} data-testid={`local-cluster-${cluster.name}`}>
                <td>
                  {cluster.name}
                  <div className="hint">{cluster.context}</div>
                </td>
                <td className={cluster.state === 'running' ? 'tone-ok' : cluster.state === 'starting' ? 'tone-warn' : 'hint'} data-testid={`local-cluster-state-${cluster.name}`}>
                  {cluster.state}
                </td>
                <td>{cluster.nodes}</td>
                <td>{cluster.port !== undefined ? `127.0.0.1:${cluster.port}` : '—'}</td>
                <td className="cluster-actions">
                  {localClusterActions(cluster).map((action) => (
                    <button
                      key={action}
                      className={action === 'delete' ? 'danger' : ''}
                      disabled={busy !== undefined}
                      onClick={() => (action === 'open' ? switchCluster(cluster.context) : void act(cluster, action))}
                      data-testid={`local-cluster-${action}-${cluster.name}`}
                    >
                      {action === 'open' ? 'Show' : action[0].toUpperCase() + action.slice(1)}
                    </button>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {!unavailable && (
        <form
          className="cluster-create"
          onSubmit={(event) => {
            event.preventDefault();
            if (!problem && name) void create();
          }}
        >
          <label>
            Name
            <input value={name} onChange={(event) => setName(event.target.value.trim())} placeholder="e.g. staging" aria-invalid={problem ? true : undefined} data-testid="local-cluster-name" />
          </label>
          <label>
            Nodes
            <input type="number" min={1} max={10} value={nodes} onChange={(event) => setNodes(Math.max(1, Math.min(10, Number(event.target.value) || 1)))} data-testid="local-cluster-nodes" />
          </label>
          <button className="primary" type="submit" disabled={!name || problem !== undefined || busy !== undefined} data-testid="local-cluster-create">
            {busy?.startsWith('Create') ? 'Creating…' : 'Create and start'}
          </button>
          {problem && <span className="error-text">{problem}</span>}
        </form>
      )}
      {dialogs.element}
    </fieldset>
  );
}
