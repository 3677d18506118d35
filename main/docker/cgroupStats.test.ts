import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bufferStatValue, CgroupStatsReader, leadingNumber, parseBlkio, parseIoStat, parseNetDev } from './cgroupStats';

const ID = 'a'.repeat(64);
const NET_DEV = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:     500       5    0    0    0     0          0         0      500       5    0    0    0     0       0          0
  eth0:    1182      13    0    0    0     0          0         0      640       7    0    0    0     0       0          0
`;

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

describe('CgroupStatsReader', () => {
  it('reads a cgroup v1 container (cgroupfs driver): CPU, working set, block I/O and its network namespace', () => {
    root = mkdtempSync(join(tmpdir(), 'cgroups-'));
    const cgroup = join(root, 'sys');
    write(join(cgroup, 'memory', 'memory.usage_in_bytes'), '0\n');
    write(join(cgroup, 'cpuacct', 'docker', ID, 'cpuacct.usage'), '123456789\n');
    write(join(cgroup, 'cpuacct', 'docker', ID, 'cgroup.procs'), '4242\n4243\n');
    write(join(cgroup, 'memory', 'docker', ID, 'memory.usage_in_bytes'), '10485760\n');
    write(join(cgroup, 'memory', 'docker', ID, 'memory.stat'), 'cache 100\ntotal_inactive_file 2097152\n');
    write(join(cgroup, 'blkio', 'docker', ID, 'blkio.throttle.io_service_bytes_recursive'), '8:0 Read 4096\n8:0 Write 8192\n8:0 Total 12288\n8:16 Read 4096\nTotal 16384\n');
    write(join(root, 'proc', '4242', 'net', 'dev'), NET_DEV);
    const stats = new CgroupStatsReader(cgroup, join(root, 'proc')).read(ID);
    expect(stats).toMatchObject({ cpuUsageNanoSeconds: 123456789, memoryWorkingSetBytes: 8 * 1024 * 1024, fsReadBytes: 8192, fsWriteBytes: 8192, networkRxBytes: 1182, networkTxBytes: 640 });
  });

  it('reads a cgroup v2 container (systemd driver)', () => {
    root = mkdtempSync(join(tmpdir(), 'cgroups-'));
    const cgroup = join(root, 'sys');
    const scope = join(cgroup, 'system.slice', `docker-${ID}.scope`);
    write(join(cgroup, 'cgroup.controllers'), 'cpu memory io\n');
    write(join(scope, 'cpu.stat'), 'usage_usec 2500\nuser_usec 2000\n');
    write(join(scope, 'memory.current'), '4096\n');
    write(join(scope, 'memory.stat'), 'anon 1\ninactive_file 1024\n');
    write(join(scope, 'io.stat'), '8:0 rbytes=10 wbytes=20 rios=1 wios=2\n');
    write(join(scope, 'cgroup.procs'), '');
    const stats = new CgroupStatsReader(cgroup, join(root, 'proc')).read(ID);
    expect(stats).toMatchObject({ cpuUsageNanoSeconds: 2_500_000, memoryWorkingSetBytes: 3072, fsReadBytes: 10, fsWriteBytes: 20 });
    expect(stats?.networkRxBytes).toBeUndefined();
  });

  it('keeps the files of a container open and reads their current content on every call', () => {
    root = mkdtempSync(join(tmpdir(), 'cgroups-'));
    const cgroup = v1Container(root);
    const reader = new CgroupStatsReader(cgroup, join(root, 'proc'));
    expect(reader.read(ID)?.cpuUsageNanoSeconds).toBe(123456789);
    // cpuacct.usage, memory.usage_in_bytes, memory.stat, blkio, cgroup.procs, net/dev
    expect(reader.openFileCount).toBe(6);
    writeFileSync(join(cgroup, 'cpuacct', 'docker', ID, 'cpuacct.usage'), '223456789\n');
    writeFileSync(join(cgroup, 'memory', 'docker', ID, 'memory.stat'), 'cache 100\ntotal_inactive_file 1048576\n');
    writeFileSync(join(root, 'proc', '4242', 'net', 'dev'), NET_DEV.replace('1182', '2182'));
    expect(reader.read(ID)).toMatchObject({ cpuUsageNanoSeconds: 223456789, memoryWorkingSetBytes: 9 * 1024 * 1024, networkRxBytes: 2182 });
    expect(reader.openFileCount).toBe(6);
    reader.dispose();
  });

  it('opens and closes files per read once its open-file budget is spent, with the same figures', () => {
    root = mkdtempSync(join(tmpdir(), 'cgroups-'));
    const cgroup = v1Container(root);
    const reader = new CgroupStatsReader(cgroup, join(root, 'proc'), 2);
    expect(reader.read(ID)).toMatchObject({ cpuUsageNanoSeconds: 123456789, memoryWorkingSetBytes: 8 * 1024 * 1024, fsReadBytes: 8192, fsWriteBytes: 8192, networkRxBytes: 1182, networkTxBytes: 640 });
    expect(reader.openFileCount).toBe(2);
    writeFileSync(join(cgroup, 'memory', 'docker', ID, 'memory.usage_in_bytes'), '20971520\n');
    expect(reader.read(ID)?.memoryWorkingSetBytes).toBe(18 * 1024 * 1024);
    reader.dispose();
    expect(reader.openFileCount).toBe(0);
  });

  it('closes the files of containers that are forgotten or no longer retained, and finds them again when read', () => {
    root = mkdtempSync(join(tmpdir(), 'cgroups-'));
    const cgroup = v1Container(root);
    const reader = new CgroupStatsReader(cgroup, join(root, 'proc'));
    reader.read(ID);
    reader.forget(ID);
    expect(reader.openFileCount).toBe(0);
    expect(reader.read(ID)?.cpuUsageNanoSeconds).toBe(123456789);
    reader.retain(new Set([ID]));
    expect(reader.openFileCount).toBe(6);
    reader.retain(new Set());
    expect(reader.openFileCount).toBe(0);
  });

  it('answers undefined where the container has no visible cgroup, so the caller asks Docker', () => {
    root = mkdtempSync(join(tmpdir(), 'cgroups-'));
    const cgroup = join(root, 'sys');
    write(join(cgroup, 'memory', 'memory.usage_in_bytes'), '0\n');
    expect(new CgroupStatsReader(cgroup, join(root, 'proc')).read(ID)).toBeUndefined();
    expect(new CgroupStatsReader(join(root, 'nothing')).read(ID)).toBeUndefined();
    expect(new CgroupStatsReader(cgroup).read('../../etc')).toBeUndefined();
  });
});

/** A cgroup v1 container (cgroupfs driver) under root/sys, its first process's net/dev under root/proc. */
function v1Container(base: string): string {
  const cgroup = join(base, 'sys');
  write(join(cgroup, 'memory', 'memory.usage_in_bytes'), '0\n');
  write(join(cgroup, 'cpuacct', 'docker', ID, 'cpuacct.usage'), '123456789\n');
  write(join(cgroup, 'cpuacct', 'docker', ID, 'cgroup.procs'), '4242\n4243\n');
  write(join(cgroup, 'memory', 'docker', ID, 'memory.usage_in_bytes'), '10485760\n');
  write(join(cgroup, 'memory', 'docker', ID, 'memory.stat'), 'cache 100\ntotal_inactive_file 2097152\n');
  write(join(cgroup, 'blkio', 'docker', ID, 'blkio.throttle.io_service_bytes_recursive'), '8:0 Read 4096\n8:0 Write 8192\n8:0 Total 12288\n8:16 Read 4096\nTotal 16384\n');
  write(join(base, 'proc', '4242', 'net', 'dev'), NET_DEV);
  return cgroup;
}

describe('cgroup file parsers', () => {
  it('reads the value of a key in place from a buffer, matching whole keys at line starts only', () => {
    const text = Buffer.from('total_inactive_file 5\ninactive_file 7\nusage_usec 12\n');
    expect(bufferStatValue(text, text.length, 'inactive_file')).toBe(7);
    expect(bufferStatValue(text, text.length, 'total_inactive_file')).toBe(5);
    expect(bufferStatValue(text, text.length, 'usage_usec')).toBe(12);
    expect(bufferStatValue(text, text.length, 'usage')).toBe(0);
    // only the first `length` bytes count (the rest of a shared buffer is a previous file's)
    expect(bufferStatValue(text, 22, 'inactive_file')).toBe(0);
    expect(leadingNumber(Buffer.from('10485760\n'), 9)).toBe(10485760);
    expect(leadingNumber(Buffer.from('max\n'), 4)).toBe(0);
  });

  it('reads key value lines, 0 for a missing key', () => {
    const statValue = (text: string, key: string) => bufferStatValue(Buffer.from(text), Buffer.byteLength(text), key);
    expect(statValue('a 1\nusage_usec 77\n', 'usage_usec')).toBe(77);
    expect(statValue('a 1\n', 'usage_usec')).toBe(0);
  });

  it('sums block I/O over devices and leaves loopback out of network counters', () => {
    expect(parseBlkio('8:0 Read 1\n8:1 Read 2\n8:0 Write 3\n')).toEqual({ fsReadBytes: 3, fsWriteBytes: 3 });
    expect(parseIoStat('8:0 rbytes=1 wbytes=2\n8:1 rbytes=3 wbytes=4\n')).toEqual({ fsReadBytes: 4, fsWriteBytes: 6 });
    expect(parseNetDev(NET_DEV)).toEqual({ networkRxBytes: 1182, networkTxBytes: 640 });
  });
});
