// The permissions of this window's user on its cluster, kept for the views: one
// SelfSubjectRulesReview per namespace the views ask about, SelfSubjectAccessReviews for what the
// rules cannot answer (permissionsModel.ts decides which), and the user's name from a
// SelfSubjectReview. Asking never waits: `can()` answers from what is known (unknown at first, so
// nothing is disabled before the reviews answer), asks the server in the background and tells the
// subscribers when the answer arrives. Answers are kept a minute; a namespace change, a cluster
// change (a new client, so a new store) and a refused request ask again. The read-only switch of
// the current cluster (clusters.ts) refuses every write first.
import { KubeApiError, type KubeClient } from '../../api/kubeClient';
import { currentCluster, subscribeClusters } from './clusters';
import { ACCESS_REVIEW_PATH, ALLOWED, RULES_REVIEW_PATH, SELF_SUBJECT_REVIEW_BODY, SELF_SUBJECT_REVIEW_PATH, UNKNOWN, accessReviewBody, checkKey, decideFromRules, deniedReason, isWrite, namesMatter, parseAccessReview, parseRulesReview, parseSelfSubjectReview, readOnlyReason, rulesReviewBody, type Identity, type PermissionCheck, type RulesReview, type Verdict } from './permissionsModel';

export interface PermissionsOptions {
  /** how long an answer counts before it is asked again (default a minute) */
  ttlMs?: number;
  now?(): number;
  /** the cluster this store's client talks to (default: the window's current cluster) */
  cluster?(): { name: string; readOnly: boolean };
  /** how long after a failed SelfSubjectReview (no answer, a 5xx) it is asked again (default 2 s) */
  identityRetryMs?: number;
}

interface Entry<T> {
  value?: T;
  at: number;
  loading: boolean;
}

const TTL_MS = 60_000;
const IDENTITY_RETRY_MS = 2_000;

export class PermissionsStore {
  private readonly rules = new Map<string, Entry<RulesReview>>();
  private readonly access = new Map<string, Entry<{ allowed: boolean; reason?: string }>>();
  private identityEntry: Entry<Identity | null> = { at: 0, loading: false };
  private readonly listeners = new Set<() => void>();
  private revision = 0;
  private notifyScheduled = false;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly cluster: () => { name: string; readOnly: boolean };
  private readonly releaseClusters: () => void;
  private readonly identityRetryMs: number;

  constructor(
    private readonly client: KubeClient,
    options: PermissionsOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? TTL_MS;
    this.now = options.now ?? Date.now;
    this.cluster = options.cluster ?? currentCluster;
    this.identityRetryMs = options.identityRetryMs ?? IDENTITY_RETRY_MS;
    this.releaseClusters = subscribeClusters(() => this.changed());
  }

  /** Changes each time an answer arrives (for useSyncExternalStore). */
  version = (): number => this.revision;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Who the user is, once the SelfSubjectReview answered (undefined before, or when the server has none). */
  identity(): Identity | undefined {
    if (!this.identityEntry.loading && this.identityEntry.at === 0) this.loadIdentity();
    return this.identityEntry.value ?? undefined;
  }

  /** What the UI knows about a check now; asks the server in the background when it does not. */
  can = (check: PermissionCheck): Verdict => {
    const cluster = this.cluster();
    if (cluster.readOnly && isWrite(check)) return { state: 'denied', reason: readOnlyReason(cluster.name) };
    const review = check.namespace ? this.rulesFor(check.namespace) : undefined;
    if (check.namespace && review === undefined && this.rules.get(check.namespace)?.loading) return UNKNOWN;
    const decision = decideFromRules(review, check);
    if (decision === 'allowed') return ALLOWED;
    if (decision === 'denied') return { state: 'denied', reason: deniedReason(this.identity(), check) };
    const answer = this.accessFor(namesMatter(review) ? check : { ...check, name: undefined });
    if (!answer) return UNKNOWN;
    return answer.allowed ? ALLOWED : { state: 'denied', reason: deniedReason(this.identity(), check) };
  };

