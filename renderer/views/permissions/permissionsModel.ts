// What the UI may do on a cluster, decided before the user clicks: the pure part. The user's rules in
// a namespace come from a SelfSubjectRulesReview (authorization.k8s.io/v1, what `kubectl auth can-i
// --list` reads) and are matched with the API server's own RBAC rule matching
// (shared/kubernetes/policyRules.ts, upstream rule.go: verbs, apiGroups, resources with `*` and
// `*/sub`, resourceNames). What a namespace's rules cannot answer is asked with a
// SelfSubjectAccessReview (`kubectl auth can-i VERB RESOURCE`): the rules are incomplete (an
// authorizer that cannot list them, e.g. a webhook), the resource is cluster-scoped (the namespace's
// rules mix in its RoleBindings, which never grant cluster-scoped access) or the check is for a
// subresource (pods/exec, deployments/scale; other authorizers than RBAC may grant those). Who the
// user is comes from a SelfSubjectReview (authentication.k8s.io/v1, `kubectl auth whoami`), so a
// disabled action and a refused request both say it in the user's own name.
import { isRecord } from '../../../shared/kubernetes/types';
import { resourceRuleAllows, type PolicyRule } from '../../../shared/kubernetes/policyRules';

/** One thing the UI may want to do: a verb on a resource (or subresource), in a namespace or cluster-wide. */
export interface PermissionCheck {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  /** '' or undefined: a cluster-scoped resource, or every namespace */
  namespace?: string;
  name?: string;
  /**
   * A non-resource URL (e.g. `/registry/v2/app/manifests/v1`): the check is about this path and the
   * verb (RBAC's nonResourceURLs); group, resource, namespace and name are then ignored.
   */
  path?: string;
}

export interface RulesReview {
  resourceRules: PolicyRule[];
  incomplete: boolean;
  evaluationError?: string;
}

export interface Identity {
  username: string;
  groups: string[];
}

/** What the UI knows about one check. */
export type Verdict = { state: 'allowed' } | { state: 'denied'; reason: string } | { state: 'unknown' };

export const ALLOWED: Verdict = { state: 'allowed' };
export const UNKNOWN: Verdict = { state: 'unknown' };

/** Asks the UI's knowledge about a check; never blocks (unknown until the reviews answer). */
export type Can = (check: PermissionCheck) => Verdict;

/** Everything is allowed (tests, and views shown before the permissions load). */
export const canAnything: Can = () => ALLOWED;

const READ_VERBS = new Set(['get', 'list', 'watch']);

/** Whether a check is a write (what a read-only cluster refuses): every verb but get, list and watch. */
export function isWrite(check: Pick<PermissionCheck, 'verb'>): boolean {
  return !READ_VERBS.has(check.verb);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** A SelfSubjectRulesReview's status as the UI uses it. */
export function parseRulesReview(body: unknown): RulesReview {
  const status = isRecord(body) && isRecord(body.status) ? body.status : {};
  const rules = Array.isArray(status.resourceRules) ? status.resourceRules : [];
  return {
    resourceRules: rules.filter(isRecord).map((rule) => ({ verbs: strings(rule.verbs), apiGroups: strings(rule.apiGroups), resources: strings(rule.resources), resourceNames: strings(rule.resourceNames) })),
    incomplete: status.incomplete === true,
    evaluationError: typeof status.evaluationError === 'string' && status.evaluationError ? status.evaluationError : undefined,
  };
}

/** The body of a SelfSubjectRulesReview for a namespace. */
export function rulesReviewBody(namespace: string): unknown {
  return { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } };
}

/** The body of a SelfSubjectAccessReview asking about one check. */
export function accessReviewBody(check: PermissionCheck): unknown {
  if (check.path !== undefined) return { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { nonResourceAttributes: { path: check.path, verb: check.verb } } };
  const attributes: Record<string, string> = { verb: check.verb, group: check.group, resource: check.resource };
  if (check.subresource) attributes.subresource = check.subresource;
  if (check.namespace) attributes.namespace = check.namespace;
  if (check.name) attributes.name = check.name;
  return { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attributes } };
}

/** A SelfSubjectAccessReview's answer: allowed, and the authorizer's reason when there is one. */
export function parseAccessReview(body: unknown): { allowed: boolean; reason?: string } {
  const status = isRecord(body) && isRecord(body.status) ? body.status : {};
  const reason = typeof status.reason === 'string' && status.reason ? status.reason : typeof status.evaluationError === 'string' && status.evaluationError ? status.evaluationError : undefined;
  return { allowed: status.allowed === true && status.denied !== true, reason };
}

/** The user a SelfSubjectReview names, or undefined when the body is not one. */
export function parseSelfSubjectReview(body: unknown): Identity | undefined {
  const status = isRecord(body) && isRecord(body.status) ? body.status : undefined;
  const user = status && isRecord(status.userInfo) ? status.userInfo : undefined;
  if (!user || typeof user.username !== 'string') return undefined;
  return { username: user.username, groups: strings(user.groups) };
}

export const SELF_SUBJECT_REVIEW_BODY = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
export const RULES_REVIEW_PATH = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
export const ACCESS_REVIEW_PATH = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
export const SELF_SUBJECT_REVIEW_PATH = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

