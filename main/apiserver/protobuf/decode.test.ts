// Tests for the protobuf body decoder: real bodies captured from kubectl 1.35 and helm 4, objects
// round-tripped through the test encoder, Go's JSON zero-value rules, and hostile input.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { formatGoDuration } from '../../../shared/kubernetes/duration';
import {
  kubectlAuthCanI,
  kubectlCreateConfigMap,
  kubectlCreateDeployment,
  kubectlCreateNamespace,
  kubectlCreateSecretGeneric,
  kubectlCreateToken,
  helmReleaseSecret,
} from '../../../test/fixtures/protobuf/capturedBodies';
import {
  MAX_MESSAGE_DEPTH,
  ProtobufDecodeError,
  decodeKubernetesProtobuf,
  isKubernetesProtobufContentType,
  readProtobufTypeMeta,
} from './decode';
import { ProtobufWriter, encodeKubernetesProtobuf, encodeMessage, wrapInEnvelope } from '../../../test/fixtures/protobuf/encode';
import { messageSchemas, topLevelMessages } from './messages';

function decodeError(body: Uint8Array): ProtobufDecodeError {
  try {
    decodeKubernetesProtobuf(body);
  } catch (error) {
    if (error instanceof ProtobufDecodeError) return error;
    throw error;
  }
  throw new Error('expected a ProtobufDecodeError');
}

function roundTrip(object: Record<string, unknown>): unknown {
  return decodeKubernetesProtobuf(encodeKubernetesProtobuf(object));
}

describe('decodeKubernetesProtobuf on bodies captured from kubectl and helm', () => {
  it.each([
    {
      name: 'kubectl create secret generic',
      body: kubectlCreateSecretGeneric,
      expected: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, data: { a: 'Yg==' } },
    },
    {
      name: 'kubectl create namespace',
      body: kubectlCreateNamespace,
      expected: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foo' }, spec: {}, status: {} },
    },
    {
      name: 'kubectl create configmap',
      body: kubectlCreateConfigMap,
      expected: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { x: 'y' } },
    },
    {
      name: 'kubectl create deployment',
      body: kubectlCreateDeployment,
      expected: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd1', labels: { app: 'd1' } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'd1' } },
          template: {
            metadata: { labels: { app: 'd1' } },
            spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] },
          },
          strategy: {},
        },
        status: {},
      },
    },
    {
      name: 'kubectl create token',
      body: kubectlCreateToken,
      expected: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        metadata: {},
        spec: {},
        status: { token: '' },
      },
    },
    {
      name: 'kubectl auth can-i',
      body: kubectlAuthCanI,
      expected: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        metadata: {},
        spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } },
        status: { allowed: false },
      },
    },
  ])('decodes the body of $name as Go would print it in JSON', ({ body, expected }) => {
    expect(decodeKubernetesProtobuf(body)).toStrictEqual(expected);
  });

  it('decodes the helm release Secret, whose data.release is the base64 of gzipped JSON', () => {
    const secret = decodeKubernetesProtobuf(helmReleaseSecret);
    expect(secret).toMatchObject({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'helm.sh/release.v1',
      metadata: {
        name: 'sh.helm.release.v1.rel1.v1',
        labels: { createdAt: '1795304528', name: 'rel1', owner: 'helm', status: 'pending-install', version: '1' },
      },
    });
    const data = secret.data as Record<string, string>;
    // Secret.data holds bytes, which JSON shows as base64; helm's bytes are themselves base64 text.
    const helmPayload = Buffer.from(data.release, 'base64').toString('latin1');
    const release = JSON.parse(gunzipSync(Buffer.from(helmPayload, 'base64')).toString('utf8')) as { name: string };
    expect(release.name).toBe('rel1');
  });

  it('reads the TypeMeta without decoding the object', () => {
    expect(readProtobufTypeMeta(kubectlCreateDeployment)).toStrictEqual({ apiVersion: 'apps/v1', kind: 'Deployment' });
  });
});

