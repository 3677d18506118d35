import { describe, expect, it } from 'vitest';
import { formatLabelSelector, formatLabels, joinHostPort, labelSelectorString, layoutContainerCells, textOrNone } from './format';

describe('formatLabels', () => {
  it('sorts pairs and prints <none> when empty', () => {
    expect(formatLabels({ b: '2', a: '1' })).toBe('a=1,b=2');
    expect(formatLabels({})).toBe('<none>');
  });
});

describe('textOrNone', () => {
  it.each<[string, unknown, string | undefined, string]>([
    ['a string', 'web', undefined, 'web'],
    ['a number', 8080, undefined, '8080'],
    ['an empty string', '', undefined, '<none>'],
    ['an absent value', undefined, undefined, '<none>'],
    ['an object', { port: 80 }, undefined, '<none>'],
    ['an absent value with its own placeholder', undefined, 'Waiting', 'Waiting'],
  ])('prints %s', (_case, value, none, expected) => {
    expect(textOrNone(value, none)).toBe(expected);
  });
});

describe('label selectors', () => {
  it.each<[string, unknown, string | undefined, string]>([
    ['an absent selector', undefined, '', '<none>'],
    ['an empty selector', {}, '', '<none>'],
    ['match labels sorted by key', { matchLabels: { tier: 'front', app: 'web' } }, 'app=web,tier=front', 'app=web,tier=front'],
    [
      'every expression operator',
      {
        matchExpressions: [
          { key: 'zone', operator: 'NotIn', values: ['b', 'a'] },
          { key: 'env', operator: 'In', values: ['prod'] },
          { key: 'gpu', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      },
      'env in (prod),gpu,!legacy,zone notin (a,b)',
      'env in (prod),gpu,!legacy,zone notin (a,b)',
    ],
    ['an invalid operator', { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, undefined, '<error>'],
    ['In without values', { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, undefined, '<error>'],
  ])('prints %s', (_description, selector, text, formatted) => {
    expect(labelSelectorString(selector)).toBe(text);
    expect(formatLabelSelector(selector)).toBe(formatted);
  });
});

describe('cell helpers', () => {
  it('lays out container names and images', () => {
    expect(layoutContainerCells({ containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] })).toEqual({ names: 'a,b', images: 'x,y' });
    expect(layoutContainerCells(undefined)).toEqual({ names: '', images: '' });
  });

  it('brackets IPv6 hosts', () => {
    expect(joinHostPort('10.0.0.1', 80)).toBe('10.0.0.1:80');
    expect(joinHostPort('fd00::1', 80)).toBe('[fd00::1]:80');
  });
});
