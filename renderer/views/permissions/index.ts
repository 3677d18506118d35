// What other views use of the permissions: the switch for Settings → Clusters, the window's cluster,
// the hooks and the reasons.
export { ReadOnlySwitch } from './ReadOnlySwitch';
export { PermissionsStatus } from './PermissionsStatus';
export { currentCluster, setReadOnly, type ClusterEntry, type CurrentCluster } from './clusters';
export { usePermissions, useIdentity, useCurrentCluster } from './usePermissions';
export { permissionsFor, currentIdentity } from './permissionsStore';
export { canAnything, refusal, type Can, type PermissionCheck, type Verdict } from './permissionsModel';
