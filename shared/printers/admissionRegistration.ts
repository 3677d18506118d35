// `kubectl get` tables for ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
// (upstream pkg/printers/internalversion/printers.go printValidatingAdmissionPolicy /
// printValidatingAdmissionPolicyBinding); the webhook configurations print from policy.ts.
import type { TableDef } from './table';
import { ageColumn, column, nameColumn } from './columns';
import { arrayAt, hasValue, stringAt } from './fields';
import { age, name } from './format';

export const validatingAdmissionPolicyTable: TableDef = {
  columns: [
    nameColumn(),
    column('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
    column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
    ageColumn(),
  ],
  row(object, now) {
    const paramKind = hasValue(object, 'spec', 'paramKind') ? `${stringAt(object, 'spec', 'paramKind', 'apiVersion')}/${stringAt(object, 'spec', 'paramKind', 'kind')}` : '<unset>';
    return [name(object), arrayAt(object, 'spec', 'validations').length, paramKind, age(object, now)];
  },
};

export const validatingAdmissionPolicyBindingTable: TableDef = {
  columns: [
    nameColumn(),
    column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    ageColumn(),
  ],
  row(object, now) {
    let paramRef = '<unset>';
    if (hasValue(object, 'spec', 'paramRef')) {
      const namespace = stringAt(object, 'spec', 'paramRef', 'namespace');
      const refName = hasValue(object, 'spec', 'paramRef', 'name') ? stringAt(object, 'spec', 'paramRef', 'name') : '*';
      paramRef = namespace ? `${namespace}/${refName}` : refName;
    }
    return [name(object), stringAt(object, 'spec', 'policyName'), paramRef, age(object, now)];
  },
};
