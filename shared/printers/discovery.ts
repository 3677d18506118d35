// `kubectl get endpointslices` table: upstream pkg/printers/internalversion/printers.go
// printEndpointSlice with formatDiscoveryPorts / formatDiscoveryEndpoints.
import type { TableDef } from './table';
import { ageColumn, column, nameColumn } from './columns';
import { arrayAt, hasValue, numberAt, stringAt } from './fields';
import { age, name } from './format';

const maximumListed = 3;

/** listWithMoreString: up to three entries, then ` + N more...`; `<unset>` when empty. */
function listWithMore(entries: string[]): string {
  const text = entries.slice(0, maximumListed).join(',');
  if (entries.length > maximumListed) return `${text} + ${entries.length - maximumListed} more...`;
  return text === '' ? '<unset>' : text;
}

/** formatDiscoveryPorts: the port number, else its name, else `*`. */
export function endpointSlicePorts(slice: unknown): string {
  return listWithMore(
    arrayAt(slice, 'ports').map((port) => {
      if (hasValue(port, 'port')) return String(numberAt(port, 'port'));
      if (hasValue(port, 'name')) return stringAt(port, 'name');
      return '*';
    }),
  );
}

/** formatDiscoveryEndpoints: every address of every endpoint. */
export function endpointSliceEndpoints(slice: unknown): string {
  const addresses: string[] = [];
  for (const endpoint of arrayAt(slice, 'endpoints')) {
    for (const address of arrayAt(endpoint, 'addresses')) {
      if (typeof address === 'string') addresses.push(address);
    }
  }
  return listWithMore(addresses);
}

export const endpointSliceTable: TableDef = {
  columns: [
    nameColumn(),
    column('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice.'),
    column('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice.'),
    column('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.'),
    ageColumn(),
  ],
  row(object, now) {
    return [name(object), stringAt(object, 'addressType'), endpointSlicePorts(object), endpointSliceEndpoints(object), age(object, now)];
  },
};
