import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../client/apiClient';
import { FakeTransport } from '../../../test/doubles/fakeTransport';
import { resources } from '../../client/resources';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { expand, expandContainerCommandAndArgs, expandSubPathExpr, mappingFuncFor } from './expansion';
import { formatMap, goQuote } from './fieldPath';
import type { Container } from './podSpec';
import { EnvError, resolveEnv, serviceEnvironment } from './resolveEnv';

function base64(text: string): string {
  return Buffer.from(text).toString('base64');
}

function cluster(): ApiClient {
  const transport = new FakeTransport();
  transport.seed(resources.configmaps, { metadata: { name: 'cfg', namespace: 'default' }, data: { MODE: 'fast', 'log.level': 'debug', '1bad': 'x' } });
  transport.seed(resources.secrets, { metadata: { name: 'creds', namespace: 'default' }, data: { PASSWORD: base64('s3cret'), USER: base64('admin') } });
  return new ApiClient(transport);
}

const pod: KubeObject = {
  metadata: { name: 'web', namespace: 'default', uid: 'uid-1', labels: { app: 'web', tier: 'front' }, annotations: { note: 'say "hi"' } },
  spec: {
    nodeName: 'node-1',
    serviceAccountName: 'robot',
    containers: [
      { name: 'main', resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } } },
      { name: 'side' },
    ],
  },
  status: { podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }], hostIP: '192.168.1.2', hostIPs: [{ ip: '192.168.1.2' }] },
};

const serviceEnv = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };

