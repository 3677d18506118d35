// `kubectl get portforwards` (kubedesk.dev/v1alpha1 PortForward): the API server's Table and the
// UI's list print the same columns from this one definition.
import type { KubeObject } from '../kubernetes/types';
import { isRecord } from '../kubernetes/types';
import { ageColumn, column, nameColumn } from './columns';
import { age, name } from './format';
import type { TableDef } from './table';

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function cell(value: unknown, none = '<none>'): string {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return none;
}

/** `pod/web-abc` or `service/web`, as kubectl names objects. */
export function portForwardTargetText(forward: KubeObject): string {
  const target = record(record(forward.spec).target);
  const kind = typeof target.kind === 'string' ? target.kind.toLowerCase() : '';
  const targetName = typeof target.name === 'string' ? target.name : '';
  return kind && targetName ? `${kind}/${targetName}` : '<none>';
}

/** `127.0.0.1:<port>` once the forward listens, else undefined. */
export function portForwardLocalAddress(forward: KubeObject): string | undefined {
  const localPort = record(forward.status).localPort;
  return typeof localPort === 'number' && Number.isInteger(localPort) && localPort > 0 ? `127.0.0.1:${localPort}` : undefined;
}

export const portForwardTable: TableDef = {
  columns: [
    nameColumn(),
    column('Target', 'string', 'The Pod or Service the connections go to'),
    column('Port', 'string', 'The port of the target, by number or name'),
    column('Local', 'string', 'The address kubedesk listens on'),
    column('Status', 'string', 'Active, Waiting (no ready pod behind the target) or Failed (the local port cannot be opened)'),
    ageColumn(),
    column('Pod', 'string', 'The pod new connections go to', { priority: 1 }),
    column('Message', 'string', 'Why the forward is not active', { priority: 1 }),
  ],
  row(forward, now) {
    const status = record(forward.status);
    return [
      name(forward),
      portForwardTargetText(forward),
      cell(record(forward.spec).port),
      portForwardLocalAddress(forward) ?? '<none>',
      cell(status.phase, 'Waiting'),
      age(forward, now),
      cell(status.pod),
      cell(status.message, ''),
    ];
  },
};
