import { describe, it, expect } from 'vitest';
import type Docker from 'dockerode';
import { adoptableEndpoint, demultiplex, endpointOf, netdContainerName, netdCreateOptions } from './netdContainer';

const settings = { clusterId: '0123456789abcdef', networkName: 'kubedesk-0123456789ab', runDir: '/data/network/run', image: 'kubedesk/netd:aaaaaaaaaaaa' };

function inspected(overrides: { running?: boolean; image?: string; source?: string; hostPort?: string; ip?: string } = {}): Docker.ContainerInspectInfo {
  const value: unknown = {
    Id: 'c1',
    State: { Running: overrides.running ?? true },
    Config: { Image: overrides.image ?? settings.image },
    Mounts: [{ Source: overrides.source ?? settings.runDir, Destination: '/run/kubedesk' }],
    NetworkSettings: {
      Networks: { [settings.networkName]: { IPAddress: overrides.ip ?? '10.7.0.5' } },
      Ports: { '15000/tcp': [{ HostIp: '127.0.0.1', HostPort: overrides.hostPort ?? '49153' }] },
    },
  };
  return value as Docker.ContainerInspectInfo;
}

describe('netdContainerName', () => {
  it('uses the first 12 letters and digits of the cluster id', () => {
    expect(netdContainerName('0123456789abcdef')).toBe('kd-0123456789ab-netd');
    expect(netdContainerName('a-b_c')).toBe('kd-abc-netd');
  });
});

describe('netdCreateOptions', () => {
  it('labels the container with the cluster id and runs it on the cluster network with NET_ADMIN, an init and the tunnel on 127.0.0.1', () => {
    const options = netdCreateOptions(settings);
    expect(options.name).toBe('kd-0123456789ab-netd');
    expect(options.Labels).toEqual({ 'dev.kubedesk.cluster': settings.clusterId, 'dev.kubedesk.role': 'netd' });
    expect(options.HostConfig).toMatchObject({
      NetworkMode: settings.networkName,
      CapAdd: ['NET_ADMIN'],
      Binds: ['/data/network/run:/run/kubedesk'],
      Init: true,
      RestartPolicy: { Name: 'no' },
      PortBindings: { '15000/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] },
      ExtraHosts: ['host.docker.internal:host-gateway'],
    });
  });
});

describe('adoptableEndpoint', () => {
  it('adopts a running container with the same image, network and run directory', () => {
    expect(adoptableEndpoint(inspected(), settings)).toEqual({ containerId: 'c1', ip: '10.7.0.5', tunnelPort: 49153 });
  });

  it.each([
    ['it is stopped', { running: false }],
    ['it runs another image', { image: 'kubedesk/netd:bbbbbbbbbbbb' }],
    ['it mounts another run directory', { source: '/elsewhere' }],
    ['it has no address on the network', { ip: '' }],
    ['its tunnel port is not published', { hostPort: '' }],
  ])('replaces the container when %s', (_reason, overrides) => {
    expect(adoptableEndpoint(inspected(overrides), settings)).toBeUndefined();
  });
});

describe('endpointOf', () => {
  it('reads the address on the named network and the published tunnel port', () => {
    expect(endpointOf(inspected({ hostPort: '32768' }), settings.networkName)).toEqual({ containerId: 'c1', ip: '10.7.0.5', tunnelPort: 32768 });
    expect(endpointOf(inspected(), 'other')).toBeUndefined();
  });
});

describe('demultiplex', () => {
  it('joins the payloads of Docker log frames', () => {
    const frame = (stream: number, text: string) => Buffer.concat([Buffer.from([stream, 0, 0, 0, 0, 0, 0, text.length]), Buffer.from(text)]);
    expect(demultiplex(Buffer.concat([frame(2, 'kd-netd: '), frame(2, 'start-up failed\n')]))).toBe('kd-netd: start-up failed\n');
  });
});
