// Container stats read straight from the cgroup filesystem, as cAdvisor (which feeds the kubelet's
// Summary API upstream) reads them, instead of asking Docker (`GET /containers/ID/stats`): a few
// small pseudo-file reads per container rather than an HTTP round trip and a large JSON reply, so
// sampling 100 containers every 10 s stays far below 1 % of a core. Only where the Docker daemon
// runs on this host's kernel and its cgroups are visible here (Docker Engine on Linux, cgroup v1 or
// v2, cgroupfs or systemd driver); anywhere else (Docker Desktop's VM, a remote daemon) read()
// answers undefined and the caller asks Docker.
//
// Figures match Docker's: CPU is the cgroup's cumulative usage, the memory working set is usage
// minus inactive file pages (what `docker stats` and the kubelet show), block I/O sums the Read and
// Write bytes over devices, and the network counters are those of the container's network namespace
// (/proc/PID/net/dev of a process in the cgroup, loopback left out, as Docker's `networks`).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContainerStats } from '../kubelet/runtime/containerRuntime';

interface Layout {
  version: 1 | 2;
  /** cgroup directories to try for a container id, per controller (v2: one unified tree, key '') */
  candidates(controller: string, id: string): string[];
}

interface ContainerPaths {
  cpu: string;
  memory: string;
  io?: string;
}

export class CgroupStatsReader {
  private layout: Layout | undefined | null = null;
  private readonly paths = new Map<string, ContainerPaths>();

  constructor(
    private readonly root = '/sys/fs/cgroup',
    private readonly proc = '/proc',
  ) {}

  /** The container's stats from its cgroup, or undefined when its cgroup is not visible here. */
  read(id: string): ContainerStats | undefined {
    if (!/^[0-9a-f]{64}$/.test(id)) return undefined;
    const layout = this.detect();
    if (!layout) return undefined;
    const paths = this.paths.get(id) ?? this.locate(layout, id);
    if (!paths) return undefined;
    try {
      const stats = layout.version === 2 ? readV2(paths) : readV1(paths);
      const network = this.network(paths.cpu);
      return { timestamp: new Date(), ...stats, ...network };
    } catch {
      // the container stopped and its cgroup went away: ask again next time
      this.paths.delete(id);
      return undefined;
    }
  }

  /** Forgets a removed container's paths. */
  forget(id: string): void {
    this.paths.delete(id);
  }

  private detect(): Layout | undefined {
    if (this.layout !== null) return this.layout;
    const root = this.root;
    if (existsSync(join(root, 'cgroup.controllers'))) {
      this.layout = { version: 2, candidates: (_controller, id) => [join(root, 'system.slice', `docker-${id}.scope`), join(root, 'docker', id)] };
    } else if (existsSync(join(root, 'memory'))) {
      this.layout = {
        version: 1,
        candidates: (controller, id) => [join(root, controller, 'docker', id), join(root, controller, 'system.slice', `docker-${id}.scope`)],
      };
    } else {
      this.layout = undefined;
    }
    return this.layout;
  }

  private locate(layout: Layout, id: string): ContainerPaths | undefined {
    const find = (controllers: string[], file: string): string | undefined => {
      for (const controller of controllers) for (const path of layout.candidates(controller, id)) if (existsSync(join(path, file))) return path;
      return undefined;
    };
    const paths: ContainerPaths | undefined =
      layout.version === 2
        ? ((path) => (path ? { cpu: path, memory: path, io: path } : undefined))(find([''], 'cpu.stat'))
        : ((cpu, memory) => (cpu && memory ? { cpu, memory, io: find(['blkio'], 'blkio.throttle.io_service_bytes_recursive') } : undefined))(find(['cpuacct', 'cpu,cpuacct'], 'cpuacct.usage'), find(['memory'], 'memory.usage_in_bytes'));
    if (paths) this.paths.set(id, paths);
    return paths;
  }

