import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import type { ObjectLookup } from './kindConfig';
import { containerDetails, environmentOf, mountText, podFieldValue, podVolumes, probeText, resourceList } from './podDetails';

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function lookupOf(objects: Record<string, KubeObject[]>, ready = true): ObjectLookup {
  return {
    get: (kindKey, namespace, name) => objects[kindKey]?.find((object) => object.metadata.namespace === namespace && object.metadata.name === name),
    items: (kindKey) => objects[kindKey] ?? [],
    ready: () => ready,
  };
}

const settings: KubeObject = { metadata: { name: 'settings', namespace: 'shop' }, data: { color: 'blue', size: 'L' } };
const credentials: KubeObject = { metadata: { name: 'credentials', namespace: 'shop' }, data: { password: base64('s3cr3t'), user: base64('admin') } };

const pod: KubeObject = {
  metadata: { name: 'web-1', namespace: 'shop', uid: 'u1', labels: { app: 'web' } },
  spec: {
    nodeName: 'node-a',
    containers: [
      {
        name: 'web',
        image: 'busybox',
        command: ['sh', '-c'],
        args: ['httpd -f'],
        ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
        resources: { requests: { memory: '64Mi', cpu: '100m' }, limits: { memory: '128Mi' } },
        livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
        readinessProbe: { exec: { command: ['cat', '/tmp/ready'] }, initialDelaySeconds: 2, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
        envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'APP_' }],
        env: [
          { name: 'MODE', value: 'prod' },
          { name: 'COLOR', valueFrom: { configMapKeyRef: { name: 'settings', key: 'color' } } },
          { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'credentials', key: 'password' } } },
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'APP_LABEL', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: 'MEMORY_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } },
          { name: 'MISSING', valueFrom: { configMapKeyRef: { name: 'nope', key: 'x' } } },
          { name: 'OPTIONAL', valueFrom: { secretKeyRef: { name: 'credentials', key: 'token', optional: true } } },
        ],
        volumeMounts: [
          { name: 'config', mountPath: '/etc/app', readOnly: true },
          { name: 'data', mountPath: '/data', subPath: 'web' },
        ],
      },
    ],
    volumes: [
      { name: 'config', configMap: { name: 'settings' } },
      { name: 'data', persistentVolumeClaim: { claimName: 'data-claim' } },
      { name: 'scratch', emptyDir: {} },
      { name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { configMap: { name: 'kube-root-ca.crt' } }] } },
    ],
  },
  status: {
    phase: 'Running',
    podIP: '10.1.0.7',
    containerStatuses: [{ name: 'web', ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { reason: 'Error', exitCode: 1, startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:02Z' } } }],
  },
};

describe('a pod’s containers as describe shows them', () => {
  const [web] = containerDetails(pod, lookupOf({ configmaps: [settings], secrets: [credentials] }));

  it('shows image, state, restarts, the last termination and the shell rule', () => {
    expect(web).toMatchObject({ name: 'web', image: 'busybox', state: 'Waiting: CrashLoopBackOff', tone: 'error', ready: false, restarts: 3, command: 'sh -c httpd -f' });
    expect(web.lastTermination).toEqual({ reason: 'Error', exitCode: 1, startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:02Z', message: undefined });
    expect(web.exec).toMatchObject({ enabled: false });
  });

  it('shows ports, requests and limits, probes and mounts', () => {
    expect(web.ports).toEqual(['8080/TCP (http)']);
    expect([web.requests, web.limits]).toEqual(['cpu 100m, memory 64Mi', 'memory 128Mi']);
    expect(web.probes).toEqual([
      { kind: 'Liveness', text: 'http-get http://:8080/healthz delay=0s timeout=1s period=5s #success=1 #failure=3' },
      { kind: 'Readiness', text: 'exec [cat /tmp/ready] delay=2s timeout=1s period=10s #success=1 #failure=3' },
    ]);
    expect(web.mounts.map(mountText)).toEqual(['/etc/app from config (ro)', '/data from data (path "web") (rw)']);
  });

  it('resolves the environment from ConfigMaps, Secrets (kept secret) and the pod’s own fields', () => {
    expect(web.env.map((row) => [row.name, row.value, row.source, row.secret, row.problem ?? false])).toEqual([
      ['APP_color', 'blue', 'all keys of ConfigMap settings', false, false],
      ['APP_size', 'L', 'all keys of ConfigMap settings', false, false],
      ['MODE', 'prod', '', false, false],
      ['COLOR', 'blue', 'ConfigMap settings, key color', false, false],
      ['PASSWORD', 's3cr3t', 'Secret credentials, key password', true, false],
      ['POD_NAME', 'web-1', 'field metadata.name', false, false],
      ['APP_LABEL', 'web', "field metadata.labels['app']", false, false],
      ['MEMORY_LIMIT', '128Mi', 'resource limits.memory', false, false],
      ['MISSING', '<missing: configmap nope not found>', 'ConfigMap nope, key x', false, true],
      ['OPTIONAL', '<not set: optional key missing>', 'Secret credentials, key token', false, false],
    ]);
    expect(web.env.find((row) => row.name === 'COLOR')?.link).toEqual({ kindKey: 'configmaps', namespace: 'shop', name: 'settings' });
  });

  it('shows a placeholder, not a false "missing", while the caches are still loading', () => {
    const container = (pod.spec as { containers: Record<string, unknown>[] }).containers[0];
    const rows = environmentOf(pod, container, lookupOf({}, false));
    const missing = rows.find((row) => row.name === 'MISSING');
    expect(missing?.value).toBe('…');
    expect(missing?.problem).toBeFalsy();
    expect(rows[0]).toMatchObject({ name: 'APP_*', value: '…' });
  });

  it('reads downward-API fields of the pod', () => {
    expect([podFieldValue(pod, 'status.podIP'), podFieldValue(pod, 'spec.nodeName'), podFieldValue(pod, 'metadata.annotations[\'x\']'), podFieldValue(pod, 'spec.unknown')]).toEqual(['10.1.0.7', 'node-a', undefined, undefined]);
  });

  it('writes probes of every handler as describe does', () => {
    expect(probeText({ tcpSocket: { port: 'db' } })).toBe('tcp-socket :db delay=0s timeout=1s period=10s #success=1 #failure=3');
    expect(probeText({ httpGet: { scheme: 'HTTPS', host: '10.0.0.1', port: 443, path: '/' } })).toMatch(/^http-get https:\/\/10\.0\.0\.1:443\/ /);
    expect(probeText({ grpc: { port: 9000 } })).toMatch(/^grpc <pod>:9000 <service> /);
    expect(resourceList(undefined)).toBe('');
  });
});

describe('a pod’s volumes', () => {
  it('names each volume’s type and source, links ConfigMaps, Secrets and claims, and lists who mounts it', () => {
    expect(podVolumes(pod).map((volume) => [volume.name, volume.type, volume.source, volume.link?.kindKey ?? '', volume.mountedBy.join(' ')])).toEqual([
      ['config', 'ConfigMap', 'settings', 'configmaps', 'web:/etc/app'],
      ['data', 'PersistentVolumeClaim', 'data-claim', 'persistentvolumeclaims', 'web:/data'],
      ['scratch', 'EmptyDir', "a temporary directory that shares the pod's lifetime", '', ''],
      ['kube-api-access', 'Projected', 'service account token, ConfigMap kube-root-ca.crt', '', ''],
    ]);
  });
});
