// SelfSubjectReview (authentication.k8s.io/v1), after pkg/registry/authentication/selfsubjectreview/rest.go:
// created and answered at once, never stored; main/apiserver/auth/reviews.ts serves the resource.
import { defaultTableDef } from '../../../../shared/printers/defaultTable';
import { defineKind } from '../../strategy';

export const selfSubjectReviewStrategy = defineKind({
  group: 'authentication.k8s.io',
  version: 'v1',
  resource: 'selfsubjectreviews',
  kind: 'SelfSubjectReview',
  namespaced: false,
  verbs: ['create'],
  printer: defaultTableDef,
});