describe('decodeKubernetesProtobuf on encoded objects', () => {
  it('keeps every byte of binary Secret data, as base64', () => {
    const binary = Buffer.from(Array.from({ length: 256 }, (_, index) => index)).toString('base64');
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'bin', namespace: 'default', labels: { a: 'b' }, annotations: { note: 'ünïcödé' } },
      data: { 'key.bin': binary, empty: '' },
      stringData: { plain: 'text' },
      type: 'Opaque',
      immutable: false,
    };
    expect(roundTrip(secret)).toStrictEqual(secret);
  });

  it('decodes ConfigMap data and binaryData', () => {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm' },
      data: { 'app.properties': 'a=1\nb=2', empty: '' },
      binaryData: { blob: Buffer.from([0, 255, 1, 254]).toString('base64') },
      immutable: true,
    };
    expect(roundTrip(configMap)).toStrictEqual(configMap);
  });

  it('decodes a Namespace with finalizers and a creation time', () => {
    const namespace = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team', creationTimestamp: '2024-01-02T03:04:05Z', generation: 3 },
      spec: { finalizers: ['kubernetes'] },
    };
    expect(roundTrip(namespace)).toStrictEqual(namespace);
  });

  it('keeps replicas: 0 on a Deployment, since replicas is a pointer field', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx:1.27',
                ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
                resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m' } },
                env: [
                  { name: 'A', value: '1' },
                  { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k', optional: true } } },
                ],
              },
            ],
          },
        },
      },
    };
    expect(roundTrip(deployment)).toStrictEqual(deployment);
  });

  it('decodes a Pod with volumes, probes, lifecycle, security context, affinity and tolerations', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
        finalizers: ['f'],
      },
      spec: {
        initContainers: [{ name: 'init', image: 'busybox', command: ['sh', '-c'], args: ['true'] }],
        containers: [
          {
            name: 'c',
            image: 'nginx',
            livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
            readinessProbe: { tcpSocket: { port: 8080 }, initialDelaySeconds: 1 },
            startupProbe: { exec: { command: ['true'] }, failureThreshold: 30 },
            lifecycle: { preStop: { sleep: { seconds: 3 } } },
            securityContext: { runAsNonRoot: true, runAsUser: 1000, capabilities: { drop: ['ALL'] } },
            volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true }],
            envFrom: [{ configMapRef: { name: 'cm' }, prefix: 'CM_' }],
          },
        ],
        ephemeralContainers: [{ name: 'debug', image: 'busybox', targetContainerName: 'c' }],
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'pvc' } },
          { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } },
          { name: 'cfg', configMap: { name: 'cm', items: [{ key: 'a', path: 'a.txt' }], defaultMode: 420 } },
          { name: 'sec', secret: { secretName: 's', optional: false } },
          { name: 'host', hostPath: { path: '/var/log', type: 'Directory' } },
          {
            name: 'proj',
            projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] },
          },
          { name: 'down', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        ],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
            },
          },
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 10, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'x' } } } },
            ],
          },
        },
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 30 }],
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'x' } } },
        ],
        securityContext: { fsGroup: 2000, supplementalGroups: [1, 2] },
        terminationGracePeriodSeconds: 0,
        nodeSelector: { disk: 'ssd' },
        automountServiceAccountToken: false,
        restartPolicy: 'Always',
      },
      status: { phase: 'Pending', podIPs: [{ ip: '10.0.0.1' }], startTime: '2024-05-06T07:08:09Z' },
    };
    expect(roundTrip(pod)).toStrictEqual(pod);
  });

  it.each([
    { apiVersion: 'v1', expected: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', gracePeriodSeconds: 0 } },
    { apiVersion: 'meta.k8s.io/v1', expected: { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground', gracePeriodSeconds: 0 } },
    { apiVersion: 'apps/v1', expected: { apiVersion: 'apps/v1', kind: 'DeleteOptions', propagationPolicy: 'Orphan', gracePeriodSeconds: 0 } },
  ])('decodes DeleteOptions sent as $apiVersion, keeping gracePeriodSeconds: 0', ({ expected }) => {
    expect(roundTrip(expected)).toStrictEqual(expected);
  });

  it('decodes DeleteOptions with preconditions and dryRun', () => {
    const options = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 30,
      preconditions: { uid: 'abc', resourceVersion: '12' },
      orphanDependents: false,
      dryRun: ['All'],
    };
    expect(roundTrip(options)).toStrictEqual(options);
  });

  it('decodes a Service with numeric and named target ports', () => {
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc' },
      spec: {
        type: 'NodePort',
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP', nodePort: 30080 },
          { name: 'https', port: 443, targetPort: 'https' },
        ],
        clusterIPs: ['10.96.0.10'],
        ipFamilyPolicy: 'SingleStack',
      },
    };
    expect(roundTrip(service)).toStrictEqual(service);
  });

  it('decodes Jobs and CronJobs', () => {
    const cronJob = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: {
        schedule: '0 3 * * *',
        suspend: false,
        jobTemplate: {
          metadata: { name: 'nightly' },
          spec: {
            backoffLimit: 0,
            completions: 1,
            template: { metadata: {}, spec: { containers: [{ name: 'job', image: 'busybox' }], restartPolicy: 'OnFailure' } },
          },
        },
      },
    };
    expect(roundTrip(cronJob)).toStrictEqual(cronJob);
  });

  it('formats MicroTime with microseconds and Time without fractions', () => {
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'node1', namespace: 'kube-node-lease' },
      spec: { holderIdentity: 'node1', leaseDurationSeconds: 40, renewTime: '2024-01-02T03:04:05.123000Z' },
    };
    expect(roundTrip(lease)).toStrictEqual(lease);
  });

  it('parses managedFields FieldsV1 and ControllerRevision data as JSON', () => {
    const revision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: 'r1',
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Apply',
            apiVersion: 'apps/v1',
            time: '2024-01-02T03:04:05Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
          },
        ],
      },
      data: { spec: { template: { spec: { containers: [{ name: 'c' }] } } } },
      revision: 2,
    };
    expect(roundTrip(revision)).toStrictEqual(revision);
  });

  it('decodes list-valued map entries such as SubjectAccessReview extra', () => {
    const review = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: { user: 'alice', groups: ['dev'], extra: { scopes: ['a', 'b'], none: [] }, nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    };
    expect(roundTrip(review)).toStrictEqual(review);
  });

  it('decodes events.k8s.io Events, Scale and EndpointSlices', () => {
    const objects = [
      {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'e1', namespace: 'default' },
        eventTime: '2024-01-02T03:04:05.000001Z',
        reportingController: 'kubedesk',
        reportingInstance: 'kubedesk-1',
        action: 'Pulling',
        reason: 'Pulling',
        regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
        type: 'Normal',
      },
      { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 3 }, status: { replicas: 2 } },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'svc-abc' },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true }, nodeName: 'node1' }],
        ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
      },
    ];
    for (const object of objects) expect(roundTrip(object)).toStrictEqual(object);
  });

  it('has a schema for every top-level kind and every message it refers to', () => {
    const special = new Set([
      'meta.v1.Time',
      'meta.v1.MicroTime',
      'meta.v1.Duration',
      'meta.v1.FieldsV1',
      'resource.Quantity',
      'intstr.IntOrString',
      'runtime.RawExtension',
    ]);
    const scalars = new Set(['string', 'bytes', 'int32', 'int64', 'bool', 'double']);
    for (const name of Object.values(topLevelMessages)) expect(messageSchemas[name], name).toBeDefined();
    for (const [name, fields] of Object.entries(messageSchemas)) {
      for (const [, jsonName, type] of fields) {
        const valueType = type.startsWith('map<string,') ? type.slice('map<string,'.length, -1) : type;
        const known = scalars.has(valueType) || special.has(valueType) || messageSchemas[valueType] !== undefined;
        expect(known, `${name}.${jsonName}: ${type}`).toBe(true);
      }
    }
  });
});

