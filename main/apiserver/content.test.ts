import { describe, expect, it } from 'vitest';
import { decodeYaml, yamlNestingTooDeep } from './content';

describe('decodeYaml', () => {
  it('decodes JSON and YAML documents', () => {
    expect(decodeYaml('{"a": [1, 2]}')).toEqual({ a: [1, 2] });
    expect(decodeYaml('a:\n  b: "x # not a comment"\n')).toEqual({ a: { b: 'x # not a comment' } });
  });

  it('refuses hostile nesting before the YAML parser sees it', () => {
    const deep = 'labels: ' + '{a: '.repeat(100_000) + 'x' + '}'.repeat(100_000);
    expect(yamlNestingTooDeep(deep)).toBe(true);
    expect(() => decodeYaml(deep)).toThrow(/exceeded max depth/);
    const deepJson = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    expect(() => decodeYaml(deepJson)).toThrow(/exceeded max depth/);
    expect(yamlNestingTooDeep('a: "{{{{{{[[[["\nb: 1')).toBe(false);
  });
});
