import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test/fixtures/until';
import { pipeCorked } from './uiRelay';

/** An upstream that answers with `serve`, and a relay in front of it that passes the reply on with pipeCorked (uiRelay.ts). */
async function startPair(serve: (response: ServerResponse) => void): Promise<{ relayPort: number; close(): void }> {
  const upstream = http.createServer((_request, response) => serve(response));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamPort = (upstream.address() as AddressInfo).port;
  const agent = new http.Agent({ keepAlive: true });
  const relay = http.createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    http.get({ host: '127.0.0.1', port: upstreamPort, path: '/', agent }, (reply) => {
      const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/octet-stream' };
      if (reply.headers['content-length'] !== undefined) headers['content-length'] = reply.headers['content-length'];
      response.writeHead(200, headers);
      if (reply.headers['content-length'] === undefined) response.flushHeaders();
      pipeCorked(reply, response);
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    relayPort: (relay.address() as AddressInfo).port,
    close: () => {
      agent.destroy();
      relay.closeAllConnections();
      relay.close();
      upstream.closeAllConnections();
      upstream.close();
    },
  };
}

describe('pipeCorked', () => {
  const closers: (() => void)[] = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });

  it('passes a reply of many batches on byte for byte, in order', async () => {
    // 3 MB in pieces of uneven sizes, so batches end in the middle of pieces
    const body = Buffer.alloc(3_000_017);
    for (let index = 0; index < body.length; index++) body[index] = (index * 31 + (index >> 10)) & 0xff;
    const pair = await startPair((response) => {
      response.writeHead(200, { 'content-length': String(body.length) });
      for (let offset = 0; offset < body.length; offset += 7_001) response.write(body.subarray(offset, Math.min(offset + 7_001, body.length)));
      response.end();
    });
    closers.push(pair.close);
    const received = await new Promise<Buffer>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: pair.relayPort, path: '/', agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks)));
        response.on('error', reject);
      }).on('error', reject);
    });
    expect(received.length).toBe(body.length);
    expect(received.equals(body)).toBe(true);
  });

  it('sends a stream\'s small chunk on while the reply stays open, as a watch event must arrive', async () => {
    let upstreamResponse: ServerResponse | undefined;
    const pair = await startPair((response) => {
      upstreamResponse = response;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
    });
    closers.push(pair.close);
    let text = '';
    const request = http.get({ host: '127.0.0.1', port: pair.relayPort, path: '/', agent: false }, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('error', () => undefined);
    });
    request.on('error', () => undefined);
    closers.push(() => request.destroy());
    await until(() => upstreamResponse !== undefined, 'the upstream request');
    upstreamResponse?.write('{"type":"ADDED"}\n');
    await until(() => text === '{"type":"ADDED"}\n', 'the first event through the relay');
    upstreamResponse?.write('{"type":"MODIFIED"}\n');
    await until(() => text.endsWith('{"type":"MODIFIED"}\n'), 'the second event through the relay');
    expect(text).toBe('{"type":"ADDED"}\n{"type":"MODIFIED"}\n');
  });
});
