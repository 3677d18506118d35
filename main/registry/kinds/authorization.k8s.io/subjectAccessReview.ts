// SubjectAccessReview (authorization.k8s.io/v1), after pkg/registry/authorization/subjectaccessreview/rest.go:
// created and answered at once, never stored; main/apiserver/auth/reviews.ts serves the resource.
import { defaultTableDef } from '../../../../shared/printers/defaultTable';
import { defineKind } from '../../strategy';

export const subjectAccessReviewStrategy = defineKind({
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'subjectaccessreviews',
  kind: 'SubjectAccessReview',
  namespaced: false,
  verbs: ['create'],
  printer: defaultTableDef,
});