async function envOf(container: Partial<Container>, extra: { nodeAllocatable?: Record<string, string> } = {}): Promise<Record<string, string>> {
  const env = await resolveEnv(pod, { name: 'main', ...container }, { client: cluster(), serviceEnv, ...extra });
  return Object.fromEntries(env.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

describe('expand', () => {
  const mapping = mappingFuncFor(new Map([['A', 'alpha'], ['EMPTY', '']]));
  it.each([
    ['a plain string', 'hello', 'hello'],
    ['a reference', '$(A)-x', 'alpha-x'],
    ['an unknown reference kept literally', '$(NOPE)', '$(NOPE)'],
    ['an escaped operator', '$$(A)', '$(A)'],
    ['a double escape', '$$$$', '$$'],
    ['an unterminated reference', '$(A', '$(A'],
    ['a lone operator before text', '$A', '$A'],
    ['a trailing operator', 'x$', 'x$'],
    ['an empty value', '[$(EMPTY)]', '[]'],
    ['two references', '$(A)$(A)', 'alphaalpha'],
  ])('handles %s', (_name, input, expected) => {
    expect(expand(input, mapping)).toBe(expected);
  });

  it('expands command and args from the resolved environment', () => {
    expect(expandContainerCommandAndArgs({ command: ['echo', '$(GREETING)'], args: ['$(MISSING)'] }, ['GREETING=hi'])).toEqual({ command: ['echo', 'hi'], args: ['$(MISSING)'] });
  });

  it('expands subPathExpr and refuses missing or empty variables', () => {
    expect(expandSubPathExpr('logs/$(POD_NAME)', ['POD_NAME=web'])).toBe('logs/web');
    expect(() => expandSubPathExpr('$(B)/$(A)', ['A='])).toThrow('missing value for A, B');
  });
});

describe('formatMap', () => {
  it('sorts keys and quotes values as Go does', () => {
    expect(formatMap({ b: 'two', a: 'say "hi"\n' })).toBe('a="say \\"hi\\"\\n"\nb="two"');
    expect(goQuote('héllo\u0001')).toBe('"héllo\\x01"');
  });
});

describe('resolveEnv', () => {
  it.each<[string, Partial<Container>, Record<string, string>]>([
    ['a literal value', { env: [{ name: 'A', value: 'x' }] }, { A: 'x' }],
    ['a reference to an earlier variable', { env: [{ name: 'A', value: 'x' }, { name: 'B', value: '$(A)-y' }] }, { A: 'x', B: 'x-y' }],
    ['a forward reference kept literally', { env: [{ name: 'B', value: '$(A)' }, { name: 'A', value: 'x' }] }, { A: 'x', B: '$(A)' }],
    ['a reference to a service variable', { env: [{ name: 'API', value: 'https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)' }] }, { API: 'https://10.96.0.1:443' }],
    ['an empty value', { env: [{ name: 'E' }] }, { E: '' }],
    ['a configMapKeyRef', { env: [{ name: 'M', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'MODE' } } }] }, { M: 'fast' }],
    ['a secretKeyRef decoded', { env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'creds', key: 'PASSWORD' } } }] }, { P: 's3cret' }],
    ['an optional missing key skipped', { env: [{ name: 'M', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'nope', optional: true } } }] }, {}],
    ['an optional missing config map skipped', { env: [{ name: 'M', valueFrom: { configMapKeyRef: { name: 'ghost', key: 'x', optional: true } } }] }, {}],
    ['envFrom with a prefix', { envFrom: [{ prefix: 'S_', secretRef: { name: 'creds' } }] }, { S_PASSWORD: 's3cret', S_USER: 'admin' }],
    ['envFrom overridden by env', { envFrom: [{ configMapRef: { name: 'cfg' } }], env: [{ name: 'MODE', value: 'slow' }] }, { MODE: 'slow', 'log.level': 'debug' }],
    ['envFrom of an optional missing secret', { envFrom: [{ secretRef: { name: 'ghost', optional: true } }] }, {}],
    [
      'pod fields',
      {
        env: [
          { name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'U', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
          { name: 'L', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: 'AN', valueFrom: { fieldRef: { fieldPath: 'metadata.annotations' } } },
          { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'SA', valueFrom: { fieldRef: { fieldPath: 'spec.serviceAccountName' } } },
          { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'IPS', valueFrom: { fieldRef: { fieldPath: 'status.podIPs' } } },
          { name: 'HOST', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
        ],
      },
      { N: 'web', NS: 'default', U: 'uid-1', L: 'web', AN: 'note="say \\"hi\\""', NODE: 'node-1', SA: 'robot', IP: '10.0.0.5', IPS: '10.0.0.5', HOST: '192.168.1.2' },
    ],
    [
      'resources with divisors',
      {
        resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
        env: [
          { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
          { name: 'CPU_M', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
          { name: 'MEM_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
          { name: 'REQ_MEM', valueFrom: { resourceFieldRef: { resource: 'requests.memory' } } },
          { name: 'SIDE_CPU', valueFrom: { resourceFieldRef: { containerName: 'side', resource: 'limits.cpu', divisor: '1m' } } },
        ],
      },
      { CPU: '1', CPU_M: '500', MEM_MI: '128', REQ_MEM: '67108864', SIDE_CPU: '0' },
    ],
  ])('resolves %s', async (_name, container, expected) => {
    expect(await envOf(container)).toEqual({ ...expected, ...serviceEnv });
  });

  it('defaults an absent limit to the node allocatable', async () => {
    const env = await envOf({ env: [{ name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } }] }, { nodeAllocatable: { cpu: '4' } });
    expect(env.CPU).toBe('4000');
  });

  it('keeps declaration order and appends service variables last', async () => {
    const env = await resolveEnv(pod, { name: 'main', env: [{ name: 'Z', value: '1' }, { name: 'A', value: '2' }, { name: 'KUBERNETES_SERVICE_PORT', value: '8443' }] }, { client: cluster(), serviceEnv });
    expect(env).toEqual(['Z=1', 'A=2', 'KUBERNETES_SERVICE_PORT=8443', 'KUBERNETES_SERVICE_HOST=10.96.0.1']);
  });

  it('skips invalid envFrom keys with a warning', async () => {
    const warnings: string[] = [];
    const env = await resolveEnv(pod, { name: 'main', envFrom: [{ configMapRef: { name: 'cfg' } }] }, { client: cluster(), serviceEnv: {}, onWarning: (reason, message) => warnings.push(`${reason}: ${message}`) });
    expect(env.sort()).toEqual(['MODE=fast', 'log.level=debug']);
    expect(warnings).toEqual(['InvalidEnvironmentVariableNames: Keys [1bad] from the EnvFrom configMap default/cfg were skipped since they are considered invalid environment variable names.']);
  });

  it.each<[string, Partial<Container>, string]>([
    ['a missing config map', { env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'x', key: 'k' } } }] }, 'configmap "x" not found'],
    ['a missing config map key', { env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'y' } } }] }, "couldn't find key y in ConfigMap default/cfg"],
    ['a missing secret', { env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }, 'secret "s" not found'],
    ['a missing secret key', { env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'creds', key: 'k' } } }] }, "couldn't find key k in Secret default/creds"],
    ['a missing envFrom config map', { envFrom: [{ configMapRef: { name: 'gone' } }] }, 'configmap "gone" not found'],
    ['an unknown container in resourceFieldRef', { env: [{ name: 'X', valueFrom: { resourceFieldRef: { containerName: 'nope', resource: 'limits.cpu' } } }] }, 'container nope not found'],
    ['an unsupported resource', { env: [{ name: 'X', valueFrom: { resourceFieldRef: { resource: 'limits.gpu' } } }] }, 'unsupported container resource : limits.gpu'],
  ])('fails on %s with the upstream message', async (_name, container, message) => {
    const failure = resolveEnv(pod, { name: 'main', ...container }, { client: cluster(), serviceEnv });
    await expect(failure).rejects.toThrow(EnvError);
    await expect(failure).rejects.toThrow(message);
  });
});

