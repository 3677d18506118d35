import { describe, expect, it } from 'vitest';
import { formatBytes } from './bytes';

describe('formatBytes', () => {
  it.each([
    [0, '0'],
    [1023, '1023'],
    [1024, '1Ki'],
    [1536, '1.5Ki'],
    [10 * 1024 * 1024 + 1, '10Mi'],
    [3 * 1024 ** 3, '3Gi'],
  ])('prints %d bytes as %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
