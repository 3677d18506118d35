// `kubectl get` tables for networking.k8s.io/v1 kinds: upstream pkg/printers/internalversion/printers.go
// printIngress, printIngressClass and printNetworkPolicy.
import type { TableDef } from './table';
import { ageColumn, column, nameColumn } from './columns';
import { arrayAt, hasValue, stringAt, valueAt } from './fields';
import { age, compareStrings, formatLabelSelector, name } from './format';

/** formatHosts: up to three hosts, then ` + N more...`; `*` when no rule names a host. */
export function ingressHosts(ingress: unknown): string {
  const rules = arrayAt(ingress, 'spec', 'rules');
  const maximum = 3;
  const list: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (list.length === maximum) more = true;
    const host = stringAt(rule, 'host');
    if (!more && host !== '') list.push(host);
  }
  if (list.length === 0) return '*';
  const text = list.join(',');
  return more ? `${text} + ${rules.length - maximum} more...` : text;
}

/** ingressLoadBalancerStatusStringer, wide (the server always prints wide): sorted unique IPs or hostnames. */
export function ingressAddress(ingress: unknown): string {
  const result = new Set<string>();
  for (const entry of arrayAt(ingress, 'status', 'loadBalancer', 'ingress')) {
    const ip = stringAt(entry, 'ip');
    const hostname = stringAt(entry, 'hostname');
    if (ip !== '') result.add(ip);
    else if (hostname !== '') result.add(hostname);
  }
  return [...result].sort(compareStrings).join(',');
}

export const ingressTable: TableDef = {
  columns: [
    nameColumn(),
    column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    ageColumn(),
  ],
  row(object, now) {
    return [
      name(object),
      hasValue(object, 'spec', 'ingressClassName') ? stringAt(object, 'spec', 'ingressClassName') : '<none>',
      ingressHosts(object),
      ingressAddress(object),
      arrayAt(object, 'spec', 'tls').length > 0 ? '80, 443' : '80',
      age(object, now),
    ];
  },
};

export const ingressClassTable: TableDef = {
  columns: [
    nameColumn(),
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    ageColumn(),
  ],
  row(object, now) {
    let parameters = '<none>';
    const reference = valueAt(object, 'spec', 'parameters');
    if (hasValue(reference)) {
      parameters = stringAt(reference, 'kind');
      if (hasValue(reference, 'apiGroup')) parameters += `.${stringAt(reference, 'apiGroup')}`;
      parameters += `/${stringAt(reference, 'name')}`;
    }
    return [name(object), stringAt(object, 'spec', 'controller'), parameters, age(object, now)];
  },
};

export const networkPolicyTable: TableDef = {
  columns: [
    nameColumn(),
    column('Pod-Selector', 'string', 'Selects the pods to which this NetworkPolicy object applies.'),
    ageColumn(),
  ],
  row(object, now) {
    return [name(object), formatLabelSelector(valueAt(object, 'spec', 'podSelector') ?? {}), age(object, now)];
  },
};
