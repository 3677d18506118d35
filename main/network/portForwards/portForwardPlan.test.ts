import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { desiredStatus, isPodServing, replacementSelector, resolvePodTarget, resolveServiceTarget, rotate, statusPatch, wantedLocalPort } from './portForwardPlan';
import type { PortForwardSpec } from './portForwardResource';

function pod(name: string, options: { labels?: Record<string, string>; ready?: boolean; ip?: string; created?: string; deleting?: boolean; ports?: Record<string, unknown>[] } = {}): KubeObject {
  const ready = options.ready ?? true;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: options.labels ?? {}, creationTimestamp: options.created ?? '2025-01-01T00:00:00Z', ...(options.deleting ? { deletionTimestamp: '2025-01-02T00:00:00Z' } : {}) },
    spec: { containers: [{ name: 'web', ports: options.ports ?? [{ name: 'http', containerPort: 8080 }] }] },
    status: { phase: 'Running', podIP: options.ip ?? '10.0.0.1', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

const podSpec = (name: string, port: number | string = 8080): PortForwardSpec => ({ target: { kind: 'Pod', name }, port });
const serviceSpec = (name: string, port: number | string): PortForwardSpec => ({ target: { kind: 'Service', name }, port });
const web = { app: 'web', 'pod-template-hash': 'abc' };

describe('replacement selector', () => {
  it('drops the labels that differ between a pod and its replacement', () => {
    expect(replacementSelector(pod('web-1', { labels: { app: 'web', tier: 'front', 'pod-template-hash': 'x', 'controller-revision-hash': 'y', 'statefulset.kubernetes.io/pod-name': 'web-0' } }))).toEqual({ app: 'web', tier: 'front' });
  });
});

describe('pod readiness', () => {
  it.each([
    ['a running ready pod', pod('a'), true],
    ['a pod that is not ready', pod('a', { ready: false }), false],
    ['a terminating pod', pod('a', { deleting: true }), false],
  ])('%s serves: %s', (_name, candidate, expected) => {
    expect(isPodServing(candidate)).toBe(expected);
  });
});

describe('resolving a Pod target', () => {
  it('uses the named pod and remembers its labels as the selector', () => {
    const result = resolvePodTarget(podSpec('web-abc-1'), {}, [pod('web-abc-1', { labels: web })]);
    expect(result).toMatchObject({ found: true, choice: { ip: '10.0.0.1', port: 8080 }, selector: { app: 'web' } });
  });

  it('resolves a named container port', () => {
    const result = resolvePodTarget(podSpec('web-abc-1', 'http'), {}, [pod('web-abc-1', { labels: web })]);
    expect(result).toMatchObject({ found: true, choice: { port: 8080 } });
  });

  it('picks a ready replacement with the remembered labels when the named pod is gone', () => {
    const pods = [pod('web-def-1', { labels: { app: 'web', 'pod-template-hash': 'def' }, ip: '10.0.0.9' }), pod('other', { labels: { app: 'other' } })];
    const result = resolvePodTarget(podSpec('web-abc-1'), { podSelector: { app: 'web' } }, pods);
    expect(result).toMatchObject({ found: true, choice: { ip: '10.0.0.9' } });
    expect(result.found && result.choice.pod.metadata.name).toBe('web-def-1');
  });

  it('prefers the pod used last, then the newest ready match', () => {
    const pods = [
      pod('web-1', { labels: { app: 'web' }, created: '2025-01-01T00:00:00Z', ip: '10.0.0.1' }),
      pod('web-2', { labels: { app: 'web' }, created: '2025-01-03T00:00:00Z', ip: '10.0.0.2' }),
      pod('web-3', { labels: { app: 'web' }, created: '2025-01-02T00:00:00Z', ip: '10.0.0.3' }),
    ];
    const last = resolvePodTarget(podSpec('gone'), { podSelector: { app: 'web' }, pod: 'web-3' }, pods);
    expect(last.found && last.choice.pod.metadata.name).toBe('web-3');
    const newest = resolvePodTarget(podSpec('gone'), { podSelector: { app: 'web' } }, pods);
    expect(newest.found && newest.choice.pod.metadata.name).toBe('web-2');
  });

  it.each([
    ['the named pod is missing and its labels were never seen', podSpec('web-1'), {}, [], 'pod "web-1" not found; nothing to replace it with (its labels are unknown)'],
    ['the named pod is not ready and nothing matches', podSpec('web-1'), {}, [pod('web-1', { labels: web, ready: false })], 'pod "web-1" is not running and ready and no ready pod matches app=web'],
    ['the replacement is terminating', podSpec('web-1'), { podSelector: { app: 'web' } }, [pod('web-2', { labels: { app: 'web' }, deleting: true })], 'pod "web-1" not found and no ready pod matches app=web'],
    ['the named port does not exist', podSpec('web-1', 'metrics'), {}, [pod('web-1', { labels: web })], 'pod "web-1" has no container port named "metrics"'],
  ])('waits with a message when %s', (_name, spec, status, pods, message) => {
    expect(resolvePodTarget(spec, status, pods)).toMatchObject({ found: false, message });
  });
});

describe('resolving a Service target', () => {
  const service: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }] } };
  const slice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: [
      { addresses: ['10.0.0.2'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'web-2', namespace: 'default' } },
      { addresses: ['10.0.0.1'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'web-1', namespace: 'default' } },
      { addresses: ['10.0.0.3'], conditions: { ready: false } },
    ],
  } as KubeObject;

  it.each([['number', 80], ['name', 'http']])('finds the ready endpoints on the target port by service port %s', (_how, port) => {
    const result = resolveServiceTarget(serviceSpec('web', port), service, [slice]);
    expect(result.found && result.backends.map((backend) => `${backend.podName ?? ''}@${backend.ip}:${backend.port}`)).toEqual(['web-1@10.0.0.1:8080', 'web-2@10.0.0.2:8080']);
  });

  it.each([
    ['the Service is missing', undefined, [slice], 80, 'service "web" not found'],
    ['the port is not the Service\'s', service, [slice], 81, 'service "web" has no TCP port 81'],
    ['no endpoint is ready', service, [], 80, 'service "web" has no ready endpoints for port 80'],
  ])('waits when %s', (_name, target, slices, port, message) => {
    expect(resolveServiceTarget(serviceSpec('web', port), target, slices)).toMatchObject({ found: false, message });
  });

  it('rotates backends round robin', () => {
    expect([0, 1, 2, 3].map((turn) => rotate(['a', 'b', 'c'], turn)[0])).toEqual(['a', 'b', 'c', 'a']);
  });
});

