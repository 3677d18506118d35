// #/snapshots: the cluster's snapshots (snapshots.kubedesk.dev/v1, which has no watch: the list is
// read when the page opens, after each action and every few seconds), and what `kubedesk snapshot`
// does: Save (a name checked as the API checks it), Restore after a confirmation that lists what the
// restore will remove, bring back and change (the API's dry run against the live cluster) and the
// images missing from Docker, Delete after a confirmation, and Export (the file, downloaded through
// the page's session).
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { formatBytes } from '../../../shared/printers/bytes';
import { translateTimestampSince } from '../../../shared/printers/duration';
import { datedSnapshotName, snapshotNameProblem, SNAPSHOTS_PATH, type SnapshotSummary } from '../../../shared/snapshots';
import { useAppState, useKinds, useNow, useServices } from '../../context';
import { Modal, useDialogs } from '../../components/Modal';
import { useCurrentCluster, useIdentity, usePermissions } from '../permissions/usePermissions';
import { changeGroups, changeLabel, planIsEmpty, restorePlan, restoreResultText, snapshotPath, snapshotRefusal, snapshotRows, type RestorePlanView } from './snapshotModel';

const REFRESH_MS = 10_000;
/** objects listed per group in the confirmation; the count says how many more */
const LISTED = 50;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function Snapshots() {
  const { client } = useServices();
  const [rows, setRows] = useState<SnapshotSummary[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [saving, setSaving] = useState(false);
  const [restoring, setRestoring] = useState<SnapshotSummary | undefined>(undefined);
  const now = useNow(1000);
  const refused = useSnapshotRefusal();
  const reload = useCallback(async () => {
    try {
      setRows(snapshotRows(await client.get<unknown>(SNAPSHOTS_PATH)));
      setError(undefined);
    } catch (failure) {
      setError(messageOf(failure));
    }
  }, [client]);
  useEffect(() => {
    void reload();
    const timer = setInterval(() => void reload(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  return (
    <section className="list-view snapshots-view">
      <div className="view-header">
        <h1>Snapshots</h1>
        <span className="count">{rows?.length ?? ''}</span>
        <div className="spacer" />
        <button onClick={() => void reload()} data-testid="snapshots-refresh">
          Refresh
        </button>
        <button className="primary" onClick={() => setSaving(true)} disabled={refused !== undefined} title={refused} data-testid="snapshot-save">
          Save snapshot…
        </button>
      </div>
      <p className="hint snapshots-intro">A snapshot holds every object of the cluster, the data of its local volumes and the names of the images its pods use. Restoring one brings the cluster back to it while it runs; Nodes, Leases and Events stay as they are.</p>
      {error && (
        <div className="banner error" role="alert">
          {error}
        </div>
      )}
      {rows === undefined ? (
        <div className="empty">{error ? '' : 'Loading…'}</div>
      ) : rows.length === 0 ? (
        <div className="empty" data-testid="snapshots-empty">
          <p>No snapshots yet.</p>
          <p className="hint">
            Press <strong>Save snapshot…</strong>, use the tray’s “Save snapshot”, or run <code>kubedesk snapshot save NAME</code>.
          </p>
        </div>
      ) : (
        <div className="snapshot-table" role="table" aria-label="Snapshots">
          <div className="snapshot-row head" role="row">
            <span role="columnheader">Name</span>
            <span role="columnheader">Saved</span>
            <span role="columnheader">ResourceVersion</span>
            <span role="columnheader">Objects</span>
            <span role="columnheader">Size</span>
            <span role="columnheader">Images</span>
            <span role="columnheader">
              <span className="visually-hidden">Actions</span>
            </span>
          </div>
          {rows.map((row) => (
            <SnapshotRow key={row.name} row={row} now={now} onRestore={() => setRestoring(row)} reload={reload} />
          ))}
        </div>
      )}
      {saving && <SaveDialog existing={rows ?? []} onClose={() => setSaving(false)} onSaved={reload} />}
      {restoring && <RestoreDialog snapshot={restoring} onClose={() => setRestoring(undefined)} onRestored={reload} />}
    </section>
  );
}

/** Why Save, Restore and Delete are off for this window's user and cluster (undefined: they may run). */
function useSnapshotRefusal(): string | undefined {
  const can = usePermissions();
  const identity = useIdentity();
  const cluster = useCurrentCluster();
  return snapshotRefusal(can, identity, cluster.readOnly);
}

function SnapshotRow({ row, now, onRestore, reload }: { row: SnapshotSummary; now: Date; onRestore(): void; reload(): Promise<void> }) {
  const { client } = useServices();
  const refused = useSnapshotRefusal();
  const notify = useAppState((state) => state.notify);
  const dialogs = useDialogs();
  const [deleting, setDeleting] = useState(false);
  const remove = async () => {
    if (!(await dialogs.confirm(`Delete snapshot “${row.name}”?`, 'The snapshot file is removed; the cluster is not changed.'))) return;
    setDeleting(true);
    try {
      await client.delete(snapshotPath(row.name));
      notify('ok', `Deleted snapshot “${row.name}”.`);
    } catch (failure) {
      notify('error', `Could not delete “${row.name}”: ${messageOf(failure)}`);
    } finally {
      setDeleting(false);
      await reload();
    }
  };
  const volumeBytes = row.volumes.reduce((sum, volume) => sum + volume.bytes, 0);
  return (
    <div className={`snapshot-row${deleting ? ' deleting' : ''}`} role="row" data-testid="snapshot-row" data-name={row.name}>
      <span className="cell name" role="cell">
        {row.name}
        {row.volumes.length > 0 && (
          <span className="hint">
            {' '}
            {row.volumes.length} {row.volumes.length === 1 ? 'volume' : 'volumes'}, {formatBytes(volumeBytes)}
          </span>
        )}
      </span>
      <span className="cell" role="cell" title={row.created}>
        {row.created ? `${translateTimestampSince(row.created, new Date(Math.max(now.getTime(), Date.parse(row.created) || 0)))} ago` : '—'}
      </span>
      <span className="cell mono" role="cell">
        {row.resourceVersion}
      </span>
      <span className="cell" role="cell" data-testid="snapshot-objects">
        {row.objects}
      </span>
      <span className="cell" role="cell">
        {formatBytes(row.sizeBytes)}
      </span>
      <span className="cell" role="cell" title={row.images.join('\n')}>
        {row.images.length === 0 ? '—' : row.images.length === 1 ? row.images[0] : `${row.images.length} images`}
      </span>
      <span className="cell actions" role="cell">
        <button className="primary" onClick={onRestore} disabled={deleting || refused !== undefined} title={refused} data-testid="snapshot-restore" aria-label={`Restore ${row.name}`}>
          Restore…
        </button>
        <a className="button" href={snapshotPath(row.name, 'export')} download={`${row.name}.kdsnap`} data-testid="snapshot-export" aria-label={`Export ${row.name}`}>
          Export
        </a>
        <button className="danger" onClick={() => void remove()} disabled={deleting || refused !== undefined} title={refused} data-testid="snapshot-delete" aria-label={`Delete ${row.name}`}>
          Delete
        </button>
      </span>
      {dialogs.element}
    </div>
  );
}

function SaveDialog({ existing, onClose, onSaved }: { existing: SnapshotSummary[]; onClose(): void; onSaved(): Promise<void> }) {
  const { client } = useServices();
  const notify = useAppState((state) => state.notify);
  const [name, setName] = useState(() => datedSnapshotName(new Date()));
  const [serverError, setServerError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const problem = snapshotNameProblem(name) ?? (existing.some((row) => row.name === name) ? `a snapshot named “${name}” already exists` : undefined);
  const save = async () => {
    if (problem || busy) return;
    setBusy(true);
    setServerError(undefined);
    try {
      await client.create(SNAPSHOTS_PATH, { apiVersion: 'snapshots.kubedesk.dev/v1', kind: 'Snapshot', metadata: { name } });
      notify('ok', `Saved snapshot “${name}”.`);
      await onSaved();
      onClose();
    } catch (failure) {
      setServerError(messageOf(failure));
      setBusy(false);
    }
  };
  const shown = serverError ?? (name === '' ? undefined : problem);
  return (
    <Modal
      title="Save snapshot"
      onClose={busy ? () => undefined : onClose}
      footer={
        <>
          <button onClick={onClose} disabled={busy} data-testid="modal-cancel">
            Cancel
          </button>
          <button className="primary" onClick={() => void save()} disabled={busy || problem !== undefined} data-testid="snapshot-save-confirm">
            {busy ? 'Saving…' : 'Save'}
          </button>
        </>
      }
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <label className="field-label" htmlFor="snapshot-name">
          Name
        </label>
        <input
          id="snapshot-name"
          ref={input}
          className="modal-input"
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            setServerError(undefined);
          }}
          aria-invalid={shown !== undefined}
          aria-describedby="snapshot-name-problem"
          spellCheck={false}
          disabled={busy}
          data-testid="snapshot-name"
        />
        <p id="snapshot-name-problem" className={shown ? 'field-problem' : 'hint'} role={shown ? 'alert' : undefined} data-testid="snapshot-name-problem">
          {shown ?? 'Lower-case letters, digits, “-” and “.”; the cluster keeps running while it saves.'}
        </p>
      </form>
    </Modal>
  );
}

function RestoreDialog({ snapshot, onClose, onRestored }: { snapshot: SnapshotSummary; onClose(): void; onRestored(): Promise<void> }) {
  const { client } = useServices();
  const notify = useAppState((state) => state.notify);
  const kinds = useKinds();
  const [plan, setPlan] = useState<RestorePlanView | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [anyway, setAnyway] = useState(false);
  const [busy, setBusy] = useState(false);
  // a destructive dialog starts on Cancel
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  useEffect(() => {
    let current = true;
    client
      .create<unknown>(snapshotPath(snapshot.name, 'restore'), {}, { query: { dryRun: 'All' } })
      .then((body) => {
        if (!current) return;
        const parsed = restorePlan(body);
        if (parsed) setPlan(parsed);
        else setFailure('the server did not answer with a restore plan');
      })
      .catch((error: unknown) => current && setFailure(messageOf(error)));
    return () => {
      current = false;
    };
  }, [client, snapshot.name]);
  const kindOf = useMemo(() => {
    const byKey = new Map(kinds.map((kind) => [kind.key, kind.kind]));
    return (resource: string) => byKey.get(resource);
  }, [kinds]);
  const missing = plan?.missingImages ?? [];
  const restore = async () => {
    setBusy(true);
    try {
      const result = await client.create<unknown>(snapshotPath(snapshot.name, 'restore'), {}, { query: { ignoreMissingImages: missing.length > 0 ? 'true' : undefined } });
      notify('ok', restoreResultText(snapshot.name, result));
      await onRestored();
      onClose();
    } catch (error) {
      setFailure(messageOf(error));
      setBusy(false);
    }
  };
  const groups = plan ? changeGroups(plan) : [];
  return (
    <Modal
      title={`Restore snapshot “${snapshot.name}”`}
      wide
      onClose={busy ? () => undefined : onClose}
      footer={
        <>
          <button ref={cancel} onClick={onClose} disabled={busy} data-testid="modal-cancel">
            Cancel
          </button>
          <button className="danger" onClick={() => void restore()} disabled={busy || !plan || (missing.length > 0 && !anyway)} data-testid="snapshot-restore-confirm">
            {busy ? 'Restoring…' : 'Restore'}
          </button>
        </>
      }
    >
      <div className="restore-plan" data-testid="restore-plan">
        <p className="modal-message">
          The cluster goes back to resourceVersion {snapshot.resourceVersion}
          {snapshot.created ? `, saved ${new Date(snapshot.created).toLocaleString()}` : ''}. Each change is an ordinary write at a new resourceVersion, so watches and kubectl see it as events.
        </p>
        {failure && (
          <div className="banner error" role="alert" data-testid="restore-error">
            {failure}
          </div>
        )}
        {!plan && !failure && <p className="hint">Comparing the snapshot with the cluster…</p>}
        {missing.length > 0 && (
          <div className="banner warn" role="alert" data-testid="restore-missing-images">
            <strong>
              {missing.length === 1 ? 'An image' : `${missing.length} images`} the snapshot’s pods use {missing.length === 1 ? 'is' : 'are'} missing from Docker:
            </strong>
            <ul className="missing-images">
              {missing.map((image) => (
                <li key={image} className="mono">
                  {image}
                </li>
              ))}
            </ul>
            <label className="toggle">
              <input type="checkbox" checked={anyway} onChange={(event) => setAnyway(event.target.checked)} data-testid="restore-anyway" /> Restore anyway (the kubelet pulls them when the pods start)
            </label>
          </div>
        )}
        {plan && planIsEmpty(plan) && (
          <p className="hint" data-testid="restore-nothing">
            Nothing to change: the cluster’s objects are as the snapshot saved them (volume data is put back all the same).
          </p>
        )}
        {groups.map((group) => (
          <section key={group.type} className={`restore-group restore-${group.type}`} data-testid={`restore-${group.type}`} aria-label={group.title}>
            <h3>
              {group.title} <span className="count">({group.items.length})</span> <span className="hint">{group.description}</span>
            </h3>
            <ul>
              {group.items.slice(0, LISTED).map((change) => (
                <li key={`${change.resource}/${change.namespace}/${change.name}`} className="mono" data-testid="restore-change">
                  {changeLabel(change, kindOf)}
                </li>
              ))}
              {group.items.length > LISTED && <li className="hint">…and {group.items.length - LISTED} more</li>}
            </ul>
          </section>
        ))}
      </div>
    </Modal>
  );
}
