// One probe attempt, after upstream pkg/kubelet/prober/prober.go and pkg/probe/{exec,http,tcp,grpc}:
// - exec: ExecSync in the container with the probe timeout; exit 0 succeeds, the output (capped at
//   10 KiB) is the message; a timeout fails with `command "…" timed out`;
// - httpGet: GET scheme://host:port/path (host defaults to the pod IP, a named port is looked up in
//   the container's ports) with User-Agent kube-probe/1.35 and Accept */*; 200–399 succeeds; redirects
//   are followed only to the same host (up to 10), a redirect elsewhere succeeds with a warning; the
//   body read stops at 10 KiB; failures read `HTTP probe failed with statuscode: 500` or Go's client
//   error text;
// - tcpSocket: a connection that opens succeeds;
// - grpc: grpc.health.v1.Health/Check (see grpcHealth.ts).
// 'unknown' means the probe could not run (bad port, runtime error): the worker discards it.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { ContainerRuntime } from '../runtime/containerRuntime';
import type { Container, Probe } from '../env/podSpec';
import { dialErrorText } from '../../../shared/net/dialErrors';
import { joinHostPort } from './dialErrors';
import { grpcHealthCheck } from './grpcHealth';

export const probeUserAgent = 'kube-probe/1.35';
const maxOutputBytes = 10 * 1024;
const maxRedirects = 10;

export type ProbeResult = 'success' | 'failure' | 'unknown';

export interface ProbeOutcome {
  result: ProbeResult;
  output: string;
  /** success with a warning (a redirect to another host); upstream emits a ProbeWarning event */
  warning?: boolean;
}

export interface ProbeContext {
  podIP: string;
  /** runtime container id (no docker:// prefix) */
  containerId: string;
  runtime: Pick<ContainerRuntime, 'execSync'>;
  timeoutSeconds: number;
  /** for named ports */
  container?: Pick<Container, 'ports'>;
}

/** upstream probe.ResolveContainerPort */
export function resolveContainerPort(port: number | string, container: Pick<Container, 'ports'> | undefined): number {
  let value: number;
  if (typeof port === 'number') {
    value = port;
  } else {
    const named = container?.ports?.find((candidate) => candidate.name === port);
    if (named) value = named.containerPort;
    else if (/^\d+$/.test(port)) value = Number(port);
    else throw new Error(`port ${port} not found`);
  }
  if (value > 0 && value < 65536) return value;
  throw new Error(`invalid port number: ${value}`);
}

/** Go's %q of a command line, as upstream's exec timeout message uses it. */
function quoted(text: string): string {
  return JSON.stringify(text);
}

async function execProbe(command: string[], context: ProbeContext): Promise<ProbeOutcome> {
  try {
    const reply = await context.runtime.execSync(context.containerId, command, context.timeoutSeconds * 1000);
    if (reply.timedOut) return { result: 'failure', output: `command ${quoted(command.join(' '))} timed out` };
    const output = Buffer.from(reply.stdout + reply.stderr).subarray(0, maxOutputBytes).toString('utf8');
    return { result: reply.exitCode === 0 ? 'success' : 'failure', output };
  } catch (error) {
    return { result: 'unknown', output: error instanceof Error ? error.message : String(error) };
  }
}

function tcpProbe(host: string, port: number, timeoutSeconds: number): Promise<ProbeOutcome> {
  const address = joinHostPort(host, port);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ result: 'failure', output: `dial tcp ${address}: i/o timeout` });
    }, timeoutSeconds * 1000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ result: 'success', output: '' });
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      resolve({ result: 'failure', output: dialErrorText(error, address) });
    });
  });
}

interface HttpReply {
  status: number;
  location?: string;
  body: string;
}

function httpGetOnce(url: URL, headers: Record<string, string | string[]>, deadline: number): Promise<HttpReply> {
  const client = url.protocol === 'https:' ? https : http;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const address = joinHostPort(host, port);
  return new Promise((resolve, reject) => {
    const remaining = Math.max(0, deadline - Date.now());
    let gotHeaders = false;
    const request = client.request(
      { method: 'GET', host, port, path: `${url.pathname}${url.search}`, headers, agent: false, rejectUnauthorized: false },
      (response) => {
        gotHeaders = true;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (): void => {
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, location: response.headers.location, body: Buffer.concat(chunks).subarray(0, maxOutputBytes).toString('utf8') });
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          // Like upstream's ReadAtMost: stop reading a large body.
          if (size >= maxOutputBytes) {
            response.destroy();
            done();
          }
        });
        response.on('end', done);
        response.on('error', () => done());
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      const stage = gotHeaders ? 'Client.Timeout or context cancellation while reading body' : 'Client.Timeout exceeded while awaiting headers';
      reject(new Error(`context deadline exceeded (${stage})`));
    }, remaining);
    request.on('error', (error) => {
      clearTimeout(timer);
      const code = error instanceof Error && 'code' in error ? error.code : undefined;
      if (typeof code === 'string' && code.startsWith('E') && !code.startsWith('ERR_')) reject(new Error(dialErrorText(error, address)));
      else reject(error);
    });
    request.end();
  });
}

