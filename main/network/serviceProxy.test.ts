import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { renderNetdConfig } from './serviceProxy';
import { makeEndpointSlice } from '../../test/fixtures/networkObjects';

function service(name: string, spec: Record<string, unknown>, namespace = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec };
}

function slice(serviceName: string, ports: Array<Record<string, unknown>>, endpoints: Array<Record<string, unknown>>): KubeObject {
  return makeEndpointSlice(serviceName, { ports, endpoints });
}

const base = { serviceRanges: ['10.50.128.0/17'], token: 'secret', tunnelPort: 15000 };

describe('renderNetdConfig', () => {
  it('lists each ClusterIP port with its ready backends, resolving named target ports through the slices', () => {
    const text = renderNetdConfig({
      ...base,
      services: [service('web', { clusterIP: '10.50.130.7', ports: [{ name: 'http', port: 80, targetPort: 'web' }, { name: 'dns', port: 53, protocol: 'UDP' }] })],
      endpointSlices: [
        slice('web', [{ name: 'http', port: 8080, protocol: 'TCP' }, { name: 'dns', port: 5353, protocol: 'UDP' }], [
          { addresses: ['10.50.0.5'], conditions: { ready: true } },
          { addresses: ['10.50.0.6'], conditions: { ready: false } },
          { addresses: ['10.50.0.4'], conditions: { ready: true } },
        ]),
      ],
    });
    expect(text.split('\n')).toEqual([
      '# kd-netd configuration, written by kubedesk (main/network/serviceProxy.ts)',
      'token secret',
      'range 10.50.128.0/17',
      'tunnel 15000',
      'service 10.50.130.7 53 udp 0 10.50.0.4:5353 10.50.0.5:5353',
      'service 10.50.130.7 80 tcp 0 10.50.0.4:8080 10.50.0.5:8080',
      '',
    ]);
  });

  it('gives a Service without ready endpoints a line with no backends, so kd-netd refuses its connections', () => {
    const text = renderNetdConfig({ ...base, services: [service('empty', { clusterIP: '10.50.130.8', ports: [{ port: 80 }] })], endpointSlices: [] });
    expect(text).toContain('service 10.50.130.8 80 tcp 0\n');
  });

  it('carries ClientIP affinity with its timeout (upstream default three hours)', () => {
    const text = renderNetdConfig({
      ...base,
      services: [
        service('sticky', { clusterIP: '10.50.130.9', sessionAffinity: 'ClientIP', ports: [{ port: 80 }] }),
        service('short', { clusterIP: '10.50.130.10', sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } }, ports: [{ port: 80 }] }),
      ],
      endpointSlices: [],
    });
    expect(text).toContain('service 10.50.130.9 80 tcp 10800');
    expect(text).toContain('service 10.50.130.10 80 tcp 60');
  });

  it('skips headless, ExternalName and out-of-range Services, and routes host-served ones to their sockets', () => {
    const text = renderNetdConfig({
      ...base,
      services: [
        service('headless', { clusterIP: 'None', ports: [{ port: 80 }] }),
        service('external', { type: 'ExternalName', externalName: 'example.com' }),
        service('old', { clusterIP: '10.96.0.1', ports: [{ port: 443 }] }),
        service('kubernetes', { clusterIP: '10.50.128.1', ports: [{ name: 'https', port: 443, targetPort: 6443 }] }),
      ],
      endpointSlices: [],
      hostBackends: [{ namespace: 'default', name: 'kubernetes', protocol: 'TCP', port: 443, backend: 'unix:/run/kubedesk/apiserver.sock' }],
    });
    const services = text.split('\n').filter((line) => line.startsWith('service'));
    expect(services).toEqual(['service 10.50.128.1 443 tcp 0 unix:/run/kubedesk/apiserver.sock']);
  });

  it('lists the clients each backend may serve when NetworkPolicy restricts a Service, and nothing when it does not', () => {
    const asked: unknown[] = [];
    const text = renderNetdConfig({
      ...base,
      services: [
        service('web', { clusterIP: '10.50.130.7', ports: [{ port: 80, targetPort: 8080 }] }),
        service('open', { clusterIP: '10.50.130.8', ports: [{ port: 80 }] }),
        service('kube-dns', { clusterIP: '10.50.128.10', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] }, 'kube-system'),
      ],
      endpointSlices: [
        slice('web', [{ port: 8080, protocol: 'TCP' }], [{ addresses: ['10.50.0.4', '10.50.0.5'], conditions: { ready: true } }]),
        slice('open', [{ port: 80, protocol: 'TCP' }], [{ addresses: ['10.50.0.6'], conditions: { ready: true } }]),
      ],
      hostBackends: [
        {
          namespace: 'kube-system',
          name: 'kube-dns',
          protocol: 'UDP',
          port: 53,
          backend: 'unix:/run/kubedesk/dns-udp.sock',
          policyBackend: { kind: 'virtual', port: 53, endpoint: { kind: 'virtual', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' }, namedPorts: [] } },
        },
      ],
      access: (target, backends) => {
        asked.push({ target, backends });
        if (target.ip === '10.50.130.7') return [['10.50.0.1', '10.50.0.9'], ['10.50.0.1']];
        if (target.ip === '10.50.128.10') return [['10.50.0.1']];
        return undefined;
      },
    });
    expect(text.split('\n').filter((line) => line.startsWith('allow'))).toEqual([
      'allow 10.50.128.10 53 udp unix:/run/kubedesk/dns-udp.sock 10.50.0.1',
      'allow 10.50.130.7 80 tcp 10.50.0.4:8080 10.50.0.1 10.50.0.9',
      'allow 10.50.130.7 80 tcp 10.50.0.5:8080 10.50.0.1',
    ]);
    expect(asked).toContainEqual({
      target: { ip: '10.50.130.7', port: 80, protocol: 'TCP' },
      backends: [
        { kind: 'address', ip: '10.50.0.4', port: 8080 },
        { kind: 'address', ip: '10.50.0.5', port: 8080 },
      ],
    });
  });

  it('serves the host-served Services at kd-netd\'s own address too, on their target ports, with the same policy', () => {
    const asked: unknown[] = [];
    const apiServer = { kind: 'virtual' as const, port: 6443, endpoint: { kind: 'address' as const, ip: '10.50.0.3' } };
    const text = renderNetdConfig({
      ...base,
      proxyAddress: '10.50.0.3',
      services: [service('kubernetes', { clusterIP: '10.50.128.1', ports: [{ name: 'https', port: 443, targetPort: 6443 }] })],
      endpointSlices: [],
      hostBackends: [{ namespace: 'default', name: 'kubernetes', protocol: 'TCP', port: 443, directPort: 6443, backend: 'unix:/run/kubedesk/apiserver.sock', policyBackend: (address) => ({ ...apiServer, endpoint: { kind: 'address', ip: address ?? 'none' } }) }],
      access: (target, backends) => {
        asked.push({ target, backends });
        return [['10.50.0.9']];
      },
    });
    expect(text.split('\n').filter((line) => line.startsWith('service') || line.startsWith('allow'))).toEqual([
      'allow 10.50.0.3 6443 tcp unix:/run/kubedesk/apiserver.sock 10.50.0.9',
      'allow 10.50.128.1 443 tcp unix:/run/kubedesk/apiserver.sock 10.50.0.9',
      'service 10.50.0.3 6443 tcp 0 unix:/run/kubedesk/apiserver.sock',
      'service 10.50.128.1 443 tcp 0 unix:/run/kubedesk/apiserver.sock',
    ]);
    expect(asked).toEqual([
      { target: { ip: '10.50.128.1', port: 443, protocol: 'TCP' }, backends: [apiServer] },
      { target: { ip: '10.50.0.3', port: 6443, protocol: 'TCP' }, backends: [apiServer] },
    ]);
    // before kd-netd runs its address is unknown: only the ClusterIP
    const early = renderNetdConfig({ ...base, services: [service('kubernetes', { clusterIP: '10.50.128.1', ports: [{ name: 'https', port: 443 }] })], endpointSlices: [], hostBackends: [{ namespace: 'default', name: 'kubernetes', protocol: 'TCP', port: 443, directPort: 6443, backend: 'unix:/run/kubedesk/apiserver.sock' }] });
    expect(early.split('\n').filter((line) => line.startsWith('service'))).toEqual(['service 10.50.128.1 443 tcp 0 unix:/run/kubedesk/apiserver.sock']);
  });
});
