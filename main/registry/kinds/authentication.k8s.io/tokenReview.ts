// TokenReview (authentication.k8s.io/v1), after pkg/registry/authentication/tokenreview/storage.go:
// created and answered at once, never stored; main/apiserver/auth/reviews.ts serves the resource.
import { defaultTableDef } from '../../../../shared/printers/defaultTable';
import { defineKind } from '../../strategy';

export const tokenReviewStrategy = defineKind({
  group: 'authentication.k8s.io',
  version: 'v1',
  resource: 'tokenreviews',
  kind: 'TokenReview',
  namespaced: false,
  verbs: ['create'],
  printer: defaultTableDef,
});
