// The views' access to the permissions store: `usePermissions()` gives a `can` function that
// changes when an answer arrives (so memoised action lists recompute), `useCurrentCluster()` the
// window's cluster with its read-only switch.
import { useMemo, useSyncExternalStore } from 'react';
import { useServices } from '../../context';
import { currentCluster, subscribeClusters, type CurrentCluster } from './clusters';
import type { Can, Identity } from './permissionsModel';
import { permissionsFor } from './permissionsStore';

export function usePermissions(): Can {
  const store = permissionsFor(useServices().client);
  const version = useSyncExternalStore(store.subscribe, store.version);
  // a new function per answer: useMemo(…, [can]) in the views recomputes
  return useMemo<Can>(() => (check) => store.can(check), [store, version]);
}

export function useIdentity(): Identity | undefined {
  const store = permissionsFor(useServices().client);
  useSyncExternalStore(store.subscribe, store.version);
  return store.identity();
}

let lastCluster: CurrentCluster = currentCluster();
function snapshot(): CurrentCluster {
  const next = currentCluster();
  if (next.name !== lastCluster.name || next.readOnly !== lastCluster.readOnly || next.basePath !== lastCluster.basePath) lastCluster = next;
  return lastCluster;
}

export function useCurrentCluster(): CurrentCluster {
  return useSyncExternalStore(subscribeClusters, snapshot);
}
