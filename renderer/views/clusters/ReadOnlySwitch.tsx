// The read-only cell of a cluster's row in Settings → Clusters: the switch (PUT <basePath>/-/settings,
// views/permissions) showing what the permissions know of the cluster since it was last changed,
// else the `readOnly` GET /ui/clusters reported.
import { useSyncExternalStore } from 'react';
import type { ClusterEntry } from '../../api/clusters';
import { knownClusters, subscribeClusters } from '../permissions/clusters';
import { ReadOnlySwitch as Switch } from '../permissions/ReadOnlySwitch';

export function ReadOnlySwitch({ cluster }: { cluster: ClusterEntry }) {
  const known = useSyncExternalStore(subscribeClusters, knownClusters);
  const readOnly = known?.clusters.find((entry) => entry.name === cluster.name)?.readOnly ?? cluster.readOnly;
  return (
    <span data-testid={`cluster-read-only-${cluster.name}`} data-read-only={readOnly}>
      <Switch name={cluster.name} readOnly={readOnly} />
    </span>
  );
}
