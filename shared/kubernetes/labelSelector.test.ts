import { describe, expect, it } from 'vitest';
import { formatLabelSelector, labelSelectorString, labelSetMatches, selectorIsEmpty, selectorMatches, selectorToString } from './labelSelector';

const labels = { app: 'web', tier: 'front', cores: '8' };

describe('label selectors', () => {
  it.each<[string, unknown, boolean]>([
    ['a missing selector matches nothing', undefined, false],
    ['a null selector matches nothing', null, false],
    ['an empty selector matches everything', {}, true],
    ['matchLabels all present', { matchLabels: { app: 'web', tier: 'front' } }, true],
    ['matchLabels with one different', { matchLabels: { app: 'web', tier: 'back' } }, false],
    ['In with the value', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, true],
    ['In on a missing key', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, false],
    ['NotIn with another value', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['back'] }] }, true],
    ['NotIn on a missing key', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    ['NotIn with the value', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, false],
    ['Exists', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, true],
    ['Exists on a missing key', { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, true],
    ['DoesNotExist on a present key', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
    ['Gt, which is not a label-selector operator', { matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['4'] }] }, false],
    ['an expression without a key', { matchExpressions: [{ operator: 'Exists' }] }, false],
    ['labels and expressions together', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] }, true],
  ])('%s', (_name, selector, matches) => {
    expect(selectorMatches(selector, labels)).toBe(matches);
  });

  it('matches an empty selector against an object without labels', () => {
    expect(selectorMatches({}, undefined)).toBe(true);
    expect(selectorMatches({ matchLabels: { a: 'b' } }, undefined)).toBe(false);
  });

  it.each<[string, Record<string, string>, boolean]>([
    ['an empty set', {}, true],
    ['a set whose pairs are all present', { app: 'web', tier: 'front' }, true],
    ['a set with one different value', { app: 'web', tier: 'back' }, false],
    ['a set with a missing key', { zone: 'a' }, false],
    ['a set naming an Object property', { constructor: 'x' }, false],
  ])('matches labels against %s as labels.SelectorFromSet does', (_name, set, matches) => {
    expect(labelSetMatches(set, labels)).toBe(matches);
  });

  it.each<[string, unknown, boolean]>([
    ['missing', undefined, false],
    ['empty', {}, true],
    ['with empty lists', { matchLabels: {}, matchExpressions: [] }, true],
    ['with a label', { matchLabels: { a: 'b' } }, false],
    ['with an expression', { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, false],
  ])('tells whether a %s selector is empty', (_name, selector, empty) => {
    expect(selectorIsEmpty(selector)).toBe(empty);
  });

  it.each<[string, unknown, string | undefined, string, string]>([
    ['an absent selector', undefined, '', '<none>', ''],
    ['an empty selector', {}, '', '<none>', ''],
    ['match labels sorted by key', { matchLabels: { tier: 'front', app: 'web' } }, 'app=web,tier=front', 'app=web,tier=front', 'app=web,tier=front'],
    [
      'every operator, sorted by key with sorted values',
      { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['b', 'a'] }, { key: 'env', operator: 'In', values: ['prod'] }, { key: 'gpu', operator: 'Exists' }, { key: 'legacy', operator: 'DoesNotExist' }] },
      'env in (prod),gpu,!legacy,zone notin (a,b)',
      'env in (prod),gpu,!legacy,zone notin (a,b)',
      'env in (prod),gpu,!legacy,zone notin (a,b)',
    ],
    ['an invalid operator', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, undefined, '<error>', 'app=web'],
    ['In without values', { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, undefined, '<error>', ''],
    ['Exists with values', { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, undefined, '<error>', ''],
  ])('prints %s', (_name, selector, text, formatted, query) => {
    expect(labelSelectorString(selector)).toBe(text);
    expect(formatLabelSelector(selector)).toBe(formatted);
    expect(selectorToString(selector)).toBe(query);
  });
});
