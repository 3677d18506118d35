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
  const strategy = child(spec, 'strategy');
  if (strategy) {
    setDefaultString(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const rollingUpdate = child(strategy, 'rollingUpdate');
      if (rollingUpdate) {
        setDefault(rollingUpdate, 'maxUnavailable', '25%');
        setDefault(rollingUpdate, 'maxSurge', '25%');
      }
    }
  }
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
  const strategy = child(spec, 'updateStrategy');
  if (strategy) {
    setDefaultString(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const rollingUpdate = child(strategy, 'rollingUpdate');
      if (rollingUpdate) {
        setDefault(rollingUpdate, 'maxUnavailable', 1);
        setDefault(rollingUpdate, 'maxSurge', 0);
      }
    }
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplateSpec(child(spec, 'template'));
}
