// #/images: the local Docker image store the cluster's pods run from (images.kubedesk.dev/v1) —
// repository:tag, ID, size, created, the pods using each image, dangling ones —, removing an
// unused image (asked first; the API refuses one in use and names its pods), pulling an image by
// name with its progress, and how locally built images reach pods; below, the built-in registry's
// repositories (RegistrySection). The list is read again when
// the pods change (a new container may use an image) and after each action.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { translateTimestampSince } from '../../../shared/printers/duration';
import { errorText } from '../../actions/actions';
import { KubeApiError } from '../../api/kubeClient';
import { useDialogs } from '../../components/Modal';
import { useAppState, useCollection, useNow, useServices } from '../../context';
import { pods as podsKind } from '../../kinds';
import { formatRoute } from '../../store/routes';
import { refusal as refusalOf } from '../permissions/permissionsModel';
import { usePermissions } from '../permissions/usePermissions';
import { RegistrySection } from './RegistrySection';
import { IMAGE_PULL_CHECK, IMAGES_PATH, PULLS_PATH, imageDeleteCheck, humanSize, imageMatches, imageRows, pullView, shortId, type ImageRow, type PullView } from './imagesModel';

type Load = { state: 'loading' } | { state: 'ready'; rows: ImageRow[] } | { state: 'unavailable'; message: string };

export function Images() {
  const { client } = useServices();
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [filter, setFilter] = useState('');
  const [refusal, setRefusal] = useState<string | undefined>(undefined);
  const [registryKey, setRegistryKey] = useState(0);
  const podCollection = useCollection(podsKind);
  const podsSignature = useMemo(
    () =>
      Object.values(podCollection.items)
        .map((pod) => `${pod.metadata.uid ?? ''}:${(pod.status as { phase?: string } | undefined)?.phase ?? ''}`)
        .sort()
        .join(','),
    [podCollection.items],
  );
  const refresh = useCallback(async () => {
    try {
      const list = await client.get<{ items?: KubeObject[] }>(IMAGES_PATH);
      setLoad({ state: 'ready', rows: imageRows(list.items ?? []) });
    } catch (error) {
      if (error instanceof KubeApiError && (error.code === 404 || error.code === 403)) setLoad({ state: 'unavailable', message: error.code === 404 ? 'This cluster does not serve the local image store (images.kubedesk.dev): images are listed for kubedesk’s own cluster only.' : error.message });
      else setLoad((previous) => (previous.state === 'ready' ? previous : { state: 'unavailable', message: errorText(error) }));
    }
  }, [client]);
  // at most one read per second while pods keep changing (a churning cluster must not hammer Docker)
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (pending.current === undefined)
      pending.current = setTimeout(() => {
        pending.current = undefined;
        void refresh();
      }, 1000);
  }, [refresh, podsSignature]);
  useEffect(() => () => clearTimeout(pending.current), []);
  useEffect(() => void refresh(), [refresh]);
  const rows = load.state === 'ready' ? load.rows.filter((row) => imageMatches(row, filter)) : [];
  const total = load.state === 'ready' ? load.rows.reduce((sum, row) => sum + row.size, 0) : 0;
  return (
    <section className="list-view images-view">
      <div className="view-header">
        <h1>Images</h1>
        {load.state === 'ready' && (
          <span className="count" title={`${humanSize(total)} in all`}>
            {load.rows.length}
          </span>
        )}
        <input className="images-filter" type="search" placeholder="Filter images…" title="Words to match: a tag, an ID, a pod, dangling, unused, in-use" aria-label="Filter images" value={filter} onChange={(event) => setFilter(event.target.value)} data-testid="images-filter" />
        <button
          onClick={() => {
            void refresh();
            setRegistryKey((key) => key + 1);
          }}
          data-testid="images-refresh"
        >
          Refresh
        </button>
      </div>
      <PullForm
        onPulled={() => {
          void refresh();
          setRegistryKey((key) => key + 1);
        }}
      />
      <LocalImagesHelp />
      {refusal && (
        <div className="banner error" role="alert" data-testid="image-refusal">
          {refusal} <button className="ghost" onClick={() => setRefusal(undefined)} aria-label="Dismiss">×</button>
        </div>
      )}
      {load.state === 'loading' && <div className="empty">Loading…</div>}
      {load.state === 'unavailable' && (
        <div className="empty" data-testid="images-unavailable">
          {load.message}
        </div>
      )}
      {load.state === 'ready' && (
        <table className="mini-table card images-table" data-testid="images-table">
          <thead>
            <tr>
              <th>Repository:tag</th>
              <th>Image ID</th>
              <th>Size</th>
              <th>Created</th>
              <th>Used by</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <ImageTableRow key={row.id} row={row} onRemoved={() => void refresh()} onRefused={setRefusal} />
            ))}
          </tbody>
        </table>
      )}
      <RegistrySection filter={filter} refreshKey={registryKey} />
    </section>
  );
}

