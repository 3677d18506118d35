// Helpers every caller of the Docker daemon in this folder shares: reading dockerode's errors
// (the daemon's own words, its HTTP status), sharing one in-flight call per key, and `docker import`
// of a one-file image built locally (the pause image, kd-netd), so no registry is ever needed.
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { isRecord } from '../../shared/kubernetes/types';
import { writeTar } from './tar';

/** The daemon's HTTP status of a failed call (404 missing, 409 conflict…), if it answered. */
export function statusCodeOf(error: unknown): number | undefined {
  return isRecord(error) && typeof error.statusCode === 'number' ? error.statusCode : undefined;
}

export function isNotFound(error: unknown): boolean {
  return statusCodeOf(error) === 404;
}

/** docker-modem's "(HTTP code 404) no such container - No such container: x" → the daemon's own words. */
export function dockerErrorMessage(error: unknown): string {
  if (isRecord(error) && isRecord(error.json) && typeof error.json.message === 'string') return error.json.message;
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^\(HTTP code \d+\) [^-]*- /, '').trim();
}

/** One in-flight `create()` per key; a failure (e.g. Docker down) does not stick, the next call tries again. */
export function memoize<T>(cache: Map<string, Promise<T>>, key: string, create: () => Promise<T>): Promise<T> {
  const existing = cache.get(key);
  if (existing) return existing;
  const promise = create();
  cache.set(key, promise);
  promise.catch(() => cache.delete(key));
  return promise;
}

export interface OneFileImage {
  /** `repository:tag` */
  tag: string;
  /** the executable, stored at `/<file>` with mode 0755 */
  file: string;
  content: Buffer;
  /** Dockerfile-style `changes` (ENTRYPOINT, LABEL) */
  changes: string[];
  /** what the image is, for error messages: `the pause image` */
  description: string;
}

/** Imports the image unless the daemon has its tag already; resolves to the tag. */
export async function importOneFileImage(docker: Docker, image: OneFileImage): Promise<string> {
  try {
    await docker.getImage(image.tag).inspect();
    return image.tag;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const archive = writeTar([{ path: image.file, content: image.content, mode: 0o755 }]);
  const colon = image.tag.lastIndexOf(':');
  const stream = await docker.importImage(Readable.from([archive]), { repo: image.tag.slice(0, colon), tag: image.tag.slice(colon + 1), changes: image.changes });
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(stream, (error: Error | null, output: unknown[]) => {
      if (error) return reject(new Error(`importing ${image.description}: ${dockerErrorMessage(error)}`));
      const failure = output.find((event) => isRecord(event) && typeof event.error === 'string');
      if (isRecord(failure)) return reject(new Error(`importing ${image.description}: ${String(failure.error)}`));
      resolve();
    });
  });
  return image.tag;
}
