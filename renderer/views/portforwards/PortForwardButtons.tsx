// "Forward" buttons on a Pod's or Service's page: one per TCP port (and a free-form port), each
// creating a PortForward object that the cluster's listener serves, then "Open" once the forward
// is Active. A forward that already exists for the port is shown instead of creating another.
import { useState } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { KubeApiError } from '../../api/kubeClient';
import { useAppState, useCollection, useServices } from '../../context';
import { resourcePath, type KindConfig } from '../../kinds/kindConfig';
import { localAddress, portForwardPhase, portForwards, portForwardTone } from '../../kinds/portForwards';
import { openExternalLink } from '../../terminals/ShellTerminal';
import { errorText } from '../../actions/actions';
import { usePermissions } from '../permissions/usePermissions';
import { refusal } from '../permissions/permissionsModel';
import { findForward, forwardablePorts, forwardUrl, parsePortInput, portForwardBody, type TargetKind } from './portForwardModel';

function targetKindOf(config: KindConfig): TargetKind | undefined {
  if (config.group !== '') return undefined;
  return config.kind === 'Pod' ? 'Pod' : config.kind === 'Service' ? 'Service' : undefined;
}

/** Creates the forward `<target>-<port>`, or reuses it when it already forwards the same port. */
export async function startForward(client: ReturnType<typeof useServices>['client'], namespace: string, target: { kind: TargetKind; name: string }, port: number | string): Promise<KubeObject> {
  const path = resourcePath(portForwards, namespace);
  try {
    return await client.create<KubeObject>(path, portForwardBody(namespace, target, port));
  } catch (error) {
    if (!(error instanceof KubeApiError) || error.code !== 409) throw error;
  }
  const existing = await client.get<KubeObject>(resourcePath(portForwards, namespace, portForwardBody(namespace, target, port).metadata.name)).catch(() => undefined);
  if (existing && findForward([existing], namespace, target, port)) return existing;
  return client.create<KubeObject>(path, portForwardBody(namespace, target, port, { generateName: true }));
}

export function PortForwardButtons({ config, object }: { config: KindConfig; object: KubeObject }) {
  const { client } = useServices();
  const notify = useAppState((state) => state.notify);
  const collection = useCollection(portForwards);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [customPort, setCustomPort] = useState('');
  const can = usePermissions();
  const discovered = useAppState((state) => state.discovered);
  const discoveryLoaded = useAppState((state) => state.discoveryLoaded);
  const kind = targetKindOf(config);
  if (!kind) return null;
  const namespace = object.metadata.namespace ?? 'default';
  // a PortForward object where the cluster serves the kind; elsewhere kubedesk forwards through pods/portforward itself
  const servesKind = !discoveryLoaded || discovered.some((resource) => resource.group === portForwards.group && resource.plural === portForwards.plural);
  const refused = refusal(can, [servesKind ? { verb: 'create', group: portForwards.group, resource: portForwards.plural, namespace } : { verb: 'create', group: '', resource: 'pods', subresource: 'portforward', namespace }]);
  const target = { kind, name: object.metadata.name ?? '' };
  const forwards = Object.values(collection.items);
  const ports = forwardablePorts(kind, object);

  const start = async (port: number | string) => {
    setBusy(String(port));
    try {
      const created = await startForward(client, namespace, target, port);
      notify('ok', `Forwarding ${kind.toLowerCase()}/${target.name} port ${port} (${created.metadata.name ?? ''})`);
    } catch (error) {
      notify('error', `Could not forward port ${port}: ${errorText(error)}`);
    } finally {
      setBusy(undefined);
    }
  };

  const custom = parsePortInput(customPort);
  return (
    <div className="forward-buttons" data-testid="forward-buttons">
      {ports.map((port) => {
        const existing = findForward(forwards, namespace, target, port.port) ?? (port.name ? findForward(forwards, namespace, target, port.name) : undefined);
        const label = port.name ? `${port.port}/${port.name}` : String(port.port);
        return (
          <div className="forward-port" key={port.port}>
            {existing ? (
              <ForwardStatus forward={existing} port={port.port} label={label} />
            ) : (
              <button onClick={() => void start(port.port)} disabled={busy !== undefined || refused !== undefined} title={refused ?? (port.container ? `container ${port.container}` : undefined)} data-testid={`forward-${port.port}`}>
                {busy === String(port.port) ? <span className="spinner" /> : '⇄'} Forward {label}
              </button>
            )}
          </div>
        );
      })}
      <form
        className="forward-custom"
        onSubmit={(event) => {
          event.preventDefault();
          if (custom !== undefined) {
            void start(custom);
            setCustomPort('');
          }
        }}
      >
        <input value={customPort} onChange={(event) => setCustomPort(event.target.value)} placeholder="port" aria-label="Port to forward" size={7} data-testid="forward-custom-port" />
        <button type="submit" disabled={custom === undefined || busy !== undefined || refused !== undefined} title={refused} data-testid="forward-custom">
          Forward
        </button>
      </form>
    </div>
  );
}

function ForwardStatus({ forward, port, label }: { forward: KubeObject; port: number; label: string }) {
  const phase = portForwardPhase(forward);
  const url = forwardUrl(forward);
  const message = typeof (forward.status as Record<string, unknown> | undefined)?.message === 'string' ? String((forward.status as Record<string, unknown>).message) : undefined;
  return (
    <span className="forward-status" data-testid={`forwarded-${port}`}>
      <span className="mono">{label}</span> → <span className="mono">{localAddress(forward) ?? '…'}</span>{' '}
      <span className={`tone-${portForwardTone(forward) ?? 'muted'}`} title={message}>
        {phase}
      </span>
      {phase === 'Active' && url && (
        <button className="primary" onClick={() => openExternalLink(url)} data-testid={`forward-open-${port}`}>
          Open
        </button>
      )}
    </span>
  );
}
