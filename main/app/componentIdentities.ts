// Who kubedesk's in-process components are when they call the API server, as upstream's
// components authenticate: each controller as its ServiceAccount kube-system/<name>
// (kube-controller-manager --use-service-account-credentials), the scheduler as
// system:kube-scheduler, each kubelet as system:node:<node> in system:nodes. Their requests pass
// RBAC like any HTTPS caller's (auth/componentPolicy.ts grants what they need), so a component
// lacking a permission gets 403 Forbidden, and the denial is logged once per distinct message.
// Only bootstrap and the shared informer factory use the unauthenticated loopback client: the
// informers' cache is the API server's own view, like upstream's loopback client (system:apiserver).
import type { ApiServer } from '../apiserver/apiServer';
import type { RequestAuthorization } from '../apiserver/auth/requestAuthorization';
import { CONTROLLER_NAMESPACE, KUBE_SCHEDULER_USER, NODES_GROUP, NODE_USER_PREFIX } from '../apiserver/auth/componentPolicy';
import { ApiClient } from '../client/apiClient';
import { InProcessTransport } from './inProcessTransport';

export interface ComponentUser {
  username: string;
  groups: string[];
  uid?: string;
}

const AUTHENTICATED = 'system:authenticated';

/** A ServiceAccount's user, as the service-account token authenticator names it. */
export function serviceAccountUser(namespace: string, name: string, uid?: string): ComponentUser {
  return { username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, AUTHENTICATED], ...(uid ? { uid } : {}) };
}

/** The user of a controller running with its own ServiceAccount in kube-system. */
export function controllerUser(serviceAccountName: string): ComponentUser {
  return serviceAccountUser(CONTROLLER_NAMESPACE, serviceAccountName);
}

export function schedulerUser(): ComponentUser {
  return { username: KUBE_SCHEDULER_USER, groups: [AUTHENTICATED] };
}

/** A kubelet's user, as its client certificate names it (CN=system:node:<node>, O=system:nodes). */
export function nodeUser(nodeName: string): ComponentUser {
  return { username: `${NODE_USER_PREFIX}${nodeName}`, groups: [NODES_GROUP, AUTHENTICATED] };
}

export interface ComponentClients {
  /** a client acting as `user`, writing under `userAgent` */
  clientFor(user: ComponentUser, userAgent: string): ApiClient;
}

/**
 * Makes in-process clients that act as component users. Denials are reported through `log`
 * (console.warn by default) once per message, so a missing rule shows in the server log.
 */
export function componentClients(api: ApiServer, authorization: RequestAuthorization, log: (line: string) => void = (line) => console.warn(line)): ComponentClients {
  const reported = new Set<string>();
  const onForbidden = (message: string) => {
    if (reported.has(message)) return;
    if (reported.size > 1000) reported.clear();
    reported.add(message);
    log(`kubedesk: component request forbidden: ${message}`);
  };
  return {
    clientFor: (user, userAgent) => new ApiClient(new InProcessTransport(api, { userAgent, user, authorization, onForbidden })),
  };
}
