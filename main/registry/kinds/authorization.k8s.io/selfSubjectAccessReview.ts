// SelfSubjectAccessReview (authorization.k8s.io/v1), after pkg/registry/authorization/selfsubjectaccessreview/rest.go:
// created and answered at once, never stored; main/apiserver/auth/reviews.ts serves the resource.
import { defaultTableDef } from '../../../../shared/printers/defaultTable';
import { defineKind } from '../../strategy';

export const selfSubjectAccessReviewStrategy = defineKind({
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'selfsubjectaccessreviews',
  kind: 'SelfSubjectAccessReview',
  namespaced: false,
  verbs: ['create'],
  printer: defaultTableDef,
});
