// The distribution spec's grammar for repository names, tags and digests.
import { describe, expect, it } from 'vitest';
import { isRepositoryName, isTag, parseDigest } from './references';

describe('isRepositoryName', () => {
  it.each([
    ['app', true],
    ['team/app', true],
    ['a.b_c__d-e--f/g', true],
    ['charts/my-chart', true],
    ['App', false],
    ['-app', false],
    ['app/', false],
    ['a//b', false],
    ['a___b', false],
    ['_catalog', false],
    ['x'.repeat(256), false],
  ])('judges %s as %s', (name, valid) => {
    expect(isRepositoryName(name)).toBe(valid);
  });
});

describe('isTag', () => {
  it.each([
    ['latest', true],
    ['v1.2.3-rc_1', true],
    ['_private', true],
    ['.hidden', false],
    ['-dash', false],
    ['a'.repeat(128), true],
    ['a'.repeat(129), false],
    ['with/slash', false],
  ])('judges %s as %s', (tag, valid) => {
    expect(isTag(tag)).toBe(valid);
  });
});

describe('parseDigest', () => {
  const hex64 = 'a'.repeat(64);
  it('parses sha256 and sha512 digests', () => {
    expect(parseDigest(`sha256:${hex64}`)).toEqual({ algorithm: 'sha256', encoded: hex64, text: `sha256:${hex64}` });
    expect(parseDigest(`sha512:${'b'.repeat(128)}`)).toMatchObject({ algorithm: 'sha512' });
  });

  it('tells a well-formed digest of another algorithm from a malformed one', () => {
    expect(parseDigest('md5:d41d8cd98f00b204e9800998ecf8427e')).toBe('unsupported');
    expect(parseDigest(`sha256:${'A'.repeat(64)}`)).toBeUndefined();
    expect(parseDigest('sha256:abc')).toBeUndefined();
    expect(parseDigest('latest')).toBeUndefined();
  });
});
