// The review APIs, answered at once and never stored: authorization.k8s.io/v1
// SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview
// (pkg/registry/authorization/*) and authentication.k8s.io/v1 SelfSubjectReview and TokenReview
// (pkg/registry/authentication/*). `kubectl auth can-i [--list]` and `kubectl auth whoami` use them.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { FieldError } from '../../registry/fieldErrors';
import { fieldErrors } from '../../registry/fieldErrors';
import type { KindStrategy } from '../../registry/strategy';
import { ApiError } from '../apiError';
import { json } from '../handlers/replies';
import type { ApiReply, ApiRequest, ApiServerContext } from '../handlers/request';
import { decodeBody } from '../content';
import type { Attributes, Authorizer, UserIdentity } from './rbacAuthorizer';

/** Authenticates a bearer token as the HTTPS front does (for TokenReview). */
export interface TokenAuthenticator {
  authenticate(headers: Record<string, string | string[] | undefined>): UserIdentity | undefined;
}

/** Who in-process callers are: upstream's loopback client identity. */
export const LOOPBACK_USER: UserIdentity = { name: 'system:apiserver', groups: ['system:authenticated', 'system:masters'] };

const AUTHORIZATION = 'authorization.k8s.io';
const AUTHENTICATION = 'authentication.k8s.io';

