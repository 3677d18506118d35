// main/remote's public surface: the user's kubeconfig, its contexts and a connection to each one's
// cluster with that context's credentials, for the app's relay (main/app/relay) and kubedesk's
// client commands (main/cli).
export { CredentialError } from './clusterConnection';
export type { ClusterConnection, ContextSummary, CredentialFailure } from './clusterConnection';
export { connectionFor, connectionForContext, escapeHeaderKey, impersonationHeaders, serverCertificate } from './connection';
export type { ConnectionOptions, ServerCertificate } from './connection';
export { authKindOf, listContexts } from './contexts';
export { ExecCredentialCache, execInfo, execInteractive, parseExecCredential, runExecPlugin } from './execCredential';
export type { ExecClusterInfo, ExecCredential, ExecPluginOptions, ExecTerminal } from './execCredential';
export { ProxyError, openTunnel, parseProxyUrl, proxyFromEnvironment } from './proxyTunnel';
export type { ProxySettings, ProxyTlsOptions } from './proxyTunnel';
export { clientConfigOf, KubeconfigError, kubeconfigFiles, loadKubeconfig, resolveClientConfig } from './kubeconfig';
export type { ClientConfig, ExecConfig, Impersonation, KubeconfigEntry, KubeconfigEnvironment, KubeconfigFlags, MergedKubeconfig } from './kubeconfig';
