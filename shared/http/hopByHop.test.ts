import { describe, expect, it } from 'vitest';
import { hopByHopTest, rawHeaderValues } from './hopByHop';

describe('hop-by-hop headers', () => {
  it.each(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'])(
    'always treats %s as hop-by-hop',
    (name) => expect(hopByHopTest(undefined)(name)).toBe(true),
  );

  it.each([
    ['one value', 'close, X-Trace', ['x-trace']],
    ['several values', ['keep-alive', ' X-One ,, x-two '], ['x-one', 'x-two']],
  ])('adds the names a Connection header lists (%s)', (_case, connection, listed) => {
    const isHopByHop = hopByHopTest(connection);
    for (const name of listed) expect(isHopByHop(name)).toBe(true);
    expect(isHopByHop('content-type')).toBe(false);
  });

  it('collects every value of a header from rawHeaders, whatever its case', () => {
    expect(rawHeaderValues(['Host', 'a', 'Connection', 'x-one', 'connection', 'x-two'], 'connection')).toEqual(['x-one', 'x-two']);
    expect(rawHeaderValues(['Host', 'a'], 'connection')).toEqual([]);
  });
});