  /** The network counters of the namespace of the cgroup's first process; none when it cannot be seen. */
  private network(cgroup: string): Pick<ContainerStats, 'networkRxBytes' | 'networkTxBytes'> {
    let pid: string | undefined;
    try {
      pid = readFileSync(join(cgroup, 'cgroup.procs'), 'utf8').split('\n', 1)[0];
    } catch {
      return {};
    }
    if (!pid) return {};
    try {
      return parseNetDev(readFileSync(join(this.proc, pid, 'net', 'dev'), 'utf8'));
    } catch {
      return {};
    }
  }
}

type CgroupFigures = Pick<ContainerStats, 'cpuUsageNanoSeconds' | 'memoryWorkingSetBytes' | 'fsReadBytes' | 'fsWriteBytes'>;

function readV1(paths: ContainerPaths): CgroupFigures {
  const cpu = Number(readFileSync(join(paths.cpu, 'cpuacct.usage'), 'utf8'));
  const usage = Number(readFileSync(join(paths.memory, 'memory.usage_in_bytes'), 'utf8'));
  const inactive = statValue(readFileSync(join(paths.memory, 'memory.stat'), 'utf8'), 'total_inactive_file');
  const io = paths.io ? parseBlkio(readFileSync(join(paths.io, 'blkio.throttle.io_service_bytes_recursive'), 'utf8')) : {};
  return { cpuUsageNanoSeconds: cpu, memoryWorkingSetBytes: Math.max(0, usage - inactive), ...io };
}

function readV2(paths: ContainerPaths): CgroupFigures {
  const cpu = statValue(readFileSync(join(paths.cpu, 'cpu.stat'), 'utf8'), 'usage_usec') * 1000;
  const usage = Number(readFileSync(join(paths.memory, 'memory.current'), 'utf8'));
  const inactive = statValue(readFileSync(join(paths.memory, 'memory.stat'), 'utf8'), 'inactive_file');
  const io = paths.io && existsSync(join(paths.io, 'io.stat')) ? parseIoStat(readFileSync(join(paths.io, 'io.stat'), 'utf8')) : {};
  return { cpuUsageNanoSeconds: cpu, memoryWorkingSetBytes: Math.max(0, usage - inactive), ...io };
}

/** A `key value` line of memory.stat or cpu.stat; 0 when absent. */
export function statValue(text: string, key: string): number {
  const prefix = `${key} `;
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const value = Number(line.slice(prefix.length));
    return Number.isFinite(value) ? value : 0;
  }
  return 0;
}

/** cgroup v1 blkio.throttle.io_service_bytes_recursive: `MAJ:MIN Read N` lines, summed over devices. */
export function parseBlkio(text: string): { fsReadBytes: number; fsWriteBytes: number } {
  let read = 0;
  let write = 0;
  for (const line of text.split('\n')) {
    const [, operation, value] = line.split(' ');
    if (operation === 'Read') read += Number(value) || 0;
    else if (operation === 'Write') write += Number(value) || 0;
  }
  return { fsReadBytes: read, fsWriteBytes: write };
}

/** cgroup v2 io.stat: `MAJ:MIN rbytes=N wbytes=N …` lines, summed over devices. */
export function parseIoStat(text: string): { fsReadBytes: number; fsWriteBytes: number } {
  let read = 0;
  let write = 0;
  for (const line of text.split('\n')) {
    for (const field of line.split(' ')) {
      if (field.startsWith('rbytes=')) read += Number(field.slice(7)) || 0;
      else if (field.startsWith('wbytes=')) write += Number(field.slice(7)) || 0;
    }
  }
  return { fsReadBytes: read, fsWriteBytes: write };
}

/** /proc/PID/net/dev: received and transmitted bytes over every interface but loopback. */
export function parseNetDev(text: string): { networkRxBytes: number; networkTxBytes: number } {
  let rx = 0;
  let tx = 0;
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    if (line.slice(0, colon).trim() === 'lo') continue;
    const fields = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/);
    rx += Number(fields[0]) || 0;
    tx += Number(fields[8]) || 0;
  }
  return { networkRxBytes: rx, networkTxBytes: tx };
}
