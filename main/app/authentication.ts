// Bearer-token authentication for the admin token in the kubeconfig (service-account tokens come
// with the service-account issue). Compared in constant time.
import { timingSafeEqual } from 'node:crypto';
import type { Authenticator, UserInfo } from '../apiserver/httpServer';

export function tokenAuthenticator(adminToken: string): Authenticator {
  const expected = Buffer.from(adminToken);
  const admin: UserInfo = { name: 'kubedesk-admin', groups: ['system:masters', 'system:authenticated'] };
  return {
    authenticate(headers) {
      const header = headers.authorization;
      if (typeof header !== 'string' || !header.startsWith('Bearer ')) return undefined;
      const given = Buffer.from(header.slice('Bearer '.length).trim());
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      return admin;
    },
  };
}