describe('decodeKubernetesProtobuf applies Go JSON zero-value rules', () => {
  function deploymentSpec(build: (spec: ProtobufWriter) => void): Record<string, unknown> {
    const raw = new ProtobufWriter().messageField(2, build).finish();
    const decoded = decodeKubernetesProtobuf(wrapInEnvelope('apps/v1', 'Deployment', raw));
    return decoded.spec as Record<string, unknown>;
  }

  it('drops zero omitempty scalars but keeps zero pointer fields', () => {
    const spec = deploymentSpec((writer) =>
      writer
        .varintField(1, 0) // replicas *int32
        .varintField(5, 0) // minReadySeconds int32 omitempty
        .varintField(7, false) // paused bool omitempty
        .varintField(9, 0), // progressDeadlineSeconds *int32
    );
    expect(spec).toStrictEqual({ replicas: 0, progressDeadlineSeconds: 0 });
  });

  it('keeps zero values of fields without omitempty, as Go prints them', () => {
    const container = new ProtobufWriter()
      .stringField(1, '') // name, not omitempty
      .stringField(2, '') // image, omitempty
      .messageField(6, (port) => port.stringField(1, '').varintField(2, 0).varintField(3, 0)) // only containerPort lacks omitempty
      .finish();
    const podSpec = new ProtobufWriter().bytesField(2, container).finish();
    const pod = decodeKubernetesProtobuf(wrapInEnvelope('v1', 'Pod', new ProtobufWriter().bytesField(2, podSpec).finish()));
    expect(pod.spec).toStrictEqual({ containers: [{ name: '', ports: [{ containerPort: 0 }] }] });
  });

  it('decodes negative int32 values sent sign-extended to ten bytes, and negative int64 values', () => {
    const raw = new ProtobufWriter().varintField(1, -1).finish();
    expect(decodeKubernetesProtobuf(wrapInEnvelope('v1', 'DeleteOptions', raw))).toStrictEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: -1,
    });
    const scale = decodeKubernetesProtobuf(
      wrapInEnvelope('autoscaling/v1', 'Scale', new ProtobufWriter().messageField(2, (spec) => spec.varintField(1, -5)).finish()),
    );
    expect(scale.spec).toStrictEqual({ replicas: -5 });
  });

  it('accepts packed repeated integers', () => {
    const context = new ProtobufWriter().tag(4, 2).varint(3).raw([1, 2, 3]).finish(); // supplementalGroups
    const podSpec = new ProtobufWriter().bytesField(14, context).finish();
    const pod = decodeKubernetesProtobuf(wrapInEnvelope('v1', 'Pod', new ProtobufWriter().bytesField(2, podSpec).finish()));
    expect(pod.spec).toStrictEqual({ securityContext: { supplementalGroups: [1, 2, 3] } });
  });

  it('skips unknown fields of every wire type', () => {
    const raw = new ProtobufWriter()
      .messageField(1, (meta) => meta.stringField(1, 'n').varintField(99, 5).doubleField(98, 1.5).tag(97, 5).raw([1, 2, 3, 4]))
      .stringField(50, 'future field')
      .finish();
    expect(decodeKubernetesProtobuf(wrapInEnvelope('v1', 'ConfigMap', raw))).toStrictEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'n' },
    });
  });

  it('reads bodies held in a Node Buffer that starts partway into its memory', () => {
    const raw = new ProtobufWriter().messageField(1, (meta) => meta.stringField(1, 'n').doubleField(98, 2.5)).finish();
    const padded = Buffer.concat([Buffer.from([1, 2, 3]), Buffer.from(wrapInEnvelope('v1', 'Secret', raw))]);
    expect(decodeKubernetesProtobuf(padded.subarray(3))).toStrictEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'n' } });
  });

  it('keeps "__proto__" as an ordinary map key', () => {
    const configMap = roundTrip({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: JSON.parse('{"__proto__":"p"}') as unknown });
    const data = (configMap as { data: Record<string, unknown> }).data;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toStrictEqual(['__proto__']);
  });
});

