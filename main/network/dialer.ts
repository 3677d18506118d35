// How kubedesk's host process reaches a pod: the one seam between host-side networking (NodePort
// and LoadBalancer listeners, the Ingress controller, the API server's service/pod proxy) and the
// container network. On Linux Docker Engine pod IPs are routable from the host, so `directDialer`
// connects straight to them. On Docker Desktop (macOS/Windows) they are not; there the
// `tunnelDialer` asks kd-netd, which sits on the cluster network and publishes one port on
// 127.0.0.1, to open the connection for us (see docs/architecture.md, "Service networking").
import { connect, type Socket } from 'node:net';

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
