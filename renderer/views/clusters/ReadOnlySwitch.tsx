// The read-only cell of a cluster's row in Settings → Clusters. It shows whether kubedesk refuses
// writes to the cluster (the `readOnly` that GET /ui/clusters reports); the switch that changes it
// (PUT <basePath>/-/settings) belongs here, as its own component, so the row stays as it is.
import type { ClusterEntry } from '../../api/clusters';

export function ReadOnlySwitch({ cluster }: { cluster: ClusterEntry }) {
  return (
    <span className={cluster.readOnly ? 'tone-warn' : 'hint'} data-testid={`cluster-read-only-${cluster.name}`}>
      {cluster.readOnly ? 'read-only' : 'writes allowed'}
    </span>
  );
}
