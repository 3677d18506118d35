import { createServer, type Server, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { directDialer, tunnelDialer } from './dialer';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A stand-in for kd-netd's tunnel: checks the CONNECT line, then echoes with a prefix. */
function fakeTunnel(token: string, seen: string[]): Server {
  return createServer((socket) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      socket.off('data', onData);
      const [verb, target, given] = buffered.slice(0, newline).split(' ');
      seen.push(`${verb} ${target}`);
      if (given !== token) {
        socket.end('ERR bad token\n');
        return;
      }
      // OK and the pod's first bytes in one segment: the dialer must hand those to the caller
      socket.write(`OK\nhello from ${target}\n`);
      socket.on('data', (data) => socket.write(`echo ${data.toString('utf8')}`));
    };
    socket.on('data', onData);
  });
}

async function readUntil(socket: import('node:net').Socket, text: string): Promise<string> {
  let received = '';
  return new Promise((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (received.includes(text)) resolve(received);
    });
    socket.on('error', reject);
  });
}

describe('tunnelDialer', () => {
  it('opens a connection through the tunnel and keeps the bytes that follow OK', async () => {
    const seen: string[] = [];
    const port = await listen(fakeTunnel('s3cret', seen));
    const socket = await tunnelDialer(async () => ({ port, token: 's3cret' })).dial('10.1.0.5', 8080);
    const greeting = readUntil(socket, 'echo ping');
    socket.write('ping');
    expect(await greeting).toBe('hello from 10.1.0.5:8080\necho ping');
    expect(seen).toEqual(['CONNECT 10.1.0.5:8080']);
    socket.destroy();
  });

  it("rejects with kd-netd's reason when the token is wrong", async () => {
    const port = await listen(fakeTunnel('right', []));
    await expect(tunnelDialer(async () => ({ port, token: 'wrong' })).dial('10.1.0.5', 80)).rejects.toThrow('dial 10.1.0.5:80 through kd-netd: bad token');
  });
});

describe('directDialer', () => {
  it('connects straight to the address and reports refusals', async () => {
    const port = await listen(createServer((socket) => socket.end('direct')));
    const socket = await directDialer().dial('127.0.0.1', port);
    expect(await readUntil(socket, 'direct')).toBe('direct');
    const closed = await listen(createServer());
    servers.pop()?.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(directDialer().dial('127.0.0.1', closed)).rejects.toThrow(/ECONNREFUSED/);
  });
});
