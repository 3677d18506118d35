import { describe, expect, it } from 'vitest';
import { findJsonPathResults } from './jsonPath';

const object = {
  spec: { replicas: 3, 'dotted.key': 'x' },
  status: {
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'Synced', status: 'False' },
    ],
  },
};

describe('findJsonPathResults', () => {
  it.each<[string, unknown[] | undefined]>([
    ['.spec.replicas', [3]],
    ['{.spec.replicas}', [3]],
    ['$.spec.replicas', [3]],
    ['.spec.missing', []],
    [".spec['dotted.key']", ['x']],
    ['.status.conditions[0].type', ['Ready']],
    ['.status.conditions[-1].type', ['Synced']],
    ['.status.conditions[*].type', ['Ready', 'Synced']],
    ['.status.conditions[?(@.type=="Ready")].status', ['True']],
    [".status.conditions[?(@.type!='Ready')].status", ['False']],
    ['.status.conditions[0:1]', undefined],
  ])('evaluates %s', (expression, expected) => {
    expect(findJsonPathResults(object, expression)).toEqual(expected);
  });
});
