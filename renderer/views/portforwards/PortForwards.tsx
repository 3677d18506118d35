// #/portforwards: every PortForward in the cluster, live from its watch, with where it listens,
// its status, and Open / Stop (delete) — as `kubectl get portforwards -A` plus the two actions
// one wants on each row. The empty state explains the two ways to start one.
import { useMemo, useState } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { useAppState, useCollection, useServices } from '../../context';
import { resourcePath } from '../../kinds/kindConfig';
import { localAddress, portForwardPhase, portForwards, portForwardTarget, portForwardTone } from '../../kinds/portForwards';
import { openExternalLink } from '../../terminals/ShellTerminal';
import { compareForwards, forwardUrl } from './portForwardModel';

import { errorText } from '../../actions/actions';
import { usePermissions } from '../permissions/usePermissions';
import { refusal } from '../permissions/permissionsModel';

export function PortForwards() {
  const collection = useCollection(portForwards);
  const forwards = useMemo(() => Object.values(collection.items).sort(compareForwards), [collection.items]);
  return (
    <section className="list-view portforwards-view">
      <div className="view-header">
        <h1>Port forwards</h1>
        <span className="count">{forwards.length}</span>
      </div>
      {collection.phase === 'error' && <div className="banner error">{collection.error}</div>}
      {forwards.length === 0 ? (
        <EmptyForwards loading={collection.phase === 'loading'} />
      ) : (
        <div className="forward-table" role="table" aria-label="Port forwards">
          <div className="forward-row head" role="row">
            <span role="columnheader">Name</span>
            <span role="columnheader">Target</span>
            <span role="columnheader">Port</span>
            <span role="columnheader">Local address</span>
            <span role="columnheader">Status</span>
            <span role="columnheader">
              <span className="visually-hidden">Actions</span>
            </span>
          </div>
          {forwards.map((forward) => (
            <ForwardRow key={`${forward.metadata.namespace ?? ''}/${forward.metadata.name ?? ''}`} forward={forward} />
          ))}
        </div>
      )}
    </section>
  );
}

function ForwardRow({ forward }: { forward: KubeObject }) {
  const { client } = useServices();
  const navigate = useAppState((state) => state.navigate);
  const notify = useAppState((state) => state.notify);
  const [stopping, setStopping] = useState(false);
  const target = portForwardTarget(forward);
  const namespace = forward.metadata.namespace ?? 'default';
  const name = forward.metadata.name ?? '';
  const can = usePermissions();
  const stopRefused = refusal(can, [{ verb: 'delete', group: portForwards.group, resource: portForwards.plural, namespace, name }]);
  const phase = portForwardPhase(forward);
  const url = forwardUrl(forward);
  const status = (forward.status ?? {}) as Record<string, unknown>;
  const message = typeof status.message === 'string' ? status.message : '';
  const targetKey = target.kind === 'Pod' ? 'pods' : target.kind === 'Service' ? 'services' : undefined;
  const spec = (forward.spec ?? {}) as Record<string, unknown>;
  const stop = async () => {
    setStopping(true);
    try {
      await client.delete(resourcePath(portForwards, namespace, name));
    } catch (error) {
      setStopping(false);
      notify('error', `Could not stop ${name}: ${errorText(error)}`);
    }
  };
  return (
    <div className={`forward-row${stopping || forward.metadata.deletionTimestamp ? ' deleting' : ''}`} role="row" data-testid="portforward-row" data-name={name}>
      <span className="cell name" role="cell">
        <a href={`#/${portForwards.key}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`}>{name}</a>
        <span className="hint"> {namespace}</span>
      </span>
      <span className="cell" role="cell">
        {targetKey ? (
          <a
            href="#"
            onClick={(event) => {
              event.preventDefault();
              navigate({ view: 'detail', kindKey: targetKey, namespace, name: target.name });
            }}
          >
            {target.kind.toLowerCase()}/{target.name}
          </a>
        ) : (
          `${target.kind}/${target.name}`
        )}
        {typeof status.pod === 'string' && status.pod && status.pod !== target.name && <span className="hint"> → {status.pod}</span>}
      </span>
      <span className="cell mono" role="cell">
        {String(spec.port ?? '')}
      </span>
      <span className="cell mono" role="cell">
        {localAddress(forward) ?? '—'}
      </span>
      <span className="cell" role="cell" title={message}>
        <span className={`tone-${portForwardTone(forward) ?? 'muted'}`} data-testid="portforward-phase">
          {phase}
        </span>
        {message && <span className="hint forward-message"> {message}</span>}
      </span>
      <span className="cell actions" role="cell">
        <button className="primary" disabled={phase !== 'Active' || !url} onClick={() => url && openExternalLink(url)} data-testid="portforward-open">
          Open
        </button>
        <button className="danger" disabled={stopping || stopRefused !== undefined} title={stopRefused} onClick={() => void stop()} data-testid="portforward-stop">
          Stop
        </button>
      </span>
    </div>
  );
}

function EmptyForwards({ loading }: { loading: boolean }) {
  if (loading) return <div className="empty">Loading…</div>;
  return (
    <div className="empty" data-testid="portforwards-empty">
      <p>No port forwards yet.</p>
      <p className="hint">
        Open a Pod or a Service and press <strong>Forward</strong> next to one of its ports: kubedesk listens on a port of 127.0.0.1 and sends every connection to the pod — a new pod of the same workload
        when the old one is replaced.
      </p>
      <p className="hint">
        Or with kubectl: <code>kubectl create -f</code> a <code>PortForward</code> (kubedesk.dev/v1alpha1) with <code>spec.target</code> and <code>spec.port</code>, then{' '}
        <code>kubectl get portforwards</code> shows its local address.
      </p>
    </div>
  );
}
