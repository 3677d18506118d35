// Tests for `kubedesk snapshot`: argument parsing and its usage errors, the list table, and each
// action against an API server behind HTTPS through a kubeconfig, with its exit status and words
// (export and import stream a file; a corrupt file and an unknown name exit 1 with the reason).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HttpsApiServer } from '../../test/fixtures/httpsApiServer';
import { startSnapshotApiServer } from '../../test/fixtures/snapshotServer';
import { parseSnapshotArgs, snapshotCommand, snapshotTable } from './snapshot';
import { CommandUsageError, type CommandIo } from './clientCommand';

describe('parseSnapshotArgs', () => {
  it('parses each action with its arguments and kubeconfig flags', () => {
    expect(parseSnapshotArgs(['save', 'before', '--context', 'kubedesk'])).toMatchObject({ action: 'save', name: 'before', flags: { context: 'kubedesk' } });
    expect(parseSnapshotArgs(['list', '--kubeconfig=/tmp/k'])).toMatchObject({ action: 'list', flags: { kubeconfig: '/tmp/k' } });
    expect(parseSnapshotArgs(['restore', 'before', '--ignore-missing-images'])).toMatchObject({ action: 'restore', name: 'before', ignoreMissingImages: true });
    expect(parseSnapshotArgs(['export', 'before', '/tmp/before.kdsnap'])).toMatchObject({ action: 'export', name: 'before', file: '/tmp/before.kdsnap' });
    expect(parseSnapshotArgs(['import', '/tmp/x/before.kdsnap'])).toMatchObject({ action: 'import', name: 'before', file: '/tmp/x/before.kdsnap' });
    expect(parseSnapshotArgs(['import', 'a.kdsnap', '--name', 'other'])).toMatchObject({ action: 'import', name: 'other' });
    expect(parseSnapshotArgs([])).toBeUndefined();
    expect(parseSnapshotArgs(['save', '--help'])).toBeUndefined();
  });

  it('refuses malformed command lines with the reason', () => {
    expect(() => parseSnapshotArgs(['save'])).toThrow(new CommandUsageError('snapshot save takes NAME'));
    expect(() => parseSnapshotArgs(['list', 'x'])).toThrow(new CommandUsageError('snapshot list takes no arguments, got: x'));
    expect(() => parseSnapshotArgs(['take', 'x'])).toThrow(new CommandUsageError('unknown command "take" for "kubedesk snapshot"'));
    expect(() => parseSnapshotArgs(['save', 'x', '--ignore-missing-images'])).toThrow(new CommandUsageError('--ignore-missing-images is a flag of snapshot restore'));
    expect(() => parseSnapshotArgs(['save', 'x', '-n', 'default'])).toThrow(new CommandUsageError('unknown flag: -n'));
  });

  it('prints the list as a table with sizes and ages', () => {
    const item = { metadata: { name: 'before', creationTimestamp: '2026-01-01T10:00:00Z' }, status: { resourceVersion: '184', objects: 155, volumes: [{}], images: ['a', 'b'], sizeBytes: 1024000 } };
    expect(snapshotTable([item], new Date('2026-01-01T10:05:00Z'))).toBe(
      ['NAME     RESOURCEVERSION   OBJECTS   VOLUMES   IMAGES   SIZE     AGE   CREATED', 'before   184               155       1         2        1000Ki   5m    2026-01-01T10:00:00Z', ''].join('\n'),
    );
  });
});

describe('kubedesk snapshot against a server', () => {
  let server: HttpsApiServer;

  beforeAll(async () => {
    server = await startSnapshotApiServer({ token: 'snapshot-token', namespaces: ['default'] });
  });

  afterAll(async () => {
    await server.close();
  });

  async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const io: CommandIo = { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), environment: { home: server.directory } };
    const code = await snapshotCommand([...argv, '--kubeconfig', server.kubeconfig], io, () => new Date());
    return { code, stdout, stderr };
  }

  it('saves, lists, exports, imports, restores and deletes with exit status 0', async () => {
    const saved = await run('save', 'before');
    expect(saved).toMatchObject({ code: 0, stderr: '' });
    expect(saved.stdout).toMatch(/^snapshot "before" saved at resourceVersion \d+: \d+ objects, 0 volumes, 0 images, /);
    const listed = await run('list');
    expect(listed.stdout).toMatch(/^NAME\s+RESOURCEVERSION\s+OBJECTS\s+VOLUMES\s+IMAGES\s+SIZE\s+AGE\s+CREATED\nbefore\s+\d+/);

    const file = path.join(server.directory, 'before.kdsnap');
    expect(await run('export', 'before', file)).toMatchObject({ code: 0 });
    expect(readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3');
    const imported = await run('import', file, '--name', 'copy');
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    expect(imported.stdout).toContain('snapshot "copy" imported from');

    const restored = await run('restore', 'copy');
    expect(restored).toMatchObject({ code: 0, stderr: '' });
    expect(restored.stdout).toMatch(/^snapshot "copy" restored at resourceVersion \d+: 0 created, 0 updated, 0 replaced, 0 deleted\n$/);
    expect(await run('delete', 'copy')).toMatchObject({ code: 0, stdout: 'snapshot "copy" deleted\n' });
  });

  it('exits 1 with the server\'s reason for an unknown name, and a corrupt or missing file', async () => {
    expect(await run('restore', 'nosuch')).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): snapshots.snapshots.kubedesk.dev "nosuch" not found\n' });
    const corrupt = path.join(server.directory, 'corrupt.kdsnap');
    writeFileSync(corrupt, 'not a snapshot at all');
    expect(await run('import', corrupt)).toMatchObject({ code: 1, stderr: 'Error from server (BadRequest): snapshot "corrupt": the file is not a kubedesk snapshot (no SQLite header)\n' });
    expect(existsSync(path.join(server.directory, 'snapshots', 'corrupt.kdsnap'))).toBe(false);
    const missing = await run('import', path.join(server.directory, 'missing.kdsnap'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: ENOENT: no such file or directory/);
    const exportMissing = await run('export', 'nosuch', path.join(server.directory, 'out.kdsnap'));
    expect(exportMissing).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): snapshots.snapshots.kubedesk.dev "nosuch" not found\n' });
    expect(existsSync(path.join(server.directory, 'out.kdsnap'))).toBe(false);
    // nor a partial file: its stream is closed before the command returns
    expect(existsSync(path.join(server.directory, 'out.kdsnap.partial'))).toBe(false);
  });

  it('exits 2 with the usage for a malformed command line', async () => {
    const result = await run('save');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: snapshot save takes NAME\n\nUsage:\n {2}kubedesk snapshot save NAME/);
  });
});