function ImageTableRow({ row, onRemoved, onRefused }: { row: ImageRow; onRemoved(): void; onRefused(message: string): void }) {
  const { client } = useServices();
  const notify = useAppState((state) => state.notify);
  const dialogs = useDialogs();
  const now = useNow(10_000);
  const [removing, setRemoving] = useState(false);
  const can = usePermissions();
  const removeRefused = refusalOf(can, [imageDeleteCheck(row.name)]);
  const label = row.tags[0] ?? `<none> (${shortId(row.id)})`;
  const inUse = row.pods.length > 0 || row.otherContainers > 0;
  const remove = async () => {
    const ok = await dialogs.confirm(`Delete image ${label}?`, `Removes ${row.tags.length > 1 ? `its ${row.tags.length} tags (${row.tags.join(', ')}) and ` : ''}the image from the local Docker store (docker rmi). Pods that need it later would have to pull it again.`);
    if (!ok) return;
    setRemoving(true);
    try {
      await client.delete(`${IMAGES_PATH}/${encodeURIComponent(row.name)}`);
      notify('ok', `Image ${label} removed`);
      onRemoved();
    } catch (error) {
      setRemoving(false);
      if (error instanceof KubeApiError && error.code === 409) onRefused(error.message);
      else notify('error', `Could not remove ${label}: ${errorText(error)}`);
    }
  };
  return (
    <tr className={removing ? 'deleting' : ''} data-testid="image-row" data-tags={row.tags.join(' ')} data-in-use={inUse ? 'true' : 'false'}>
      <td>
        {row.tags.length === 0 ? (
          <span className="tone-warn" title="No repository or tag: a leftover layer of an older build (docker image prune removes these)">
            &lt;none&gt; <span className="chip">dangling</span>
          </span>
        ) : (
          row.tags.map((tag) => (
            <div key={tag} className="mono">
              {tag}
            </div>
          ))
        )}
      </td>
      <td className="mono" title={row.id}>
        {shortId(row.id)}
      </td>
      <td className="mono">{humanSize(row.size)}</td>
      <td title={row.created}>{row.created ? `${translateTimestampSince(row.created, now)} ago` : '—'}</td>
      <td className="image-pods" data-testid="image-pods">
        {row.pods.map((pod) => (
          <div key={`${pod.namespace}/${pod.name}`}>
            <a href={formatRoute({ view: 'detail', kindKey: 'pods', namespace: pod.namespace, name: pod.name })}>
              {pod.namespace}/{pod.name}
            </a>
            <span className="hint"> ({pod.containers.length > 0 ? pod.containers.join(', ') : 'pod sandbox'})</span>
          </div>
        ))}
        {row.otherContainers > 0 && <span className="hint">{row.otherContainers} container(s) outside this cluster or pod sandboxes</span>}
        {!inUse && <span className="hint">unused</span>}
      </td>
      <td className="row-actions">
        <button className="danger-outline" disabled={removing || removeRefused !== undefined} title={removeRefused ?? (inUse ? 'In use: Docker keeps images that containers use' : 'docker rmi')} onClick={() => void remove()} data-testid="image-remove" aria-label={`Delete image ${label}`}>
          Delete
        </button>
        {dialogs.element}
      </td>
    </tr>
  );
}

