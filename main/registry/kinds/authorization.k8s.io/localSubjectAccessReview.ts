// LocalSubjectAccessReview (authorization.k8s.io/v1), after pkg/registry/authorization/localsubjectaccessreview/rest.go:
// created and answered at once, never stored; main/apiserver/auth/reviews.ts serves the resource.
import { defaultTableDef } from '../../../../shared/printers/defaultTable';
import { defineKind } from '../../strategy';

export const localSubjectAccessReviewStrategy = defineKind({
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'localsubjectaccessreviews',
  kind: 'LocalSubjectAccessReview',
  namespaced: true,
  verbs: ['create'],
  printer: defaultTableDef,
});
