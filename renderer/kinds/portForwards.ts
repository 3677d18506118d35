// PortForwards (kubedesk.dev/v1alpha1): kubedesk's own kind for a port on 127.0.0.1 forwarded to
// a Pod or Service port. The columns are the API server's printer for the kind (shared/printers),
// so the list reads like `kubectl get portforwards`.
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import { portForwardLocalAddress, portForwardTable } from '../../shared/printers/portForward';
import type { KindConfig, Tone } from './kindConfig';

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function cell(value: unknown, none = '<none>'): string {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return none;
}

export type PortForwardPhase = 'Active' | 'Waiting' | 'Failed';

export function portForwardPhase(forward: KubeObject): PortForwardPhase {
  const phase = record(forward.status).phase;
  return phase === 'Active' || phase === 'Failed' ? phase : 'Waiting';
}

export function portForwardTone(forward: KubeObject): Tone {
  const phase = portForwardPhase(forward);
  return phase === 'Active' ? 'ok' : phase === 'Failed' ? 'error' : 'warn';
}

/** `pod/web-abc` or `service/web`, as kubectl names objects. */
export function portForwardTarget(forward: KubeObject): { kind: string; name: string } {
  const target = record(record(forward.spec).target);
  return { kind: typeof target.kind === 'string' ? target.kind : '', name: typeof target.name === 'string' ? target.name : '' };
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
    const status = record(forward.status);
    const target = portForwardTarget(forward);
    const link = target.kind === 'Pod' ? 'pods' : target.kind === 'Service' ? 'services' : undefined;
    return [
      { label: 'Target', value: `${target.kind.toLowerCase()}/${target.name}`, link: link && target.name ? { kindKey: link, namespace: forward.metadata.namespace, name: target.name } : undefined },
      { label: 'Port', value: cell(record(forward.spec).port) },
      { label: 'Local address', value: localAddress(forward) ?? '<none>' },
      { label: 'Status', value: portForwardPhase(forward), tone: portForwardTone(forward) },
      ...(typeof status.message === 'string' && status.message ? [{ label: 'Message', value: status.message }] : []),
      ...(typeof status.pod === 'string' && status.pod ? [{ label: 'Pod', value: status.pod, link: { kindKey: 'pods', namespace: forward.metadata.namespace, name: status.pod } }] : []),
    ];
  },
};
