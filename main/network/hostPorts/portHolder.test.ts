import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { describePortHolder, socketInodes } from './portHolder';

const table = [
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1 0000000000000000 100 0 0 10 0',
  '   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 222 1 0000000000000000 20 4 30 10 -1',
  '   2: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 333 1 0000000000000000 100 0 0 10 0',
].join('\n');

describe('socketInodes', () => {
  it.each([
    { name: 'finds the listening TCP socket of a port', port: 8080, protocol: 'TCP' as const, want: ['111'] },
    { name: 'finds nothing for a port nobody has', port: 9090, protocol: 'TCP' as const, want: [] },
    { name: 'counts every bound socket of a port for UDP', port: 8080, protocol: 'UDP' as const, want: ['111', '222'] },
  ])('$name', ({ port, protocol, want }) => {
    expect(socketInodes(table, port, protocol)).toEqual(want);
  });
});

describe('describePortHolder', () => {
  it.runIf(process.platform === 'linux')('names this process as the holder of a port it listens on', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      expect(await describePortHolder(port, 'TCP')).toBe(`kubedesk (pid ${process.pid})`);
    } finally {
      server.close();
    }
  });
});
