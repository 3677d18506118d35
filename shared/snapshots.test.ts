import { describe, expect, it } from 'vitest';
import { datedSnapshotName, SNAPSHOT_NAME_MESSAGE, snapshotNameProblem, snapshotSummary, validSnapshotName } from './snapshots';

describe('snapshot names', () => {
  it('takes DNS-1123 subdomains of up to 253 characters, as the API does', () => {
    expect(validSnapshotName('before-upgrade')).toBe(true);
    expect(validSnapshotName('v1.2')).toBe(true);
    expect(validSnapshotName('a'.repeat(253))).toBe(true);
    expect(validSnapshotName('a'.repeat(254))).toBe(false);
    expect(validSnapshotName('Before')).toBe(false);
    expect(validSnapshotName('-x')).toBe(false);
    expect(validSnapshotName('x_y')).toBe(false);
    expect(validSnapshotName('../x')).toBe(false);
  });

  it('says why a name is refused in the API’s words', () => {
    expect(snapshotNameProblem('')).toBe('name or generateName is required');
    expect(snapshotNameProblem('Bad Name')).toBe(SNAPSHOT_NAME_MESSAGE);
    expect(snapshotNameProblem('good')).toBeUndefined();
  });

  it('names a snapshot after the local date and time, as a valid name that sorts by time', () => {
    const name = datedSnapshotName(new Date(2026, 10, 27, 7, 5, 9));
    expect(name).toBe('snapshot-20261127-070509');
    expect(validSnapshotName(name)).toBe(true);
  });
});

describe('snapshotSummary', () => {
  it('reads a Snapshot object as the API returns it', () => {
    const summary = snapshotSummary({
      apiVersion: 'snapshots.kubedesk.dev/v1',
      kind: 'Snapshot',
      metadata: { name: 'one', creationTimestamp: '2026-11-27T07:00:00Z' },
      status: { resourceVersion: '42', objects: 17, sizeBytes: 4096, images: ['busybox:1'], volumes: [{ name: 'pvc-1', files: 2, bytes: 10 }] },
    });
    expect(summary).toEqual({ name: 'one', created: '2026-11-27T07:00:00Z', resourceVersion: '42', objects: 17, sizeBytes: 4096, images: ['busybox:1'], volumes: [{ name: 'pvc-1', files: 2, bytes: 10 }] });
  });

  it('tolerates missing fields and refuses what has no name', () => {
    expect(snapshotSummary({ metadata: { name: 'bare' } })).toEqual({ name: 'bare', created: '', resourceVersion: '', objects: 0, sizeBytes: 0, images: [], volumes: [] });
    expect(snapshotSummary({ metadata: {} })).toBeUndefined();
    expect(snapshotSummary('nope')).toBeUndefined();
  });
});
