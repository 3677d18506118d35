import { describe, expect, it } from 'vitest';
import { managerName } from './managedFields';

describe('managerName', () => {
  it('takes the fieldManager parameter when the request names one', () => {
    expect(managerName('helm', 'kubectl/v1.35.0 (linux/amd64) kubernetes/abc')).toBe('helm');
  });

  it('takes the User-Agent up to its first slash, the same on every request of that client', () => {
    const agent = 'kubectl/v1.35.0 (linux/amd64) kubernetes/abc';
    expect(managerName(undefined, agent)).toBe('kubectl');
    expect(managerName(undefined, agent)).toBe('kubectl');
    expect(managerName(undefined, 'kube-controller-manager/v1.35.0')).toBe('kube-controller-manager');
  });

  it('drops unprintable characters, keeps at most 128 bytes and names an agentless request unknown', () => {
    expect(managerName(undefined, 'my\u0000tool/1')).toBe('mytool');
    expect(managerName(undefined, `${'é'.repeat(100)}/1`)).toBe('é'.repeat(64));
    expect(managerName(undefined, `${'x'.repeat(600)}/1`)).toBe('x'.repeat(128));
    expect(managerName(undefined, undefined)).toBe('unknown');
    expect(managerName(undefined, '\u0001/1')).toBe('unknown');
  });

  it('answers right for many different agents, beyond what it remembers', () => {
    for (let index = 0; index < 600; index++) expect(managerName(undefined, `client-${index}/v1`)).toBe(`client-${index}`);
    expect(managerName(undefined, 'client-3/v1')).toBe('client-3');
  });
});
