import { describe, expect, it } from 'vitest';
import { CelEvaluationError, CelUnsupportedError, evaluateRule } from './cel';

describe('the CEL subset', () => {
  const self = { x: 3, a: 'ab', b: 'ab', list: [1, 2, 3], name: 'web-1', labels: { app: 'web' }, nested: { on: true } };
  const cases: [string, unknown][] = [
    ['self.x > 0', true],
    ['self.a == self.b', true],
    ['has(self.x) && !has(self.missing)', true],
    ['size(self.list) <= 3 && self.list.size() == 3', true],
    ["self.name.matches('^[a-z]+-[0-9]+$')", true],
    ["self.name.startsWith('web') ? 1 : 2", 1],
    ['self.list.all(item, item > 0)', true],
    ['self.list.exists(item, item == 2)', true],
    ['self.list.map(item, item * 2)', [2, 4, 6]],
    ["'app' in self.labels && 2 in self.list", true],
    ['self.x / 2 + self.x % 2', 2],
    ['self.nested.on || self.missing > 1', true],
    ["self.a + 'c' == 'abc'", true],
  ];
  for (const [rule, expected] of cases) {
    it(`evaluates ${rule}`, () => {
      expect(evaluateRule(rule, { self })).toEqual(expected);
    });
  }

  it('compares against oldSelf in transition rules', () => {
    expect(evaluateRule('self == oldSelf', { self: 'a', oldSelf: 'a' })).toBe(true);
    expect(evaluateRule('self >= oldSelf', { self: 1, oldSelf: 2 })).toBe(false);
  });

  it('reports a missing field as a runtime error', () => {
    expect(() => evaluateRule('self.missing > 0', { self })).toThrow(CelEvaluationError);
    expect(() => evaluateRule('self.missing > 0', { self })).toThrow('no such key: missing');
  });

  it('reports syntax and functions outside the subset as unsupported', () => {
    expect(() => evaluateRule('self.?x.orValue(1) > 0', { self })).toThrow(CelUnsupportedError);
    expect(() => evaluateRule("quantity(self.a).isGreaterThan(quantity('1'))", { self })).toThrow(CelUnsupportedError);
  });
});
