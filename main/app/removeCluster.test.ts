// Removing a cluster without Docker involved (no cluster id yet): the data dir and the kubeconfig
// entries go; the default cluster's removal leaves the named local clusters' folder alone.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeKubeconfig } from './kubeconfig';
import { removeCluster } from './removeCluster';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kubedesk-remove-cluster-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('removeCluster', () => {
  it('removes the default cluster\'s state but keeps the named clusters under clusters/', async () => {
    const dataDir = join(root, '.kubedesk');
    mkdirSync(join(dataDir, 'clusters', 'b'), { recursive: true });
    writeFileSync(join(dataDir, 'clusters', 'b', 'state.db'), '');
    writeFileSync(join(dataDir, 'state.db'), '');
    mkdirSync(join(dataDir, 'pki'));
    expect(await removeCluster(dataDir, join(root, 'kubeconfig'))).toEqual({});
    expect(readdirSync(dataDir)).toEqual(['clusters']);
    expect(existsSync(join(dataDir, 'clusters', 'b', 'state.db'))).toBe(true);
  });

  it('removes a named cluster\'s data dir and only its kubeconfig entries', async () => {
    const dataDir = join(root, '.kubedesk', 'clusters', 'b');
    mkdirSync(dataDir, { recursive: true });
    const kubeconfig = join(root, 'kubeconfig');
    writeKubeconfig({ path: kubeconfig, server: 'https://127.0.0.1:6443', caCertPem: 'ca', token: 't' });
    writeKubeconfig({ path: kubeconfig, server: 'https://127.0.0.1:40000', caCertPem: 'ca', token: 'b', name: 'kubedesk-b' });
    expect(await removeCluster(dataDir, kubeconfig, { contextName: 'kubedesk-b' })).toEqual({});
    expect(existsSync(dataDir)).toBe(false);
    expect(existsSync(join(root, '.kubedesk', 'clusters'))).toBe(true);
    const text = readFileSync(kubeconfig, 'utf8');
    expect(text).toContain('name: kubedesk\n');
    expect(text).not.toContain('kubedesk-b');
  });
});
