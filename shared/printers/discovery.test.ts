import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { endpointSliceTable } from './discovery';

const now = new Date('2025-01-01T12:00:00Z');

function slice(fields: Record<string, unknown>): KubeObject {
  return { metadata: { name: 'web-abcde', creationTimestamp: '2025-01-01T11:00:00Z' }, addressType: 'IPv4', ...fields };
}

describe('endpointSliceTable', () => {
  it('prints ports and endpoint addresses', () => {
    const object = slice({ ports: [{ name: 'http', port: 80, protocol: 'TCP' }], endpoints: [{ addresses: ['10.1.0.4'] }, { addresses: ['10.1.0.5'] }] });
    expect(endpointSliceTable.row(object, now)).toEqual(['web-abcde', 'IPv4', '80', '10.1.0.4,10.1.0.5', '60m']);
  });

  it('prints <unset> for an empty slice', () => {
    expect(endpointSliceTable.row(slice({ ports: null, endpoints: [] }), now)).toEqual(['web-abcde', 'IPv4', '<unset>', '<unset>', '60m']);
  });

  it('prints port names, wildcards and the overflow count', () => {
    const object = slice({
      ports: [{ name: 'http' }, {}, { port: 1 }, { port: 2 }],
      endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4', '10.0.0.5'] }],
    });
    expect(endpointSliceTable.row(object, now).slice(2, 4)).toEqual(['http,*,1 + 1 more...', '10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...']);
  });
});