function PullForm({ onPulled }: { onPulled(): void }) {
  const { client, store } = useServices();
  const notify = useAppState((state) => state.notify);
  const [image, setImage] = useState('');
  const [pull, setPull] = useState<{ image: string; view: PullView } | undefined>(undefined);
  const can = usePermissions();
  const pullRefused = refusalOf(can, [IMAGE_PULL_CHECK]);
  const active = useRef(true);
  useEffect(
    () => () => {
      active.current = false;
    },
    [],
  );
  const start = async () => {
    const reference = image.trim();
    if (!reference) return;
    let created: KubeObject;
    try {
      created = await client.create<KubeObject>(PULLS_PATH, { apiVersion: 'images.kubedesk.dev/v1', kind: 'ImagePull', spec: { image: reference } });
    } catch (error) {
      notify('error', `Cannot pull ${reference}: ${errorText(error)}`);
      return;
    }
    const task = store.getState().startTask(`Pulling ${reference}`);
    let view = pullView(created);
    setPull({ image: reference, view });
    try {
      while (view.phase === 'Pulling') {
        await new Promise((resolve) => setTimeout(resolve, 500));
        view = pullView(await client.get<KubeObject>(`${PULLS_PATH}/${encodeURIComponent(created.metadata.name ?? '')}`));
        if (active.current) setPull({ image: reference, view });
        store.getState().updateTask(task, view.fraction);
      }
    } catch (error) {
      view = { phase: 'Failed', text: errorText(error) };
      if (active.current) setPull({ image: reference, view });
    } finally {
      store.getState().finishTask(task);
    }
    if (view.phase === 'Complete') {
      notify('ok', `Pulled ${reference}`);
      onPulled();
    } else notify('error', `Pull of ${reference} failed: ${view.text}`);
  };
  return (
    <form
      className="image-pull"
      onSubmit={(event) => {
        event.preventDefault();
        void start();
      }}
    >
      <label htmlFor="image-pull-name">Pull an image</label>
      <input id="image-pull-name" className="mono" placeholder="busybox:1.36" value={image} onChange={(event) => setImage(event.target.value)} data-testid="image-pull-name" />
      <button className="primary" type="submit" disabled={!image.trim() || pull?.view.phase === 'Pulling' || pullRefused !== undefined} title={pullRefused} data-testid="image-pull">
        Pull
      </button>
      {pull && (
        <span className={`pull-state tone-${pull.view.phase === 'Failed' ? 'error' : pull.view.phase === 'Complete' ? 'ok' : 'info'}`} data-testid="image-pull-state" data-phase={pull.view.phase}>
          {pull.view.fraction !== undefined && <progress max={1} value={pull.view.fraction} aria-label={`Pulling ${pull.image}`} />}
          {pull.image}: {pull.view.phase === 'Pulling' ? 'pulling' : pull.view.phase.toLowerCase()} {pull.view.text && `— ${pull.view.text}`}
        </span>
      )}
    </form>
  );
}

function LocalImagesHelp() {
  return (
    <details className="images-help card" data-testid="images-help">
      <summary>How pods use these images</summary>
      <p>
        kubedesk runs pods on this Docker daemon, so an image you build with <code>docker build -t myapp:dev .</code> is used by a pod that names <code>image: myapp:dev</code> at once — no registry, no{' '}
        <code>docker push</code>, no <code>kind load</code> or <code>minikube image load</code>. Rebuild with the same tag and new pods (e.g. after <code>kubectl rollout restart</code>) run the new build.
      </p>
      <p>
        <strong>
          <code>:latest</code> (or no tag)
        </strong>{' '}
        makes <code>imagePullPolicy</code> default to <code>Always</code>: the kubelet first tries to pull the image. If no registry has that name (or none is reachable), it uses your local image and says so
        in the pod’s events. But if a registry does have it — <code>nginx:latest</code> on Docker Hub — the pull replaces your local build. Give local builds their own tag (<code>myapp:dev</code>) or set{' '}
        <code>imagePullPolicy: IfNotPresent</code> (or <code>Never</code>) to always run what you built.
      </p>
    </details>
  );
}
