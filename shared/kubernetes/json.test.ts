import { describe, expect, it } from 'vitest';
import { jsonEqual } from './json';

describe('jsonEqual', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['equal scalars', 'a', 'a', true],
    ['different scalars', 1, '1', false],
    ['null and an object', null, {}, false],
    ['objects in another member order', { a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    ['lists in another order', [1, 2], [2, 1], false],
    ['a list and an object with index keys', [1], { 0: 1 }, false],
    ['an object with an extra member', { a: 1 }, { a: 1, b: 2 }, false],
    ['an undefined member and a missing one', { a: 1, b: undefined }, { a: 1 }, true],
    ['a __proto__ member and an object that only inherits one', JSON.parse('{"__proto__": {}}'), { other: {} }, false],
    ['own __proto__ members alike', JSON.parse('{"__proto__": {"x": 1}}'), JSON.parse('{"__proto__": {"x": 1}}'), true],
  ])('compares %s', (_name, left, right, equal) => {
    expect(jsonEqual(left, right)).toBe(equal);
    expect(jsonEqual(right, left)).toBe(equal);
  });
});
