import { describe, expect, it } from 'vitest';
import { NOW, makeDiagnosisPod, makeEvent, makeObject } from '../../test/fixtures/diagnosisObjects';
import type { DiagnosisContext } from './diagnosis';
import { diagnosePersistentVolumeClaim } from './storage';

function context(extra: Partial<DiagnosisContext> = {}): DiagnosisContext {
  return { now: NOW, ...extra };
}

function claim(name: string, spec: Record<string, unknown>, phase = 'Pending') {
  return makeObject('v1', 'PersistentVolumeClaim', name, { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec }, status: { phase } });
}

function storageClass(name: string, fields: Record<string, unknown> = {}, isDefault = false) {
  const object = makeObject('storage.k8s.io/v1', 'StorageClass', name, { provisioner: 'kubedesk.io/local-path', volumeBindingMode: 'Immediate', ...fields }, undefined);
  if (isDefault) object.metadata.annotations = { 'storageclass.kubernetes.io/is-default-class': 'true' };
  return object;
}

describe('diagnosePersistentVolumeClaim', () => {
  it('calls a bound claim healthy', () => {
    const bound = claim('data', { volumeName: 'pvc-1' }, 'Bound');
    (bound.status as Record<string, unknown>).capacity = { storage: '1Gi' };
    expect(diagnosePersistentVolumeClaim(bound, context())).toMatchObject({ healthy: true, reason: 'healthy: bound to PersistentVolume pvc-1 (1Gi)' });
  });

  it('names a StorageClass that does not exist, from the class list or the provisioner’s event', () => {
    const pending = claim('data', { storageClassName: 'fast' });
    const fromList = diagnosePersistentVolumeClaim(pending, context({ storageClasses: [storageClass('standard', {}, true)] }));
    expect(fromList).toMatchObject({ healthy: false, severity: 'error', code: 'StorageClassMissing', reason: 'StorageClass "fast" does not exist, so nothing provisions a volume for it' });
    expect(fromList.details).toContain('StorageClasses: standard (default)');
    expect(fromList.hints[0]).toContain('storageClassName: standard');
    const events = [makeEvent(pending, 'ProvisioningFailed', 'storageclass.storage.k8s.io "fast" not found')];
    expect(diagnosePersistentVolumeClaim(pending, context({ events })).code).toBe('StorageClassMissing');
  });

  it('passes on another provisioning failure as the provisioner wrote it', () => {
    const block = claim('raw', { storageClassName: 'standard', volumeMode: 'Block' });
    const events = [makeEvent(block, 'ProvisioningFailed', 'failed to provision volume with StorageClass "standard": local-path does not support block volumes')];
    expect(diagnosePersistentVolumeClaim(block, context({ events, storageClasses: [storageClass('standard')] })).reason).toBe('cannot be provisioned: failed to provision volume with StorageClass "standard": local-path does not support block volumes');
  });

  it('waits for a first consumer without calling it broken', () => {
    const lazy = storageClass('lazy', { volumeBindingMode: 'WaitForFirstConsumer' });
    const waiting = claim('data', { storageClassName: 'lazy' });
    expect(diagnosePersistentVolumeClaim(waiting, context({ storageClasses: [lazy], pods: [] })).healthy).toBe(true);
    const user = makeDiagnosisPod('user', { nodeName: null, conditions: [], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] });
    expect(diagnosePersistentVolumeClaim(waiting, context({ storageClasses: [lazy], pods: [user] }))).toMatchObject({ healthy: false, severity: 'warning', code: 'ClaimPending' });
  });

  it('explains a claim with no class, and a lost one', () => {
    expect(diagnosePersistentVolumeClaim(claim('static', { storageClassName: '' }), context({ storageClasses: [] })).reason).toBe('waiting for a matching PersistentVolume: storageClassName "" means no provisioner makes one');
    expect(diagnosePersistentVolumeClaim(claim('old', { volumeName: 'pv-9' }, 'Lost'), context())).toMatchObject({ code: 'ClaimLost', severity: 'error' });
  });
});
