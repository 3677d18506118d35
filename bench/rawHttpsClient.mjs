// A minimal HTTP/1.1 keep-alive client over one TLS connection, for load generators whose own CPU
// would otherwise distort a server figure on a small machine. Each request is a real, separate
// HTTPS request (RFC 9112 message: request line, headers, Content-Length body) on a connection that
// verified the server's certificate against the cluster CA; the request bytes are built as one
// buffer and written with one call, and of the response only the status line and Content-Length
// are parsed (the body is counted, and kept only when asked for). Responses without
// Content-Length (chunked) are refused: the API server answers every non-streaming request with
// one. Requests on a connection go one at a time, as node's agent with maxSockets 1 sends them.
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * Opens a TLS connection to `server.url` (127.0.0.1 only) and returns `{ send, close }`: send(method,
 * path, body, { keepBody }) resolves with { status, ms, body? } once the whole response is in.
 */
export async function openRawHttpsConnection(server, { timeoutMs = 10_000 } = {}) {
  const target = new URL(server.url);
  if (target.hostname !== '127.0.0.1') throw new Error(`refusing to send traffic to ${target.hostname}`);
  const port = Number(target.port);
  // the certificate is checked against the CA and the address, as https.request checks it
  const socket = tls.connect({ host: target.hostname, port, ca: server.ca });
  await new Promise((resolveConnect, reject) => {
    socket.once('secureConnect', resolveConnect);
    socket.once('error', reject);
  });
  socket.setNoDelay(true);
  // the same headers, in the same order, as node's https.request sends for lib.mjs request()
  const leadingHeaders = `Authorization: Bearer ${server.token}\r\nAccept: application/json\r\n`;
  const trailingHeaders = `Host: ${target.host}\r\nConnection: keep-alive\r\n`;

  let pending;
  let buffered = [];
  let bufferedBytes = 0;
  let headerLength = -1;
  let status = 0;
  let contentLength = 0;
  let failure;

  const fail = (error) => {
    failure = error;
    const waiting = pending;
    pending = undefined;
    waiting?.reject(error);
  };
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('connection closed by the server')));
  socket.on('data', (chunk) => {
    if (pending === undefined) {
      fail(new Error('response data with no request outstanding'));
      socket.destroy();
      return;
    }
    buffered.push(chunk);
    bufferedBytes += chunk.length;
    if (headerLength < 0) {
      const all = buffered.length === 1 ? chunk : Buffer.concat(buffered);
      buffered = [all];
      const end = all.indexOf(HEADER_END);
      if (end < 0) return;
      headerLength = end + 4;
      const head = all.toString('latin1', 0, end);
      const statusMatch = /^HTTP\/1\.1 (\d{3}) /.exec(head);
      const lengthMatch = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (!statusMatch || !lengthMatch) {
        fail(new Error(`unexpected response head: ${head.slice(0, 200)}`));
        socket.destroy();
        return;
      }
      status = Number(statusMatch[1]);
      contentLength = Number(lengthMatch[1]);
    }
    const total = headerLength + contentLength;
    if (bufferedBytes < total) return;
    if (bufferedBytes > total) {
      fail(new Error(`${bufferedBytes - total} bytes beyond the response`));
      socket.destroy();
      return;
    }
    const done = pending;
    pending = undefined;
    const reply = { status, ms: performance.now() - done.started };
    if (done.keepBody) {
      const all = buffered.length === 1 ? buffered[0] : Buffer.concat(buffered);
      reply.body = all.toString('utf8', headerLength);
    }
    buffered = [];
    bufferedBytes = 0;
    headerLength = -1;
    clearTimeout(done.timer);
    done.resolve(reply);
  });

  return {
    send(method, path, body, { keepBody = false, contentType = 'application/json' } = {}) {
      if (failure) return Promise.reject(failure);
      if (pending) return Promise.reject(new Error('a request is already outstanding on this connection'));
      const payload = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
      const bodyHeaders = body === undefined ? '' : `Content-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n`;
      const bytes = Buffer.from(`${method} ${path} HTTP/1.1\r\n${leadingHeaders}${bodyHeaders}${trailingHeaders}\r\n${payload}`);
      return new Promise((resolveRequest, reject) => {
        const timer = setTimeout(() => {
          fail(new Error(`${method} ${path} timed out after ${timeoutMs} ms`));
          socket.destroy();
        }, timeoutMs);
        pending = { resolve: resolveRequest, reject: (error) => (clearTimeout(timer), reject(error)), started: performance.now(), keepBody, timer };
        socket.write(bytes);
      });
    },
    close() {
      socket.removeAllListeners('close');
      socket.on('error', () => undefined);
      socket.destroy();
    },
  };
}
