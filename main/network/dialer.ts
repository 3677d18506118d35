// How kubedesk's host process reaches a pod: the one seam between host-side networking (NodePort
// and LoadBalancer listeners, the Ingress controller, the API server's service/pod proxy) and the
// container network. On Linux Docker Engine pod IPs are routable from the host, so `directDialer`
// connects straight to them. On Docker Desktop (macOS/Windows) they are not; there the
// `tunnelDialer` asks kd-netd, which sits on the cluster network and publishes one port on
// 127.0.0.1, to open the connection for us (see docs/architecture.md, "Service networking").
import { connect, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';

export interface PodDialer {
  /** Opens a TCP connection to ip:port inside the cluster network; rejects on refusal or timeout. */
  dial(ip: string, port: number): Promise<Socket>;
}

const connectTimeoutMs = 3_000;

export function directDialer(): PodDialer {
  return {
    dial(ip, port) {
      return new Promise((resolve, reject) => {
        const socket = connect({ host: ip, port });
        const timer = setTimeout(() => socket.destroy(new Error(`dial ${ip}:${port}: i/o timeout`)), connectTimeoutMs);
        socket.once('connect', () => {
          clearTimeout(timer);
          socket.setNoDelay(true);
          resolve(socket);
        });
        socket.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      });
    },
  };
}

export interface TunnelEndpoint {
  /** kd-netd's tunnel port as published on 127.0.0.1 */
  port: number;
  token: string;
}

/**
 * Dials through kd-netd's tunnel (docs/architecture.md): connect to the published port on
 * 127.0.0.1, send `CONNECT <ip>:<port> <token>`, and after kd-netd's `OK` the socket carries the
 * connection to the pod. `endpoint` is asked on every dial, so a recreated kd-netd (new port) is
 * picked up.
 */
export function tunnelDialer(endpoint: () => Promise<TunnelEndpoint>): PodDialer {
  return {
    async dial(ip, port) {
      const tunnel = await endpoint();
      return new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: tunnel.port });
        let answer = Buffer.alloc(0);
        const fail = (error: Error) => {
          clearTimeout(timer);
          socket.destroy();
          reject(error);
        };
        const timer = setTimeout(() => fail(new Error(`dial ${ip}:${port} through kd-netd: i/o timeout`)), connectTimeoutMs);
        // 'readable' + read() rather than 'data': the stream must not be left flowing with nobody
        // listening, or the pod's first bytes would be lost before the caller attaches.
        const onReadable = () => {
          let chunk: Buffer | null;
          while ((chunk = socket.read() as Buffer | null) !== null) answer = Buffer.concat([answer, chunk]);
          const newline = answer.indexOf(10);
          if (newline < 0) {
            if (answer.length > 512) fail(new Error('kd-netd tunnel: answer too long'));
            return;
          }
          socket.off('readable', onReadable);
          socket.off('error', fail);
          clearTimeout(timer);
          const line = answer.subarray(0, newline).toString('utf8').trim();
          if (line !== 'OK') {
            socket.destroy();
            reject(new Error(`dial ${ip}:${port} through kd-netd: ${line.replace(/^ERR\s*/, '') || 'refused'}`));
            return;
          }
          // bytes the pod sent right after OK belong to the caller
          const rest = answer.subarray(newline + 1);
          if (rest.length > 0) socket.unshift(rest);
          socket.setNoDelay(true);
          resolve(socket);
        };
        socket.on('readable', onReadable);
        socket.once('error', fail);
        socket.once('connect', () => socket.write(`CONNECT ${ip}:${port} ${tunnel.token}\n`));
      });
    },
  };
}

/** Whether pod IPs are routable from this host: the cluster network's gateway is one of our addresses (Linux Docker Engine). */
export function podIpsRoutable(gateway: string): boolean {
  return Object.values(networkInterfaces()).some((addresses) => (addresses ?? []).some((address) => address.address === gateway));
}
