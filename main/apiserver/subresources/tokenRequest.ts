// serviceaccounts/{name}/token: the TokenRequest API (pkg/registry/core/serviceaccount/storage/token.go).
// `kubectl create token` and the kubelet's projected service-account volumes use it. The
// ServiceAccount strategy names this handler (`provider: 'serviceAccountToken'`); the subresource
// machinery has admitted the TokenRequest before it runs.
import { isRecord } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { json, withWarnings } from '../handlers/replies';
import type { SubresourceHandler } from '../handlers/request';
import type { ResourceRegistry } from '../resourceRegistry';
import type { ResourceStore } from '../resourceStore';
import { API_AUDIENCE, type ServiceAccountTokens, type TokenSubject } from '../serviceAccountTokens';

const MIN_EXPIRATION = 600;
const MAX_EXPIRATION = 2 ** 32;

export function tokenRequestHandler(api: { objects: ResourceStore; registry: ResourceRegistry }, tokens: ServiceAccountTokens): SubresourceHandler {
  return (request, { namespace, name, body, warnings }) => {
    if (request.method !== 'POST') throw ApiError.methodNotAllowed();
    if (!isRecord(body)) throw ApiError.badRequest('the body of a token request must be a TokenRequest object');
    const spec = isRecord(body.spec) ? body.spec : {};
    const expirationSeconds = spec.expirationSeconds === undefined ? 3600 : spec.expirationSeconds;
    if (typeof expirationSeconds !== 'number' || !Number.isInteger(expirationSeconds)) {
      throw ApiError.badRequest('json: cannot unmarshal value into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64');
    }
    if (expirationSeconds < MIN_EXPIRATION) {
      throw ApiError.invalid('TokenRequest', 'authentication.k8s.io', name, [{ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', detail: `Invalid value: ${expirationSeconds}: may not specify a duration less than 10 minutes` }]);
    }
    if (expirationSeconds > MAX_EXPIRATION) {
      throw ApiError.invalid('TokenRequest', 'authentication.k8s.io', name, [{ type: 'FieldValueTooLong', field: 'spec.expirationSeconds', detail: `Invalid value: ${expirationSeconds}: may not specify a duration larger than 2^32 seconds` }]);
    }
    const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : [API_AUDIENCE];
    const serviceAccounts = api.registry.lookup('', 'v1', 'serviceaccounts');
    const pods = api.registry.lookup('', 'v1', 'pods');
    if (!serviceAccounts || !pods) throw ApiError.internal('service accounts are not served');
    const account = api.objects.get(serviceAccounts, namespace, name);
    const subject: TokenSubject = { namespace, serviceAccountName: name, serviceAccountUid: account.metadata.uid ?? '' };
    const bound = isRecord(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
    if (bound) {
      if (bound.kind !== 'Pod') {
        throw ApiError.badRequest(`cannot bind token for serviceaccount "${name}" to object of kind ${String(bound.kind)}: only Pod is supported`);
      }
      const pod = api.objects.tryGet(pods, namespace, String(bound.name));
      if (!pod) throw ApiError.notFound(pods, String(bound.name));
      if (bound.uid && bound.uid !== pod.metadata.uid) {
        throw ApiError.conflict(pods, String(bound.name), `the UID in the bound object reference (${String(bound.uid)}) does not match the UID in record. The object might have been deleted and then recreated`);
      }
      subject.pod = { name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' };
    }
    const issued = tokens.issue(subject, audiences, expirationSeconds);
    return withWarnings(json(201, {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name, namespace, creationTimestamp: null },
      spec: { audiences, expirationSeconds, boundObjectRef: bound ?? null },
      status: issued,
    }), warnings);
  };
}