describe('local port and status', () => {
  it.each([
    ['spec.localPort', { localPort: 8080 }, { localPort: 9000 }, { port: 8080, fixed: true }],
    ['the port used before', { localPort: 0 }, { localPort: 9000 }, { port: 9000, fixed: false }],
    ['any port', {}, {}, { port: 0, fixed: false }],
  ])('asks for %s', (_name, spec, status, expected) => {
    expect(wantedLocalPort({ ...podSpec('a'), ...spec }, status)).toEqual(expected);
  });

  it('reports Active, Waiting and Failed', () => {
    expect(desiredStatus({ localPort: 9000 }, { found: true, pod: 'web-1' })).toEqual({ phase: 'Active', localPort: 9000, url: 'http://127.0.0.1:9000', pod: 'web-1' });
    expect(desiredStatus({ localPort: 9000 }, { found: false, message: 'nothing' })).toEqual({ phase: 'Waiting', message: 'nothing', localPort: 9000, url: 'http://127.0.0.1:9000' });
    expect(desiredStatus({ failure: 'port 80 on 127.0.0.1 is already in use', wantedPort: 80 }, { found: true })).toEqual({ phase: 'Failed', message: 'port 80 on 127.0.0.1 is already in use', localPort: 80 });
  });

  it('patches only what changed, removing fields and selector keys with null', () => {
    expect(statusPatch({ phase: 'Active', localPort: 1 }, { phase: 'Active', localPort: 1 })).toBeUndefined();
    expect(statusPatch({ phase: 'Waiting', message: 'x', podSelector: { app: 'web', old: 'y' } }, { phase: 'Active', podSelector: { app: 'web' } })).toEqual({ phase: 'Active', message: null, podSelector: { old: null, app: 'web' } });
  });
});
