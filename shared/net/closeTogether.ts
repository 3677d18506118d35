// Two streams relaying one upgraded connection (WebSocket through the API server's proxy or the
// Ingress) live and die together: when either closes or fails, both are destroyed, as upstream's
// proxies return once either copy ends.
import type { Duplex } from 'node:stream';

export function closeTogether(first: Duplex, second: Duplex): void {
  const closeBoth = () => {
    first.destroy();
    second.destroy();
  };
  for (const stream of [first, second]) {
    stream.once('close', closeBoth);
    stream.on('error', closeBoth);
  }
}
