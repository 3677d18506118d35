// Response compression as upstream's API server does it (APIResponseCompression, on by default;
// apiserver/pkg/endpoints/handlers/responsewriters/writers.go): a reply whose body is larger than
// 128 KiB goes out gzipped at level 1 — the least CPU for a ratio close to the best — with
// `Content-Encoding: gzip` and `Vary: Accept-Encoding`, when the request's Accept-Encoding lists
// the token `gzip` (kubectl and client-go send `Accept-Encoding: gzip`; browsers list it among
// others). Smaller replies, watch streams and streamed bodies (logs) go out as they are. The
// compression runs on libuv's threads, so a big list does not stall the event loop.
import { gzip } from 'node:zlib';

/** The size above which a reply is compressed (upstream's defaultGzipThresholdBytes). */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
/** upstream's defaultGzipContentEncodingLevel */
export const GZIP_LEVEL = 1;

/** Whether Accept-Encoding asks for gzip: a comma-separated token that is exactly `gzip`, as upstream's negotiateContentEncoding reads it. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(',').some((token) => token.trim() === 'gzip');
}

/** Whether a reply of this size, for this request, is sent gzipped. */
export function shouldCompress(acceptEncoding: string | undefined, headers: Record<string, string>, bodyBytes: number): boolean {
  if (bodyBytes <= GZIP_THRESHOLD_BYTES) return false;
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'content-encoding')) return false;
  return acceptsGzip(acceptEncoding);
}

/** The body gzipped at level 1, off the main thread. */
export function gzipBody(body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => gzip(body, { level: GZIP_LEVEL }, (error, compressed) => (error ? reject(error) : resolve(compressed))));
}
