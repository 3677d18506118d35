// Features only a kubedesk cluster serves (the object history, snapshots, the local image store,
// usage history) say so plainly on any other cluster instead of failing: whether the cluster is
// a kubedesk is read from discovery (it serves the group history.kubedesk.dev), or from the
// relay's status until discovery has answered. The serving cluster is a kubedesk.
import { useEffect, type ReactNode } from 'react';
import { useAppState } from '../../context';
import { kubedeskFeatures, type KubedeskFeatures } from './clusterModel';

export function useKubedeskFeatures(): KubedeskFeatures {
  const cluster = useAppState((state) => state.cluster);
  const discoveryLoaded = useAppState((state) => state.discoveryLoaded);
  const discovered = useAppState((state) => state.discovered);
  const status = useAppState((state) => state.clusterStatus);
  return kubedeskFeatures({ cluster, discoveryLoaded, discovered, status });
}

/** The kubeconfig context of the cluster shown (kubectl's name for it): the serving cluster's own, or the one picked. */
export function useShownContext(): string {
  const cluster = useAppState((state) => state.cluster);
  const self = useAppState((state) => state.clusterList?.self);
  return cluster || self || 'kubedesk';
}

/** The plain sentence for a feature on a cluster that is not a kubedesk. */
export function NotOnThisCluster({ feature, compact }: { feature: string; compact?: boolean }) {
  const cluster = useAppState((state) => state.cluster);
  if (compact) {
    return (
      <p className="hint" data-testid="kubedesk-only">
        {feature} belongs to local kubedesk clusters ({cluster} does not serve history.kubedesk.dev).
      </p>
    );
  }
  return (
    <div className="empty kubedesk-only" data-testid="kubedesk-only">
      <p>
        <strong>{feature}</strong> belongs to local kubedesk clusters.
      </p>
      <p className="hint">
        {cluster} is not one: it does not serve the API group history.kubedesk.dev. Pick a kubedesk cluster in the cluster picker (or create one in Settings → Clusters) to use it.
      </p>
    </div>
  );
}

/** Renders `children` on a kubedesk cluster; elsewhere says the feature belongs to kubedesk clusters (in one line when `compact`, inside a page). */
export function KubedeskOnly({ feature, children, compact }: { feature: string; children: ReactNode; compact?: boolean }) {
  const features = useKubedeskFeatures();
  const wantDiscovery = useAppState((state) => state.wantDiscovery);
  useEffect(() => {
    if (features === 'unknown') wantDiscovery();
  }, [features, wantDiscovery]);
  if (features === 'unknown') return compact ? null : <div className="empty">Checking what this cluster serves…</div>;
  if (features === 'absent') return <NotOnThisCluster feature={feature} compact={compact} />;
  return <>{children}</>;
}
