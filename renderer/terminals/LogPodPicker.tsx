// The pod picker of a workload's log tab: which of the workload's pods to show — all of them,
// following new ones (the default), or the ones ticked. The pods come live from the pods watch
// cache by the workload's selector.
import { useMemo, useState } from 'react';
import { useCollection } from '../context';
import { pods as podKind } from '../kinds';
import { podsMatching } from '../views/detail/detailModel';
import { podColor } from './lineStore';

export interface PickedPods {
  /** the pods to stream */
  shown: string[];
  /** every pod offered: the selector's pods now, plus any picked that are gone */
  available: string[];
  picked: string[] | 'all';
  setPicked(value: string[] | 'all'): void;
}

/** The pods a workload's log tab shows: all that match (following new ones), or the ones picked. */
export function usePickedPods(namespace: string, initial: string[], selector: Record<string, string> | undefined): PickedPods {
  const collection = useCollection(selector ? podKind : undefined);
  const [picked, setPicked] = useState<string[] | 'all'>('all');
  const selectorKey = JSON.stringify(selector ?? null);
  const liveKey = useMemo(() => {
    if (!selector || collection.phase !== 'ready') return initial.join('\n');
    return podsMatching(Object.values(collection.items), namespace, selector)
      .map((pod) => pod.metadata.name ?? '')
      .join('\n');
    // the selector is compared by value
  }, [collection, namespace, selectorKey, initial.join('\n')]);
  const available = useMemo(() => (liveKey ? liveKey.split('\n') : []), [liveKey]);
  const shownKey = picked === 'all' ? liveKey : picked.join('\n');
  const shown = useMemo(() => (shownKey ? shownKey.split('\n') : []), [shownKey]);
  return { shown, available: [...new Set([...available, ...(picked === 'all' ? [] : picked)])], picked, setPicked };
}

export function LogPodPicker({ picker, shown: pods }: { picker: PickedPods; shown: string[] }) {
  const [pickerOpen, setPickerOpen] = useState(false);
  return (
    <span className="log-pods">
      <button aria-haspopup="true" aria-expanded={pickerOpen} onClick={() => setPickerOpen(!pickerOpen)} data-testid="log-pods">
        Pods: {picker.picked === 'all' ? `all ${picker.available.length}` : `${pods.length} of ${picker.available.length}`} ▾
      </button>
      {pickerOpen && (
        <div className="log-pods-menu" role="group" aria-label="Pods to show" onKeyDown={(event) => event.key === 'Escape' && setPickerOpen(false)}>
          <label className="option">
            <input type="checkbox" checked={picker.picked === 'all'} onChange={(event) => picker.setPicked(event.target.checked ? 'all' : [...pods])} data-testid="log-pods-all" /> All pods (new ones too)
          </label>
          {picker.available.map((podName) => (
            <label key={podName} className="option">
              <input
                type="checkbox"
                checked={pods.includes(podName)}
                onChange={(event) => picker.setPicked(event.target.checked ? [...pods, podName] : pods.filter((item) => item !== podName))}
                data-testid={`log-pod-${podName}`}
              />{' '}
              <span style={{ color: podColor(podName) }}>■</span> {podName}
            </label>
          ))}
        </div>
      )}
    </span>
  );
}
