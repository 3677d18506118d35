// AdmissionReview v1 (k8s.io/api/admission/v1) as upstream's webhook dispatchers build and read it
// (staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/request/admissionreview.go): the
// request names the kind, resource, subresource, operation, user and carries object/oldObject and
// the write's options; the response must echo the uid, says allowed or carries a Status, and a
// mutating webhook's change comes back as a base64 JSONPatch. A denial becomes upstream's
// webhookerrors.ToStatusErr: `admission webhook "<name>" denied the request: <message>`.
import { randomUUID } from 'node:crypto';
import type { KubeObject, Status } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { kindOf, type AdmissionAttributes } from './matching';

export interface AdmissionReviewRequest {
  uid: string;
  body: Record<string, unknown>;
}

const optionsKind: Record<string, string> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions', CONNECT: '' };

export function admissionRequest(attributes: AdmissionAttributes, object: KubeObject | undefined): Record<string, unknown> {
  const { def } = attributes;
  const kind = kindOf(attributes);
  const resource = { group: def.group, version: def.version, resource: def.resource };
  const requested = attributes.requestDef ?? def;
  const request: Record<string, unknown> = {
    uid: randomUUID(),
    kind,
    resource,
    requestKind: attributes.requestKind ?? kind,
    requestResource: { group: requested.group, version: requested.version, resource: requested.resource },
    operation: attributes.operation,
    userInfo: userInfo(attributes),
    object: object ?? null,
    oldObject: attributes.oldObject ?? null,
    dryRun: attributes.dryRun,
  };
  if (attributes.subresource) {
    request.subResource = attributes.subresource;
    request.requestSubResource = attributes.subresource;
  }
  if (attributes.name) request.name = attributes.name;
  if (attributes.namespace) request.namespace = attributes.namespace;
  const kindOfOptions = optionsKind[attributes.operation];
  if (kindOfOptions) request.options = { kind: kindOfOptions, apiVersion: 'meta.k8s.io/v1', ...(attributes.options ?? {}) };
  return request;
}

function userInfo(attributes: AdmissionAttributes): Record<string, unknown> {
  // In-process callers are the API server's own loopback client (upstream system:apiserver).
  const user = attributes.user ?? { name: 'system:apiserver', groups: ['system:authenticated', 'system:masters'] };
  const info: Record<string, unknown> = { username: user.name, groups: user.groups };
  if (user.uid) info.uid = user.uid;
  if (user.extra && Object.keys(user.extra).length > 0) info.extra = user.extra;
  return info;
}

export function admissionReview(request: Record<string, unknown>): Record<string, unknown> {
  return { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request };
}

export interface AdmissionResponse {
  allowed: boolean;
  status?: Record<string, unknown>;
  /** decoded JSONPatch operations */
  patch?: unknown;
  warnings: string[];
}

/** Reads a webhook's reply (upstream VerifyAdmissionResponse); throws Error with upstream's texts. */
export function parseAdmissionResponse(reply: unknown, uid: string, mutating: boolean): AdmissionResponse {
  if (!isRecord(reply)) throw new Error('expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview');
  if (reply.apiVersion !== 'admission.k8s.io/v1' || reply.kind !== 'AdmissionReview') {
    throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(reply.apiVersion ?? '')}, Kind=${String(reply.kind ?? '')}`);
  }
  const response = reply.response;
  if (!isRecord(response)) throw new Error('webhook response was absent');
  if (response.uid !== uid) throw new Error(`expected response.uid="${uid}", got "${String(response.uid ?? '')}"`);
  const warnings = Array.isArray(response.warnings) ? response.warnings.filter((item): item is string => typeof item === 'string') : [];
  const parsed: AdmissionResponse = { allowed: response.allowed === true, warnings };
  if (isRecord(response.status)) parsed.status = response.status;
  const hasPatch = typeof response.patch === 'string' && response.patch !== '';
  if (hasPatch) {
    if (!mutating) throw new Error('validating webhooks may not return patches');
    if (response.patchType !== 'JSONPatch') throw new Error(`expected patchType "JSONPatch", got "${String(response.patchType ?? '')}"`);
    try {
      parsed.patch = JSON.parse(Buffer.from(String(response.patch), 'base64').toString('utf8'));
    } catch {
      throw new Error('the patch returned by the webhook is not valid JSON');
    }
  } else if (response.patchType !== undefined && response.patchType !== null && response.patchType !== '') {
    throw new Error(`webhook returned patchType "${String(response.patchType)}" but no patch`);
  }
  return parsed;
}

/** An error reply whose Status comes from the webhook as upstream passes it through. */
export class WebhookStatusError extends ApiError {
  constructor(private readonly status: Status) {
    super(status.code, 'Forbidden', status.message ?? '', status.details);
  }

  override toStatus(): Status {
    return this.status;
  }
}

/** webhookerrors.ToStatusErr */
export function deniedError(webhookName: string, result: Record<string, unknown> | undefined): WebhookStatusError {
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const code = typeof result?.code === 'number' && result.code >= 400 ? result.code : 400;
  const message = typeof result?.message === 'string' ? result.message : '';
  const reason = typeof result?.reason === 'string' ? result.reason : '';
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, message: '' };
  if (message) status.message = `${deniedBy}: ${message}`;
  else if (reason) status.message = `${deniedBy}: ${reason}`;
  else status.message = `${deniedBy} without explanation`;
  if (reason) status.reason = reason;
  if (isRecord(result?.details)) status.details = result.details;
  return new WebhookStatusError(status);
}

/** The error for a webhook that could not be called under failurePolicy Fail (upstream ErrCallingWebhook). */
export function callingError(webhookName: string, cause: unknown): ApiError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return ApiError.internal(`failed calling webhook "${webhookName}": failed to call webhook: ${detail}`);
}
