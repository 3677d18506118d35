// The 403 a denied request gets, worded as upstream's responsewriters.Forbidden
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go) wrapped in
// apierrors.NewForbidden: `pods is forbidden: User "x" cannot list resource "pods" in API group ""
// in the namespace "default"`, with the authorizer's reason appended after a colon.
import { ApiError } from '../apiError';
import type { Attributes } from './rbacAuthorizer';

export function forbiddenMessage(attributes: Attributes): string {
  const username = attributes.user.name;
  if (!attributes.isResourceRequest) return `User "${username}" cannot ${attributes.verb} path "${attributes.path}"`;
  const resource = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  if (attributes.namespace) return `User "${username}" cannot ${attributes.verb} resource "${resource}" in API group "${attributes.apiGroup}" in the namespace "${attributes.namespace}"`;
  return `User "${username}" cannot ${attributes.verb} resource "${resource}" in API group "${attributes.apiGroup}" at the cluster scope`;
}

export function forbidden(attributes: Attributes, reason: string): ApiError {
  const message = reason ? `${forbiddenMessage(attributes)}: ${reason}` : forbiddenMessage(attributes);
  const group = attributes.isResourceRequest ? attributes.apiGroup : '';
  const resource = attributes.isResourceRequest ? attributes.resource : '';
  const name = attributes.isResourceRequest ? attributes.name : '';
  const qualified = group ? `${resource}.${group}` : resource;
  let text: string;
  if (!qualified) text = `forbidden: ${message}`;
  else if (!name) text = `${qualified} is forbidden: ${message}`;
  else text = `${qualified} "${name}" is forbidden: ${message}`;
  const details: Record<string, string> = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  return new ApiError(403, 'Forbidden', text, details);
}
