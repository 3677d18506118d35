// `kubectl get leases` table: upstream pkg/printers/internalversion/printers.go printLease.
import type { TableDef } from './table';
import { ageColumn, column, nameColumn } from './columns';
import { stringAt } from './fields';
import { age, name } from './format';

export const leaseTable: TableDef = {
  columns: [
    nameColumn(),
    column('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'),
    ageColumn(),
  ],
  row(object, now) {
    return [name(object), stringAt(object, 'spec', 'holderIdentity'), age(object, now)];
  },
};
