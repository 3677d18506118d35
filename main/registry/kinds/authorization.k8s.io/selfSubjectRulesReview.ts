// SelfSubjectRulesReview (authorization.k8s.io/v1), after pkg/registry/authorization/selfsubjectrulesreview/rest.go:
// created and answered at once, never stored; main/apiserver/auth/reviews.ts serves the resource.
import { defaultTableDef } from '../../../../shared/printers/defaultTable';
import { defineKind } from '../../strategy';

export const selfSubjectRulesReviewStrategy = defineKind({
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'selfsubjectrulesreviews',
  kind: 'SelfSubjectRulesReview',
  namespaced: false,
  verbs: ['create'],
  printer: defaultTableDef,
});
