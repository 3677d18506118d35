// Tests for `kubedesk get --as-of`: argument parsing and the table printed as kubectl prints a list.
import { describe, expect, it } from 'vitest';
import { GetUsageError, alignColumns, parseGetArgs, printTable } from './get';

describe('kubedesk get --as-of', () => {
  it('parses the type, the time, the namespace flags and the output format', () => {
    expect(parseGetArgs(['deploy', '--as-of', '10m', '-n', 'shop'])).toMatchObject({ type: 'deploy', asOf: '10m', allNamespaces: false, output: 'table', flags: { namespace: 'shop' } });
    expect(parseGetArgs(['pods', '-A', '--as-of=2026-01-02T15:04:05Z', '-o', 'wide', '-l', 'app=web', '--context', 'kind'])).toMatchObject({ allNamespaces: true, asOf: '2026-01-02T15:04:05Z', output: 'wide', selector: 'app=web', flags: { context: 'kind' } });
    expect(parseGetArgs(['--help'])).toBeUndefined();
  });

  it('refuses command lines it cannot answer, with the reason', () => {
    expect(() => parseGetArgs(['deploy'])).toThrow(new GetUsageError('--as-of TIME is required (for the list as it is now, use kubectl get)'));
    expect(() => parseGetArgs(['--as-of', '1h'])).toThrow(new GetUsageError('you must specify the type of resource to get'));
    expect(() => parseGetArgs(['deploy/web', '--as-of', '1h'])).toThrow(/lists one type as it was/);
    expect(() => parseGetArgs(['deploy', '--as-of', 'yesterday'])).toThrow(/invalid --as-of "yesterday"/);
    expect(() => parseGetArgs(['deploy', '--as-of', '1h', '-o', 'custom-columns=X'])).toThrow(/allowed formats are: wide,name,yaml,json/);
  });

  it('aligns cells as kubectl\'s tabwriter does: padding 3, at least 6 wide, the last column unpadded', () => {
    expect(alignColumns([['NAME', 'READY', 'AGE'], ['a', '1/1', '5m']])).toBe('NAME   READY   AGE\na      1/1     5m\n');
  });

  it('prints priority-0 columns upper-cased, every column when wide, and NAMESPACE first across namespaces', () => {
    const table = {
      columnDefinitions: [
        { name: 'Name', priority: 0 },
        { name: 'Ready', priority: 0 },
        { name: 'Containers', priority: 1 },
        { name: 'Age', priority: 0 },
      ],
      rows: [{ cells: ['web', '1/1', 'app', '3m'], object: { metadata: { name: 'web', namespace: 'shop' } } }],
    };
    expect(printTable(table, { wide: false, withNamespace: false })).toBe('NAME   READY   AGE\nweb    1/1     3m\n');
    expect(printTable(table, { wide: true, withNamespace: true })).toBe('NAMESPACE   NAME   READY   CONTAINERS   AGE\nshop        web    1/1     app          3m\n');
  });
});
