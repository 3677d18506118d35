// The one kd-netd container of a cluster: on the cluster's bridge network with CAP_NET_ADMIN (it
// routes the service range to its own loopback), the host's run directory mounted at /run/kubedesk
// (netd.conf and the host's unix sockets), and the tunnel port published on 127.0.0.1. It takes
// the place of kube-proxy's DaemonSet pod: one proxy for the whole (single-node) cluster. Like the
// kubelet's containers it runs with restart policy `no` (the caller restarts it), is labelled with
// the cluster id (so `kubedesk reset` removes it) and is adopted again after a restart of kubedesk.
import { resolve } from 'node:path';
import type Docker from 'dockerode';
import { isRecord } from '../../shared/kubernetes/types';
import { RuntimeLabels } from '../kubelet/runtime/containerRuntime';
import { dockerErrorMessage, statusCodeOf } from './daemon';
import { FrameParser } from './dockerStreams';

/** TCP port of the host tunnel inside the container; netd.conf must say `tunnel 15000`. */
export const netdTunnelPort = 15000;
export const netdRoleLabel = 'dev.kubedesk.role';
export const netdRole = 'netd';
/** Mount point of the host's run directory; netdImage.ts points the entrypoint at netd.conf there. */
export const netdRunMount = '/run/kubedesk';

export interface NetdContainerOptions {
  docker: Docker;
  clusterId: string;
  networkName: string;
  /** host directory mounted at /run/kubedesk (netd.conf, apiserver.sock, dns.sock) */
  runDir: string;
  /** the tag ensureNetdImage returned */
  image: string;
}

export interface NetdEndpoint {
  containerId: string;
  /** the container's address on the cluster network */
  ip: string;
  /** the host port on 127.0.0.1 published for the tunnel */
  tunnelPort: number;
}

/** `kd-<first 12 letters/digits of the cluster id>-netd`. */
export function netdContainerName(clusterId: string): string {
  const cleaned = clusterId.replace(/[^a-zA-Z0-9]/g, '').slice(0, 12);
  return `kd-${cleaned || 'cluster'}-netd`;
}

export function netdLabels(clusterId: string): Record<string, string> {
  return { [RuntimeLabels.cluster]: clusterId, [netdRoleLabel]: netdRole };
}

export function netdCreateOptions(options: Omit<NetdContainerOptions, 'docker'>): Docker.ContainerCreateOptions {
  const tunnel = `${netdTunnelPort}/tcp`;
  return {
    name: netdContainerName(options.clusterId),
    Image: options.image,
    Labels: netdLabels(options.clusterId),
    ExposedPorts: { [tunnel]: {} },
    HostConfig: {
      NetworkMode: options.networkName,
      CapAdd: ['NET_ADMIN'],
      Binds: [`${options.runDir}:${netdRunMount}`],
      // docker-init as PID 1 forwards SIGHUP/SIGTERM to kd-netd and reaps nothing else.
      Init: true,
      RestartPolicy: { Name: 'no' },
      // An empty HostPort asks Docker for a free one; only the host itself may use the tunnel.
      PortBindings: { [tunnel]: [{ HostIp: '127.0.0.1', HostPort: '' }] },
      ExtraHosts: ['host.docker.internal:host-gateway'],
    },
  };
}

/**
 * Whether an inspected container is a netd this object can keep using (running, same image, same
 * network and run directory), and its address and tunnel port if so.
 */
export function adoptableEndpoint(info: Docker.ContainerInspectInfo, options: Omit<NetdContainerOptions, 'docker'>): NetdEndpoint | undefined {
  if (!info.State?.Running) return undefined;
  if (info.Config?.Image !== options.image) return undefined;
  const mounted = (info.Mounts ?? []).some((mount) => mount.Destination === netdRunMount && mount.Source === options.runDir);
  if (!mounted) return undefined;
  return endpointOf(info, options.networkName);
}

export function endpointOf(info: Docker.ContainerInspectInfo, networkName: string): NetdEndpoint | undefined {
  const ip = info.NetworkSettings?.Networks?.[networkName]?.IPAddress;
  const ports: unknown = info.NetworkSettings?.Ports;
  const bindings = isRecord(ports) ? ports[`${netdTunnelPort}/tcp`] : undefined;
  const binding: unknown = Array.isArray(bindings) ? bindings.find((entry: unknown) => isRecord(entry) && entry.HostIp === '127.0.0.1') ?? bindings[0] : undefined;
  const tunnelPort = isRecord(binding) ? Number(binding.HostPort) : NaN;
  if (!ip || !Number.isInteger(tunnelPort) || tunnelPort <= 0) return undefined;
  return { containerId: info.Id, ip, tunnelPort };
}

