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
//
// Sampling runs every 10 s over every running container, so each file is opened once and kept open:
// a round is one pread at offset 0 per file (the kernel regenerates a cgroup or /proc file on every
// read from its start), into one shared buffer, parsed in place — no open/close, no string per
// file. A file whose cgroup or process went away fails to read (ENODEV, ESRCH, ENOENT); its
// container's files are then closed and looked up again next time. At most `maxOpenFiles` stay open
// (5 per container; beyond that, files are opened and closed per read as before), and forget()
// closes a removed container's files.
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
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

/** One pseudo-file read again every round: kept open when the budget allows. */
interface StatFile {
  path: string;
  fd?: number;
}

interface ContainerFiles {
  cpu: StatFile;
  memoryUsage: StatFile;
  memoryStat: StatFile;
  io?: StatFile;
  /** the cgroup's process list, read only to find the process whose network namespace is counted */
  procs: StatFile;
  /** /proc/PID/net/dev of the cgroup's first process, once found */
  network?: StatFile;
}

/** Read into by every file; it grows once for a larger one (a machine with very many block devices). */
const BUFFER_BYTES = 64 * 1024;
const DEFAULT_MAX_OPEN_FILES = 1024;

export class CgroupStatsReader {
  private layout: Layout | undefined | null = null;
  private readonly containers = new Map<string, ContainerFiles>();
  private buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private openFiles = 0;

  constructor(
    private readonly root = '/sys/fs/cgroup',
    private readonly proc = '/proc',
    private readonly maxOpenFiles = DEFAULT_MAX_OPEN_FILES,
  ) {}

  /** The container's stats from its cgroup, or undefined when its cgroup is not visible here. */
  read(id: string): ContainerStats | undefined {
    if (!/^[0-9a-f]{64}$/.test(id)) return undefined;
    const layout = this.detect();
    if (!layout) return undefined;
    let files = this.containers.get(id);
    if (!files) {
      const paths = locate(layout, id);
      if (!paths) return undefined;
      files = this.filesOf(layout, paths);
      this.containers.set(id, files);
    }
    try {
      const figures = layout.version === 2 ? this.readV2(files) : this.readV1(files);
      return { timestamp: new Date(), ...figures, ...this.network(files) };
    } catch {
      // the container stopped and its cgroup went away: look it up again next time
      this.forget(id);
      return undefined;
    }
  }

  /** Closes and forgets a container's files (it was removed or stopped). */
  forget(id: string): void {
    const files = this.containers.get(id);
    if (!files) return;
    this.containers.delete(id);
    for (const file of [files.cpu, files.memoryUsage, files.memoryStat, files.io, files.procs, files.network]) if (file) this.close(file);
  }

  /** Closes the files of every container but these (those still running). */
  retain(ids: ReadonlySet<string>): void {
    for (const id of [...this.containers.keys()]) if (!ids.has(id)) this.forget(id);
  }

  /** Closes every file (the reader stays usable). */
  dispose(): void {
    for (const id of [...this.containers.keys()]) this.forget(id);
  }

