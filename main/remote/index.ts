// main/remote's public surface: the contexts of the user's kubeconfig and a connection to each one's
// cluster with that context's credentials, for the app's relay (main/app/relay).
export { CredentialError } from './clusterConnection';
export type { ClusterConnection, ContextSummary, CredentialFailure } from './clusterConnection';
export { connectionFor, connectionForContext, escapeHeaderKey, impersonationHeaders, serverCertificate } from './connection';
export type { ConnectionOptions, ServerCertificate } from './connection';
export { authKindOf, listContexts } from './contexts';
export { ExecCredentialCache, execInfo, parseExecCredential, runExecPlugin } from './execCredential';
export type { ExecClusterInfo, ExecCredential, ExecPluginOptions } from './execCredential';
export { ProxyError, openTunnel, parseProxyUrl, proxyFromEnvironment } from './proxyTunnel';
export type { ProxySettings, ProxyTlsOptions } from './proxyTunnel';