/**
 * What a namespace's rules say about a check: `allowed` when a rule grants it; `denied` when no
 * rule does and the rules are complete; `ask` when only a SelfSubjectAccessReview can tell
 * (incomplete rules, a cluster-scoped or every-namespace check, a subresource).
 */
export function decideFromRules(review: RulesReview | undefined, check: PermissionCheck): 'allowed' | 'denied' | 'ask' {
  if (!check.namespace || check.path !== undefined) return 'ask';
  if (!review) return 'ask';
  const attributes = { verb: check.verb, apiGroup: check.group, resource: check.resource, subresource: check.subresource ?? '', name: check.name ?? '' };
  if (review.resourceRules.some((rule) => resourceRuleAllows(attributes, rule))) return 'allowed';
  if (review.incomplete || check.subresource) return 'ask';
  return 'denied';
}

/** `deployments.apps/scale`: the resource as kubectl names it (resource.group), with the subresource. */
export function resourceLabel(check: Pick<PermissionCheck, 'group' | 'resource' | 'subresource' | 'path'>): string {
  if (check.path !== undefined) return check.path;
  return `${check.resource}${check.group ? `.${check.group}` : ''}${check.subresource ? `/${check.subresource}` : ''}`;
}

/** Who is asking, for messages: `You (alice)`, or `You` before the SelfSubjectReview answered. */
export function youLabel(identity: Identity | undefined): string {
  return identity ? `You (${identity.username})` : 'You';
}

/** Why a check is refused: `You (system:serviceaccount:ns:viewer) may not delete pods in "default"`. */
export function deniedReason(identity: Identity | undefined, check: PermissionCheck): string {
  if (check.path !== undefined) return `${youLabel(identity)} may not ${check.verb} ${check.path}`;
  const where = check.namespace ? ` in "${check.namespace}"` : '';
  const named = check.name && check.resource ? ` "${check.name}"` : '';
  return `${youLabel(identity)} may not ${check.verb} ${resourceLabel(check)}${named}${where}`;
}

/** Why writes are off on a read-only cluster. */
export function readOnlyReason(clusterName: string | undefined): string {
  return `read-only: the cluster${clusterName ? ` "${clusterName}"` : ''} is read-only in kubedesk (turn it off in Settings → Clusters)`;
}

/** The key of a check in the caches (name only when it matters: rules with resourceNames). */
export function checkKey(check: PermissionCheck): string {
  if (check.path !== undefined) return [check.verb, 'path', check.path].join('|');
  return [check.verb, check.group, check.resource, check.subresource ?? '', check.namespace ?? '', check.name ?? ''].join('|');
}

/** Whether some rule of the review names resources, so a check's name can change the answer. */
export function namesMatter(review: RulesReview | undefined): boolean {
  return review === undefined || review.resourceRules.some((rule) => (rule.resourceNames ?? []).length > 0);
}

/** The first refused check of several (an action needing more than one permission), or allowed/unknown. */
export function combine(verdicts: Verdict[]): Verdict {
  return verdicts.find((verdict) => verdict.state === 'denied') ?? verdicts.find((verdict) => verdict.state === 'unknown') ?? ALLOWED;
}

/** The reason to disable an action needing these checks, or undefined when it may run (or the UI does not know yet). */
export function refusal(can: Can, checks: PermissionCheck[]): string | undefined {
  const verdict = combine(checks.map(can));
  return verdict.state === 'denied' ? verdict.reason : undefined;
}

// ---- refused requests (403) ----

/** An API request split as the API server's RequestInfo splits it. */
export interface RequestTarget {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/**
 * The verb and resource of an API request (upstream's RequestInfoFactory): GET of a name is get,
 * of a collection list (watch with ?watch), POST create, PUT update, PATCH patch, DELETE of a
 * collection deletecollection. Undefined for paths that are not resource requests.
 */
export function requestTarget(method: string, path: string, query = ''): RequestTarget | undefined {
  const clean = path.split('?')[0];
  const parts = clean.split('/').filter(Boolean).map((part) => decodeURIComponent(part));
  let rest: string[];
  let group: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1];
    rest = parts.slice(3);
  } else return undefined;
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name = '', subresource = ''] = rest;
  if (!resource) return undefined;
  const upper = method.toUpperCase();
  let verb: string;
  if (upper === 'GET' || upper === 'HEAD') verb = name ? 'get' : /(^|&|\?)watch=(1|true)/.test(query) ? 'watch' : 'list';
  else if (upper === 'POST') verb = 'create';
  else if (upper === 'PUT') verb = 'update';
  else if (upper === 'PATCH') verb = 'patch';
  else if (upper === 'DELETE') verb = name ? 'delete' : 'deletecollection';
  else verb = upper.toLowerCase();
  return { verb, group, resource, subresource, namespace, name };
}

/**
 * A refused request in words: who the user is, what was refused and the server's own message —
 * `Refused: you (alice) may not patch deployments.apps/scale "web" in "default". The server said: …`.
 */
export function forbiddenText(identity: Identity | undefined, target: RequestTarget | undefined, serverMessage: string): string {
  const who = identity ? `you (${identity.username})` : 'you';
  const what = target ? ` may not ${target.verb} ${resourceLabel(target)}${target.name ? ` "${target.name}"` : ''}${target.namespace ? ` in "${target.namespace}"` : ''}` : ' may not do this';
  return `Refused: ${who}${what}. The server said: ${serverMessage}`;
}
