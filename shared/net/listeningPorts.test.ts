import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listeningHostPorts, portsInState } from './listeningPorts';

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1134 1 0000000000000000 100 0 0 10 0
   1: 0100007F:83A1 0100007F:D97E 06 00000000:00000000 03:000005C6 00000000     0        0 0 3 0000000000000000
   2: 0100007F:7530 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2222 1 0000000000000000 100 0 0 10 0
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1388 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3333 1 0000000000000000 100 0 0 10 0
`;
const UDP = `   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  100: 0100007F:7531 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4444 2 0000000000000000 0
`;

describe('listening host ports', () => {
  it('reads the local port of LISTEN sockets and skips connected ones', () => {
    expect(portsInState(TCP, '0A')).toEqual([2024, 30000]);
  });

  it('collects TCP listeners over IPv4 and IPv6 and bound UDP sockets from a procfs folder', () => {
    const folder = mkdtempSync(join(tmpdir(), 'kubedesk-procnet-'));
    try {
      writeFileSync(join(folder, 'tcp'), TCP);
      writeFileSync(join(folder, 'tcp6'), TCP6);
      writeFileSync(join(folder, 'udp'), UDP);
      // no udp6 file: a missing table is skipped
      expect([...listeningHostPorts(folder)].sort((left, right) => left - right)).toEqual([2024, 5000, 30000, 30001]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('is empty where there is no procfs', () => {
    expect(listeningHostPorts(join(tmpdir(), 'kubedesk-no-such-procfs')).size).toBe(0);
  });
});