describe('serviceEnvironment', () => {
  const services: KubeObject[] = [
    { metadata: { name: 'kubernetes', namespace: 'default' }, spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP' }] } },
    { metadata: { name: 'redis-main', namespace: 'shop' }, spec: { clusterIP: '10.96.0.9', ports: [{ port: 6379 }, { name: 'metrics', port: 9121, protocol: 'TCP' }] } },
    { metadata: { name: 'headless', namespace: 'shop' }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } },
    { metadata: { name: 'elsewhere', namespace: 'other' }, spec: { clusterIP: '10.96.0.7', ports: [{ port: 80 }] } },
  ];

  it('gives the kubernetes service and the namespace services as docker links', () => {
    expect(serviceEnvironment(services, 'shop')).toEqual({
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
      KUBERNETES_SERVICE_PORT: '443',
      KUBERNETES_SERVICE_PORT_HTTPS: '443',
      KUBERNETES_PORT: 'tcp://10.96.0.1:443',
      KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.1:443',
      KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_443_TCP_PORT: '443',
      KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
      REDIS_MAIN_SERVICE_HOST: '10.96.0.9',
      REDIS_MAIN_SERVICE_PORT: '6379',
      REDIS_MAIN_SERVICE_PORT_METRICS: '9121',
      REDIS_MAIN_PORT: 'tcp://10.96.0.9:6379',
      REDIS_MAIN_PORT_6379_TCP: 'tcp://10.96.0.9:6379',
      REDIS_MAIN_PORT_6379_TCP_PROTO: 'tcp',
      REDIS_MAIN_PORT_6379_TCP_PORT: '6379',
      REDIS_MAIN_PORT_6379_TCP_ADDR: '10.96.0.9',
      REDIS_MAIN_PORT_9121_TCP: 'tcp://10.96.0.9:9121',
      REDIS_MAIN_PORT_9121_TCP_PROTO: 'tcp',
      REDIS_MAIN_PORT_9121_TCP_PORT: '9121',
      REDIS_MAIN_PORT_9121_TCP_ADDR: '10.96.0.9',
    });
  });

  it('keeps only the kubernetes service when service links are disabled', () => {
    expect(Object.keys(serviceEnvironment(services, 'shop', false)).every((key) => key.startsWith('KUBERNETES_'))).toBe(true);
  });
});
