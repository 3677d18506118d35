import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { chartLabel, computedValues, decodeReleaseText, encodeReleaseText, isReleaseSecret, latestReleases, releaseFromSecret, releaseOf, releaseSecret, releaseSecretName, rollbackRevision, withInfo } from './releaseStorage';

/** A release JSON object shaped as helm 4 marshals pkg/release/v1 Release. */
function releaseJson(version: number, status: string, message: string): Record<string, unknown> {
  return {
    name: 'demo',
    info: { first_deployed: '2026-11-27T06:00:00.123456789Z', last_deployed: `2026-11-27T06:0${version}:00Z`, description: version === 1 ? 'Install complete' : 'Upgrade complete', status, notes: `notes ${version}` },
    chart: { metadata: { name: 'mychart', version: '0.1.0', appVersion: '1.16.0', apiVersion: 'v2' }, lock: null, templates: [{ name: 'templates/cm.yaml', data: 'YQ==' }], values: { message: 'default', image: { tag: 'x', pullPolicy: 'Never' } }, schema: null, files: [] },
    config: { message, image: { tag: null } },
    manifest: `---\n# Source: mychart/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  message: ${message}\n`,
    version,
    namespace: 'helm-ui',
    apply_method: 'ssa',
  };
}

/** The Secret helm's driver writes: data.release = base64(helm's base64(gzip(json))). */
function helmSecret(raw: Record<string, unknown>, labels: Record<string, string>): KubeObject {
  const helmText = gzipSync(Buffer.from(JSON.stringify(raw)), { level: 9 }).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: releaseSecretName('demo', Number(raw.version)), namespace: 'helm-ui', labels },
    type: 'helm.sh/release.v1',
    data: { release: Buffer.from(helmText).toString('base64') },
  };
}

describe('helm release storage', () => {
  it('names a revision Secret as helm does', () => {
    expect(releaseSecretName('demo', 3)).toBe('sh.helm.release.v1.demo.v3');
  });

  it('decodes a Secret written by helm into the release and its own labels', async () => {
    const secret = helmSecret(releaseJson(2, 'deployed', 'second'), { name: 'demo', owner: 'helm', status: 'deployed', version: '2', createdAt: '1764223200', team: 'web' });
    expect(isReleaseSecret(secret)).toBe(true);
    const release = await releaseFromSecret(secret);
    expect(release).toMatchObject({ name: 'demo', namespace: 'helm-ui', version: 2, status: 'deployed', chartName: 'mychart', chartVersion: '0.1.0', appVersion: '1.16.0', notes: 'notes 2', applyMethod: 'ssa', labels: { team: 'web' } });
    expect(release.manifest).toContain('message: second');
    expect(chartLabel(release)).toBe('mychart-0.1.0');
  });

  it('decodes an ungzipped JSON record too, as helm does', async () => {
    const raw = releaseJson(1, 'deployed', 'first');
    expect(await decodeReleaseText(Buffer.from(JSON.stringify(raw)).toString('base64'))).toEqual(raw);
  });

  it('encodes a record that gunzip and JSON read back unchanged', async () => {
    const raw = releaseJson(1, 'deployed', 'first');
    const text = await encodeReleaseText(raw);
    expect(JSON.parse(gunzipSync(Buffer.from(text, 'base64')).toString('utf8'))).toEqual(raw);
    expect(await decodeReleaseText(text)).toEqual(raw);
  });

  it('writes the Secret helm writes: type, name, system labels and the release own labels', async () => {
    const release = withInfo(releaseOf(releaseJson(1, 'deployed', 'first'), { team: 'web' }), { status: 'superseded' });
    const secret = await releaseSecret(release, 'update', new Date('2026-11-27T07:00:00Z'));
    expect(secret.metadata).toEqual({ name: 'sh.helm.release.v1.demo.v1', namespace: 'helm-ui', labels: { team: 'web', modifiedAt: '1795762800', name: 'demo', owner: 'helm', status: 'superseded', version: '1' } });
    expect(secret.type).toBe('helm.sh/release.v1');
    const decoded = await releaseFromSecret(secret);
    expect(decoded.status).toBe('superseded');
    expect(decoded.raw.chart).toEqual(releaseJson(1, 'deployed', 'first').chart);
  });

  it('builds a rollback revision from the target as helm rollback does', () => {
    const current = releaseOf(releaseJson(3, 'deployed', 'third'));
    const target = releaseOf(releaseJson(1, 'superseded', 'first'), { team: 'web' });
    const next = rollbackRevision(current, target, new Date('2026-11-27T07:00:00.000Z'));
    expect(next).toMatchObject({ name: 'demo', namespace: 'helm-ui', version: 4, status: 'pending-rollback', description: 'Rollback to 1', notes: 'notes 1', firstDeployed: '2026-11-27T06:00:00.123456789Z', lastDeployed: '2026-11-27T07:00:00.000Z', applyMethod: 'ssa', labels: { team: 'web' } });
    expect(next.raw.chart).toBe(target.raw.chart);
    expect(next.raw.config).toBe(target.raw.config);
    expect(next.manifest).toBe(target.manifest);
  });

  it('keeps client-side apply for a rollback to a revision helm applied client-side', () => {
    const current = releaseOf(releaseJson(2, 'deployed', 'second'));
    const target = releaseOf({ ...releaseJson(1, 'superseded', 'first'), apply_method: 'csa' });
    expect(rollbackRevision(current, target, new Date()).applyMethod).toBe('csa');
  });

  it('lists the newest revision of each release by name, marking the ones helm list hides', () => {
    const releases = [
      releaseOf(releaseJson(1, 'superseded', 'a')),
      releaseOf(releaseJson(2, 'deployed', 'b')),
      releaseOf({ ...releaseJson(1, 'uninstalled', 'c'), name: 'another' }),
    ];
    expect(latestReleases(releases).map((release) => [release.name, release.version, release.listed])).toEqual([
      ['another', 1, false],
      ['demo', 2, true],
    ]);
  });

  it('computes values as the chart defaults coalesced with the user values', () => {
    expect(computedValues(releaseOf(releaseJson(1, 'deployed', 'mine')))).toEqual({ message: 'mine', image: { pullPolicy: 'Never' } });
  });
});
