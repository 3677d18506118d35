// KubeletPodStreams: the API server's PodStreams served by the kubelet of the pod's node, as the
// apiserver proxies log/exec/attach/portforward to the node's kubelet upstream. Kubelet errors
// become Status replies.
import type { Duplex, Readable } from 'node:stream';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { ApiError } from '../apiserver/apiError';
import type { PodLogOptions, PodStreamOptions, PodStreamSession, PodStreams } from '../apiserver/streaming/podStreams';
import { StreamError, type Kubelet } from '../kubelet/kubelet';
import type { StreamSession } from '../kubelet/runtime/containerRuntime';

export class KubeletPodStreams implements PodStreams {
  constructor(private readonly kubelets: () => readonly Kubelet[]) {}

  async logs(pod: KubeObject, options: PodLogOptions): Promise<Readable> {
    return this.call(pod, (kubelet) =>
      kubelet.logs(pod, options.container, options.previous, {
        follow: options.follow,
        tailLines: options.tailLines,
        sinceSeconds: options.sinceSeconds,
        sinceTime: options.sinceTime,
        timestamps: options.timestamps,
        limitBytes: options.limitBytes,
      }),
    );
  }

  async exec(pod: KubeObject, command: string[], options: PodStreamOptions): Promise<PodStreamSession> {
    return this.call(pod, async (kubelet) => session(await kubelet.exec(pod, options.container, command, options)));
  }

  async attach(pod: KubeObject, options: PodStreamOptions): Promise<PodStreamSession> {
    return this.call(pod, async (kubelet) => session(await kubelet.attach(pod, options.container, options)));
  }

  async portForward(pod: KubeObject, port: number): Promise<Duplex> {
    return this.call(pod, (kubelet) => kubelet.portForward(pod, port));
  }

  private async call<T>(pod: KubeObject, action: (kubelet: Kubelet) => Promise<T>): Promise<T> {
    const nodeName = isRecord(pod.spec) && typeof pod.spec.nodeName === 'string' ? pod.spec.nodeName : '';
    const kubelet = this.kubelets().find((candidate) => candidate.nodeName === nodeName);
    if (!kubelet) throw ApiError.badRequest(`pod ${pod.metadata.name} does not have a host assigned`);
    try {
      return await action(kubelet);
    } catch (error) {
      if (error instanceof StreamError) throw new ApiError(error.code, error.code === 404 ? 'NotFound' : 'BadRequest', error.message);
      throw error;
    }
  }
}

function session(runtime: StreamSession): PodStreamSession {
  return {
    stdin: runtime.stdin,
    stdout: runtime.stdout,
    stderr: runtime.stderr,
    resize: (width, height) => void runtime.resize(width, height).catch(() => undefined),
    exitCode: runtime.exitCode,
    close: () => runtime.close(),
  };
}
