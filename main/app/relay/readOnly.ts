// The read-only switch of a cluster in the UI (Settings → Clusters): which requests it refuses.
// Every write verb (POST, PUT, PATCH, DELETE) and every stream that acts on a pod (exec, attach,
// portforward), except the access reviews, which are POSTs that only ask the authorizer a question
// (upstream's authorization.k8s.io SubjectAccessReview family and authentication.k8s.io's
// SelfSubjectReview store nothing).
import { ApiError } from '../../apiserver/apiError';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const REVIEW_PATH =
  /^\/apis\/(?:authorization\.k8s\.io\/v1(?:beta1)?\/(?:selfsubjectaccessreviews|selfsubjectrulesreviews|subjectaccessreviews|namespaces\/[^/]+\/localsubjectaccessreviews)|authentication\.k8s\.io\/v1(?:beta1|alpha1)?\/selfsubjectreviews)\/?$/;
const POD_ACTION_PATH = /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/(?:exec|attach|portforward)\/?$/;

/** The words the UI shows for a refused request. */
export function readOnlyMessage(context: string): string {
  return `the cluster "${context}" is read-only in kubedesk (turn it off in Settings → Clusters)`;
}

/** Whether a read-only cluster refuses this request (`path` without the query). */
export function refusedWhenReadOnly(method: string, path: string): boolean {
  if (POD_ACTION_PATH.test(path)) return true;
  if (READ_METHODS.has(method)) return false;
  return !(method === 'POST' && REVIEW_PATH.test(path));
}

/** The 403 for a request a read-only cluster refuses, or undefined when it may go on. */
export function readOnlyRefusal(context: string, readOnly: boolean, method: string, path: string): ApiError | undefined {
  if (!readOnly || !refusedWhenReadOnly(method, path)) return undefined;
  return new ApiError(403, 'Forbidden', readOnlyMessage(context));
}
