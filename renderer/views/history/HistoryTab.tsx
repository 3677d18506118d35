// The detail page's History tab: every retained revision of the object (the history API's
// revisions), newest first — when, operation, user, field manager and a one-line summary of what
// changed (the same words as `kubedesk history`); two chosen revisions (A and B) compared in a
// Monaco diff editor; Restore of a revision and, for a deleted object, Undelete — after a
// confirmation that shows what the write changes, through the same plan as `kubedesk history
// restore` (shared/history): a write in between is a conflict, shown, never overwritten. It
// refreshes when the object changes and on demand.
import { useCallback, useMemo, useState } from 'react';
import { RestoreRefusal } from '../../../shared/history/historyFormat';
import { useDialogs } from '../../components/Modal';
import { useAppState, useServices } from '../../context';
import type { KindConfig } from '../../kinds/kindConfig';
import { objectToYaml } from '../../editor/yamlModel';
import { Age } from '../ResourceList';
import { MiniTable } from '../detail/cards';
import { usePermissions } from '../permissions/usePermissions';
import { refusal } from '../permissions/permissionsModel';
import { DiffEditor } from './DiffEditor';
import { useHistoryRead } from './useHistoryRead';
import { applyRestore, changeBetween, diffable, objectRevisions, previewRestore, restoreFailure, timelineRows, type Revision } from './historyModel';