describe('decodeKubernetesProtobuf rejects malformed bodies', () => {
  const validRaw = encodeMessage({ metadata: { name: 'x' }, data: { a: 'b' } }, 'core.v1.ConfigMap');

  it.each([
    { name: 'an empty body', body: new Uint8Array(0), message: /prefix/ },
    { name: 'a JSON body', body: new TextEncoder().encode('{"kind":"Secret"}'), message: /"k8s\\0" prefix/ },
    { name: 'a wrong magic', body: Uint8Array.from([0x6b, 0x38, 0x73, 0x01, 0x0a, 0x00]), message: /prefix/ },
    {
      name: 'an unknown kind',
      body: wrapInEnvelope('v1', 'Foo', new Uint8Array(0)),
      message: /^no kind "Foo" is registered for version "v1"$/,
    },
    { name: 'a kind missing from TypeMeta', body: wrapInEnvelope('v1', '', validRaw), message: /Kind' is missing/ },
    {
      name: 'a varint longer than ten bytes',
      body: wrapInEnvelope('v1', 'DeleteOptions', Uint8Array.from([0x08, ...new Array<number>(10).fill(0xff), 0x01])),
      message: /overflow/,
    },
    {
      name: 'a ten-byte varint wider than 64 bits',
      body: wrapInEnvelope('v1', 'DeleteOptions', Uint8Array.from([0x08, ...new Array<number>(9).fill(0xff), 0x7f])),
      message: /overflow/,
    },
    {
      name: 'a length past the end of the body',
      body: wrapInEnvelope('v1', 'ConfigMap', Uint8Array.from([0x0a, 0x20, 0x0a, 0x01, 0x61])),
      message: /past the end/,
    },
    {
      name: 'a length of 2^35',
      body: wrapInEnvelope('v1', 'ConfigMap', Uint8Array.from([0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])),
      message: /too large/,
    },
    {
      name: 'a string field sent as a varint',
      body: wrapInEnvelope('v1', 'ConfigMap', new ProtobufWriter().messageField(1, (meta) => meta.varintField(1, 7)).finish()),
      message: /wrong wire type/,
    },
    { name: 'field number 0', body: wrapInEnvelope('v1', 'ConfigMap', Uint8Array.from([0x02, 0x00])), message: /field number 0/ },
    { name: 'a group wire type', body: wrapInEnvelope('v1', 'ConfigMap', Uint8Array.from([0x0b, 0x0c])), message: /wire type 3/ },
    {
      name: 'FieldsV1 that is not JSON',
      body: wrapInEnvelope(
        'v1',
        'ConfigMap',
        new ProtobufWriter()
          .messageField(1, (meta) => meta.messageField(17, (entry) => entry.messageField(7, (fields) => fields.stringField(1, '{not json'))))
          .finish(),
      ),
      message: /FieldsV1 does not hold valid JSON/,
    },
    {
      name: 'a gzip content encoding',
      body: new ProtobufWriter()
        .raw([0x6b, 0x38, 0x73, 0x00])
        .messageField(1, (typeMeta) => typeMeta.stringField(1, 'v1').stringField(2, 'ConfigMap'))
        .bytesField(2, validRaw)
        .stringField(3, 'gzip')
        .finish(),
      message: /content encoding "gzip"/,
    },
  ])('rejects $name', ({ body, message }) => {
    expect(decodeError(body).message).toMatch(message);
  });

  it('rejects every truncation of a captured Deployment that cuts into the object', () => {
    // magic (4) + TypeMeta field (23) end at 27; the object's raw field runs to 4 bytes before the end.
    for (let length = 0; length < kubectlCreateDeployment.length - 4; length += 1) {
      if (length === 27) continue;
      expect(() => decodeKubernetesProtobuf(kubectlCreateDeployment.subarray(0, length)), `length ${length}`).toThrow(
        ProtobufDecodeError,
      );
    }
    // Cut right after TypeMeta, the body is still well-formed: an empty object of that kind.
    expect(decodeKubernetesProtobuf(kubectlCreateDeployment.subarray(0, 27))).toStrictEqual({ apiVersion: 'apps/v1', kind: 'Deployment' });
  });

  it(`refuses messages nested deeper than ${MAX_MESSAGE_DEPTH} levels without exhausting the stack`, () => {
    // A ControllerRevision's data may hold another "k8s\0" body, which nests without limit.
    let body = encodeKubernetesProtobuf({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'leaf' } });
    for (let level = 0; level < 300; level += 1) {
      const raw = new ProtobufWriter().messageField(2, (extension) => extension.bytesField(1, body)).finish();
      body = wrapInEnvelope('apps/v1', 'ControllerRevision', raw);
    }
    expect(decodeError(body).message).toMatch(/nesting exceeds/);
  });

  it('refuses deeply nested JSON inside FieldsV1', () => {
    const deepJson = '['.repeat(100_000) + ']'.repeat(100_000);
    const raw = new ProtobufWriter()
      .messageField(1, (meta) => meta.messageField(17, (entry) => entry.messageField(7, (fields) => fields.stringField(1, deepJson))))
      .finish();
    expect(decodeError(wrapInEnvelope('v1', 'ConfigMap', raw)).message).toMatch(/nested too deeply/);
  });

  it('either decodes or throws ProtobufDecodeError for 2,000 random mutations of valid bodies', () => {
    let seed = 0x2545f491;
    const random = (): number => {
      // xorshift32: deterministic, so a failure reproduces.
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const seeds = [
      kubectlCreateDeployment,
      kubectlCreateSecretGeneric,
      kubectlAuthCanI,
      helmReleaseSecret,
      encodeKubernetesProtobuf({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', creationTimestamp: '2024-01-02T03:04:05Z', managedFields: [{ manager: 'm', fieldsV1: { 'f:a': {} } }] },
        spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }] },
      }),
    ];
    let decoded = 0;
    for (let iteration = 0; iteration < 2000; iteration += 1) {
      const original = seeds[iteration % seeds.length];
      let mutated = Uint8Array.from(original);
      const edits = 1 + Math.floor(random() * 4);
      for (let edit = 0; edit < edits; edit += 1) {
        const position = Math.floor(random() * mutated.length);
        const choice = random();
        if (choice < 0.6) {
          mutated[position] = Math.floor(random() * 256);
        } else if (choice < 0.8) {
          mutated = Uint8Array.from([...mutated.subarray(0, position), ...mutated.subarray(position + 1)]);
        } else {
          mutated = Uint8Array.from([...mutated.subarray(0, position), Math.floor(random() * 256), ...mutated.subarray(position)]);
        }
      }
      try {
        decodeKubernetesProtobuf(mutated);
        decoded += 1;
      } catch (error) {
        if (!(error instanceof ProtobufDecodeError)) {
          throw new Error(`mutation ${iteration} threw ${String(error)}: ${Buffer.from(mutated).toString('hex')}`);
        }
      }
    }
    // Both outcomes must occur, or the mutations were too gentle or too harsh to test anything.
    expect(decoded).toBeGreaterThan(0);
    expect(decoded).toBeLessThan(2000);
  });
});

