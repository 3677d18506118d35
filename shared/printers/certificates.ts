// `kubectl get csr` table: upstream pkg/printers/internalversion/printers.go
// printCertificateSigningRequest with extractCSRStatus (Pending / Approved / Denied, then
// `,Failed` and `,Issued`) and the requested duration as a human duration.
import type { TableDef } from './table';
import { ageColumn, column, nameColumn } from './columns';
import { humanDuration } from './duration';
import { arrayAt, stringAt, valueAt } from './fields';
import { age, name } from './format';

/** extractCSRStatus */
export function certificateSigningRequestCondition(object: unknown): string {
  const types = new Set(arrayAt(object, 'status', 'conditions').map((condition) => stringAt(condition, 'type')));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (stringAt(object, 'status', 'certificate') !== '') status += ',Issued';
  return status;
}

export const certificateSigningRequestTable: TableDef = {
  columns: [
    nameColumn(),
    ageColumn(),
    column('SignerName', 'string', 'signerName indicates the requested signer, and is a qualified name.'),
    column('Requestor', 'string', 'Name of the user which made this request.'),
    column('RequestedDuration', 'string', 'expirationSeconds is the requested duration of validity of the issued certificate.'),
    column('Condition', 'string', 'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".'),
  ],
  row(object, now) {
    const seconds = valueAt(object, 'spec', 'expirationSeconds');
    return [
      name(object),
      age(object, now),
      stringAt(object, 'spec', 'signerName'),
      stringAt(object, 'spec', 'username'),
      typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>',
      certificateSigningRequestCondition(object),
    ];
  },
};
