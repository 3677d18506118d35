// Tests of the UI's own-manager upgrade before a server-side apply (as client-go csaupgrade).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { KubeApiError, type KubeClient } from '../api/kubeClient';
import { adoptOwnUpdatesPatch, applyAsUi, unionFieldsV1 } from './uiApply';

const now = new Date('2026-02-03T04:05:06.789Z');

function deployment(managedFields: unknown[]): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', resourceVersion: '42', managedFields: managedFields as KubeObject['metadata']['managedFields'] }, spec: { replicas: 3 } };
}

const created = { manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:template': {} } } };
const scaled = { manager: 'kubedesk-ui', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } };
const applied = { manager: 'kubedesk-ui', operation: 'Apply', apiVersion: 'apps/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } } };
const status = { manager: 'kubedesk-ui', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': {} } };

describe('unionFieldsV1', () => {
  it('merges two field sets at every level', () => {
    expect(unionFieldsV1({ 'f:spec': { 'f:replicas': {} }, 'f:metadata': { '.': {} } }, { 'f:spec': { 'f:template': { 'f:x': {} } } })).toEqual({ 'f:spec': { 'f:replicas': {}, 'f:template': { 'f:x': {} } }, 'f:metadata': { '.': {} } });
  });
});

describe('adoptOwnUpdatesPatch', () => {
  it('moves the replicas a Scale… wrote into the UI’s Apply entry, guarded by the resourceVersion', () => {
    const patch = adoptOwnUpdatesPatch(deployment([created, scaled]), 'kubedesk-ui', now);
    expect(patch?.[0]).toEqual({ op: 'test', path: '/metadata/resourceVersion', value: '42' });
    expect(patch?.[1]).toEqual({
      op: 'replace',
      path: '/metadata/managedFields',
      value: [{ manager: 'kubedesk-ui', operation: 'Apply', apiVersion: 'apps/v1', time: '2026-02-03T04:05:06Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }, created],
    });
  });

  it('adds to an Apply entry the UI already has and leaves other managers and status writes alone', () => {
    const patch = adoptOwnUpdatesPatch(deployment([applied, created, scaled, status]), 'kubedesk-ui', now);
    expect(patch?.[1].value).toEqual([{ ...applied, time: '2026-02-03T04:05:06Z', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:replicas': {} } } }, created, status]);
  });

  it('has nothing to do without an Update entry of the UI', () => {
    expect(adoptOwnUpdatesPatch(deployment([created, applied]), 'kubedesk-ui', now)).toBeUndefined();
    expect(adoptOwnUpdatesPatch(deployment([]), 'kubedesk-ui', now)).toBeUndefined();
  });
});

describe('applyAsUi', () => {
  function client(replies: Array<unknown | KubeApiError>) {
    const calls: string[] = [];
    const next = async () => {
      const reply = replies.shift();
      if (reply instanceof KubeApiError) throw reply;
      return reply;
    };
    const fake = {
      get: async (path: string) => (calls.push(`GET ${path}`), next()),
      patch: async (path: string, _body: unknown, type: string, options: { query?: Record<string, string | undefined> }) => (calls.push(`PATCH ${type} ${path} ${options.query?.force ?? ''}`), next()),
    };
    return { client: fake as unknown as KubeClient, calls };
  }

  it('upgrades the UI’s own entries, then applies', async () => {
    const { client: fake, calls } = client([deployment([scaled]), {}, deployment([])]);
    await applyAsUi(fake, '/apis/apps/v1/namespaces/default/deployments/web', { spec: { replicas: 4 } }, { manager: 'kubedesk-ui' });
    expect(calls).toEqual(['GET /apis/apps/v1/namespaces/default/deployments/web', 'PATCH json /apis/apps/v1/namespaces/default/deployments/web ', 'PATCH apply /apis/apps/v1/namespaces/default/deployments/web ']);
  });

  it('reads again when the object changed in between, and skips the upgrade on a dry run', async () => {
    const { client: fake, calls } = client([deployment([scaled]), new KubeApiError(422, 'Invalid', 'test failed'), deployment([scaled]), {}, {}]);
    await applyAsUi(fake, '/p', {}, { manager: 'kubedesk-ui', force: true });
    expect(calls).toEqual(['GET /p', 'PATCH json /p ', 'GET /p', 'PATCH json /p ', 'PATCH apply /p true']);
    const dry = client([{}]);
    await applyAsUi(dry.client, '/p', {}, { manager: 'kubedesk-ui', dryRun: true });
    expect(dry.calls).toEqual(['PATCH apply /p ']);
  });

  it('applies anyway when the object does not exist yet', async () => {
    const { client: fake, calls } = client([new KubeApiError(404, 'NotFound', 'not found'), {}]);
    await applyAsUi(fake, '/p', {}, { manager: 'kubedesk-ui' });
    expect(calls).toEqual(['GET /p', 'PATCH apply /p ']);
  });
});
