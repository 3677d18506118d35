// What an empty list says: nothing matches the filter, or there is nothing yet and how to create
// some (from the UI, or with kubectl pointed at kubedesk).
import type { KindConfig } from '../kinds/kindConfig';
import { useAppState } from '../context';
import { useShownContext } from '../views/clusters/KubedeskOnly';

export function EmptyState({ kind, filtered }: { kind: KindConfig; filtered: boolean }) {
  const navigate = useAppState((state) => state.navigate);
  const namespaces = useAppState((state) => state.selectedNamespaces);
  const shownContext = useShownContext();
  const own = useAppState((state) => state.cluster === '');
  if (filtered) return <div className="empty">No {kind.title} match the filter.</div>;
  const where = kind.namespaced && namespaces.length > 0 ? ` in ${namespaces.join(', ')}` : '';
  return (
    <div className="empty">
      <p>
        No {kind.title}
        {where} yet.
      </p>
      <p>
        <button className="primary" onClick={() => navigate({ view: 'create', kindKey: kind.key })}>
          Create from YAML
        </button>
      </p>
      <p className="hint">
        Or use kubectl: {own && <>kubedesk wrote a <code>{shownContext}</code> context into your kubeconfig — </>}run <code>kubectl config use-context {shownContext}</code>, then{' '}
        <code>kubectl apply -f your-manifest.yaml</code>.
      </p>
    </div>
  );
}
