// Recently deleted: the objects whose newest revision removed them (the history API's
// deletedobjects, as `kubedesk history --deleted` lists them), in the picker's namespace or all,
// each with Undelete — after a confirmation, the same create `kubedesk history restore` sends
// (shared/history) — and a link to its History.
import { useState } from 'react';
import { useDialogs } from '../../components/Modal';
import { useAppState, useServices } from '../../context';
import { formatRoute } from '../../store/routes';
import { Age } from '../ResourceList';
import { MiniTable } from '../detail/cards';
import { HistoryPages } from './ChangesPage';
import { useHistoryRead } from './useHistoryRead';
import { applyRestore, historyPath, kindKeyOf, previewRestore, readRevisions, restoreFailure, type Revision } from './historyModel';
import { targetName, writtenBy } from '../../../shared/history/historyFormat';

import { usePermissions } from '../permissions/usePermissions';
import { refusal } from '../permissions/permissionsModel';

export function RecentlyDeleted() {
  const { client } = useServices();
  const notify = useAppState((state) => state.notify);
  const selected = useAppState((state) => state.selectedNamespaces);
  const namespace = selected.length === 1 ? selected[0] : undefined;
  const dialogs = useDialogs();
  const [result, setResult] = useState<{ tone: 'ok' | 'error'; text: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const can = usePermissions();

  const { data: deleted, error, reload } = useHistoryRead((signal) => readRevisions(client, historyPath('deletedobjects', namespace), {}, signal), [client, namespace]);

  const undelete = async (last: Revision) => {
    setBusy(true);
    setResult(undefined);
    try {
      const preview = await previewRestore(client, [last], undefined);
      if (!(await dialogs.confirm(`Undelete ${preview.plan.display}?`, `It is created again from revision ${last.revision}, its last state before the deletion; the server assigns a new UID and status.`))) return;
      const message = await applyRestore(client, preview);
      setResult({ tone: 'ok', text: message });
      notify('ok', message);
      reload();
    } catch (failure) {
      setResult({ tone: 'error', text: restoreFailure(failure) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <HistoryPages
      current="deleted"
      tools={
        <button onClick={() => reload()} data-testid="deleted-refresh">
          Refresh
        </button>
      }
    >
      <div className="hint history-filters">{namespace ? `In namespace ${namespace} (the namespace picker chooses).` : 'In every namespace (the namespace picker chooses).'}</div>
      {error && (
        <div className="banner error" data-testid="deleted-error">
          {error}
        </div>
      )}
      {result && (
        <div className={`banner result ${result.tone === 'ok' ? 'ok' : 'error'}`} role="status" data-testid="deleted-result" data-tone={result.tone}>
          {result.text}
        </div>
      )}
      <div className="history-feed">
        <MiniTable testId="deleted-table" columns={['Deleted', 'Namespace', 'Object', 'By', 'Last revision', '']}>
          {(deleted ?? []).map((revision) => {
            const { target } = revision;
            const object = targetName(revision);
            const refused = refusal(can, [{ verb: 'create', group: target.group, resource: target.resource, namespace: target.namespace || undefined }]);
            return (
              <tr key={`${object}/${target.namespace}`} data-object={object} data-namespace={target.namespace}>
                <td title={revision.time}>
                  <Age timestamp={revision.time} /> ago
                </td>
                <td>{target.namespace || <span className="hint">cluster</span>}</td>
                <td>{object}</td>
                <td>{writtenBy(revision)}</td>
                <td>
                  <a href={formatRoute({ view: 'detail', kindKey: kindKeyOf(target), namespace: target.namespace || undefined, name: target.name, tab: 'history' })} aria-label={`History of ${object}, last revision ${revision.revision}`}>
                    {revision.revision}
                  </a>
                </td>
                <td className="row-actions">
                  <button className="primary" disabled={busy || refused !== undefined} title={refused} onClick={() => void undelete(revision)} aria-label={`Undelete ${object}`} data-testid="deleted-undelete">
                    Undelete
                  </button>
                </td>
              </tr>
            );
          })}
        </MiniTable>
        {deleted !== undefined && deleted.length === 0 && <div className="hint empty-note">Nothing was deleted within the history’s retention.</div>}
      </div>
      {dialogs.element}
    </HistoryPages>
  );
}
