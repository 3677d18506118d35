import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GZIP_THRESHOLD_BYTES, acceptsGzip, gzipBody, shouldCompress } from './responseCompression';

describe('response compression as the upstream API server negotiates it', () => {
  it('reads the gzip token from Accept-Encoding as kubectl and browsers send it, and nothing else', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('gzip, deflate, br, zstd')).toBe(true);
    expect(acceptsGzip('br, gzip')).toBe(true);
    expect(acceptsGzip('deflate, br')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    // upstream compares the trimmed token with "gzip": a quality value is not understood
    expect(acceptsGzip('gzip;q=1.0')).toBe(false);
  });

  it('compresses only replies over 128 KiB that carry no encoding of their own', () => {
    expect(shouldCompress('gzip', {}, GZIP_THRESHOLD_BYTES)).toBe(false);
    expect(shouldCompress('gzip', {}, GZIP_THRESHOLD_BYTES + 1)).toBe(true);
    expect(shouldCompress(undefined, {}, 10 * GZIP_THRESHOLD_BYTES)).toBe(false);
    expect(shouldCompress('gzip', { 'Content-Encoding': 'gzip' }, 10 * GZIP_THRESHOLD_BYTES)).toBe(false);
  });

  it('gzips a body that gunzip gives back byte for byte', async () => {
    const body = Buffer.from(JSON.stringify({ kind: 'PodList', items: Array.from({ length: 2000 }, (_, index) => ({ metadata: { name: `pod-${index}` } })) }));
    const compressed = await gzipBody(body);
    expect(compressed.length).toBeLessThan(body.length / 5);
    expect(gunzipSync(compressed).equals(body)).toBe(true);
  });
});
