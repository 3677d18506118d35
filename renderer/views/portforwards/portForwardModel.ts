// What the "Forward" buttons and the port-forward list work out: the ports a Pod (its containers'
// TCP ports) or a Service (its TCP ports) offers, the PortForward object to create for one of them
// (named `<target>-<port>` like kubectl's resource names, so a second click finds the first
// forward instead of opening another), and which existing forward serves a target's port. Pure.
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { portForwardTarget } from '../../kinds/portForwards';

export type TargetKind = 'Pod' | 'Service';

export interface ForwardablePort {
  /** what spec.port says: the number (names are shown, numbers are sent: both work for the API) */
  port: number;
  name?: string;
  /** the container's name (pods), for the label */
  container?: string;
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function isTcp(port: Record<string, unknown>): boolean {
  return (port.protocol ?? 'TCP') === 'TCP';
}

export function forwardablePorts(kind: TargetKind, object: KubeObject): ForwardablePort[] {
  const spec = isRecord(object.spec) ? object.spec : {};
  const ports: ForwardablePort[] = [];
  const seen = new Set<number>();
  if (kind === 'Pod') {
    for (const container of records(spec.containers)) {
      for (const port of records(container.ports)) {
        if (typeof port.containerPort !== 'number' || !isTcp(port) || seen.has(port.containerPort)) continue;
        seen.add(port.containerPort);
        ports.push({ port: port.containerPort, name: typeof port.name === 'string' ? port.name : undefined, container: typeof container.name === 'string' ? container.name : undefined });
      }
    }
  } else {
    for (const port of records(spec.ports)) {
      if (typeof port.port !== 'number' || !isTcp(port) || seen.has(port.port)) continue;
      seen.add(port.port);
      ports.push({ port: port.port, name: typeof port.name === 'string' ? port.name : undefined });
    }
  }
  return ports;
}

/** `1234`, or a port name; undefined for text that is neither (1–65535, or an IANA_SVC_NAME). */
export function parsePortInput(text: string): number | string | undefined {
  const value = text.trim();
  if (/^\d+$/.test(value)) {
    const port = Number(value);
    return port >= 1 && port <= 65535 ? port : undefined;
  }
  return /^[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?$/.test(value) && /[a-z]/.test(value) && !value.includes('--') ? value : undefined;
}

/** `<target>-<port>`, kept a valid object name (DNS subdomain, at most 253 characters). */
export function forwardName(targetName: string, port: number | string): string {
  const suffix = `-${port}`;
  return `${targetName.slice(0, 253 - suffix.length).replace(/[.-]+$/, '')}${suffix}`;
}

export function portForwardBody(namespace: string, target: { kind: TargetKind; name: string }, port: number | string, options: { generateName?: boolean; localPort?: number } = {}): KubeObject {
  const name = forwardName(target.name, port);
  return {
    apiVersion: 'kubedesk.dev/v1alpha1',
    kind: 'PortForward',
    metadata: options.generateName ? { generateName: `${name}-`, namespace } : { name, namespace },
    spec: { target: { kind: target.kind, name: target.name }, port, ...(options.localPort ? { localPort: options.localPort } : {}) },
  };
}

/** The forward (not being deleted) that already serves this target's port, if any. */
export function findForward(forwards: readonly KubeObject[], namespace: string, target: { kind: TargetKind; name: string }, port: number | string): KubeObject | undefined {
  return forwards.find((forward) => {
    if (forward.metadata.namespace !== namespace || forward.metadata.deletionTimestamp) return false;
    const current = portForwardTarget(forward);
    const spec = isRecord(forward.spec) ? forward.spec : {};
    return current.kind === target.kind && current.name === target.name && spec.port === port;
  });
}

/** status.url, when the forward is listening. */
export function forwardUrl(forward: KubeObject): string | undefined {
  const status = isRecord(forward.status) ? forward.status : {};
  return typeof status.url === 'string' && status.url !== '' ? status.url : undefined;
}

/** Sort key of the list: namespace, then name. */
export function compareForwards(left: KubeObject, right: KubeObject): number {
  const leftKey = `${left.metadata.namespace ?? ''}/${left.metadata.name ?? ''}`;
  const rightKey = `${right.metadata.namespace ?? ''}/${right.metadata.name ?? ''}`;
  return leftKey < rightKey ? -1 : leftKey > rightKey ? 1 : 0;
}
