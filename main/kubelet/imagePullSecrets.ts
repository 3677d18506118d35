// Registry credentials for a pull, from the pod's imagePullSecrets (and its service account's), as
// upstream pkg/credentialprovider/keyring.go matches `.dockerconfigjson` / `.dockercfg` entries to
// the image's registry host.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { RegistryAuth } from './runtime/containerRuntime';

/** The registry host of an image reference; Docker Hub for names without a host part. */
export function registryHost(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = image.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : 'docker.io';
}

function normalizeHost(key: string): string {
  let host = key.replace(/^https?:\/\//, '');
  host = host.split('/')[0];
  if (host === 'index.docker.io' || host === 'registry-1.docker.io') return 'docker.io';
  return host;
}

function decode(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Credentials for `image` from the given secrets, first match wins. */
export function registryAuthFor(image: string, secrets: KubeObject[]): RegistryAuth | undefined {
  const host = registryHost(image);
  for (const secret of secrets) {
    const data = isRecord(secret.data) ? secret.data : {};
    const config = decode(data['.dockerconfigjson']);
    const auths = isRecord(config) && isRecord(config.auths) ? config.auths : (decode(data['.dockercfg']) as unknown);
    if (!isRecord(auths)) continue;
    for (const [key, entry] of Object.entries(auths)) {
      if (!isRecord(entry) || normalizeHost(key) !== host) continue;
      const auth: RegistryAuth = { serveraddress: key };
      if (typeof entry.username === 'string') auth.username = entry.username;
      if (typeof entry.password === 'string') auth.password = entry.password;
      if (typeof entry.auth === 'string') {
        auth.auth = entry.auth;
        if (!auth.username) {
          const [user, ...rest] = Buffer.from(entry.auth, 'base64').toString('utf8').split(':');
          auth.username = user;
          auth.password = rest.join(':');
        }
      }
      if (typeof entry.identitytoken === 'string') auth.identitytoken = entry.identitytoken;
      return auth;
    }
  }
  return undefined;
}