  /** Forgets what is known (a namespace's rules, or everything) so the next question asks again. */
  invalidate(namespaces?: string[]): void {
    if (namespaces) for (const namespace of namespaces) this.rules.delete(namespace);
    else this.rules.clear();
    this.access.clear();
    this.changed();
  }

  dispose(): void {
    this.releaseClusters();
    this.listeners.clear();
  }

  private fresh<T>(entry: Entry<T> | undefined): boolean {
    return entry !== undefined && (entry.loading || this.now() - entry.at < this.ttlMs);
  }

  private rulesFor(namespace: string): RulesReview | undefined {
    const entry = this.rules.get(namespace);
    if (!this.fresh(entry)) {
      const next: Entry<RulesReview> = { value: entry?.value, at: entry?.at ?? 0, loading: true };
      this.rules.set(namespace, next);
      this.client.create(RULES_REVIEW_PATH, rulesReviewBody(namespace)).then(
        (body) => this.settle(this.rules, namespace, next, parseRulesReview(body)),
        // a server that refuses rules reviews: every check goes to access reviews
        () => this.settle(this.rules, namespace, next, { resourceRules: [], incomplete: true }),
      );
    }
    return this.rules.get(namespace)?.value;
  }

  private accessFor(check: PermissionCheck): { allowed: boolean; reason?: string } | undefined {
    const key = checkKey(check);
    const entry = this.access.get(key);
    if (!this.fresh(entry)) {
      const next: Entry<{ allowed: boolean; reason?: string }> = { value: entry?.value, at: entry?.at ?? 0, loading: true };
      this.access.set(key, next);
      this.client.create(ACCESS_REVIEW_PATH, accessReviewBody(check)).then(
        (body) => this.settle(this.access, key, next, parseAccessReview(body)),
        // no answer: leave it unknown (the request itself will say if it is refused)
        () => this.settle(this.access, key, next, undefined),
      );
    }
    return this.access.get(key)?.value;
  }

  private loadIdentity(): void {
    this.identityEntry = { at: 0, loading: true };
    this.client.create(SELF_SUBJECT_REVIEW_PATH, SELF_SUBJECT_REVIEW_BODY).then(
      (body) => {
        this.identityEntry = { value: parseSelfSubjectReview(body) ?? null, at: this.now(), loading: false };
        this.changed();
      },
      (error: unknown) => {
        const failed: Entry<Identity | null> = { value: null, at: this.now(), loading: false };
        this.identityEntry = failed;
        this.changed();
        // a server without the API (404) or that refuses it has no answer to give; a request that
        // got no answer (a network change, a relay or cluster busy starting) is asked again
        if (error instanceof KubeApiError && error.code >= 400 && error.code < 500) return;
        setTimeout(() => {
          if (this.identityEntry !== failed) return;
          this.identityEntry = { at: 0, loading: false };
          this.changed();
        }, this.identityRetryMs);
      },
    );
  }

  private settle<T>(map: Map<string, Entry<T>>, key: string, entry: Entry<T>, value: T | undefined): void {
    // an invalidate() in between dropped this question: its answer is not kept
    if (map.get(key) !== entry) return;
    map.set(key, { value: value ?? entry.value, at: this.now(), loading: false });
    this.changed();
  }

  /** One notification per turn, however many answers arrived in it. */
  private changed(): void {
    this.revision++;
    if (this.notifyScheduled) return;
    this.notifyScheduled = true;
    queueMicrotask(() => {
      this.notifyScheduled = false;
      for (const listener of [...this.listeners]) listener();
    });
  }
}

const stores = new WeakMap<KubeClient, PermissionsStore>();
let latest: PermissionsStore | undefined;

/** The one store per client (a client per cluster, so a store per cluster). */
export function permissionsFor(client: KubeClient): PermissionsStore {
  let store = stores.get(client);
  if (!store) stores.set(client, (store = new PermissionsStore(client)));
  latest = store;
  return store;
}

/** Who the user of the window's cluster is, for messages written outside a view (a refused request's notice). */
export function currentIdentity(): Identity | undefined {
  return latest?.identity();
}
