// PLACEHOLDER (terminals engineer replaces this file): per-port "Forward" buttons for a pod or Service.
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { KindConfig } from '../../kinds/kindConfig';

export function PortForwardButtons(_props: { config: KindConfig; object: KubeObject }) {
  return null;
}
