// FakeDialer: a PodDialer for unit tests that maps pod IPs to servers on 127.0.0.1; an IP mapped
// to nothing refuses, as a pod without a listener does. It records what was dialled.
import { connect, type Socket } from 'node:net';
import type { PodDialer } from '../../main/network/dialer';

export class FakeDialer implements PodDialer {
  readonly dialed: string[] = [];

  constructor(readonly routes: Map<string, number>) {}

  dial(ip: string, port: number): Promise<Socket> {
    this.dialed.push(`${ip}:${port}`);
    const local = this.routes.get(ip);
    if (local === undefined) return Promise.reject(new Error(`dial ${ip}:${port}: connection refused`));
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: local });
      socket.once('connect', () => resolve(socket));
      socket.once('error', reject);
    });
  }
}
