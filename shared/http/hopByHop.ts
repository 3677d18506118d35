// Hop-by-hop headers, which a proxy must not pass on (RFC 9110 §7.6.1): the fixed list Go's
// net/http/httputil ReverseProxy drops (as kube-apiserver's proxy and ingress-nginx do) plus every
// name the message's own Connection header lists.

const hopByHopHeaders: ReadonlySet<string> = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The lowercase header names listed by a message's Connection header value(s). */
function connectionTokens(connection: string | readonly string[] | undefined): Set<string> {
  const values = typeof connection === 'string' ? [connection] : (connection ?? []);
  const tokens = new Set<string>();
  for (const value of values) {
    for (const token of value.split(',')) if (token.trim() !== '') tokens.add(token.trim().toLowerCase());
  }
  return tokens;
}

/** Tells whether a lowercase header name is hop-by-hop in a message with these Connection header value(s). */
export function hopByHopTest(connection: string | readonly string[] | undefined): (lowercaseName: string) => boolean {
  const listed = connectionTokens(connection);
  return (name) => hopByHopHeaders.has(name) || listed.has(name);
}

/** Every value of one header in Node's rawHeaders ([name, value, name, value, …]), in order. */
export function rawHeaderValues(rawHeaders: readonly string[], lowercaseName: string): string[] {
  const values: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (rawHeaders[index].toLowerCase() === lowercaseName) values.push(rawHeaders[index + 1]);
  }
  return values;
}
