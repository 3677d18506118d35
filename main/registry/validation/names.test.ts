import { describe, expect, it } from 'vitest';
import { byteLength } from './names';

describe('byteLength', () => {
  it.each([
    ['', 0],
    ['kube-system', 11],
    ['ü', 2],
    ['µs', 3],
    ['…', 3],
    ['名前', 6],
    ['😀', 4],
    ['a😀b', 6],
    ['\ud83d', 3],
    ['\ude00x', 4],
    ['\ud83d\ud83d', 6],
  ])('counts %j as %i UTF-8 bytes, as TextEncoder encodes it', (value, expected) => {
    expect(byteLength(value)).toBe(expected);
    expect(byteLength(value)).toBe(new TextEncoder().encode(value).length);
  });
});
