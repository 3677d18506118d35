// Defaults for apps/v1 as upstream pkg/apis/apps/v1/defaults.go: Deployments (1 replica,
// RollingUpdate 25%/25%, revisionHistoryLimit 10, progressDeadlineSeconds 600), ReplicaSets,
// StatefulSets (OrderedReady, RollingUpdate partition 0, Retain/Retain PVC policy) and
// DaemonSets (RollingUpdate maxUnavailable 1 / maxSurge 0), each with pod template defaults.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { child, entries, existing, setDefault, setDefaultString } from './fields';
import { defaultPersistentVolumeClaimSpec, defaultPodTemplateSpec } from './podSpec';

export function defaultDeployment(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  if (!spec) return;
  setDefault(spec, 'replicas', 1);
  defaultRollingUpdateStrategy(child(spec, 'strategy'), { maxUnavailable: '25%', maxSurge: '25%' });
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplateSpec(child(spec, 'template'));
}

export function defaultReplicaSet(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  if (!spec) return;
  setDefault(spec, 'replicas', 1);
  defaultPodTemplateSpec(child(spec, 'template'));
}

export function defaultStatefulSet(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  if (!spec) return;
  setDefaultString(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = child(spec, 'updateStrategy');
  if (strategy) {
    if (strategy.type === undefined || strategy.type === null || strategy.type === '') {
      strategy.type = 'RollingUpdate';
      setDefault(strategy, 'rollingUpdate', {});
    }
    const rollingUpdate = existing(strategy, 'rollingUpdate');
    if (strategy.type === 'RollingUpdate' && rollingUpdate) setDefault(rollingUpdate, 'partition', 0);
  }
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  if (retention) {
    setDefaultString(retention, 'whenDeleted', 'Retain');
    setDefaultString(retention, 'whenScaled', 'Retain');
  }
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplateSpec(child(spec, 'template'));
  for (const claim of entries(spec, 'volumeClaimTemplates')) {
    defaultPersistentVolumeClaimSpec(child(claim, 'spec'));
    const status = child(claim, 'status');
    if (status) setDefaultString(status, 'phase', 'Pending');
  }
}

export function defaultDaemonSet(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  if (!spec) return;
  defaultRollingUpdateStrategy(child(spec, 'updateStrategy'), { maxUnavailable: 1, maxSurge: 0 });
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplateSpec(child(spec, 'template'));
}

/** A Deployment's strategy or a DaemonSet's updateStrategy: RollingUpdate unless set, with the kind's own limits. */
function defaultRollingUpdateStrategy(strategy: Record<string, unknown> | undefined, limits: { maxUnavailable: number | string; maxSurge: number | string }): void {
  if (!strategy) return;
  setDefaultString(strategy, 'type', 'RollingUpdate');
  if (strategy.type !== 'RollingUpdate') return;
  const rollingUpdate = child(strategy, 'rollingUpdate');
  if (!rollingUpdate) return;
  setDefault(rollingUpdate, 'maxUnavailable', limits.maxUnavailable);
  setDefault(rollingUpdate, 'maxSurge', limits.maxSurge);
}