export function registerReviewApis(api: ApiServerContext, options: { authorizer: Authorizer; authenticator: TokenAuthenticator }): void {
  const { authorizer, authenticator } = options;
  const register = (group: string, resource: string, answer: (review: KubeObject, user: UserIdentity, namespace: string, def: KindStrategy) => Record<string, unknown>) => {
    api.registerVirtualResource(group, 'v1', resource, (request, context) => {
      if (context.name !== undefined || request.method !== 'POST') throw ApiError.methodNotAllowed();
      const review = reviewBody(request, context.def);
      const status = answer(review, request.user ?? LOOPBACK_USER, context.namespace, context.def);
      return reply({ ...review, kind: context.def.kind, apiVersion: `${group}/v1`, metadata: isRecord(review.metadata) ? review.metadata : {}, status });
    });
  };

  register(AUTHORIZATION, 'selfsubjectaccessreviews', (review, user, _namespace, def) => {
    const spec = specOf(review);
    validateAttributesChoice(spec, def);
    return accessStatus(authorizer, attributesFor(spec, user));
  });

  register(AUTHORIZATION, 'subjectaccessreviews', (review, _user, _namespace, def) => {
    const spec = specOf(review);
    const errors: FieldError[] = [];
    const groups = strings(spec.groups);
    if (!spec.user && groups.length === 0) errors.push(fieldErrors.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
    if (errors.length) throw ApiError.invalid(def.kind, def.group, '', errors);
    validateAttributesChoice(spec, def);
    return accessStatus(authorizer, attributesFor(spec, subjectOf(spec)));
  });

  register(AUTHORIZATION, 'localsubjectaccessreviews', (review, _user, namespace, def) => {
    const spec = specOf(review);
    if (!namespace) throw ApiError.badRequest(`namespace is required on this type: ${namespace}`);
    const reviewNamespace = isRecord(review.metadata) && typeof review.metadata.namespace === 'string' ? review.metadata.namespace : namespace;
    if (reviewNamespace !== namespace) throw ApiError.badRequest(`the namespace of the provided object does not match the namespace sent on the request`);
    const errors: FieldError[] = [];
    if (spec.nonResourceAttributes != null) errors.push(fieldErrors.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
    if (!isRecord(spec.resourceAttributes)) errors.push(fieldErrors.invalid('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
    else if (spec.resourceAttributes.namespace !== undefined && spec.resourceAttributes.namespace !== '' && spec.resourceAttributes.namespace !== namespace) {
      errors.push(fieldErrors.invalid('spec.resourceAttributes.namespace', spec.resourceAttributes.namespace, 'must match metadata.namespace'));
    }
    if (!spec.user && strings(spec.groups).length === 0) errors.push(fieldErrors.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
    if (errors.length) throw ApiError.invalid(def.kind, def.group, '', errors);
    const attributes = attributesFor(spec, subjectOf(spec));
    attributes.namespace = namespace;
    return accessStatus(authorizer, attributes);
  });

  register(AUTHORIZATION, 'selfsubjectrulesreviews', (review, user) => {
    const spec = specOf(review);
    const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
    const rules = authorizer.rulesFor(user, namespace);
    const status: Record<string, unknown> = { resourceRules: rules.resourceRules.map(compactRule), nonResourceRules: rules.nonResourceRules, incomplete: rules.incomplete };
    if (rules.evaluationError) status.evaluationError = rules.evaluationError;
    return status;
  });

  register(AUTHENTICATION, 'selfsubjectreviews', (_review, user) => ({ userInfo: userInfoOf(user) }));

  register(AUTHENTICATION, 'tokenreviews', (review) => {
    const spec = specOf(review);
    const token = typeof spec.token === 'string' ? spec.token : '';
    if (!token) throw ApiError.badRequest('token is required for TokenReview in authentication');
    const user = authenticator.authenticate({ authorization: `Bearer ${token}` });
    if (!user) return { user: {} };
    const status: Record<string, unknown> = { authenticated: true, user: userInfoOf(user) };
    const audiences = strings(spec.audiences);
    if (audiences.length) status.audiences = audiences;
    return status;
  });
}

function reviewBody(request: ApiRequest, def: KindStrategy): KubeObject {
  const body = request.parsedBody ?? decodeBody(request.body ?? Buffer.alloc(0), request.headers['content-type']);
  if (!isRecord(body)) throw ApiError.badRequest(`the body of the request must be a ${def.kind} object`);
  if (body.kind !== undefined && body.kind !== def.kind) throw ApiError.badRequest(`the kind in the body (${String(body.kind)}) does not match ${def.kind}`);
  return { ...body, metadata: isRecord(body.metadata) ? body.metadata : {} };
}

function reply(body: Record<string, unknown>): ApiReply {
  return json(201, body);
}

function specOf(review: KubeObject): Record<string, unknown> {
  return isRecord(review.spec) ? review.spec : {};
}

function validateAttributesChoice(spec: Record<string, unknown>, def: KindStrategy): void {
  const errors: FieldError[] = [];
  const hasResource = spec.resourceAttributes != null;
  const hasNonResource = spec.nonResourceAttributes != null;
  if (hasResource && hasNonResource) errors.push(fieldErrors.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'));
  if (!hasResource && !hasNonResource) errors.push(fieldErrors.invalid('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  if (errors.length) throw ApiError.invalid(def.kind, def.group, '', errors);
}

function attributesFor(spec: Record<string, unknown>, user: UserIdentity): Attributes {
  if (isRecord(spec.resourceAttributes)) {
    const resource = spec.resourceAttributes;
    return {
      user,
      verb: text(resource.verb),
      isResourceRequest: true,
      path: '',
      apiGroup: text(resource.group),
      apiVersion: text(resource.version),
      namespace: text(resource.namespace),
      resource: text(resource.resource),
      subresource: text(resource.subresource),
      name: text(resource.name),
    };
  }
  const nonResource = isRecord(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  return { user, verb: text(nonResource.verb), isResourceRequest: false, path: text(nonResource.path), apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}

function subjectOf(spec: Record<string, unknown>): UserIdentity {
  const user: UserIdentity = { name: text(spec.user), groups: strings(spec.groups) };
  if (typeof spec.uid === 'string' && spec.uid) user.uid = spec.uid;
  if (isRecord(spec.extra)) user.extra = Object.fromEntries(Object.entries(spec.extra).map(([key, values]) => [key, strings(values)]));
  return user;
}

function accessStatus(authorizer: Authorizer, attributes: Attributes): Record<string, unknown> {
  const decision = authorizer.authorize(attributes);
  const status: Record<string, unknown> = { allowed: decision.allowed };
  if (decision.reason) status.reason = decision.reason;
  return status;
}

/** Empty lists are omitted on the wire (omitempty), as upstream's SelfSubjectRulesReview shows. */
function compactRule(rule: { verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames: string[] }): Record<string, string[]> {
  const out: Record<string, string[]> = { verbs: rule.verbs };
  if (rule.apiGroups.length) out.apiGroups = rule.apiGroups;
  if (rule.resources.length) out.resources = rule.resources;
  if (rule.resourceNames.length) out.resourceNames = rule.resourceNames;
  return out;
}

function userInfoOf(user: UserIdentity): Record<string, unknown> {
  const info: Record<string, unknown> = { username: user.name };
  if (user.uid) info.uid = user.uid;
  info.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length) info.extra = user.extra;
  return info;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
