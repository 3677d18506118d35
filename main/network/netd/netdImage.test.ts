import { describe, it, expect } from 'vitest';
import { netdArchitecture, netdBinaryCandidates, netdImageTag } from './netdImage';

describe('netdArchitecture', () => {
  it.each([
    ['x64', 'amd64'],
    ['arm64', 'arm64'],
  ])('maps Node architecture %s to %s', (node, expected) => {
    expect(netdArchitecture(node)).toBe(expected);
  });

  it('refuses an architecture kd-netd is not built for', () => {
    expect(() => netdArchitecture('ia32')).toThrow(/unsupported architecture ia32/);
  });
});

describe('netdImageTag', () => {
  it('derives the tag from the executable bytes, so the same bytes give the same tag', () => {
    const tag = netdImageTag(Buffer.from('kd-netd'));
    expect(tag).toMatch(/^kubedesk\/netd:[0-9a-f]{12}$/);
    expect(netdImageTag(Buffer.from('kd-netd'))).toBe(tag);
    expect(netdImageTag(Buffer.from('kd-netd 2'))).not.toBe(tag);
  });
});

describe('netdBinaryCandidates', () => {
  it('looks beside the bundle first, then in the repository dist/ when running from source, then under the working directory', () => {
    expect(netdBinaryCandidates('file:///repo/dist/kubedesk.mjs', 'amd64', '/work')).toEqual([
      '/repo/dist/netd/kd-netd-linux-amd64',
      '/repo/netd/kd-netd-linux-amd64',
      '/dist/netd/kd-netd-linux-amd64',
      '/work/dist/netd/kd-netd-linux-amd64',
    ]);
    expect(netdBinaryCandidates('file:///repo/main/network/netd/netdImage.ts', 'arm64', '/repo')).toEqual([
      '/repo/main/network/netd/netd/kd-netd-linux-arm64',
      '/repo/main/network/netd/kd-netd-linux-arm64',
      '/repo/dist/netd/kd-netd-linux-arm64',
    ]);
  });

  it("finds the binary from the Electron shell's bundle in dist/app/", () => {
    expect(netdBinaryCandidates('file:///repo/dist/app/electronMain.cjs', 'amd64', '/')).toContain('/repo/dist/netd/kd-netd-linux-amd64');
  });

  it('falls back to the working directory when the module has no file URL (the CommonJS bundle)', () => {
    expect(netdBinaryCandidates(undefined, 'amd64', '/app')).toEqual(['/app/dist/netd/kd-netd-linux-amd64']);
  });
});

describe('netdBinaryCandidates for kd-netpol', () => {
  it('looks for kd-netpol in the same places as kd-netd', () => {
    expect(netdBinaryCandidates(undefined, 'amd64', '/app', 'kd-netpol')).toEqual(['/app/dist/netd/kd-netpol-linux-amd64']);
  });
});
