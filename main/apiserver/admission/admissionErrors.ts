// Admission rejections as upstream's admission.NewForbidden / apierrors.NewForbidden build them:
// 403 `pods "x" is forbidden: <reason>`, several reasons aggregated as utilerrors.NewAggregate
// prints them (`[a, b]`).
import { ApiError, formatGroupResource, type GroupResource } from '../apiError';

export function aggregateMessage(messages: string[]): string {
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}

export function forbidden(resource: GroupResource, name: string, messages: string[]): ApiError {
  return new ApiError(403, 'Forbidden', `${formatGroupResource(resource)} "${name}" is forbidden: ${aggregateMessage(messages)}`, { name, group: resource.group, kind: resource.resource });
}
