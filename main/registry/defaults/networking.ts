// Defaults for networking.k8s.io/v1 (pkg/apis/networking/v1/defaults.go): NetworkPolicy ports
// default to TCP and policyTypes to Ingress (plus Egress when egress rules exist); IngressClass
// parameters default to the Cluster scope.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { entries, existing, isAbsent, setDefault } from './fields';

export function defaultNetworkPolicy(obj: KubeObject): void {
  const spec = existing(obj, 'spec');
  if (!spec) return;
  setDefault(spec, 'podSelector', {});
  for (const direction of ['ingress', 'egress']) {
    for (const rule of entries(spec, direction)) for (const port of entries(rule, 'ports')) setDefault(port, 'protocol', 'TCP');
  }
  if (isAbsent(spec.policyTypes) || (Array.isArray(spec.policyTypes) && spec.policyTypes.length === 0)) {
    const types = ['Ingress'];
    if (Array.isArray(spec.egress) && spec.egress.length > 0) types.push('Egress');
    spec.policyTypes = types;
  }
}

export function defaultIngressClass(obj: KubeObject): void {
  const parameters = existing(existing(obj, 'spec') ?? {}, 'parameters');
  if (parameters) setDefault(parameters, 'scope', 'Cluster');
}