/** The request headers as upstream NewRequestForHTTPGetAction builds them. */
export function probeHeaders(httpHeaders: { name: string; value: string }[] | undefined): Record<string, string | string[]> {
  const headers: Record<string, string[]> = {};
  const canonical = new Map<string, string>();
  for (const header of httpHeaders ?? []) {
    const key = canonical.get(header.name.toLowerCase()) ?? header.name;
    canonical.set(header.name.toLowerCase(), key);
    (headers[key] ??= []).push(header.value);
  }
  const find = (name: string): string | undefined => canonical.get(name.toLowerCase());
  if (!find('user-agent')) headers['User-Agent'] = [probeUserAgent];
  const accept = find('accept');
  if (!accept) headers.Accept = ['*/*'];
  else if (headers[accept].every((value) => value === '')) delete headers[accept];
  return Object.fromEntries(Object.entries(headers).map(([key, values]) => [key, values.length === 1 ? values[0] : values]));
}

async function httpProbe(probe: NonNullable<Probe['httpGet']>, context: ProbeContext): Promise<ProbeOutcome> {
  let port: number;
  try {
    port = resolveContainerPort(probe.port, context.container);
  } catch (error) {
    return { result: 'unknown', output: error instanceof Error ? error.message : String(error) };
  }
  const scheme = (probe.scheme || 'HTTP').toLowerCase();
  const host = probe.host || context.podIP;
  let pathText = probe.path || '/';
  if (!pathText.startsWith('/')) pathText = `/${pathText}`;
  let url: URL;
  try {
    url = new URL(`${scheme}://${joinHostPort(host, port)}${pathText}`);
  } catch (error) {
    return { result: 'failure', output: error instanceof Error ? error.message : String(error) };
  }
  const headers = probeHeaders(probe.httpHeaders);
  const deadline = Date.now() + context.timeoutSeconds * 1000;
  const originalHost = url.hostname;
  for (let redirects = 0; ; redirects++) {
    let reply: HttpReply;
    try {
      reply = await httpGetOnce(url, headers, deadline);
    } catch (error) {
      return { result: 'failure', output: `Get "${url.href}": ${error instanceof Error ? error.message : String(error)}` };
    }
    const redirect = [301, 302, 303, 307, 308].includes(reply.status) && reply.location !== undefined;
    if (redirect) {
      const next = new URL(reply.location ?? '', url);
      if (next.hostname === originalHost) {
        if (redirects + 1 >= maxRedirects) return { result: 'failure', output: `Get "${next.href}": stopped after ${maxRedirects} redirects` };
        url = next;
        continue;
      }
    }
    if (reply.status >= 200 && reply.status < 400) {
      if (reply.status >= 300) return { result: 'success', output: `Probe terminated redirects, Response body: ${reply.body}`, warning: true };
      return { result: 'success', output: reply.body };
    }
    return { result: 'failure', output: `HTTP probe failed with statuscode: ${reply.status}` };
  }
}

/** Runs one attempt of the probe's handler. */
export async function runProbe(probe: Probe, context: ProbeContext): Promise<ProbeOutcome> {
  if (probe.exec) return execProbe(probe.exec.command ?? [], context);
  if (probe.httpGet) return httpProbe(probe.httpGet, context);
  if (probe.tcpSocket) {
    let port: number;
    try {
      port = resolveContainerPort(probe.tcpSocket.port, context.container);
    } catch (error) {
      return { result: 'unknown', output: error instanceof Error ? error.message : String(error) };
    }
    return tcpProbe(probe.tcpSocket.host || context.podIP, port, context.timeoutSeconds);
  }
  if (probe.grpc) {
    if (!(probe.grpc.port > 0 && probe.grpc.port < 65536)) return { result: 'unknown', output: `invalid port number: ${probe.grpc.port}` };
    const outcome = await grpcHealthCheck(context.podIP, probe.grpc.port, probe.grpc.service ?? '', context.timeoutSeconds, probeUserAgent);
    return { result: outcome.healthy ? 'success' : 'failure', output: outcome.output };
  }
  return { result: 'unknown', output: 'missing probe handler' };
}
