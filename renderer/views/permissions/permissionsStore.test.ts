import { describe, expect, it } from 'vitest';
import { KubeApiError, type KubeClient } from '../../api/kubeClient';
import { PermissionsStore } from './permissionsStore';

const VIEW_RULES = {
  status: {
    resourceRules: [{ verbs: ['get', 'list', 'watch'], apiGroups: ['', 'apps'], resources: ['pods', 'pods/log', 'deployments'] }],
    nonResourceRules: [],
    incomplete: false,
  },
};

/** A client answering the three reviews as a `view` user's cluster would, counting each POST. */
function reviewClient(accessAllowed: (attributes: Record<string, unknown>) => boolean) {
  const posts: string[] = [];
  const create = async (path: string, body: unknown): Promise<unknown> => {
    posts.push(path);
    const spec = (body as { spec?: { resourceAttributes?: Record<string, unknown> } }).spec;
    if (path.endsWith('selfsubjectrulesreviews')) return VIEW_RULES;
    if (path.endsWith('selfsubjectreviews')) return { status: { userInfo: { username: 'system:serviceaccount:ns:viewer', groups: [] } } };
    if (path.endsWith('selfsubjectaccessreviews')) return { status: { allowed: accessAllowed(spec?.resourceAttributes ?? {}) } };
    throw new Error(`unexpected POST ${path}`);
  };
  return { client: { create } as unknown as KubeClient, posts };
}

async function settled(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('the reviews did not answer');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe('the permissions store', () => {
  it('is unknown until the rules review answers, then allows reads and refuses writes in the user’s name', async () => {
    const { client, posts } = reviewClient(() => false);
    const store = new PermissionsStore(client, { cluster: () => ({ name: 'kubedesk', readOnly: false }) });
    const remove = { verb: 'delete', group: '', resource: 'pods', namespace: 'default', name: 'web' };
    expect(store.can(remove)).toEqual({ state: 'unknown' });
    await settled(() => store.can(remove).state !== 'unknown' && store.identity() !== undefined);
    expect(store.can({ verb: 'list', group: '', resource: 'pods', namespace: 'default' })).toEqual({ state: 'allowed' });
    expect(store.can(remove)).toEqual({ state: 'denied', reason: 'You (system:serviceaccount:ns:viewer) may not delete pods "web" in "default"' });
    // one rules review for the namespace, one SelfSubjectReview, whatever was asked
    expect(posts.filter((path) => path.endsWith('selfsubjectrulesreviews'))).toHaveLength(1);
    expect(posts.filter((path) => path.endsWith('selfsubjectreviews'))).toHaveLength(1);
  });

  it('asks an access review for cluster-scoped resources and subresources, once per question', async () => {
    const { client, posts } = reviewClient((attributes) => attributes.resource === 'nodes' && attributes.verb === 'get');
    const store = new PermissionsStore(client, { cluster: () => ({ name: 'kubedesk', readOnly: false }) });
    const cordon = { verb: 'patch', group: '', resource: 'nodes', name: 'n1' };
    const exec = { verb: 'create', group: '', resource: 'pods', subresource: 'exec', namespace: 'default', name: 'web' };
    store.can(cordon);
    store.can(exec);
    await settled(() => store.can(cordon).state !== 'unknown' && store.can(exec).state !== 'unknown');
    expect(store.can(cordon).state).toBe('denied');
    expect(store.can(exec).state).toBe('denied');
    expect(store.can({ verb: 'get', group: '', resource: 'nodes', name: 'n1' }).state).toBe('unknown');
    await settled(() => store.can({ verb: 'get', group: '', resource: 'nodes', name: 'n1' }).state !== 'unknown');
    expect(store.can({ verb: 'get', group: '', resource: 'nodes', name: 'n1' }).state).toBe('allowed');
    // the rules name no resources, so two pods' exec is one question
    store.can({ ...exec, name: 'other' });
    expect(posts.filter((path) => path.endsWith('selfsubjectaccessreviews'))).toHaveLength(3);
  });

  it('refuses every write with the read-only reason while the cluster is read-only, and still allows reads', () => {
    const { client, posts } = reviewClient(() => true);
    const store = new PermissionsStore(client, { cluster: () => ({ name: 'kubedesk-b', readOnly: true }) });
    expect(store.can({ verb: 'patch', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'default' })).toEqual({
      state: 'denied',
      reason: 'read-only: the cluster "kubedesk-b" is read-only in kubedesk (turn it off in Settings → Clusters)',
    });
    expect(posts).toEqual([]);
    expect(store.can({ verb: 'get', group: '', resource: 'pods', namespace: 'default' })).toEqual({ state: 'unknown' });
  });

  it('asks again after the answers are a minute old, or when told to', async () => {
    let now = 0;
    const { client, posts } = reviewClient(() => false);
    const store = new PermissionsStore(client, { now: () => now, cluster: () => ({ name: 'kubedesk', readOnly: false }) });
    const list = { verb: 'list', group: '', resource: 'pods', namespace: 'default' };
    store.can(list);
    await settled(() => store.can(list).state === 'allowed');
    now = 30_000;
    store.can(list);
    expect(posts.filter((path) => path.endsWith('selfsubjectrulesreviews'))).toHaveLength(1);
    now = 61_000;
    // the old answer stands while the new one is asked
    expect(store.can(list).state).toBe('allowed');
    expect(posts.filter((path) => path.endsWith('selfsubjectrulesreviews'))).toHaveLength(2);
    store.invalidate(['default']);
    expect(store.can(list).state).toBe('unknown');
    expect(posts.filter((path) => path.endsWith('selfsubjectrulesreviews'))).toHaveLength(3);
  });
});

describe('who the user is', () => {
  /** A client whose SelfSubjectReviews answer with `answers` in turn (an Error is thrown). */
  function identityClient(answers: Array<unknown>) {
    let asked = 0;
    const create = async (path: string): Promise<unknown> => {
      if (!path.endsWith('selfsubjectreviews')) throw new Error(`unexpected POST ${path}`);
      const answer = answers[Math.min(asked++, answers.length - 1)];
      if (answer instanceof Error) throw answer;
      return answer;
    };
    return { client: { create } as unknown as KubeClient, asked: () => asked };
  }
  const alice = { status: { userInfo: { username: 'alice', groups: ['system:authenticated'] } } };

  it('asks again after a review that got no answer, so a transient failure does not hide the user for good', async () => {
    const { client, asked } = identityClient([new TypeError('Failed to fetch'), alice]);
    const store = new PermissionsStore(client, { identityRetryMs: 5, cluster: () => ({ name: 'c', readOnly: false }) });
    expect(store.identity()).toBeUndefined();
    await settled(() => asked() === 1 && !store.identity());
    // what the views do: read it again when told something changed
    store.subscribe(() => store.identity());
    await settled(() => store.identity()?.username === 'alice');
    expect(asked()).toBe(2);
    store.dispose();
  });

  it('does not ask again a server that does not serve the review or refuses it', async () => {
    const { client, asked } = identityClient([new KubeApiError(404, 'NotFound', 'the server could not find the requested resource')]);
    const store = new PermissionsStore(client, { identityRetryMs: 1, cluster: () => ({ name: 'c', readOnly: false }) });
    store.subscribe(() => store.identity());
    store.identity();
    await settled(() => asked() === 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.identity()).toBeUndefined();
    expect(asked()).toBe(1);
    store.dispose();
  });
});
