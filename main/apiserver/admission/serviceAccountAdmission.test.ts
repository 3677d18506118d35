import { describe, expect, it } from 'vitest';
import { admitPodServiceAccount, SERVICE_ACCOUNT_MOUNT_PATH } from './serviceAccountAdmission';
import type { KubeObject } from '../../../shared/kubernetes/types';

const pod = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } });

describe('admitPodServiceAccount', () => {
  it('sets the default service account and mounts the API access volume in every container', () => {
    const admitted = pod({ initContainers: [{ name: 'init', image: 'i' }] });
    admitPodServiceAccount(admitted, () => ({ metadata: { name: 'default' } }));
    const spec = admitted.spec as { serviceAccountName: string; volumes: { name: string }[]; containers: { volumeMounts: unknown[] }[]; initContainers: { volumeMounts: unknown[] }[] };
    expect(spec.serviceAccountName).toBe('default');
    expect(spec.volumes[0].name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    expect(spec.containers[0].volumeMounts).toEqual([{ name: spec.volumes[0].name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH }]);
    expect(spec.initContainers[0].volumeMounts).toHaveLength(1);
  });

  it('mounts nothing when the pod or its service account opts out', () => {
    const optedOut = pod({ automountServiceAccountToken: false });
    admitPodServiceAccount(optedOut, () => undefined);
    expect((optedOut.spec as { volumes?: unknown[] }).volumes).toBeUndefined();
    const accountOptsOut = pod({ serviceAccountName: 'robot' });
    admitPodServiceAccount(accountOptsOut, () => ({ metadata: { name: 'robot' }, automountServiceAccountToken: false }));
    expect((accountOptsOut.spec as { volumes?: unknown[] }).volumes).toBeUndefined();
  });
});
