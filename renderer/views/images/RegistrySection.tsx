// The Images page's section on the built-in image registry (docs/architecture.md, "Local image
// registry"): where it is (the `host` of the KEP-1755 ConfigMap kube-public/local-registry-hosting),
// each repository with its tags — short digest, what the manifest holds (image, index, Helm chart),
// size — and deletion of a tag (`DELETE /v2/NAME/manifests/TAG`: the tag only) or of the image
// (`DELETE /v2/NAME/manifests/DIGEST`: the manifest and every tag naming it; the registry frees
// the layers nothing else names shortly after), each asked first; and how to push there and name
// the result in a pod. The registry is read through the API server's mount (same login, RBAC),
// again every few seconds since pushes come from outside the UI. A cluster without the registry
// (started with --no-registry, or not kubedesk's own) says so.
import { useCallback, useEffect, useState } from 'react';
import { IMAGE_REGISTRY_SUMMARY_PATH, parseRepositorySummaries, type RepositorySummary, type TagSummary } from '../../../shared/imageRegistry';
import { errorText } from '../../actions/actions';
import { KubeApiError } from '../../api/kubeClient';
import { useDialogs } from '../../components/Modal';
import { useAppState, useServices } from '../../context';
import { humanSize } from './imagesModel';
import { usePermissions } from '../permissions/usePermissions';
import { refusal } from '../permissions/permissionsModel';
import { REGISTRY_HOSTING_PATH, manifestPath, pushCommands, registryDeleteCheck, registryContent, registryHost, registryReference, repositoryMatches, shortDigest, tagsSharingDigest } from './registryModel';

type RegistryLoad = { state: 'loading' } | { state: 'off'; message: string } | { state: 'ready'; host: string; repositories: RepositorySummary[] };

const POLL_MS = 5000;

export function RegistrySection({ filter, refreshKey }: { filter: string; refreshKey: number }) {
  const { client } = useServices();
  const [load, setLoad] = useState<RegistryLoad>({ state: 'loading' });
  const refresh = useCallback(async () => {
    try {
      const host = registryHost(await client.get<unknown>(REGISTRY_HOSTING_PATH));
      if (!host) {
        setLoad({ state: 'off', message: 'The ConfigMap kube-public/local-registry-hosting names no registry host.' });
        return;
      }
      const repositories = parseRepositorySummaries(await client.get<unknown>(IMAGE_REGISTRY_SUMMARY_PATH));
      setLoad({ state: 'ready', host, repositories });
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404)
        setLoad({ state: 'off', message: 'The built-in image registry is off: this cluster advertises no local registry (no ConfigMap kube-public/local-registry-hosting, or no registry behind it). kubedesk serve runs one unless started with --no-registry.' });
      else setLoad((previous) => (previous.state === 'ready' ? previous : { state: 'off', message: `The registry cannot be read: ${errorText(error)}` }));
    }
  }, [client]);
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [refresh, refreshKey]);
  const heading = load.state === 'ready' ? `Registry ${load.host}` : 'Registry';
  const repositories = load.state === 'ready' ? load.repositories.filter((repository) => repositoryMatches(repository, filter)) : [];
  return (
    <section className="registry-section" aria-labelledby="registry-heading" data-testid="registry-section" data-state={load.state}>
      <div className="registry-header">
        <h2 id="registry-heading">{heading}</h2>
        {load.state === 'ready' && (
          <span className="count" title={`${humanSize(load.repositories.reduce((sum, repository) => sum + repository.size, 0))} in all`}>
            {load.repositories.length}
          </span>
        )}
        <button onClick={() => void refresh()} data-testid="registry-refresh" aria-label="Refresh the registry">
          Refresh
        </button>
      </div>
      {load.state === 'loading' && <div className="empty">Loading…</div>}
      {load.state === 'off' && (
        <div className="empty" data-testid="registry-off">
          {load.message}
        </div>
      )}
      {load.state === 'ready' && (
        <>
          <RegistryHelp host={load.host} />
          {load.repositories.length === 0 ? (
            <div className="empty" data-testid="registry-empty">
              Nothing pushed yet.
            </div>
          ) : (
            <table className="mini-table card registry-table" data-testid="registry-table">
              <thead>
                <tr>
                  <th>Repository / tag</th>
                  <th>Digest</th>
                  <th>Kind</th>
                  <th title="Compressed, as pushed: what a pull downloads">Size</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              {repositories.map((repository) => (
                <RepositoryRows key={repository.name} host={load.host} repository={repository} onDeleted={() => void refresh()} />
              ))}
            </table>
          )}
        </>
      )}
    </section>
  );
}

