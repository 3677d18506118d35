import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { portForwards } from '../../kinds/portForwards';
import { portForwardTable } from '../../../shared/printers/portForward';
import { findForward, forwardablePorts, forwardName, forwardUrl, parsePortInput, portForwardBody } from './portForwardModel';

const pod: KubeObject = {
  metadata: { name: 'web-1', namespace: 'shop' },
  spec: {
    containers: [
      { name: 'app', ports: [{ containerPort: 8080, name: 'http' }, { containerPort: 53, protocol: 'UDP' }] },
      { name: 'metrics', ports: [{ containerPort: 9090 }, { containerPort: 8080 }] },
    ],
  },
};

const service: KubeObject = { metadata: { name: 'web', namespace: 'shop' }, spec: { ports: [{ port: 80, name: 'http', targetPort: 8080 }, { port: 443, protocol: 'TCP' }] } };

function forward(name: string, targetKind: string, target: string, port: number | string, status: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name, namespace: 'shop' }, spec: { target: { kind: targetKind, name: target }, port }, status };
}

describe('forwardablePorts', () => {
  it("lists a pod's TCP container ports once each, with names and containers", () => {
    expect(forwardablePorts('Pod', pod)).toEqual([
      { port: 8080, name: 'http', container: 'app' },
      { port: 9090, name: undefined, container: 'metrics' },
    ]);
  });

  it("lists a Service's TCP ports", () => {
    expect(forwardablePorts('Service', service)).toEqual([
      { port: 80, name: 'http' },
      { port: 443, name: undefined },
    ]);
  });
});

describe('the PortForward object', () => {
  it('is named <target>-<port> in the target namespace', () => {
    expect(portForwardBody('shop', { kind: 'Service', name: 'web' }, 80)).toEqual({
      apiVersion: 'kubedesk.dev/v1alpha1',
      kind: 'PortForward',
      metadata: { name: 'web-80', namespace: 'shop' },
      spec: { target: { kind: 'Service', name: 'web' }, port: 80 },
    });
  });

  it('uses generateName when the plain name is taken by another forward, and keeps a local port', () => {
    const body = portForwardBody('shop', { kind: 'Pod', name: 'web-1' }, 'http', { generateName: true, localPort: 18080 });
    expect(body.metadata).toEqual({ generateName: 'web-1-http-', namespace: 'shop' });
    expect(body.spec).toEqual({ target: { kind: 'Pod', name: 'web-1' }, port: 'http', localPort: 18080 });
  });

  it('keeps long names within 253 characters', () => {
    expect(forwardName('a'.repeat(260), 65535).length).toBe(253);
  });

  it.each([
    ['8080', 8080],
    [' 443 ', 443],
    ['http', 'http'],
    ['0', undefined],
    ['70000', undefined],
    ['Not A Name', undefined],
    ['a--b', undefined],
  ])('reads the free-form port %j as %j', (input, expected) => {
    expect(parsePortInput(input)).toBe(expected);
  });
});

describe('finding forwards', () => {
  it('finds the forward of the same target and port, not one being deleted', () => {
    const deleting = { ...forward('web-80-old', 'Service', 'web', 80), metadata: { name: 'web-80-old', namespace: 'shop', deletionTimestamp: '2024-01-01T00:00:00Z' } };
    const wanted = forward('web-80', 'Service', 'web', 80, { phase: 'Active', url: 'http://127.0.0.1:40123', localPort: 40123 });
    const forwards = [deleting, forward('web-1-80', 'Pod', 'web', 80), wanted];
    expect(findForward(forwards, 'shop', { kind: 'Service', name: 'web' }, 80)).toBe(wanted);
    expect(findForward(forwards, 'other', { kind: 'Service', name: 'web' }, 80)).toBeUndefined();
    expect(forwardUrl(wanted)).toBe('http://127.0.0.1:40123');
  });
});

describe('the PortForward kind', () => {
  it("prints kubectl's columns and colours the phase", () => {
    const active = { ...forward('web-80', 'Service', 'web', 80, { phase: 'Active', localPort: 40123 }), metadata: { name: 'web-80', namespace: 'shop', creationTimestamp: '2024-01-01T00:00:00Z' } };
    expect(portForwardTable.row(active, new Date('2024-01-01T00:05:00Z')).slice(0, 6)).toEqual(['web-80', 'service/web', '80', '127.0.0.1:40123', 'Active', '5m']);
    expect(portForwards.tone?.(active)).toBe('ok');
    expect(portForwards.tone?.(forward('x', 'Pod', 'p', 1, { phase: 'Failed' }))).toBe('error');
    expect(portForwards.tone?.(forward('x', 'Pod', 'p', 1))).toBe('warn');
  });
});
