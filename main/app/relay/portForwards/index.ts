// PortForward emulation for a kubeconfig context whose cluster does not serve kubedesk.dev/v1alpha1
// portforwards: the relay hands that group's paths (requests and watch upgrades) to it.
export { createPortForwardEmulation, type PortForwardEmulation, type PortForwardEmulationOptions } from './portForwardEmulation';