  /** Files held open now, for tests. */
  get openFileCount(): number {
    return this.openFiles;
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

  private filesOf(layout: Layout, paths: ContainerPaths): ContainerFiles {
    const file = (path: string): StatFile => ({ path });
    if (layout.version === 2) {
      return {
        cpu: file(join(paths.cpu, 'cpu.stat')),
        memoryUsage: file(join(paths.memory, 'memory.current')),
        memoryStat: file(join(paths.memory, 'memory.stat')),
        io: paths.io && existsSync(join(paths.io, 'io.stat')) ? file(join(paths.io, 'io.stat')) : undefined,
        procs: file(join(paths.cpu, 'cgroup.procs')),
      };
    }
    return {
      cpu: file(join(paths.cpu, 'cpuacct.usage')),
      memoryUsage: file(join(paths.memory, 'memory.usage_in_bytes')),
      memoryStat: file(join(paths.memory, 'memory.stat')),
      io: paths.io ? file(join(paths.io, 'blkio.throttle.io_service_bytes_recursive')) : undefined,
      procs: file(join(paths.cpu, 'cgroup.procs')),
    };
  }

  private readV1(files: ContainerFiles): CgroupFigures {
    const cpu = leadingNumber(this.buffer, this.load(files.cpu));
    const usage = leadingNumber(this.buffer, this.load(files.memoryUsage));
    const inactive = bufferStatValue(this.buffer, this.load(files.memoryStat), 'total_inactive_file');
    const io = files.io ? this.parsed(files.io, parseBlkio) : {};
    return { cpuUsageNanoSeconds: cpu, memoryWorkingSetBytes: Math.max(0, usage - inactive), ...io };
  }

  private readV2(files: ContainerFiles): CgroupFigures {
    const cpu = bufferStatValue(this.buffer, this.load(files.cpu), 'usage_usec') * 1000;
    const usage = leadingNumber(this.buffer, this.load(files.memoryUsage));
    const inactive = bufferStatValue(this.buffer, this.load(files.memoryStat), 'inactive_file');
    const io = files.io ? this.parsed(files.io, parseIoStat) : {};
    return { cpuUsageNanoSeconds: cpu, memoryWorkingSetBytes: Math.max(0, usage - inactive), ...io };
  }

  /** The network counters of the namespace of the cgroup's first process; none when it cannot be seen. */
  private network(files: ContainerFiles): Pick<ContainerStats, 'networkRxBytes' | 'networkTxBytes'> {
    if (files.network) {
      try {
        return this.parsed(files.network, parseNetDev);
      } catch {
        // that process exited (the container restarted its init?): find the current one
        this.close(files.network);
        files.network = undefined;
      }
    }
    let pid: string | undefined;
    try {
      const length = this.load(files.procs);
      const end = this.buffer.indexOf(10);
      pid = this.buffer.toString('latin1', 0, end === -1 || end > length ? length : end);
    } catch {
      return {};
    }
    if (!/^\d+$/.test(pid)) return {};
    const network: StatFile = { path: join(this.proc, pid, 'net', 'dev') };
    try {
      const counters = this.parsed(network, parseNetDev);
      files.network = network;
      return counters;
    } catch {
      this.close(network);
      return {};
    }
  }

  /** A whole file as text for the text parsers: the shared buffer when it fits. */
  private parsed<T>(file: StatFile, parse: (text: string) => T): T {
    const length = this.load(file);
    return parse(this.buffer.toString('latin1', 0, length));
  }

  /** Reads the file from its start into the shared buffer; returns the byte count. Throws when it is gone. */
  private load(file: StatFile): number {
    if (file.fd === undefined && this.openFiles < this.maxOpenFiles) {
      file.fd = openSync(file.path, 'r');
      this.openFiles++;
    }
    if (file.fd === undefined) {
      const content = readFileSync(file.path);
      return this.fit(content);
    }
    let length: number;
    try {
      length = readSync(file.fd, this.buffer, 0, this.buffer.length, 0);
    } catch (error) {
      this.close(file);
      throw error;
    }
    if (length < this.buffer.length) return length;
    return this.fit(readFileSync(file.path));
  }

  /** Puts a whole file's content where the parsers look, growing the buffer when it does not fit. */
  private fit(content: Buffer): number {
    if (content.length >= this.buffer.length) this.buffer = Buffer.allocUnsafe(content.length * 2);
    content.copy(this.buffer);
    return content.length;
  }

  private close(file: StatFile): void {
    if (file.fd === undefined) return;
    try {
      closeSync(file.fd);
    } catch {
      // already closed
    }
    file.fd = undefined;
    this.openFiles--;
  }
}

function locate(layout: Layout, id: string): ContainerPaths | undefined {
  const find = (controllers: string[], file: string): string | undefined => {
    for (const controller of controllers) for (const path of layout.candidates(controller, id)) if (existsSync(join(path, file))) return path;
    return undefined;
  };
  return layout.version === 2
    ? ((path) => (path ? { cpu: path, memory: path, io: path } : undefined))(find([''], 'cpu.stat'))
    : ((cpu, memory) => (cpu && memory ? { cpu, memory, io: find(['blkio'], 'blkio.throttle.io_service_bytes_recursive') } : undefined))(find(['cpuacct', 'cpu,cpuacct'], 'cpuacct.usage'), find(['memory'], 'memory.usage_in_bytes'));
}

type CgroupFigures = Pick<ContainerStats, 'cpuUsageNanoSeconds' | 'memoryWorkingSetBytes' | 'fsReadBytes' | 'fsWriteBytes'>;

/** The decimal number at the start of the buffer (cpuacct.usage, memory.current); 0 when there is none. */
export function leadingNumber(buffer: Buffer, length: number): number {
  return digitsAt(buffer, 0, length);
}

/** A `key value` line's value, found in place in the buffer (memory.stat, cpu.stat); 0 when absent. */
export function bufferStatValue(buffer: Buffer, length: number, key: string): number {
  let from = 0;
  while (from < length) {
    const at = buffer.indexOf(key, from, 'latin1');
    if (at === -1 || at + key.length >= length) return 0;
    // a whole key at the start of a line: `inactive_file` must not match inside `total_inactive_file`
    if ((at === 0 || buffer[at - 1] === 10) && buffer[at + key.length] === 32) return digitsAt(buffer, at + key.length + 1, length);
    from = at + key.length;
  }
  return 0;
}

function digitsAt(buffer: Buffer, start: number, length: number): number {
  let value = 0;
  let index = start;
  for (; index < length; index++) {
    const digit = buffer[index] - 48;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return index === start ? 0 : value;
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
