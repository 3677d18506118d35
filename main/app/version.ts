// The version the cluster reports on /version. kubectl checks the minor version for skew and helm
// parses gitVersion as semver, so it is upstream's 1.35 with kubedesk's own build metadata.
export const KUBERNETES_MINOR = '35';

export function kubernetesVersion(): Record<string, string> {
  return {
    major: '1',
    minor: KUBERNETES_MINOR,
    emulationMajor: '1',
    emulationMinor: KUBERNETES_MINOR,
    minCompatibilityMajor: '1',
    minCompatibilityMinor: '34',
    gitVersion: `v1.${KUBERNETES_MINOR}.0+kubedesk`,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'gc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}
