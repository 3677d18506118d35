// PodStreams: what the API server needs from the node side to serve the streaming pod
// subresources — log, exec, attach, portforward. Upstream the apiserver proxies these to the
// kubelet's HTTP server (pkg/registry/core/pod/rest/subresources.go → kubelet server.go); here the
// composition root hands the API server an in-process implementation backed by the kubelets.
// Errors are thrown as ApiError (e.g. 400 `container "x" in pod "y" is waiting to start`).
import type { Duplex, Readable, Writable } from 'node:stream';
import type { KubeObject } from '../../../shared/kubernetes/types';

export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  sinceTime?: Date;
  timestamps: boolean;
  limitBytes?: number;
}

export interface PodStreamOptions {
  container: string;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface PodStreamSession {
  stdin?: Writable;
  stdout?: Readable;
  stderr?: Readable;
  resize(width: number, height: number): void;
  /** resolves with the exit code (0 = success) */
  exitCode: Promise<number>;
  close(): void;
}

export interface PodStreams {
  logs(pod: KubeObject, options: PodLogOptions): Promise<Readable>;
  exec(pod: KubeObject, command: string[], options: PodStreamOptions): Promise<PodStreamSession>;
  attach(pod: KubeObject, options: PodStreamOptions): Promise<PodStreamSession>;
  portForward(pod: KubeObject, port: number): Promise<Duplex>;
}
