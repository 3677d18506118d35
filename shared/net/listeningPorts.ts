// The ports something on this host already holds (Linux: the LISTEN sockets of /proc/net/tcp and
// tcp6, the bound sockets of /proc/net/udp and udp6, read synchronously in well under a
// millisecond), so a node port handed out automatically is not one another local cluster (or any
// other program) listens on — the NodePort listener on 127.0.0.1 could not open it. Elsewhere (no
// procfs) the set is empty and a clash shows as the FailedToOpenNodePort event. Node-only.
import { readFileSync } from 'node:fs';

const TCP_LISTEN = '0A';
const UDP_UNCONNECTED = '07';

/** Local ports of the sockets in one /proc/net table's text that are in `state`. */
export function portsInState(table: string, state: string): number[] {
  const ports: number[] = [];
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4 || fields[3] !== state) continue;
    const local = fields[1];
    const port = parseInt(local.slice(local.lastIndexOf(':') + 1), 16);
    if (Number.isInteger(port) && port > 0) ports.push(port);
  }
  return ports;
}

export function listeningHostPorts(procNet = '/proc/net'): Set<number> {
  const ports = new Set<number>();
  for (const [file, state] of [
    ['tcp', TCP_LISTEN],
    ['tcp6', TCP_LISTEN],
    ['udp', UDP_UNCONNECTED],
    ['udp6', UDP_UNCONNECTED],
  ] as const) {
    let text: string;
    try {
      text = readFileSync(`${procNet}/${file}`, 'utf8');
    } catch {
      continue;
    }
    for (const port of portsInState(text, state)) ports.add(port);
  }
  return ports;
}