function RepositoryRows({ host, repository, onDeleted }: { host: string; repository: RepositorySummary; onDeleted(): void }) {
  return (
    <tbody data-testid="registry-repository" data-name={repository.name}>
      <tr className="registry-repository">
        <th scope="rowgroup" colSpan={3} className="mono">
          {repository.name}
          {repository.untaggedManifests > 0 && (
            <span className="hint" title="Manifests no tag names: pushed by digest, or left behind when a tag moved">
              {' '}
              + {repository.untaggedManifests} untagged
            </span>
          )}
        </th>
        <td className="mono" title="The repository's distinct manifests and layers">
          {humanSize(repository.size)}
        </td>
        <td />
      </tr>
      {repository.tags.map((tag) => (
        <TagRow key={tag.tag} host={host} repository={repository} tag={tag} onDeleted={onDeleted} />
      ))}
    </tbody>
  );
}

function TagRow({ host, repository, tag, onDeleted }: { host: string; repository: RepositorySummary; tag: TagSummary; onDeleted(): void }) {
  const { client } = useServices();
  const notify = useAppState((state) => state.notify);
  const dialogs = useDialogs();
  const [deleting, setDeleting] = useState(false);
  const can = usePermissions();
  const tagRefused = refusal(can, [registryDeleteCheck(repository.name, tag.tag)]);
  const imageRefused = refusal(can, [registryDeleteCheck(repository.name, tag.digest)]);
  const content = registryContent(tag);
  const reference = registryReference(host, repository.name, tag.tag, content);
  const remove = async (what: 'tag' | 'image') => {
    const sharing = tagsSharingDigest(repository, tag.digest);
    const ok =
      what === 'tag'
        ? await dialogs.confirm(`Delete tag ${repository.name}:${tag.tag}?`, `Removes the tag only: the ${content} stays in the registry under its digest ${shortDigest(tag.digest)}${sharing.length > 1 ? ` and its other tags (${sharing.filter((name) => name !== tag.tag).join(', ')})` : ''}.`)
        : await dialogs.confirm(
            `Delete ${content} ${repository.name}@${shortDigest(tag.digest)}?`,
            `Removes the manifest and every tag naming it (${sharing.join(', ')}); layers nothing else uses are freed shortly after. Pods already running keep their copy, new pulls of ${host}/${repository.name}:${tag.tag} fail.`,
          );
    if (!ok) return;
    setDeleting(true);
    try {
      await client.delete(manifestPath(repository.name, what === 'tag' ? tag.tag : tag.digest));
      notify('ok', what === 'tag' ? `Tag ${repository.name}:${tag.tag} deleted` : `${repository.name}@${shortDigest(tag.digest)} deleted with its tags`);
      onDeleted();
    } catch (error) {
      setDeleting(false);
      notify('error', `Could not delete ${repository.name}:${tag.tag}: ${errorText(error)}`);
    }
  };
  return (
    <tr className={deleting ? 'deleting' : ''} data-testid="registry-tag" data-reference={`${repository.name}:${tag.tag}`} data-kind={content}>
      <td className="mono registry-tag-name" title={content === 'chart' ? `helm install NAME ${reference}` : `docker pull ${reference} — or image: ${reference} in a pod`}>
        :{tag.tag}
      </td>
      <td className="mono" title={tag.digest}>
        {shortDigest(tag.digest)}
      </td>
      <td title={tag.artifactType ? `${tag.mediaType} (${tag.artifactType})` : tag.mediaType}>
        <span className="chip" data-testid="registry-kind">
          {content}
        </span>
      </td>
      <td className="mono" data-testid="registry-size">
        {humanSize(tag.size)}
      </td>
      <td className="row-actions">
        <button className="danger-outline" disabled={deleting || tagRefused !== undefined} onClick={() => void remove('tag')} data-testid="registry-delete-tag" aria-label={`Delete tag ${repository.name}:${tag.tag}`} title={tagRefused ?? 'DELETE …/manifests/TAG: the tag only'}>
          Delete tag
        </button>
        <button className="danger-outline" disabled={deleting || imageRefused !== undefined} onClick={() => void remove('image')} data-testid="registry-delete-image" aria-label={`Delete ${repository.name}@${shortDigest(tag.digest)} and its tags`} title={imageRefused ?? 'DELETE …/manifests/DIGEST: the manifest and all its tags'}>
          Delete {content}
        </button>
        {dialogs.element}
      </td>
    </tr>
  );
}

function RegistryHelp({ host }: { host: string }) {
  const commands = pushCommands(host);
  return (
    <details className="images-help card" data-testid="registry-help">
      <summary>How to push here and use what you pushed</summary>
      <p>
        Push a local image: <code>{commands.image}</code>. A pod then runs it as <code>image: {host}/myapp:dev</code> — the node pulls it from this registry like any other, with the pull’s progress in the pod’s events;{' '}
        <code>docker pull {host}/myapp:dev</code> (or Pull above) brings it back to a machine’s Docker store.
      </p>
      <p>
        Helm charts: <code>{commands.chart}</code>, then <code>helm install web oci://{host}/charts/mychart --version 0.1.0 --plain-http</code> (helm wants <code>--plain-http</code> for a registry without TLS). Tools that read KEP-1755 (Tilt, ctlptl, Skaffold with <code>local-cluster</code>) find this
        registry by themselves. It listens on loopback only.
      </p>
    </details>
  );
}
