// `kubectl get runtimeclasses` table: upstream pkg/printers/internalversion/printers.go printRuntimeClass.
import type { TableDef } from './table';
import { ageColumn, column, nameColumn } from './columns';
import { stringAt } from './fields';
import { age, name } from './format';

export const runtimeClassTable: TableDef = {
  columns: [
    nameColumn(),
    column('Handler', 'string', 'Handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.'),
    ageColumn(),
  ],
  row(object, now) {
    return [name(object), stringAt(object, 'handler'), age(object, now)];
  },
};
