// `kubectl get portforwards` (kubedesk.dev/v1alpha1 PortForward): the API server's Table and the
// UI's list print the same columns from this one definition.
import type { KubeObject } from '../kubernetes/types';
import { ageColumn, column, nameColumn } from './columns';
import { recordAt, stringAt, valueAt } from './fields';
import { age, name, textOrNone } from './format';
import type { TableDef } from './table';

/** spec.target's kind and name, '' where absent. */
export function portForwardTarget(forward: KubeObject): { kind: string; name: string } {
  return { kind: stringAt(forward, 'spec', 'target', 'kind'), name: stringAt(forward, 'spec', 'target', 'name') };
}

/** `pod/web-abc` or `service/web`, as kubectl names objects. */
export function portForwardTargetText(forward: KubeObject): string {
  const target = portForwardTarget(forward);
  return target.kind && target.name ? `${target.kind.toLowerCase()}/${target.name}` : '<none>';
}

/** `127.0.0.1:<port>` once the forward listens, else undefined. */
export function portForwardLocalAddress(forward: KubeObject): string | undefined {
  const localPort = valueAt(forward, 'status', 'localPort');
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
    const status = recordAt(forward, 'status');
    return [
      name(forward),
      portForwardTargetText(forward),
      textOrNone(valueAt(forward, 'spec', 'port')),
      portForwardLocalAddress(forward) ?? '<none>',
      textOrNone(status.phase, 'Waiting'),
      age(forward, now),
      textOrNone(status.pod),
      textOrNone(status.message, ''),
    ];
  },
};
