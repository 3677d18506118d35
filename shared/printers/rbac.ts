// `kubectl get rolebindings/clusterrolebindings` tables: upstream pkg/printers/internalversion/printers.go
// printRoleBinding / printClusterRoleBinding with rbac.SubjectsStrings. Roles and ClusterRoles have
// no printer upstream and use the default table (Name, Created At).
import type { TableDef } from './table';
import { ageColumn, column, nameColumn } from './columns';
import { arrayAt, stringAt } from './fields';
import { age, name } from './format';

/** rbac.SubjectsStrings: users, groups and `namespace/name` service accounts. */
export function subjectsStrings(binding: unknown): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const subject of arrayAt(binding, 'subjects')) {
    const subjectName = stringAt(subject, 'name');
    switch (stringAt(subject, 'kind')) {
      case 'ServiceAccount':
        serviceAccounts.push(`${stringAt(subject, 'namespace')}/${subjectName}`);
        break;
      case 'User':
        users.push(subjectName);
        break;
      case 'Group':
        groups.push(subjectName);
        break;
    }
  }
  return { users, groups, serviceAccounts };
}

function bindingTable(kind: string): TableDef {
  return {
    columns: [
      nameColumn(),
      column('Role', 'string', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.'),
      ageColumn(),
      column('Users', 'string', `Users in the ${kind}`, { priority: 1 }),
      column('Groups', 'string', `Groups in the ${kind}`, { priority: 1 }),
      column('ServiceAccounts', 'string', `ServiceAccounts in the ${kind}`, { priority: 1 }),
    ],
    row(object, now) {
      const { users, groups, serviceAccounts } = subjectsStrings(object);
      return [
        name(object),
        `${stringAt(object, 'roleRef', 'kind')}/${stringAt(object, 'roleRef', 'name')}`,
        age(object, now),
        users.join(', '),
        groups.join(', '),
        serviceAccounts.join(', '),
      ];
    },
  };
}

export const roleBindingTable: TableDef = bindingTable('roleBinding');
export const clusterRoleBindingTable: TableDef = bindingTable('clusterRoleBinding');
