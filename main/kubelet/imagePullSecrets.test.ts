import { describe, expect, it } from 'vitest';
import { registryAuthFor, registryHost } from './imagePullSecrets';

const secret = (auths: Record<string, unknown>) => ({
  metadata: { name: 's' },
  type: 'kubernetes.io/dockerconfigjson',
  data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths })).toString('base64') },
});

describe('image pull secrets', () => {
  it.each([
    ['busybox', 'docker.io'],
    ['library/busybox:1', 'docker.io'],
    ['ghcr.io/org/app:1', 'ghcr.io'],
    ['localhost:5000/app', 'localhost:5000'],
  ])('finds the registry host of %s', (image, host) => {
    expect(registryHost(image)).toBe(host);
  });

  it('matches credentials to the image registry, decoding `auth`', () => {
    const auth = Buffer.from('user:pa:ss').toString('base64');
    const secrets = [secret({ 'https://index.docker.io/v1/': { auth } }), secret({ 'ghcr.io': { username: 'me', password: 'pw' } })];
    expect(registryAuthFor('busybox', secrets)).toMatchObject({ username: 'user', password: 'pa:ss' });
    expect(registryAuthFor('ghcr.io/org/app', secrets)).toMatchObject({ username: 'me', password: 'pw', serveraddress: 'ghcr.io' });
    expect(registryAuthFor('quay.io/x', secrets)).toBeUndefined();
  });
});
