// The kd-netd image: the static kd-netd executable alone in a tar, `docker import`ed under a tag
// derived from its content (main/docker/netdImage.ts imports it, as the pause image; no registry).
// Here: the executable's name, where to find it, and the tag it gets.
// kd-netd plays the part of kube-proxy's userspace proxier (pkg/proxy/userspace) inside the
// cluster network; see netd.c.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Label on the netd image, so `kubedesk reset` and tests can tell it from user images. */
export const netdImageLabel = 'dev.kubedesk.image';
export const netdImageRepository = 'kubedesk/netd';
/** Where the config file is inside the container (the run directory is mounted at /run/kubedesk). */
export const netdConfigPath = '/run/kubedesk/netd.conf';

export type NetdArchitecture = 'amd64' | 'arm64';

/** Node's process.arch to the suffix of the executable scripts/buildNetd.mjs writes. */
export function netdArchitecture(nodeArchitecture: string): NetdArchitecture {
  if (nodeArchitecture === 'x64') return 'amd64';
  if (nodeArchitecture === 'arm64') return 'arm64';
  throw new Error(`unsupported architecture ${nodeArchitecture}: kd-netd is built for amd64 and arm64`);
}

/** kubedesk's in-network programs (scripts/buildNetd.mjs builds both). */
export type NetworkProgram = 'kd-netd' | 'kd-netpol';

export function netdBinaryName(architecture: NetdArchitecture, program: NetworkProgram = 'kd-netd'): string {
  return `${program}-linux-${architecture}`;
}

/** `kubedesk/netd:<12 hex digits of the executable's sha256>`: the same bytes give the same tag. */
export function netdImageTag(binary: Buffer): string {
  return `${netdImageRepository}:${createHash('sha256').update(binary).digest('hex').slice(0, 12)}`;
}

/**
 * Places to look for the executable, best first: beside the running bundle (dist/kubedesk.mjs →
 * dist/netd/), then the repository's dist/ when running from source (vitest: this file is
 * main/network/netd/netdImage.ts), then dist/ under the working directory.
 */
export function netdBinaryCandidates(moduleUrl: string | undefined, architecture: NetdArchitecture, workingDirectory: string, program: NetworkProgram = 'kd-netd'): string[] {
  const name = netdBinaryName(architecture, program);
  const candidates: string[] = [];
  if (moduleUrl && moduleUrl.startsWith('file:')) {
    candidates.push(fileURLToPath(new URL(`./netd/${name}`, moduleUrl)));
    // the Electron shell's bundle lives in dist/app/
    candidates.push(fileURLToPath(new URL(`../netd/${name}`, moduleUrl)));
    candidates.push(fileURLToPath(new URL(`../../../dist/netd/${name}`, moduleUrl)));
  }
  candidates.push(join(workingDirectory, 'dist', 'netd', name));
  return [...new Set(candidates)];
}

/** The kd-netd executable for this machine's architecture; throws when it has not been built. */
export function netdBinaryPath(): string {
  return programPath('kd-netd');
}

/** kd-netpol (a pod's packet filter, run in the pod's network namespace); throws when not built. */
export function netpolBinaryPath(): string {
  return programPath('kd-netpol');
}

function programPath(program: NetworkProgram): string {
  // The CommonJS Electron bundle gets import.meta.url from its own path (scripts/build.mjs).
  const moduleUrl: unknown = import.meta.url;
  const candidates = netdBinaryCandidates(typeof moduleUrl === 'string' ? moduleUrl : undefined, netdArchitecture(process.arch), process.cwd(), program);
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`${program} executable not found (looked in ${candidates.join(', ')}); build it with \`node scripts/buildNetd.mjs\``);
  return found;
}
