// Imports the kd-netd image (main/network/netd/netdImage.ts says what it holds and how it is
// tagged) into the daemon when it lacks it, as the pause image is built: no registry.
import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';
import { netdConfigPath, netdImageLabel, netdImageTag } from '../network/netd/netdImage';
import { importOneFileImage, memoize } from './daemon';

const importPromises = new Map<string, Promise<string>>();

/** Imports the image from the executable if the daemon lacks it and returns its tag; concurrent callers share one import. */
export function ensureNetdImage(docker: Docker, binaryPath: string): Promise<string> {
  const binary = readFileSync(binaryPath);
  const tag = netdImageTag(binary);
  return memoize(importPromises, tag, () =>
    importOneFileImage(docker, { tag, file: 'kd-netd', content: binary, changes: [`ENTRYPOINT ["/kd-netd","${netdConfigPath}"]`, `LABEL ${netdImageLabel}=netd`], description: 'the kd-netd image' }),
  );
}