export function HistoryTab({ config, namespace, name, version }: { config: KindConfig; namespace?: string; name: string; version?: string }) {
  const { client } = useServices();
  const notify = useAppState((state) => state.notify);
  const dialogs = useDialogs();
  const [result, setResult] = useState<{ tone: 'ok' | 'error'; text: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [pick, setPick] = useState<{ from?: number; to?: number }>({});
  // the controllers' status writes outnumber people's changes; they can be hidden
  const [showStatus, setShowStatus] = useState(true);

  const { data: revisions, error, reload } = useHistoryRead((signal) => objectRevisions(client, config, namespace, name, signal), [client, config, namespace, name, version]);

  const allRows = useMemo(() => timelineRows(revisions ?? []), [revisions]);
  const rows = useMemo(() => (showStatus ? allRows : allRows.filter((row) => row.revision.subresource !== 'status')), [allRows, showStatus]);
  const newest = revisions?.[revisions.length - 1];
  // by default the newest revision against the one before it
  const to = revisions?.find((revision) => revision.revision === pick.to) ?? newest;
  const from = revisions?.find((revision) => revision.revision === pick.from) ?? (revisions && revisions.length > 1 ? revisions[revisions.length - 2] : newest);
  const deleted = newest?.removed === true;
  const can = usePermissions();
  const target = { group: config.group, resource: config.plural, namespace, name };
  // Undelete creates the object again, Restore updates it
  const writeRefused = refusal(can, [{ verb: deleted ? 'create' : 'update', ...target }]);

  const restore = useCallback(
    async (chosen: Revision | undefined) => {
      if (!revisions) return;
      setResult(undefined);
      setBusy(true);
      try {
        const preview = await previewRestore(client, revisions, chosen);
        const undelete = preview.plan.kind === 'undelete';
        const question = undelete ? `Undelete ${preview.plan.display} from revision ${preview.plan.revision.revision}?` : `Restore ${preview.plan.display} to revision ${preview.plan.revision.revision}?`;
        const detail = undelete ? 'It is created again with its last spec, labels and annotations; the server assigns a new UID and status.' : `This update changes: ${preview.changes}. A change made since it was read is reported as a conflict, not overwritten.`;
        if (!(await dialogs.confirm(question, detail))) return;
        const message = await applyRestore(client, preview);
        setResult({ tone: 'ok', text: message });
        notify('ok', message);
        reload();
      } catch (failure) {
        setResult({ tone: 'error', text: failure instanceof RestoreRefusal ? failure.message : restoreFailure(failure) });
      } finally {
        setBusy(false);
      }
    },
    [client, revisions, dialogs, notify],
  );

  if (error) return <div className="banner error" data-testid="history-error">Cannot read the history of {name}: {error}</div>;
  if (!revisions) return <div className="hint" data-testid="history-loading">Loading the history…</div>;
  if (revisions.length === 0) return <div className="hint" data-testid="history-empty">No history is kept for this object (it has not been written since the history starts).</div>;
  return (
    <div className="history-tab" data-testid="history-tab">
      <div className="yaml-toolbar">
        <span className="hint">
          {revisions.length} revision{revisions.length === 1 ? '' : 's'} kept. Choose A and B to compare.
        </span>
        <label className="toggle">
          <input type="checkbox" checked={showStatus} onChange={(event) => setShowStatus(event.target.checked)} data-testid="history-show-status" /> status writes
        </label>
        <button onClick={() => reload()} disabled={busy} data-testid="history-refresh">
          Refresh
        </button>
        {deleted && (
          <button className="primary" onClick={() => void restore(undefined)} disabled={busy || writeRefused !== undefined} title={writeRefused} data-testid="history-undelete">
            Undelete
          </button>
        )}
      </div>
      {result && (
        <div className={`banner result ${result.tone === 'ok' ? 'ok' : 'error'}`} role="status" data-testid="history-result" data-tone={result.tone}>
          {result.text}
        </div>
      )}
      <div className="history-timeline">
        <MiniTable testId="history-timeline" className="history-table" columns={['A', 'B', 'Revision', 'When', 'Operation', 'User', 'Manager', 'Changes', '']}>
          {rows.map((row) => {
            const { revision } = row;
            const isLast = revision === newest;
            return (
              <tr key={revision.revision} data-revision={revision.revision} className={revision.removed ? 'removed' : ''}>
                <td>
                  <input type="radio" name="history-from" aria-label={`Compare from revision ${revision.revision}`} checked={from?.revision === revision.revision} onChange={() => setPick({ ...pick, from: revision.revision })} data-testid="history-pick-from" />
                </td>
                <td>
                  <input type="radio" name="history-to" aria-label={`Compare to revision ${revision.revision}`} checked={to?.revision === revision.revision} onChange={() => setPick({ ...pick, to: revision.revision })} data-testid="history-pick-to" />
                </td>
                <td className="mono">{revision.revision}</td>
                <td title={revision.time}>
                  <Age timestamp={revision.time} /> ago
                </td>
                <td>{row.operation}</td>
                <td className="history-user">{revision.impersonator ? `${revision.impersonator} as ${revision.user ?? ''}` : (revision.user ?? '(kubedesk)')}</td>
                <td>{revision.fieldManager ?? ''}</td>
                <td className="message history-changes" data-testid="history-changes">
                  {row.changes}
                </td>
                <td className="row-actions">
                  {!revision.removed && !(isLast && !deleted) && (
                    <button onClick={() => void restore(revision)} disabled={busy || writeRefused !== undefined} title={writeRefused} data-testid="history-restore" aria-label={`${deleted ? 'Undelete from' : 'Restore'} revision ${revision.revision}`}>
                      {deleted ? 'Undelete from here' : 'Restore'}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </MiniTable>
      </div>
      {from && to && (
        <section className="history-diff" aria-label="Compare revisions">
          <h2 className="history-diff-title" title={from.revision === to.revision ? undefined : changeBetween(from, to)}>
            Revision {from.revision} → revision {to.revision}:{' '}
            <span className="mono" data-testid="history-diff-summary">
              {from.revision === to.revision ? 'the same revision' : changeBetween(from, to)}
            </span>
          </h2>
          <DiffEditor key={`${from.revision}..${to.revision}`} original={objectToYaml(diffable(from))} modified={objectToYaml(diffable(to))} originalName={`revision ${from.revision}`} modifiedName={`revision ${to.revision}`} label="history-diff" />
        </section>
      )}
      {dialogs.element}
    </div>
  );
}
