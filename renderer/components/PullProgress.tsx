// Image pulls in progress, in the top bar on every page ("Pulling image X…"), derived from pods
// waiting for their image and the kubelet's Pulling/Pulled events (views/overview/imagePulls.ts).
// With no pull events the derivation stops before looking at any pod, so a large pod list costs
// nothing here.
import { useMemo } from 'react';
import { useAppState, useCollection } from '../context';
import { events as eventsKind, pods as podsKind } from '../kinds';
import { currentPulls, pullSummaries } from '../views/overview/imagePulls';

export function PullProgress() {
  const pods = useCollection(podsKind);
  const events = useCollection(eventsKind);
  const navigate = useAppState((state) => state.navigate);
  const pulls = useMemo(() => pullSummaries(currentPulls(Object.values(pods.items), Object.values(events.items))), [pods.items, events.items]);
  if (pulls.length === 0) return null;
  return (
    <>
      {pulls.map((pull) => (
        <button key={pull.image} className="task ghost" onClick={() => navigate({ view: 'overview' })} title="Image pulls in progress (see the overview)" data-testid="pull-progress">
          <span className="spinner" /> Pulling image {pull.image}…{pull.pods > 1 ? ` (${pull.pods} pods)` : ''}
        </button>
      ))}
    </>
  );
}
