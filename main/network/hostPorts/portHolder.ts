// Best-effort answer to "who has this port?", for the event that tells a user why a NodePort or
// LoadBalancer Service cannot open its port on 127.0.0.1 (what `ss -lptn sport = :8080` shows).
// On Linux it reads /proc/net/{tcp,tcp6,udp,udp6} for the socket's inode and looks for a process
// holding that inode among the processes this user may inspect; elsewhere, or for another user's
// process, it knows nothing and the message just says the port is in use.
import { readFile, readdir, readlink } from 'node:fs/promises';

/** Inodes of sockets bound to `port` (listening, for TCP) from /proc/net tables. */
export function socketInodes(table: string, port: number, protocol: 'TCP' | 'UDP'): string[] {
  const inodes: string[] = [];
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    const localPort = Number.parseInt(fields[1].split(':').pop() ?? '', 16);
    // state 0A is TCP_LISTEN; UDP sockets are unconnected (07) when bound for serving
    if (localPort !== port || (protocol === 'TCP' && fields[3] !== '0A')) continue;
    if (fields[9] !== '0') inodes.push(fields[9]);
  }
  return inodes;
}

async function readText(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '');
}

/** e.g. `nginx (pid 4242)`, or undefined when the holder cannot be seen. */
export async function describePortHolder(port: number, protocol: 'TCP' | 'UDP'): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  const tables = protocol === 'TCP' ? ['/proc/net/tcp', '/proc/net/tcp6'] : ['/proc/net/udp', '/proc/net/udp6'];
  const inodes = new Set<string>();
  for (const table of tables) for (const inode of socketInodes(await readText(table), port, protocol)) inodes.add(inode);
  if (inodes.size === 0) return undefined;
  const targets = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  // our own process first: kubedesk's other listeners (API server, Ingress) are the likeliest holders
  const others = (await readdir('/proc').catch(() => [])).filter((entry) => /^\d+$/.test(entry) && entry !== String(process.pid));
  const pids = [String(process.pid), ...others];
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      if (!targets.has(link)) continue;
      const command = (await readText(`/proc/${pid}/comm`)).trim();
      return Number(pid) === process.pid ? `kubedesk (pid ${pid})` : `${command || 'process'} (pid ${pid})`;
    }
  }
  return undefined;
}
