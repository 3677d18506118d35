import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { FieldError } from '../fieldErrors';
import { builtinKinds } from '../kinds';
import { qualifiedResource } from '../resources';

/** The strategies of the stored built-in kinds, by group-qualified resource (`pods`, `deployments.apps`). */
const kinds = Object.fromEntries(builtinKinds.filter((kind) => !kind.conversion).map((kind) => [qualifiedResource(kind), kind]));

/** As the API server runs them: defaults, create-time strategy steps, then validation. */
function createErrors(resource: string, obj: KubeObject): string[] {
  const copy = structuredClone(obj);
  copy.metadata.uid ??= '0b1c2d3e-0000-4000-8000-000000000001';
  kinds[resource].defaults(copy);
  kinds[resource].prepareForCreate(copy);
  return kinds[resource].validateCreate(copy).map(render);
}

function updateErrors(resource: string, obj: KubeObject, old: KubeObject): string[] {
  const copy = structuredClone(obj);
  kinds[resource].defaults(copy);
  return kinds[resource].validateUpdate(copy, old).map(render);
}

function render(error: FieldError): string {
  return `${error.field}: ${error.detail}`;
}

function pod(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec };
}

function deployment(selectorLabels: Record<string, string>, templateLabels: Record<string, string>): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
    spec: { selector: { matchLabels: selectorLabels }, template: { metadata: { labels: templateLabels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
  };
}

function job(restartPolicy: string): KubeObject {
  return {
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', namespace: 'default' },
    spec: { template: { spec: { restartPolicy, containers: [{ name: 'pi', image: 'perl' }] } } },
  };
}

function cronJob(schedule: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'tick', namespace: 'default' },
    spec: { schedule, ...extra, jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'tick', image: 'busybox' }] } } } } },
  };
}

