// Impersonation as upstream staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go:
// the Impersonate-User / -Uid / -Group / -Extra-<key> headers each become an `impersonate` check
// against the requesting user (users, serviceaccounts, groups, uids, userextras/<key>); when all
// pass, the request continues as the impersonated user. Service-account user names impersonate
// the service account (with its groups unless groups are given), and every non-anonymous
// impersonated user gets system:authenticated unless a group says otherwise.
import { ApiError } from '../apiError';
import type { Attributes, Authorizer, UserIdentity } from './rbacAuthorizer';
import { forbidden } from './forbidden';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const EXTRA_PREFIX = 'impersonate-extra-';
const ANONYMOUS = 'system:anonymous';
const AUTHENTICATED = 'system:authenticated';
const UNAUTHENTICATED = 'system:unauthenticated';

interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'Uid' | 'UserExtra';
  name: string;
  namespace?: string;
  extraKey?: string;
}

/** Header values by lowercase name, repeated headers kept apart (IncomingMessage.headersDistinct). */
export type DistinctHeaders = Record<string, string[] | undefined>;

export function hasImpersonation(headers: DistinctHeaders): boolean {
  return Object.keys(headers).some((name) => name.startsWith('impersonate-'));
}

/**
 * The user a request acts as: `requester` itself without impersonation headers, else the
 * impersonated user once every impersonation is authorized. Throws the upstream errors.
 */
export function impersonate(requester: UserIdentity, headers: DistinctHeaders, authorizer: Authorizer): UserIdentity {
  const requests = impersonationRequests(headers);
  if (requests.length === 0) return requester;
  const groupsSpecified = (headers['impersonate-group'] ?? []).length > 0;
  let username = '';
  let uid: string | undefined;
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const request of requests) {
    const attributes: Attributes = { user: requester, verb: 'impersonate', isResourceRequest: true, path: '', apiGroup: '', apiVersion: '', namespace: request.namespace ?? '', resource: '', subresource: '', name: request.name };
    switch (request.kind) {
      case 'ServiceAccount':
        attributes.resource = 'serviceaccounts';
        username = `${SERVICE_ACCOUNT_PREFIX}${request.namespace ?? ''}:${request.name}`;
        if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${request.namespace ?? ''}`];
        break;
      case 'User':
        attributes.resource = 'users';
        username = request.name;
        break;
      case 'Group':
        attributes.resource = 'groups';
        groups.push(request.name);
        break;
      case 'Uid':
        attributes.apiGroup = 'authentication.k8s.io';
        attributes.resource = 'uids';
        uid = request.name;
        break;
      case 'UserExtra': {
        const key = request.extraKey ?? '';
        attributes.apiGroup = 'authentication.k8s.io';
        attributes.resource = 'userextras';
        attributes.subresource = key;
        (extra[key] ??= []).push(request.name);
        break;
      }
    }
    const decision = authorizer.authorize(attributes);
    if (!decision.allowed) throw forbidden(attributes, decision.reason);
  }
  if (username !== ANONYMOUS) {
    if (!groups.includes(AUTHENTICATED) && !groups.includes(UNAUTHENTICATED)) groups.push(AUTHENTICATED);
  } else if (!groups.includes(UNAUTHENTICATED)) {
    groups.push(UNAUTHENTICATED);
  }
  const user: UserIdentity = { name: username, groups };
  if (uid !== undefined) user.uid = uid;
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}

function impersonationRequests(headers: DistinctHeaders): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const requestedUser = (headers['impersonate-user'] ?? [])[0] ?? '';
  const hasUser = requestedUser !== '';
  if (hasUser) {
    const serviceAccount = splitServiceAccountUsername(requestedUser);
    requests.push(serviceAccount ? { kind: 'ServiceAccount', ...serviceAccount } : { kind: 'User', name: requestedUser });
  }
  let hasOther = false;
  for (const group of headers['impersonate-group'] ?? []) {
    hasOther = true;
    requests.push({ kind: 'Group', name: group });
  }
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(EXTRA_PREFIX) || !values) continue;
    hasOther = true;
    const key = unescapeKey(header.slice(EXTRA_PREFIX.length));
    for (const value of values) requests.push({ kind: 'UserExtra', name: value, extraKey: key });
  }
  const requestedUid = (headers['impersonate-uid'] ?? [])[0] ?? '';
  if (requestedUid !== '') {
    hasOther = true;
    requests.push({ kind: 'Uid', name: requestedUid });
  }
  if (hasOther && !hasUser) {
    throw ApiError.internal(`requested [${requests.map(describe).join(' ')}] without impersonating a user`);
  }
  return requests;
}

function describe(request: ImpersonationRequest): string {
  return request.kind === 'UserExtra' ? `{UserExtra ${request.extraKey ?? ''}=${request.name}}` : `{${request.kind} ${request.name}}`;
}

/** serviceaccount.SplitUsername: `system:serviceaccount:<namespace>:<name>` with both parts non-empty. */
function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0], name: parts[1] };
}

function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key).toLowerCase();
  } catch {
    return key.toLowerCase();
  }
}