export class NetdContainer {
  private readonly docker: Docker;
  private readonly settings: Omit<NetdContainerOptions, 'docker'>;
  private pending: Promise<NetdEndpoint> | undefined;
  private containerId: string | undefined;

  constructor(options: NetdContainerOptions) {
    this.docker = options.docker;
    this.settings = { clusterId: options.clusterId, networkName: options.networkName, runDir: resolve(options.runDir), image: options.image };
  }

  /** Adopts the cluster's running netd, or replaces whatever is there with a fresh one. */
  ensureRunning(): Promise<NetdEndpoint> {
    if (!this.pending) {
      this.pending = this.start().finally(() => {
        this.pending = undefined;
      });
    }
    return this.pending;
  }

  /** Asks kd-netd to re-read netd.conf (it also notices a changed mtime within a second). */
  async reload(): Promise<void> {
    const id = this.containerId ?? (await this.find()).find((container) => container.State === 'running')?.Id;
    if (!id) throw new Error(`the kd-netd container ${netdContainerName(this.settings.clusterId)} is not running`);
    try {
      await this.docker.getContainer(id).kill({ signal: 'SIGHUP' });
    } catch (error) {
      if (statusCodeOf(error) === 404 || statusCodeOf(error) === 409) this.containerId = undefined;
      throw new Error(`signalling kd-netd: ${dockerErrorMessage(error)}`);
    }
  }

  async isRunning(): Promise<boolean> {
    const containers = await this.find();
    return containers.some((container) => container.State === 'running' && container.Image === this.settings.image);
  }

  /** Removes every netd container of this cluster. */
  async remove(): Promise<void> {
    this.containerId = undefined;
    await Promise.all((await this.find()).map((container) => this.removeContainer(container.Id)));
  }

  private find(): Promise<Docker.ContainerInfo[]> {
    const labels = Object.entries(netdLabels(this.settings.clusterId)).map(([key, value]) => `${key}=${value}`);
    return this.docker.listContainers({ all: true, filters: { label: labels } });
  }

  private async removeContainer(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true });
    } catch (error) {
      // 404: gone already; 409: "removal already in progress".
      if (statusCodeOf(error) !== 404 && statusCodeOf(error) !== 409) throw error;
    }
  }

  private async start(): Promise<NetdEndpoint> {
    for (const container of await this.find()) {
      if (container.State === 'running') {
        const info = await this.docker
          .getContainer(container.Id)
          .inspect()
          .catch(() => undefined);
        const endpoint = info && adoptableEndpoint(info, this.settings);
        if (endpoint) {
          this.containerId = endpoint.containerId;
          return endpoint;
        }
      }
      await this.removeContainer(container.Id);
    }
    this.containerId = undefined;
    const create = netdCreateOptions(this.settings);
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer(create);
    } catch (error) {
      if (statusCodeOf(error) !== 409) throw new Error(`creating the kd-netd container: ${dockerErrorMessage(error)}`);
      // The name is taken by a container the label filter missed (e.g. one being removed).
      await this.removeContainer(create.name ?? '');
      container = await this.docker.createContainer(create);
    }
    await container.start();
    const info = await container.inspect();
    if (!info.State.Running) {
      const logs = await this.logsOf(container);
      await this.removeContainer(info.Id);
      throw new Error(`kd-netd exited at start (code ${info.State.ExitCode})${logs ? `: ${logs}` : ''}`);
    }
    const endpoint = endpointOf(info, this.settings.networkName);
    if (!endpoint) {
      await this.removeContainer(info.Id);
      throw new Error(`kd-netd started without an address on ${this.settings.networkName} or a published tunnel port`);
    }
    this.containerId = endpoint.containerId;
    return endpoint;
  }

  private async logsOf(container: Docker.Container): Promise<string> {
    try {
      const raw: unknown = await container.logs({ stdout: true, stderr: true, tail: 20, follow: false });
      return Buffer.isBuffer(raw) ? demultiplex(raw).trim() : '';
    } catch {
      return '';
    }
  }
}

/** Docker's non-TTY log stream: 8-byte frame headers (stream, 0, 0, 0, big-endian length). */
export function demultiplex(raw: Buffer): string {
  const parts: Buffer[] = [];
  new FrameParser((_type, payload) => parts.push(payload)).push(raw);
  return Buffer.concat(parts).toString('utf8');
}
