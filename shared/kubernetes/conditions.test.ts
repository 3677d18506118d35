import { describe, expect, it } from 'vitest';
import { conditionsOf, findCondition, getCondition, isConditionTrue, removeCondition, setCondition, statusConditions, transitionTime, type Condition } from './conditions';

const earlier = '2024-01-01T00:00:00Z';
const now = '2024-01-02T00:00:00Z';

describe('conditions', () => {
  it('reads only well-formed entries, as copies', () => {
    const status = { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Broken' }, 'junk', null, { type: 'Synced', status: 'False', reason: 'X' }] };
    const read = statusConditions(status);
    expect(read).toEqual([{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False', reason: 'X' }]);
    read[0].status = 'False';
    expect(status.conditions[0]).toEqual({ type: 'Ready', status: 'True' });
  });

  it.each([
    ['no status', {}, []],
    ['a status without conditions', { status: {} }, []],
    ['conditions that are not a list', { status: { conditions: 'x' } }, []],
    ['not an object', 'pod', []],
  ])('reads no conditions from %s', (_name, object, expected) => {
    expect(conditionsOf(object)).toEqual(expected);
  });

  it.each([
    ['Ready', 'True', true],
    ['Ready', 'False', false],
    ['Missing', undefined, false],
  ])('tells whether %s is True', (type, status, truth) => {
    const pod = { status: { conditions: status ? [{ type, status }] : [] } };
    expect(getCondition(pod, type)?.status).toBe(status);
    expect(isConditionTrue(pod, type)).toBe(truth);
  });

  it.each<[string, Condition | undefined, string, string]>([
    ['keeps the time while the status stays', { type: 'Ready', status: 'True', lastTransitionTime: earlier }, 'True', earlier],
    ['moves the time when the status changes', { type: 'Ready', status: 'True', lastTransitionTime: earlier }, 'False', now],
    ['takes now for a new condition', undefined, 'True', now],
    ['takes now when the previous had no time', { type: 'Ready', status: 'True' }, 'True', now],
  ])('%s', (_name, previous, status, expected) => {
    expect(transitionTime(previous, status, now)).toBe(expected);
  });

  it.each<[string, Condition[], Condition, Condition[]]>([
    ['appends a new type', [{ type: 'A', status: 'True', lastTransitionTime: earlier }], { type: 'B', status: 'False', reason: 'R' }, [{ type: 'A', status: 'True', lastTransitionTime: earlier }, { type: 'B', status: 'False', reason: 'R', lastTransitionTime: now }]],
    ['replaces in place, keeping the time of an unchanged status', [{ type: 'A', status: 'True', reason: 'Old', lastTransitionTime: earlier }, { type: 'B', status: 'True' }], { type: 'A', status: 'True', reason: 'New', message: 'm' }, [{ type: 'A', status: 'True', reason: 'New', message: 'm', lastTransitionTime: earlier }, { type: 'B', status: 'True' }]],
    ['moves the time of a changed status', [{ type: 'A', status: 'True', lastTransitionTime: earlier }], { type: 'A', status: 'False' }, [{ type: 'A', status: 'False', lastTransitionTime: now }]],
    ['keeps a time the new condition brings for a new status', [{ type: 'A', status: 'True', lastTransitionTime: earlier }], { type: 'A', status: 'False', lastTransitionTime: '2023-06-01T00:00:00Z' }, [{ type: 'A', status: 'False', lastTransitionTime: '2023-06-01T00:00:00Z' }]],
  ])('set %s', (_name, conditions, condition, expected) => {
    const before = structuredClone(conditions);
    expect(setCondition(conditions, condition, now)).toEqual(expected);
    expect(conditions).toEqual(before);
  });

  it('removes a condition by type and finds one', () => {
    const conditions: Condition[] = [{ type: 'A', status: 'True' }, { type: 'B', status: 'False' }];
    expect(removeCondition(conditions, 'A')).toEqual([{ type: 'B', status: 'False' }]);
    expect(removeCondition(conditions, 'C')).toEqual(conditions);
    expect(findCondition(conditions, 'B')).toEqual({ type: 'B', status: 'False' });
  });
});
