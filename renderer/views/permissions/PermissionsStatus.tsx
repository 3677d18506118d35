// The top bar's word on permissions: a "read-only" chip while the cluster's read-only switch is on
// (every write in the UI is disabled with that reason), and who the user is when the cluster does
// not let them do everything. Mounted once while signed in, it asks the rules of the selected
// namespaces again when the selection changes (the clusters list comes from the cluster picker's
// GET /ui/clusters, handed on in main.tsx).
import { useEffect } from 'react';
import { useAppState, useServices } from '../../context';
import { readOnlyReason } from './permissionsModel';
import { permissionsFor } from './permissionsStore';
import { useCurrentCluster, useIdentity } from './usePermissions';

export function PermissionsStatus() {
  const { client } = useServices();
  const cluster = useCurrentCluster();
  const identity = useIdentity();
  const selected = useAppState((state) => state.selectedNamespaces);
  const selectedKey = selected.join(',');
  useEffect(() => {
    const store = permissionsFor(client);
    if (selectedKey) store.invalidate(selectedKey.split(','));
  }, [client, selectedKey]);
  return (
    <>
      {identity && (
        <span className="identity-chip" title={`You are ${identity.username}${identity.groups.length ? ` (groups: ${identity.groups.join(', ')})` : ''}`} data-testid="identity-chip">
          {identity.username}
        </span>
      )}
      {cluster.readOnly && (
        <a className="read-only-chip" href="#/settings" title={readOnlyReason(cluster.name)} data-testid="read-only-chip">
          Read-only
        </a>
      )}
    </>
  );
}
