import { describe, expect, it } from 'vitest';
import { contextNameFor, invalidLocalClusterName, kubedeskRoot, localClusterDataDir } from './localClusterNames';

describe('local cluster names', () => {
  it.each(['b', 'dev', 'team-a', '1', 'a1-b2', 'x'.repeat(63)])('accepts the DNS-1123 label %s', (name) => {
    expect(invalidLocalClusterName(name)).toBeUndefined();
  });

  it.each(['', 'B', 'a_b', '-a', 'a-', 'a.b', 'é', 'x'.repeat(64)])('refuses %j', (name) => {
    expect(invalidLocalClusterName(name)).toBeDefined();
  });

  it('refuses "default", the default cluster\'s name', () => {
    expect(invalidLocalClusterName('default')).toBe('"default" is the default cluster\'s name (kubedesk serve without --name)');
  });

  it('places the default cluster in the root and named ones under clusters/, with kubectl-style context names', () => {
    expect(localClusterDataDir('/r', 'default')).toBe('/r');
    expect(localClusterDataDir('/r', 'b')).toBe('/r/clusters/b');
    expect(contextNameFor('default')).toBe('kubedesk');
    expect(contextNameFor('b')).toBe('kubedesk-b');
  });

  it('takes the root from KUBEDESK_HOME, else ~/.kubedesk', () => {
    expect(kubedeskRoot({ KUBEDESK_HOME: '/tmp/kd' })).toBe('/tmp/kd');
    expect(kubedeskRoot({})).toMatch(/\/\.kubedesk$/);
  });
});
