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

  it('reads the history retention flags over the defaults, and --no-history', () => {
    expect(parseArgs(['serve'], {}).history).toBeUndefined();
    expect(parseArgs(['serve', '--history-revisions', '20', '--history-age=12h', '--history-size', '1Gi'], {}).history).toEqual({ maxRevisions: 20, maxAgeMs: 12 * 3_600_000, maxBytes: 1024 ** 3 });
    expect(parseArgs(['serve', '--history-age', '30m'], {}).history).toEqual({ maxRevisions: 100, maxAgeMs: 1_800_000, maxBytes: 256 * 1024 ** 2 });
    expect(parseArgs(['serve', '--no-history'], {}).history).toBe(false);
  });

  it('refuses malformed history retention values', () => {
    expect(() => parseArgs(['serve', '--history-revisions', '0'], {})).toThrow(new UsageError('invalid --history-revisions "0": a number of at least 1'));
    expect(() => parseArgs(['serve', '--history-age', '7 days'], {})).toThrow(new UsageError('invalid --history-age "7 days": a duration such as 30m, 12h or 7d'));
    expect(() => parseArgs(['serve', '--history-size', '10GB'], {})).toThrow(new UsageError('invalid --history-size "10GB": a size such as 512Mi or 1Gi'));
  });

  it('reads the image registry flags: a port, token auth, or none', () => {
    const defaults = parseArgs(['serve'], {});
    expect([defaults.registryPort, defaults.registryAuth, defaults.noRegistry]).toEqual([undefined, undefined, undefined]);
    expect(parseArgs(['serve', '--registry-port', '5001', '--registry-auth'], {})).toMatchObject({ registryPort: 5001, registryAuth: true });
    expect(parseArgs(['serve', '--registry-port=0'], {}).registryPort).toBe(0);
    expect(parseArgs(['serve', '--no-registry'], {}).noRegistry).toBe(true);
    expect(() => parseArgs(['serve', '--registry-port', '70000'], {})).toThrow(new UsageError('invalid --registry-port "70000": a number from 0 to 65535'));
    expect(() => parseArgs(['serve', '--no-registry=yes'], {})).toThrow(new UsageError('flag --no-registry takes no value'));
  });

  it('runs a named local cluster in its own data dir under the kubedesk root, with context kubedesk-NAME and any free port', () => {
    const options = parseArgs(['serve', '--name', 'b'], { HOME: '/home/u', KUBEDESK_HOME: '/tmp/kd' });
    expect(options).toMatchObject({ name: 'b', contextName: 'kubedesk-b', dataDir: '/tmp/kd/clusters/b', port: 0 });
    expect(parseArgs(['serve', '--name=b', '--port', '7000', '--data-dir', '/srv/b'], { KUBEDESK_HOME: '/tmp/kd' })).toMatchObject({ contextName: 'kubedesk-b', dataDir: '/srv/b', port: 7000 });
    expect(parseArgs(['serve'], { KUBEDESK_HOME: '/tmp/kd' })).toMatchObject({ contextName: 'kubedesk', dataDir: '/tmp/kd', port: 6443 });
    expect(parseArgs(['reset', '--name', 'b'], { KUBEDESK_HOME: '/tmp/kd' })).toMatchObject({ contextName: 'kubedesk-b', dataDir: '/tmp/kd/clusters/b' });
  });

  it('refuses a cluster name that is not a DNS-1123 label, and "default"', () => {
    expect(() => parseArgs(['serve', '--name', 'B_1'], {})).toThrow(/^invalid --name "B_1": a lowercase RFC 1123 label must consist of/);
    expect(() => parseArgs(['serve', '--name', 'default'], {})).toThrow('invalid --name "default": "default" is the default cluster\'s name');
  });
});