describe('helpers', () => {
  it.each([
    ['application/vnd.kubernetes.protobuf', true],
    ['application/vnd.kubernetes.protobuf; charset=utf-8', true],
    ['Application/VND.Kubernetes.Protobuf', true],
    ['application/vnd.kubernetes.protobuf;stream=watch', true],
    ['application/json', false],
    [undefined, false],
  ])('recognizes %s as protobuf: %s', (contentType, expected) => {
    expect(isKubernetesProtobufContentType(contentType)).toBe(expected);
  });

  it.each([
    [0, '0s'],
    [1, '1ns'],
    [1_500, '1.5µs'],
    [1_500_000, '1.5ms'],
    [1_000_000_000, '1s'],
    [90_000_000_000, '1m30s'],
    [3_600_000_000_000, '1h0m0s'],
    [-5_000_000_000, '-5s'],
    [3_723_500_000_000, '1h2m3.5s'],
  ])('formats a Go duration of %d ns as %s', (nanoseconds, expected) => {
    expect(formatGoDuration(nanoseconds)).toBe(expected);
  });
});

describe('decodeKubernetesProtobuf on the admission, node and apiextensions kinds', () => {
  it.each([
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'deny' },
      webhooks: [{
        name: 'deny.example.com',
        clientConfig: { service: { namespace: 'hooks', name: 'deny', path: '/validate', port: 443 }, caBundle: 'Y2E=' },
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'], scope: 'Namespaced' }],
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: { matchLabels: { team: 'a' } },
        sideEffects: 'None',
        timeoutSeconds: 5,
        admissionReviewVersions: ['v1'],
        matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
      }],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'label' },
      webhooks: [{ name: 'label.example.com', clientConfig: { url: 'https://127.0.0.1:8443/mutate' }, rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'] }], sideEffects: 'NoneOnDryRun', admissionReviewVersions: ['v1'], reinvocationPolicy: 'Never' }],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'replicas' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ resourceNames: ['web'], operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'] }], matchPolicy: 'Equivalent' },
        validations: [{ expression: 'object.spec.replicas <= 5', message: 'too many', reason: 'Forbidden' }],
        variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'replicas-binding' },
      spec: { policyName: 'replicas', validationActions: ['Deny', 'Audit'], paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Allow' } },
    },
    {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'gvisor' },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m', memory: '64Mi' } },
      scheduling: { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
    },
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      metadata: { namespace: 'default' },
      spec: { user: 'jane', resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } },
    },
  ])('decodes a $kind as Go would print it', (object) => {
    expect(roundTrip(object)).toEqual(object);
  });

  it('prints the JSONSchemaProps alternatives and JSON values of a CustomResourceDefinition as upstream marshals them', () => {
    const json = (value: unknown) => ({ raw: Buffer.from(JSON.stringify(value)).toString('base64') });
    const wire = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'crontabs.stable.example.com' },
      spec: {
        group: 'stable.example.com',
        names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'] },
        scope: 'Namespaced',
        versions: [{
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    cron: { type: 'string', default: json('* * * * *'), enum: [json('* * * * *'), json('@hourly')] },
                    tags: { type: 'array', items: { schema: { type: 'string' } } },
                    labels: { type: 'object', additionalProperties: { allows: true, schema: { type: 'string' } } },
                    free: { type: 'object', additionalProperties: { allows: false } },
                  },
                  'x-kubernetes-validations': [{ rule: 'self.cron != ""', message: 'cron is required' }],
                },
              },
            },
          },
        }],
      },
    };
    const decoded = roundTrip(wire) as { spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }> } };
    const properties = decoded.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    expect(properties.cron).toEqual({ type: 'string', default: '* * * * *', enum: ['* * * * *', '@hourly'] });
    expect(properties.tags).toEqual({ type: 'array', items: { type: 'string' } });
    expect(properties.labels).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(properties.free).toEqual({ type: 'object', additionalProperties: false });
    expect(decoded).toMatchObject({ spec: { names: { kind: 'CronTab', shortNames: ['ct'] }, versions: [{ subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas' } } }] } });
  });
});
