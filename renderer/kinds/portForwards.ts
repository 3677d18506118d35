// PortForwards (kubedesk.dev/v1alpha1): kubedesk's own kind for a port on 127.0.0.1 forwarded to
// a Pod or Service port. The columns are the API server's printer for the kind (shared/printers),
// so the list reads like `kubectl get portforwards`.
import type { KubeObject } from '../../shared/kubernetes/types';
import { recordAt, valueAt } from '../../shared/printers/fields';
import { textOrNone } from '../../shared/printers/format';
import { portForwardLocalAddress, portForwardTable, portForwardTarget } from '../../shared/printers/portForward';
import type { KindConfig, Tone } from './kindConfig';

export { portForwardTarget };

export type PortForwardPhase = 'Active' | 'Waiting' | 'Failed';

export function portForwardPhase(forward: KubeObject): PortForwardPhase {
  const phase = valueAt(forward, 'status', 'phase');
  return phase === 'Active' || phase === 'Failed' ? phase : 'Waiting';
}

export function portForwardTone(forward: KubeObject): Tone {
  const phase = portForwardPhase(forward);
  return phase === 'Active' ? 'ok' : phase === 'Failed' ? 'error' : 'warn';
}

export const localAddress = portForwardLocalAddress;

export const portForwards: KindConfig = {
  key: 'portforwards.kubedesk.dev',
  kind: 'PortForward',
  group: 'kubedesk.dev',
  version: 'v1alpha1',
  plural: 'portforwards',
  namespaced: true,
  title: 'Port forwards',
  section: 'Network',
  inSidebar: false,
  table: portForwardTable,
  statusColumn: 'Status',
  shortNames: ['pf'],
  tone: portForwardTone,
  summary(forward) {
    const status = recordAt(forward, 'status');
    const target = portForwardTarget(forward);
    const link = target.kind === 'Pod' ? 'pods' : target.kind === 'Service' ? 'services' : undefined;
    return [
      { label: 'Target', value: `${target.kind.toLowerCase()}/${target.name}`, link: link && target.name ? { kindKey: link, namespace: forward.metadata.namespace, name: target.name } : undefined },
      { label: 'Port', value: textOrNone(valueAt(forward, 'spec', 'port')) },
      { label: 'Local address', value: localAddress(forward) ?? '<none>' },
      { label: 'Status', value: portForwardPhase(forward), tone: portForwardTone(forward) },
      ...(typeof status.message === 'string' && status.message ? [{ label: 'Message', value: status.message }] : []),
      ...(typeof status.pod === 'string' && status.pod ? [{ label: 'Pod', value: status.pod, link: { kindKey: 'pods', namespace: forward.metadata.namespace, name: status.pod } }] : []),
    ];
  },
};
