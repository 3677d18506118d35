// The hand-off between the relay and the PortForward emulation (main/app/relay/portForwards): a
// cluster that does not serve kubedesk's own `kubedesk.dev/v1alpha1` PortForward kind (any
// cluster but kubedesk) gets it from the app's process instead, with listeners on 127.0.0.1
// tunnelled through the context's pods/portforward stream. The relay asks discovery once per
// connection (`GET /apis/kubedesk.dev/v1alpha1`: 404 → emulate) and hands that group's requests
// and watch upgrades to the emulation.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ClusterConnection } from '../../remote/clusterConnection';

export const PORT_FORWARD_GROUP_VERSION_PATH = '/apis/kubedesk.dev/v1alpha1';

export interface PortForwardEmulation {
  handleRequest(request: IncomingMessage, response: ServerResponse, apiPath: string, query: URLSearchParams): Promise<void>;
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, apiPath: string, query: URLSearchParams): void;
  close(): void;
}

export type PortForwardEmulationFactory = (options: { connection: ClusterConnection; context: string }) => PortForwardEmulation;

/** Whether an API path is in the PortForward kind's group version. */
export function isPortForwardGroupPath(apiPath: string): boolean {
  return apiPath === PORT_FORWARD_GROUP_VERSION_PATH || apiPath.startsWith(`${PORT_FORWARD_GROUP_VERSION_PATH}/`);
}
