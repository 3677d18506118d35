// The authorization step of the HTTPS front, between authentication and the handlers, in
// upstream's filter order (staging/src/k8s.io/apiserver/pkg/server/config.go
// DefaultBuildHandlerChain): impersonation first (checked against the real user), then the
// request's own attributes (RequestInfo) against the authorizer as the effective user.
// WebSocket upgrades of pods/exec, attach and portforward arrive as GET and need `create` too
// (upstream's AuthorizePodWebsocketUpgradeCreatePermission).
import type { IncomingMessage } from 'node:http';
import type { Attributes, Authorizer, UserIdentity } from './rbacAuthorizer';
import { requestInfo } from './requestInfo';
import { forbidden } from './forbidden';
import { impersonate, type DistinctHeaders } from './impersonation';

export interface RequestAuthorization {
  /**
   * The user the request acts as once impersonation and authorization pass; throws the ApiError to
   * answer otherwise. `url` is request.url already parsed (against any base), when the caller has it.
   */
  admit(request: Pick<IncomingMessage, 'method' | 'url' | 'headersDistinct' | 'headers'>, user: UserIdentity, url?: URL): UserIdentity;
}

const UPGRADE_CREATE_SUBRESOURCES = new Set(['exec', 'attach', 'portforward']);

function isImpersonationHeader(name: string): boolean {
  return name.startsWith('impersonate-');
}

export function requestAuthorization(authorizer: Authorizer): RequestAuthorization {
  return {
    admit(request, authenticated, parsed) {
      // headersDistinct is built on first read: only for requests that carry Impersonate-* headers
      const user = Object.keys(request.headers).some(isImpersonationHeader) ? impersonate(authenticated, request.headersDistinct as DistinctHeaders, authorizer) : authenticated;
      const url = parsed ?? new URL(request.url ?? '/', 'https://localhost');
      const attributes: Attributes = { user, ...requestInfo(request.method ?? 'GET', url.pathname, url.searchParams) };
      const decision = authorizer.authorize(attributes);
      if (!decision.allowed) throw forbidden(attributes, decision.reason);
      const upgrade = typeof request.headers.upgrade === 'string' && request.headers.upgrade !== '';
      if (upgrade && attributes.verb === 'get' && attributes.apiGroup === '' && attributes.resource === 'pods' && UPGRADE_CREATE_SUBRESOURCES.has(attributes.subresource)) {
        const create = { ...attributes, verb: 'create' };
        const second = authorizer.authorize(create);
        if (!second.allowed) throw forbidden(create, second.reason);
      }
      return user;
    },
  };
}
