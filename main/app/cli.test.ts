import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from './cli';

describe('kubedesk serve flags', () => {
  it.each([
    { argv: ['serve'], keyType: undefined },
    { argv: ['serve', '--serving-key-type', 'ecdsa'], keyType: 'ecdsa' },
    { argv: ['serve', '--serving-key-type=rsa'], keyType: 'rsa' },
  ])('reads the serving key type from $argv', ({ argv, keyType }) => {
    expect(parseArgs(argv, {}).servingKeyType).toBe(keyType);
  });

  it('refuses a key type other than rsa or ecdsa', () => {
    expect(() => parseArgs(['serve', '--serving-key-type', 'ed25519'], {})).toThrow(new UsageError('invalid --serving-key-type "ed25519": rsa or ecdsa'));
  });
});
