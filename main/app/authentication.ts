// Authentication: the admin bearer token from the kubeconfig (compared in constant time) and
// service-account JWTs (pkg/serviceaccount/jwt.go), whose service account — and bound pod, if
// any — must still exist with the same uid. The token is read as upstream's bearertoken
// authenticator reads it; a token that matches neither is refused (401), while a request without
// one goes on as anonymous (httpServer.ts).
import { timingSafeEqual } from 'node:crypto';
import { bearerTokenOf, type Authenticator, type UserInfo } from '../apiserver/httpServer';
import type { ServiceAccountTokens } from '../apiserver/serviceAccountTokens';

export interface LiveObjects {
  /** uid of the object, or undefined when it no longer exists */
  uidOf(resource: 'serviceaccounts' | 'pods', namespace: string, name: string): string | undefined;
}

export function tokenAuthenticator(adminToken: string, serviceAccounts?: { tokens: ServiceAccountTokens; live: LiveObjects }): Authenticator {
  const expected = Buffer.from(adminToken);
  const admin: UserInfo = { name: 'kubedesk-admin', groups: ['system:masters', 'system:authenticated'] };
  return {
    presents: (headers) => bearerTokenOf(headers) !== undefined,
    authenticate(headers) {
      const token = bearerTokenOf(headers);
      if (token === undefined) return undefined;
      const given = Buffer.from(token);
      if (given.length === expected.length && timingSafeEqual(given, expected)) return admin;
      if (!serviceAccounts) return undefined;
      const verified = serviceAccounts.tokens.verify(token);
      if (!verified) return undefined;
      if (serviceAccounts.live.uidOf('serviceaccounts', verified.namespace, verified.serviceAccountName) !== verified.serviceAccountUid) return undefined;
      if (verified.pod && serviceAccounts.live.uidOf('pods', verified.namespace, verified.pod.name) !== verified.pod.uid) return undefined;
      // uid and the bound objects as extras, as upstream's ServiceAccountInfo.UserInfo (`kubectl auth whoami` shows them)
      const extra: Record<string, string[]> = {};
      if (verified.pod) {
        extra['authentication.kubernetes.io/pod-name'] = [verified.pod.name];
        extra['authentication.kubernetes.io/pod-uid'] = [verified.pod.uid];
      }
      if (verified.node) {
        extra['authentication.kubernetes.io/node-name'] = [verified.node.name];
        extra['authentication.kubernetes.io/node-uid'] = [verified.node.uid];
      }
      return {
        name: `system:serviceaccount:${verified.namespace}:${verified.serviceAccountName}`,
        uid: verified.serviceAccountUid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${verified.namespace}`, 'system:authenticated'],
        ...(Object.keys(extra).length ? { extra } : {}),
      };
    },
  };
}
