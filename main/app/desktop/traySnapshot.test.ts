// The tray's "Save snapshot" request (clusterControl.ts saveSnapshot) against a real API server on a
// real store file, through the in-process client the desktop cluster uses: the snapshot is saved
// and read back, and a refusal from the API comes back as its Status message.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiServer } from '../../apiserver/apiServer';
import { OpenApiService } from '../../apiserver/openapi/openapiDocuments';
import { ResourceRegistry } from '../../apiserver/resourceRegistry';
import { registerSnapshotApi } from '../../apiserver/snapshots/snapshotApi';
import { Snapshots } from '../../apiserver/snapshots/snapshots';
import type { Authorizer } from '../../apiserver/auth/rbacAuthorizer';
import { ApiClient } from '../../client/apiClient';
import { builtinResources } from '../../registry/resources';
import { SqliteStore } from '../../storage/sqliteStore';
import { InProcessTransport } from '../inProcessTransport';
import { saveSnapshot } from './clusterControl';

let directory: string;
let store: SqliteStore;
let client: ApiClient;

/** The loopback client is system:masters; the authorizer grants it everything, as RBAC does. */
const authorizer: Authorizer = {
  authorize: (attributes) => ({ allowed: attributes.user.groups.includes('system:masters'), reason: '' }),
  rulesFor() {
    throw new Error('not used by the snapshot API');
  },
};

beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'kubedesk-tray-snapshot-'));
  store = SqliteStore.open(path.join(directory, 'state.db'));
  const registry = new ResourceRegistry(builtinResources());
  const openapi = new OpenApiService();
  openapi.setResources(registry.all());
  const api = new ApiServer({ store, registry, openapi, serverAddress: () => '127.0.0.1:6443', version: {} });
  const snapshots = new Snapshots({ store, directory: path.join(directory, 'snapshots'), volumesDir: path.join(directory, 'volumes') });
  registerSnapshotApi(api, registry, { snapshots, authorizer });
  store.create({ resource: 'namespaces', namespace: '', name: 'default' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', uid: 'default-uid' }, status: { phase: 'Active' } });
  client = new ApiClient(new InProcessTransport(api));
});

afterEach(() => {
  store.dispose();
  rmSync(directory, { recursive: true, force: true });
});

describe('the tray’s snapshot save', () => {
  it('saves a snapshot through the snapshot API and answers what it holds', async () => {
    const saved = await saveSnapshot({ client }, 'snapshot-20261127-070509');
    expect(saved).toMatchObject({ name: 'snapshot-20261127-070509', objects: 1, resourceVersion: String(store.currentRevision()) });
    expect(saved.sizeBytes).toBeGreaterThan(0);
    const listed = (await client.request({ method: 'GET', path: '/apis/snapshots.kubedesk.dev/v1/snapshots' })) as { items: { metadata: { name: string } }[] };
    expect(listed.items.map((item) => item.metadata.name)).toEqual(['snapshot-20261127-070509']);
  });

  it('fails with the API’s message when the name is taken', async () => {
    await saveSnapshot({ client }, 'taken');
    await expect(saveSnapshot({ client }, 'taken')).rejects.toThrow('snapshots.snapshots.kubedesk.dev "taken" already exists');
  });
});