const subdomainRule = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelRule = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('validation messages match upstream', () => {
  const cases: Array<{ name: string; resource: string; obj: KubeObject; expected: string[] }> = [
    {
      name: 'a pod named Bad_Name is not a DNS subdomain',
      resource: 'pods',
      obj: pod('Bad_Name', { containers: [{ name: 'app', image: 'nginx' }] }),
      expected: [`metadata.name: Invalid value: "Bad_Name": ${subdomainRule}`],
    },
    {
      name: 'a container without an image',
      resource: 'pods',
      obj: pod('web', { containers: [{ name: 'app' }] }),
      expected: ['spec.containers[0].image: Required value'],
    },
    {
      name: 'a pod without containers',
      resource: 'pods',
      obj: pod('web', {}),
      expected: ['spec.containers: Required value'],
    },
    {
      name: 'duplicate container names',
      resource: 'pods',
      obj: pod('web', { containers: [{ name: 'app', image: 'nginx' }, { name: 'app', image: 'redis' }] }),
      expected: ['spec.containers[1].name: Duplicate value: "app"'],
    },
    {
      name: 'an init container reusing a container name',
      resource: 'pods',
      obj: pod('web', { initContainers: [{ name: 'app', image: 'busybox' }], containers: [{ name: 'app', image: 'nginx' }] }),
      expected: ['spec.initContainers[0].name: Duplicate value: "app"'],
    },
    {
      name: 'a container name that is not a DNS label',
      resource: 'pods',
      obj: pod('web', { containers: [{ name: 'My_App', image: 'nginx' }] }),
      expected: [`spec.containers[0].name: Invalid value: "My_App": ${labelRule}`],
    },
    {
      name: 'an unknown restartPolicy',
      resource: 'pods',
      obj: pod('web', { restartPolicy: 'Sometimes', containers: [{ name: 'app', image: 'nginx' }] }),
      expected: ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
    },
    {
      name: 'a container port out of range and a bad protocol',
      resource: 'pods',
      obj: pod('web', { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 70000, protocol: 'ICMP' }] }] }),
      expected: [
        'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      ],
    },
    {
      name: 'a volume mount naming no volume',
      resource: 'pods',
      obj: pod('web', { containers: [{ name: 'app', image: 'nginx', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] }),
      expected: ['spec.containers[0].volumeMounts[0].name: Not found: "data"'],
    },
    {
      name: 'requests above limits',
      resource: 'pods',
      obj: pod('web', { containers: [{ name: 'app', image: 'nginx', resources: { limits: { cpu: '500m' }, requests: { cpu: '1' } } }] }),
      expected: ['spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m'],
    },
    {
      name: 'an env var from two sources',
      resource: 'pods',
      obj: pod('web', { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' }, secretKeyRef: { name: 's', key: 'k' } } }] }] }),
      expected: ['spec.containers[0].env[0].valueFrom: Invalid value: "": may not have more than one field specified at a time'],
    },
    {
      name: 'a probe with two handlers',
      resource: 'pods',
      obj: pod('web', { containers: [{ name: 'app', image: 'nginx', livenessProbe: { exec: { command: ['true'] }, tcpSocket: { port: 80 } } }] }),
      expected: ['spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type'],
    },
    {
      name: 'a toleration with an unknown operator',
      resource: 'pods',
      obj: pod('web', { tolerations: [{ key: 'a', operator: 'Maybe' }], containers: [{ name: 'app', image: 'nginx' }] }),
      expected: ['spec.tolerations[0].operator: Unsupported value: "Maybe": supported values: "Equal", "Exists"'],
    },
    {
      name: 'a deployment whose selector does not match its template',
      resource: 'deployments.apps',
      obj: deployment({ app: 'web' }, { app: 'x' }),
      expected: ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`'],
    },
    {
      name: 'a deployment without a selector',
      resource: 'deployments.apps',
      obj: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx' }] } } } },
      expected: ['spec.selector: Required value'],
    },
    {
      name: 'a deployment with negative replicas',
      resource: 'deployments.apps',
      obj: { ...deployment({ app: 'web' }, { app: 'web' }), spec: { ...(deployment({ app: 'web' }, { app: 'web' }).spec as object), replicas: -1 } },
      expected: ['spec.replicas: Invalid value: -1: must be greater than or equal to 0'],
    },
    {
      name: 'a service port out of range',
      resource: 'services',
      obj: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ port: 70000 }] } },
      expected: [
        'spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      ],
    },
    {
      name: 'a service without ports',
      resource: 'services',
      obj: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' } } },
      expected: ['spec.ports: Required value'],
    },
    {
      name: 'a service name that is not a DNS-1035 label',
      resource: 'services',
      obj: { apiVersion: 'v1', kind: 'Service', metadata: { name: '1web', namespace: 'default' }, spec: { ports: [{ port: 80 }] } },
      expected: ["metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"],
    },
    {
      name: 'an unknown service type',
      resource: 'services',
      obj: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { type: 'Magic', ports: [{ port: 80 }] } },
      expected: ['spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"'],
    },
    {
      name: 'a configmap key with a space',
      resource: 'configmaps',
      obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default' }, data: { 'bad key': 'x' } },
      expected: ["data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"],
    },
    {
      name: 'a service-account-token secret without its annotation',
      resource: 'secrets',
      obj: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tok', namespace: 'default' }, type: 'kubernetes.io/service-account-token' },
      expected: ['metadata.annotations[kubernetes.io/service-account.name]: Required value'],
    },
    {
      name: 'a job whose pods restart Always',
      resource: 'jobs.batch',
      obj: job('Always'),
      expected: ['spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"'],
    },
    {
      name: 'a cronjob with a four-field schedule',
      resource: 'cronjobs.batch',
      obj: cronJob('* * * *'),
      expected: ['spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]'],
    },
    {
      name: 'a cronjob with an unknown descriptor',
      resource: 'cronjobs.batch',
      obj: cronJob('@sometimes'),
      expected: ['spec.schedule: Invalid value: "@sometimes": unrecognized descriptor: @sometimes'],
    },
    {
      name: 'a cronjob with a minute out of range',
      resource: 'cronjobs.batch',
      obj: cronJob('61 * * * *'),
      expected: ['spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61'],
    },
    {
      name: 'a cronjob in an unknown time zone',
      resource: 'cronjobs.batch',
      obj: cronJob('@hourly', { timeZone: 'Mars/Olympus' }),
      expected: ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus'],
    },
    {
      name: 'a namespace with an uppercase name',
      resource: 'namespaces',
      obj: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'Dev' } },
      expected: [`metadata.name: Invalid value: "Dev": ${labelRule}`],
    },
    {
      name: 'a namespaced kind without a namespace',
      resource: 'configmaps',
      obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' } },
      expected: ['metadata.namespace: Required value'],
    },
    {
      name: 'a cluster-scoped kind with a namespace',
      resource: 'nodes',
      obj: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', namespace: 'default' } },
      expected: ['metadata.namespace: Forbidden: not allowed on this type'],
    },
    {
      name: 'a label value that is too long and malformed',
      resource: 'configmaps',
      obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default', labels: { app: '-x' } } },
      expected: ["metadata.labels: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"],
    },
    {
      name: 'an endpointslice with an unknown address type',
      resource: 'endpointslices.discovery.k8s.io',
      obj: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-abc', namespace: 'default' }, addressType: 'IPv5', endpoints: [] },
      expected: ['addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"'],
    },
    {
      name: 'a lease with a zero duration',
      resource: 'leases.coordination.k8s.io',
      obj: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'default' }, spec: { leaseDurationSeconds: 0 } },
      expected: ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0'],
    },
  ];

  it.each(cases)('reports $name', ({ resource, obj, expected }) => {
    expect(createErrors(resource, obj)).toEqual(expected);
  });

  it.each([
    ['pods', pod('web', { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }], livenessProbe: { httpGet: { port: 80 } } }] })],
    ['deployments.apps', deployment({ app: 'web' }, { app: 'web' })],
    ['jobs.batch', job('Never')],
    ['cronjobs.batch', cronJob('*/5 * * * *', { timeZone: 'Europe/Berlin' })],
    ['cronjobs.batch', cronJob('@hourly')],
    ['services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] } }],
    ['secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, stringData: { password: 'hunter2' } }],
    ['namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev' } }],
    ['statefulsets.apps', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:16' }] } } } }],
    ['daemonsets.apps', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'busybox' }] } } } }],
  ] as Array<[string, KubeObject]>)('accepts a valid %s object', (resource, obj) => {
    expect(createErrors(resource, obj)).toEqual([]);
  });
});

describe('update validation', () => {
  it('rejects changing a deployment selector', () => {
    const old = structuredClone(deployment({ app: 'web' }, { app: 'web' }));
    kinds['deployments.apps'].defaults(old);
    old.metadata.resourceVersion = '5';
    const next = structuredClone(deployment({ app: 'api' }, { app: 'api' }));
    next.metadata.resourceVersion = '5';
    expect(updateErrors('deployments.apps', next, old)).toEqual(['spec.selector: Invalid value: {"matchLabels":{"app":"api"}}: field is immutable']);
  });

  it('rejects renaming an object and a missing resourceVersion', () => {
    const old: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', resourceVersion: '3' } };
    const next: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'default' } };
    expect(updateErrors('configmaps', next, old)).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.name: Invalid value: "b": field is immutable',
    ]);
  });

  it('keeps an immutable configmap immutable', () => {
    const old: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', resourceVersion: '3' }, immutable: true, data: { a: '1' } };
    const next: KubeObject = { ...old, data: { a: '2' } };
    expect(updateErrors('configmaps', next, old)).toEqual(['data: Forbidden: field is immutable when `immutable` is set']);
  });

  it('rejects changing a secret type', () => {
    const old: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default', resourceVersion: '3' }, type: 'Opaque' };
    const next: KubeObject = { ...old, type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } };
    expect(updateErrors('secrets', next, old)).toEqual(['type: Invalid value: "kubernetes.io/tls": field is immutable']);
  });

  it('allows changing a pod image but not its restartPolicy', () => {
    const old = pod('web', { containers: [{ name: 'app', image: 'nginx:1' }] });
    old.metadata.resourceVersion = '7';
    kinds.pods.defaults(old);
    const imageChange = structuredClone(old);
    (imageChange.spec as { containers: Array<{ image: string }> }).containers[0].image = 'nginx:2';
    expect(updateErrors('pods', imageChange, old)).toEqual([]);
    const policyChange = structuredClone(old);
    (policyChange.spec as { restartPolicy: string }).restartPolicy = 'Never';
    const errors = updateErrors('pods', policyChange, old);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);
  });

  it('rejects changing a service clusterIP once set', () => {
    const old: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', resourceVersion: '2' }, spec: { clusterIP: '10.96.0.10', ports: [{ port: 80 }] } };
    kinds.services.defaults(old);
    const next: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', resourceVersion: '2' }, spec: { clusterIP: '10.96.0.11', ports: [{ port: 80 }] } };
    expect(updateErrors('services', next, old)).toEqual(['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set']);
  });

  it('lets an update omit the allocated clusterIP', () => {
    const old: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', resourceVersion: '2' }, spec: { clusterIP: '10.96.0.10', ports: [{ port: 80 }] } };
    kinds.services.defaults(old);
    const next: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', resourceVersion: '2' }, spec: { ports: [{ port: 81 }] } };
    expect(updateErrors('services', next, old)).toEqual([]);
  });
});
