import { describe, expect, it } from 'vitest';
import { jsonEqual, mergePatchIsNoop } from './json';

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

describe('mergePatchIsNoop', () => {
  const stored = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }], podIP: '10.0.0.2', qosClass: 'BestEffort' };

  it('finds no change where every member the patch names is already there, nulls counting as absent', () => {
    expect(mergePatchIsNoop(stored, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' }] })).toBe(true);
    expect(mergePatchIsNoop(stored, { nominatedNodeName: null })).toBe(true);
    expect(mergePatchIsNoop(stored, {})).toBe(true);
  });

  it('finds a change in a member, a deleted member that is present, or a list that differs at all', () => {
    expect(mergePatchIsNoop(stored, { phase: 'Failed' })).toBe(false);
    expect(mergePatchIsNoop(stored, { podIP: null })).toBe(false);
    expect(mergePatchIsNoop(stored, { hostIP: '10.0.0.1' })).toBe(false);
    // a list replaces the stored one: an item without a member the stored item has is a change
    expect(mergePatchIsNoop(stored, { conditions: [{ type: 'Ready', status: 'True' }] })).toBe(false);
    expect(mergePatchIsNoop(stored, { conditions: [] })).toBe(false);
    expect(mergePatchIsNoop(undefined, { phase: 'Running' })).toBe(false);
  });
});
