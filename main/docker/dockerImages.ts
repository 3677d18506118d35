// The local Docker image store for the Images page (shared/images/localImages.ts LocalImageStore):
// `docker image ls` with, per image, the containers using it (any state, any cluster: Docker refuses
// to remove an image a container still references), `docker rmi` of each tag and then of the image
// (never forced), and `docker pull` with its per-layer progress events. The pod of a container comes
// from the labels the kubelet's runtime puts on it (dockershim's io.kubernetes.pod.* and kubedesk's
// cluster label).
import type Docker from 'dockerode';
import { isRecord } from '../../shared/kubernetes/types';
import { ImageInUseError, removalRefusal, type ImageUser, type LocalImage, type LocalImageStore, type PullEvent } from '../../shared/images/localImages';
import { RuntimeLabels } from '../kubelet/runtime/containerRuntime';
import { dockerErrorMessage, isNotFound, statusCodeOf } from './daemon';
import { containerTypes, splitImageReference } from './dockerRuntime';

/** A Docker answer that carries the daemon's status (404 missing, 409 conflict), for the API to map. */
export class DockerImageError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'DockerImageError';
  }
}

export class DockerImages implements LocalImageStore {
  constructor(
    private readonly docker: Docker,
    private readonly clusterId: string,
  ) {}

  async list(): Promise<LocalImage[]> {
    const [images, containers] = await Promise.all([this.docker.listImages({ all: false }), this.docker.listContainers({ all: true })]);
    const users = new Map<string, ImageUser[]>();
    for (const container of containers) {
      const list = users.get(container.ImageID) ?? [];
      list.push(userOf(container.Id, container.State, container.Labels ?? {}));
      users.set(container.ImageID, list);
    }
    return images.map((image) => ({
      id: image.Id,
      repoTags: (image.RepoTags ?? []).filter((tag) => tag !== '<none>:<none>'),
      repoDigests: (image.RepoDigests ?? []).filter((digest) => digest !== '<none>@<none>'),
      size: image.Size,
      created: new Date(image.Created * 1000).toISOString(),
      users: users.get(image.Id) ?? [],
    }));
  }

  async remove(id: string): Promise<void> {
    let info: Docker.ImageInspectInfo;
    try {
      info = await this.docker.getImage(id).inspect();
    } catch (error) {
      if (isNotFound(error)) throw new DockerImageError(404, `image "${id}" not found`);
      throw error;
    }
    const containers = await this.docker.listContainers({ all: true, filters: { ancestor: [info.Id] } });
    const users = containers.filter((container) => container.ImageID === info.Id).map((container) => userOf(container.Id, container.State, container.Labels ?? {}));
    const refusal = removalRefusal({ id: info.Id, repoTags: info.RepoTags ?? [] }, users, this.clusterId);
    if (refusal) throw new ImageInUseError(refusal, users);
    try {
      // `docker rmi TAG` for each tag: the last one removes the image; an untagged image by its ID
      for (const tag of info.RepoTags ?? []) await this.docker.getImage(tag).remove();
      if ((info.RepoTags ?? []).length === 0) await this.docker.getImage(info.Id).remove();
    } catch (error) {
      throw new DockerImageError(statusCodeOf(error) ?? 500, dockerErrorMessage(error));
    }
  }

  async pull(reference: string, onEvent: (event: PullEvent) => void): Promise<void> {
    const { repository, tag } = splitImageReference(reference);
    const stream = await this.docker.createImage({ fromImage: repository, tag }).catch((error: unknown) => {
      throw new DockerImageError(statusCodeOf(error) ?? 500, dockerErrorMessage(error));
    });
    await new Promise<void>((resolve, reject) => {
      this.docker.modem.followProgress(
        stream,
        (error: Error | null, output: unknown[]) => {
          if (error) return reject(new Error(dockerErrorMessage(error)));
          const failure = output.find((event) => isRecord(event) && typeof event.error === 'string');
          if (isRecord(failure)) return reject(new Error(String(failure.error)));
          resolve();
        },
        (event: unknown) => {
          if (!isRecord(event) || typeof event.status !== 'string') return;
          const detail = isRecord(event.progressDetail) ? event.progressDetail : {};
          onEvent({
            status: event.status,
            ...(typeof event.id === 'string' ? { id: event.id } : {}),
            ...(typeof detail.current === 'number' ? { current: detail.current } : {}),
            ...(typeof detail.total === 'number' ? { total: detail.total } : {}),
          });
        },
      );
    });
  }
}

function userOf(containerId: string, state: string, labels: Record<string, string>): ImageUser {
  const sandbox = labels[RuntimeLabels.type] === containerTypes.sandbox;
  return {
    containerId,
    state,
    cluster: labels[RuntimeLabels.cluster] ?? '',
    ...(labels[RuntimeLabels.podName] ? { podNamespace: labels[RuntimeLabels.podNamespace] ?? '', podName: labels[RuntimeLabels.podName] } : {}),
    ...(!sandbox && labels[RuntimeLabels.containerName] ? { container: labels[RuntimeLabels.containerName] } : {}),
  };
}
