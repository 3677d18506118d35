import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { customResourceTableDef, defaultTableDef } from './defaultTable';

const now = new Date('2025-01-01T12:00:00Z');

describe('defaultTableDef', () => {
  it('prints Name and Created At as an RFC 3339 date like rest.DefaultTableConvertor', () => {
    expect(defaultTableDef.columns.map((column) => [column.name, column.type, column.format])).toEqual([
      ['Name', 'string', 'name'],
      ['Created At', 'date', ''],
    ]);
    const object: KubeObject = { metadata: { name: 'limits', creationTimestamp: '2025-01-01T10:00:00Z' } };
    expect(defaultTableDef.row(object, now)).toEqual(['limits', '2025-01-01T10:00:00Z']);
    expect(defaultTableDef.row({ metadata: { name: 'x' } }, now)).toEqual(['x', '0001-01-01T00:00:00Z']);
  });
});

describe('customResourceTableDef', () => {
  const widget: KubeObject = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', creationTimestamp: '2025-01-01T11:00:00Z' },
    spec: { size: 3, enabled: true, ratio: 0.5, tags: ['a'] },
    status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-01-01T11:30:00Z' }] },
  };

  it('prints Name and Age when the CRD declares no columns', () => {
    const table = customResourceTableDef();
    expect(table.columns.map((column) => [column.name, column.type])).toEqual([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    expect(table.row(widget, now)).toEqual(['w', '60m']);
  });

  it('prints typed cells for additionalPrinterColumns', () => {
    const table = customResourceTableDef([
      { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
      { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled' },
      { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', priority: 1 },
      { name: 'Tags', type: 'string', jsonPath: '.spec.tags' },
      { name: 'Since', type: 'date', jsonPath: '.status.conditions[0].lastTransitionTime' },
      { name: 'Missing', type: 'string', jsonPath: '.spec.nothing', description: 'absent' },
      { name: 'Wrong', type: 'integer', jsonPath: '.spec.enabled' },
    ]);
    expect(table.row(widget, now)).toEqual(['w', 3, true, 0.5, 'True', '["a"]', '30m', null, null]);
    expect(table.columns[4]).toMatchObject({ name: 'Ready', priority: 1, description: 'Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=="Ready")].status' });
    expect(table.columns[7].description).toBe('absent');
  });
});
