// ServiceAccount (core/v1), after pkg/registry/core/serviceaccount/strategy.go and storage/token.go:
// /token issues a TokenRequest (`kubectl create token`, projected volumes), provided by the API
// server's token issuer (main/apiserver/subresources/tokenRequest.ts).
import { serviceAccountTable } from '../../../../shared/printers/core';
import { validateServiceAccount, validateServiceAccountUpdate } from '../../validation/core';
import { defineKind } from '../../strategy';

export const serviceAccountStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  subresources: [{ name: 'token', type: 'create', provider: 'serviceAccountToken', group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }],
  validateCreate: validateServiceAccount,
  validateUpdate: validateServiceAccountUpdate,
  printer: serviceAccountTable,
});
