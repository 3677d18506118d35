// Defaults for discovery.k8s.io/v1 EndpointSlices (pkg/apis/discovery/v1/defaults.go:
// port name "" and protocol TCP). Leases and events.k8s.io Events have no defaults.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { entries, setDefault } from './fields';

export function defaultEndpointSlice(obj: KubeObject): void {
  for (const port of entries(obj, 'ports')) {
    setDefault(port, 'name', '');
    setDefault(port, 'protocol', 'TCP');
  }
}
