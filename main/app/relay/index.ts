// The UI relay's composition (docs/architecture.md, "Other clusters: the UI relay"): the one place
// that chooses how the relay reaches a kubeconfig context and lists the contexts, and which
// kubeconfig files it reads.
import { kubeconfigFiles } from '../../remote/kubeconfig';
import type { ClientConfig, MergedKubeconfig } from '../../remote/kubeconfig';
import type { ClusterConnection, ContextSummary } from '../../remote/clusterConnection';
import { connectionFor as remoteConnection, listContexts as remoteContexts } from '../../remote';
import { UiRelay, type UiRelayOptions } from './uiRelay';
import type { PortForwardEmulationFactory } from './portForwardHandOff';
import { createPortForwardEmulation } from './portForwards';

export { UiRelay } from './uiRelay';
export type { RelayCluster, ConnectionStatus } from './uiRelay';

export type UiRelayWiring = Omit<UiRelayOptions, 'connectionFor' | 'listContexts' | 'portForwardEmulation' | 'kubeconfigFiles'> & {
  /** the kubeconfig the serving cluster writes its own context into */
  kubeconfigPath: string;
  env?: NodeJS.ProcessEnv;
};

// ---- how contexts are reached: as client-go would with each context (main/remote): CA, client
// certificate, token or token file, exec plugin, proxy-url, tls-server-name, impersonation ----
const connectionFor: (config: ClientConfig) => ClusterConnection = (config) => remoteConnection(config);
const listContexts: (merged: MergedKubeconfig) => ContextSummary[] = remoteContexts;
// PortForwards for clusters without kubedesk's own kind: the app forwards itself, as kubectl does.
const portForwardEmulation: PortForwardEmulationFactory = createPortForwardEmulation;

/**
 * The relay of a serving cluster. It reads the kubeconfig the cluster writes to first, then the
 * files kubectl reads (KUBECONFIG, else ~/.kube/config), so `--kubeconfig FILE` and the user's own
 * contexts both show.
 */
export function createUiRelay(wiring: UiRelayWiring): UiRelay {
  const { kubeconfigPath, env, ...rest } = wiring;
  const files = [...new Set([kubeconfigPath, ...kubeconfigFiles({}, { env: env ?? process.env }).files])];
  return new UiRelay({ ...rest, kubeconfigFiles: files, connectionFor, listContexts, portForwardEmulation });
}
