import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { isGlobalUnicast, resolvePodLocation, resolveServiceLocation, splitSchemeNamePort, type ProxyLookup } from './proxyLocation';
import { makeEndpointSlice } from '../../../test/fixtures/networkObjects';

function service(name: string, ports: unknown[]): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports } };
}

function slice(serviceName: string, ports: unknown[], endpoints: unknown[]): KubeObject {
  return makeEndpointSlice(serviceName, { ports, endpoints });
}

function pod(name: string, ip: string | undefined, containers: unknown[] = [{ name: 'app' }]): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers }, status: ip ? { podIP: ip, podIPs: [{ ip }] } : {} };
}

function endpoint(ip: string, podName: string, ready = true): unknown {
  return { addresses: [ip], conditions: { ready }, targetRef: { kind: 'Pod', namespace: 'default', name: podName } };
}

function lookupOf(objects: KubeObject[]): ProxyLookup {
  const find = (kind: string, name: string) => objects.find((object) => object.kind === kind && object.metadata.name === name);
  return {
    service: (_namespace, name) => find('Service', name),
    endpointSlices: () => objects.filter((object) => object.kind === 'EndpointSlice'),
    pod: (_namespace, name) => find('Pod', name),
  };
}

function errorOf(run: () => unknown): { code: number; reason: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error('expected an ApiError');
}

const cluster = lookupOf([
  service('web', [
    { name: 'http', port: 80, targetPort: 'web' },
    { name: 'metrics', port: 9090, targetPort: 9100 },
  ]),
  slice(
    'web',
    [
      { name: 'http', port: 8080, protocol: 'TCP' },
      { name: 'metrics', port: 9100, protocol: 'TCP' },
    ],
    [endpoint('10.1.0.5', 'web-1'), endpoint('10.1.0.6', 'web-2', false), endpoint('10.1.0.7', 'gone')],
  ),
  pod('web-1', '10.1.0.5'),
  pod('web-2', '10.1.0.6'),
  service('plain', [{ port: 80 }]),
  slice('plain', [{ port: 8000, protocol: 'TCP' }], [endpoint('10.1.0.8', 'plain-1')]),
  pod('plain-1', '10.1.0.8'),
  service('empty', [{ name: 'http', port: 80 }]),
  slice('empty', [{ name: 'http', port: 80, protocol: 'TCP' }], []),
  service('manual', [{ port: 80 }]),
  slice('manual', [{ port: 80, protocol: 'TCP' }], [{ addresses: ['10.1.0.9'], conditions: { ready: true } }]),
  pod('nginx', '10.1.0.20', [{ name: 'sidecar' }, { name: 'app', ports: [{ name: 'web', containerPort: 8080 }, { name: 'admin', containerPort: 9000 }] }]),
  pod('bare', '10.1.0.21'),
  pod('pending', undefined),
]);

describe('splitSchemeNamePort', () => {
  it.each([
    ['web', { scheme: '', name: 'web', port: '' }],
    ['web:80', { scheme: '', name: 'web', port: '80' }],
    ['https:web:443', { scheme: 'https', name: 'web', port: '443' }],
    ['http:web:', { scheme: 'http', name: 'web', port: '' }],
    ['ftp:web:21', undefined],
    [':80', undefined],
    ['a:b:c:d', undefined],
  ])('splits %s as upstream does', (id, expected) => {
    expect(splitSchemeNamePort(id)).toEqual(expected);
  });
});

describe('resolveServiceLocation', () => {
  it.each([
    ['web:http', '10.1.0.5', 8080, 'http'],
    ['web:80', '10.1.0.5', 8080, 'http'],
    ['https:web:metrics', '10.1.0.5', 9100, 'https'],
    ['http:web:9090', '10.1.0.5', 9100, 'http'],
    ['plain', '10.1.0.8', 8000, 'http'],
    ['plain:80', '10.1.0.8', 8000, 'http'],
  ])('resolves %s to a ready endpoint whose pod still has the address', (id, ip, port, scheme) => {
    for (const random of [0, 0.5, 0.99]) {
      expect(resolveServiceLocation(cluster, 'default', id, () => random)).toEqual({ scheme, ip, port, host: `${ip}:${port}` });
    }
  });

  it.each([
    ['web:81', 503, 'ServiceUnavailable', 'no service port 81 found for service "web"'],
    ['nosuch:80', 404, 'NotFound', 'services "nosuch" not found'],
    ['nosuch', 404, 'NotFound', 'endpoints "nosuch" not found'],
    ['empty', 503, 'ServiceUnavailable', 'no endpoints available for service "empty"'],
    // a Service whose only port is named is not reached without naming it
    ['web', 503, 'ServiceUnavailable', 'no endpoints available for service "web"'],
    ['http:web:nosuch', 503, 'ServiceUnavailable', 'no endpoints available for service "http:web:nosuch"'],
    // upstream skips addresses without a Pod behind them
    ['manual', 503, 'ServiceUnavailable', 'no endpoints available for service "manual"'],
    ['ftp:web:80', 400, 'BadRequest', 'invalid service request "ftp:web:80"'],
  ])('answers %s with %i and upstream text', (id, code, reason, message) => {
    expect(errorOf(() => resolveServiceLocation(cluster, 'default', id))).toEqual({ code, reason, message });
  });
});

describe('resolvePodLocation', () => {
  it.each([
    ['nginx', 'http', 8080, '10.1.0.20:8080'],
    ['nginx:9000', 'http', 9000, '10.1.0.20:9000'],
    ['nginx:admin', 'http', 9000, '10.1.0.20:admin'],
    ['https:nginx:web', 'https', 8080, '10.1.0.20:web'],
    ['bare', 'http', 80, '10.1.0.21'],
    ['https:bare:', 'https', 443, '10.1.0.21'],
    ['bare:http', 'http', 80, '10.1.0.21:http'],
    ['bare:nosuch', 'http', 'nosuch', '10.1.0.21:nosuch'],
  ])('resolves %s', (id, scheme, port, host) => {
    const ip = host.split(':')[0];
    expect(resolvePodLocation(cluster, 'default', id)).toEqual({ scheme, ip, port, host });
  });

  it.each([
    ['nosuch', 404, 'NotFound', 'pods "nosuch" not found'],
    ['pending', 400, 'BadRequest', 'address not allowed'],
    ['a:b:c:d', 400, 'BadRequest', 'invalid pod request "a:b:c:d"'],
  ])('answers %s with %i and upstream text', (id, code, reason, message) => {
    expect(errorOf(() => resolvePodLocation(cluster, 'default', id))).toEqual({ code, reason, message });
  });
});

describe('isGlobalUnicast', () => {
  it.each([
    ['10.1.0.5', true],
    ['172.17.0.2', true],
    ['0.0.0.0', false],
    ['127.0.0.1', false],
    ['169.254.1.1', false],
    ['224.0.0.1', false],
    ['', false],
    ['fe80::1', false],
  ])('%s → %s', (ip, expected) => {
    expect(isGlobalUnicast(ip)).toBe(expected);
  });
});
