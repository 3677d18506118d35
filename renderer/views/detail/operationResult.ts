// What the YAML tab and create-from-YAML show after a call: success, or the API server's Status
// message with one line per cause (`field: message`, as kubectl prints Invalid errors), and for a
// server-side apply conflict (409 with FieldManagerConflict causes) the managers and fields in
// conflict, so the user can decide to force.
import { KubeApiError } from '../../api/kubeClient';
import { forbiddenText, requestTarget } from '../permissions/permissionsModel';
import { currentIdentity } from '../permissions/permissionsStore';

export { FIELD_MANAGER } from '../../actions/actionBodies';

export interface OperationResult {
  tone: 'ok' | 'error';
  title: string;
  lines: string[];
  /** a server-side apply conflict: applying again with force=true would take the fields over */
  conflict?: boolean;
}

export function resultOfError(error: unknown): OperationResult {
  if (!(error instanceof KubeApiError)) return { tone: 'error', title: error instanceof Error ? error.message : String(error), lines: [] };
  const conflict = error.code === 409 && error.causes.some((cause) => cause.type === 'FieldManagerConflict');
  const lines = error.causes.map((cause) => {
    const field = cause.field ? `${cause.field}: ` : '';
    return `${field}${cause.message ?? cause.reason ?? cause.type ?? ''}`;
  });
  // refused: who the user is, what was refused and the server's message
  if (error.code === 403) return { tone: 'error', title: forbiddenText(currentIdentity(), error.request ? requestTarget(error.request.method, error.request.path, error.request.query) : undefined, error.message), lines };
  if (conflict) {
    return { tone: 'error', title: `Apply conflict (${error.reason}): other field managers own these fields. Apply with force to take them over, or change your YAML to keep their values.`, lines, conflict: true };
  }
  // upstream repeats every cause inside the message ("X is invalid: [a, b]"); the lines show them once
  const invalidAt = error.message.indexOf(' is invalid: ');
  const message = lines.length > 0 && invalidAt > 0 ? error.message.slice(0, invalidAt + ' is invalid'.length) : error.message;
  return { tone: 'error', title: `${error.reason !== 'Unknown' ? `${error.reason}: ` : ''}${message}`, lines };
}
