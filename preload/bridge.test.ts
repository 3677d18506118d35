import { describe, expect, it } from 'vitest';
import { desktopBridge, desktopChannels } from '../shared/desktopBridge';
import { createDesktopBridge } from './bridge';

function recorder(reply: unknown) {
  const calls: { channel: string; args: unknown[] }[] = [];
  const bridge = createDesktopBridge(async (channel, ...args) => {
    calls.push({ channel, args });
    return reply;
  });
  return { bridge, calls };
}

describe('the preload bridge', () => {
  it('marks itself as the desktop bridge so the UI can detect the app', () => {
    const { bridge } = recorder(undefined);
    expect(bridge.desktop).toBe(true);
    expect(desktopBridge({ kubedesk: bridge })).toBe(bridge);
    expect(desktopBridge({})).toBeUndefined();
    expect(desktopBridge({ kubedesk: { desktop: 'yes' } })).toBeUndefined();
  });

  it.each([
    ['version', (bridge: ReturnType<typeof createDesktopBridge>) => bridge.version(), '0.1.0', desktopChannels.version, [], '0.1.0'],
    ['openExternal', (bridge: ReturnType<typeof createDesktopBridge>) => bridge.openExternal('https://kubernetes.io'), undefined, desktopChannels.openExternal, ['https://kubernetes.io'], undefined],
    ['saveFile', (bridge: ReturnType<typeof createDesktopBridge>) => bridge.saveFile('pod.yaml', 'kind: Pod'), true, desktopChannels.saveFile, ['pod.yaml', 'kind: Pod'], true],
    ['confirm', (bridge: ReturnType<typeof createDesktopBridge>) => bridge.confirm('Delete?', 'it goes'), true, desktopChannels.confirm, ['Delete?', 'it goes'], true],
  ])('%s invokes its channel with plain string arguments', async (_name, call, reply, channel, args, expected) => {
    const { bridge, calls } = recorder(reply);
    await expect(call(bridge)).resolves.toEqual(expected);
    expect(calls).toEqual([{ channel, args }]);
  });

  it('treats anything but true from main as a refusal', async () => {
    const { bridge } = recorder('true');
    await expect(bridge.saveFile('a', 'b')).resolves.toBe(false);
    await expect(bridge.confirm('a')).resolves.toBe(false);
  });
});
