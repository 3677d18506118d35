// Helm releases from Helm's own storage: the Secrets watch (every namespace), the ones of type
// helm.sh/release.v1 owned by helm, each decoded once per resourceVersion (decoding is a gunzip, so
// it is async and cached across renders and pages).
import { useEffect, useMemo, useState } from 'react';
import { isReleaseSecret, releaseFromSecret, type HelmRelease } from '../../../shared/helm/releaseStorage';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { useCollection } from '../../context';
import { secrets } from '../../kinds';

const decoded = new Map<string, Promise<HelmRelease | Error>>();

function decode(secret: KubeObject): Promise<HelmRelease | Error> {
  const key = `${secret.metadata.uid ?? `${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}`}@${secret.metadata.resourceVersion ?? ''}`;
  let promise = decoded.get(key);
  if (!promise) {
    promise = releaseFromSecret(secret).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    decoded.set(key, promise);
    if (decoded.size > 2000) decoded.delete(decoded.keys().next().value as string);
  }
  return promise;
}

export interface HelmReleases {
  releases: HelmRelease[];
  /** Secrets that claim to be releases but do not decode */
  broken: Array<{ secret: string; error: string }>;
  loading: boolean;
  error?: string;
}

export function useHelmReleases(): HelmReleases {
  const collection = useCollection(secrets);
  const releaseSecrets = useMemo(() => Object.values(collection.items).filter(isReleaseSecret), [collection.items]);
  const [state, setState] = useState<{ releases: HelmRelease[]; broken: HelmReleases['broken']; done: boolean }>({ releases: [], broken: [], done: false });
  useEffect(() => {
    let current = true;
    void Promise.all(releaseSecrets.map(async (secret) => ({ secret, result: await decode(secret) }))).then((results) => {
      if (!current) return;
      const releases: HelmRelease[] = [];
      const broken: HelmReleases['broken'] = [];
      for (const { secret, result } of results) {
        if (result instanceof Error) broken.push({ secret: `${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}`, error: result.message });
        else releases.push(result);
      }
      setState({ releases, broken, done: true });
    });
    return () => {
      current = false;
    };
  }, [releaseSecrets]);
  return { releases: state.releases, broken: state.broken, loading: collection.phase === 'loading' || !state.done, error: collection.phase === 'error' ? collection.error : undefined };
}
