// Ephemeral containers: validateEphemeralContainers (inside ValidatePodSpec), ValidatePodCreate's
// refusal of them, and ValidatePodEphemeralContainersUpdate with podEphemeralContainersStrategy, as
// pkg/apis/core/validation/validation.go and pkg/registry/core/pod/strategy.go have them: the same
// field paths and messages.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { FieldError } from '../fieldErrors';
import { podStrategy } from '../kinds/core/pod';
import { subresourceOf, type UpdateSubresource } from '../strategy';
import { validatePodTemplateSpec } from './podSpec';

const ephemeral = subresourceOf(podStrategy, 'ephemeralcontainers') as UpdateSubresource;

function render(error: FieldError): string {
  return `${error.field}: ${error.detail}`;
}

function storedPod(ephemeralContainers?: Record<string, unknown>[], extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: '0b1c2d3e-0000-4000-8000-000000000001', resourceVersion: '5', generation: 1, labels: { app: 'web' }, ...extra },
    spec: {
      containers: [{ name: 'app', image: 'busybox' }],
      initContainers: [{ name: 'setup', image: 'busybox' }],
      volumes: [{ name: 'data', emptyDir: {} }],
      nodeName: 'node-a',
      ...(ephemeralContainers ? { ephemeralContainers } : {}),
    },
    status: { phase: 'Running' },
  };
  podStrategy.defaults(pod);
  return pod;
}

/** A write through pods/ephemeralcontainers as the generic store runs it: the subresource's strategy, defaults, its validation. */
function ephemeralUpdate(old: KubeObject, ephemeralContainers: unknown): { pod: KubeObject; errors: string[] } {
  const next = structuredClone(old);
  (next.spec as Record<string, unknown>).ephemeralContainers = ephemeralContainers;
  ephemeral.prepareForUpdate(next, old);
  podStrategy.defaults(next);
  return { pod: next, errors: (ephemeral.validateUpdate?.(next, old) ?? []).map(render) };
}

const debuggerContainer = { name: 'debugger', image: 'busybox', terminationMessagePolicy: 'File', resources: {} };

describe('ephemeral containers through pods/ephemeralcontainers', () => {
  const cases: Array<{ name: string; containers: Record<string, unknown>[]; expected: string[] }> = [
    { name: 'a debugger as kubectl debug sends it', containers: [debuggerContainer], expected: [] },
    { name: 'a debugger targeting the app container', containers: [{ ...debuggerContainer, targetContainerName: 'app' }], expected: [] },
    { name: 'a debugger targeting an init container', containers: [{ ...debuggerContainer, targetContainerName: 'setup' }], expected: [] },
    {
      name: 'a target that is not a container of the pod',
      containers: [{ ...debuggerContainer, targetContainerName: 'nope' }],
      expected: ['spec.ephemeralContainers[0].targetContainerName: Not found: "nope"'],
    },
    {
      name: 'a target that is itself ephemeral',
      containers: [debuggerContainer, { ...debuggerContainer, name: 'second', targetContainerName: 'debugger' }],
      expected: ['spec.ephemeralContainers[1].targetContainerName: Not found: "debugger"'],
    },
    { name: 'a name a regular container has', containers: [{ ...debuggerContainer, name: 'app' }], expected: ['spec.ephemeralContainers[0].name: Duplicate value: "app"'] },
    { name: 'a name an init container has', containers: [{ ...debuggerContainer, name: 'setup' }], expected: ['spec.ephemeralContainers[0].name: Duplicate value: "setup"'] },
    { name: 'two ephemeral containers of one name', containers: [debuggerContainer, debuggerContainer], expected: ['spec.ephemeralContainers[1].name: Duplicate value: "debugger"'] },
    { name: 'ports', containers: [{ ...debuggerContainer, ports: [{ containerPort: 80 }] }], expected: ['spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container'] },
    { name: 'an empty list of ports (set, as in Go)', containers: [{ ...debuggerContainer, ports: [] }], expected: ['spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container'] },
    {
      name: 'resources',
      containers: [{ ...debuggerContainer, resources: { limits: { cpu: '1' } } }],
      expected: ['spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container'],
    },
    {
      name: 'probes and lifecycle, in the struct order',
      containers: [{ ...debuggerContainer, lifecycle: { preStop: { exec: { command: ['true'] } } }, startupProbe: { exec: { command: ['true'] } }, livenessProbe: { exec: { command: ['true'] } }, readinessProbe: { tcpSocket: { port: 80 } } }],
      expected: [
        'spec.ephemeralContainers[0].livenessProbe: Forbidden: cannot be set for an Ephemeral Container',
        'spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container',
        'spec.ephemeralContainers[0].startupProbe: Forbidden: cannot be set for an Ephemeral Container',
        'spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container',
      ],
    },
    { name: 'a restart policy', containers: [{ ...debuggerContainer, restartPolicy: 'Always' }], expected: ['spec.ephemeralContainers[0].restartPolicy: Forbidden: cannot be set for an Ephemeral Container'] },
    {
      name: 'a subPath mount',
      containers: [{ ...debuggerContainer, volumeMounts: [{ name: 'data', mountPath: '/data', subPath: 'x' }] }],
      expected: ['spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container'],
    },
    { name: 'a mount of the pod volume', containers: [{ ...debuggerContainer, volumeMounts: [{ name: 'data', mountPath: '/data' }] }], expected: [] },
    { name: 'a mount of a volume the pod lacks', containers: [{ ...debuggerContainer, volumeMounts: [{ name: 'other', mountPath: '/o' }] }], expected: ['spec.ephemeralContainers[0].volumeMounts[0].name: Not found: "other"'] },
    { name: 'no image', containers: [{ name: 'debugger' }], expected: ['spec.ephemeralContainers[0].image: Required value'] },
    {
      name: 'an image with spaces around it',
      containers: [{ ...debuggerContainer, image: ' busybox ' }],
      expected: ['spec.ephemeralContainers[0].image: Invalid value: " busybox ": must not have leading or trailing whitespace'],
    },
    {
      name: 'a name that is no DNS label',
      containers: [{ ...debuggerContainer, name: 'Debugger' }],
      expected: [`spec.ephemeralContainers[0].name: Invalid value: "Debugger": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`],
    },
    { name: 'privileged with capabilities (what the sysadmin and netadmin profiles set)', containers: [{ ...debuggerContainer, securityContext: { privileged: true, capabilities: { add: ['NET_ADMIN', 'NET_RAW', 'SYS_PTRACE'] } } }], expected: [] },
  ];

  it.each(cases)('$name', ({ containers, expected }) => {
    expect(ephemeralUpdate(storedPod(), containers).errors).toEqual(expected);
  });

  it('refuses removing an ephemeral container', () => {
    const old = storedPod([{ ...debuggerContainer, name: 'one' }, { ...debuggerContainer, name: 'two' }]);
    expect(ephemeralUpdate(old, [{ ...debuggerContainer, name: 'two' }]).errors).toEqual(['spec.ephemeralContainers: Forbidden: existing ephemeral containers "one" may not be removed\n']);
    expect(ephemeralUpdate(old, null).errors).toEqual([
      'spec.ephemeralContainers: Forbidden: existing ephemeral containers "one" may not be removed\n',
      'spec.ephemeralContainers: Forbidden: existing ephemeral containers "two" may not be removed\n',
    ]);
  });

  it('refuses changing an ephemeral container, naming what changed', () => {
    const old = storedPod([debuggerContainer]);
    const [error] = ephemeralUpdate(old, [{ ...debuggerContainer, image: 'busybox:2' }]).errors;
    expect(error).toMatch(/^spec\.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be changed\n {2}core\.EphemeralContainer\{\n-\timage: "busybox"\n\+\timage: "busybox:2"\n {2}\}\n$/);
  });

  it('accepts the existing containers in another order with a new one added', () => {
    const old = storedPod([{ ...debuggerContainer, name: 'one' }, { ...debuggerContainer, name: 'two' }]);
    const { errors, pod } = ephemeralUpdate(old, [{ ...debuggerContainer, name: 'three' }, ...((old.spec as { ephemeralContainers: unknown[] }).ephemeralContainers.slice().reverse())]);
    expect(errors).toEqual([]);
    expect(pod.metadata.generation).toBe(2);
  });

  it('refuses ephemeral containers on a static pod', () => {
    const old = storedPod(undefined, { annotations: { 'kubernetes.io/config.mirror': 'x' } });
    expect(ephemeralUpdate(old, [debuggerContainer]).errors).toEqual([': Forbidden: static pods do not support ephemeral containers']);
  });

  it('keeps everything but the ephemeral containers from the stored pod', () => {
    const old = storedPod();
    const next = structuredClone(old);
    next.metadata.labels = {};
    next.metadata.annotations = { added: 'yes' };
    next.spec = { ...(next.spec as Record<string, unknown>), containers: [{ name: 'app', image: 'other' }], ephemeralContainers: [debuggerContainer] };
    next.status = { phase: 'Failed' };
    ephemeral.prepareForUpdate(next, old);
    const spec = next.spec as { containers: Array<{ image: string }>; ephemeralContainers: unknown[] };
    expect(spec.containers[0].image).toBe('busybox');
    expect(spec.ephemeralContainers).toEqual([debuggerContainer]);
    expect(next.status).toEqual({ phase: 'Running' });
    expect(next.metadata.labels).toEqual({ app: 'web' });
    expect(next.metadata.annotations).toBeUndefined();
    expect(next.metadata.generation).toBe(2);
  });

  it('leaves the generation alone when the ephemeral containers do not change', () => {
    const old = storedPod([debuggerContainer]);
    expect(ephemeralUpdate(old, structuredClone((old.spec as { ephemeralContainers: unknown }).ephemeralContainers)).pod.metadata.generation).toBe(1);
  });
});

describe('ephemeral containers elsewhere', () => {
  it('refuses them when a pod is created', () => {
    const pod = storedPod([debuggerContainer]);
    expect(podStrategy.validateCreateOnly?.(pod).map(render)).toEqual(['spec.ephemeralContainers: Forbidden: cannot be set on create']);
    expect(podStrategy.validateCreate(pod)).toEqual([]);
  });

  it('refuses adding or changing them through a plain pod update', () => {
    const old = storedPod();
    const next = structuredClone(old);
    (next.spec as Record<string, unknown>).ephemeralContainers = [debuggerContainer];
    podStrategy.defaults(next);
    const [error] = podStrategy.validateUpdate(next, old).map(render);
    expect(error).toMatch(/^spec: Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`/);
    expect(error).toContain('ephemeralContainers');
  });

  it('accepts other pod updates of a pod that has them', () => {
    const old = storedPod([debuggerContainer]);
    const next = structuredClone(old);
    next.metadata.labels = { app: 'other' };
    expect([...podStrategy.validateCreate(next), ...podStrategy.validateUpdate(next, old)]).toEqual([]);
  });

  it('validates them in pod templates too, which refuse them', () => {
    const template = { metadata: {}, spec: { ...(storedPod().spec as Record<string, unknown>), ephemeralContainers: [{ ...debuggerContainer, ports: [{ containerPort: 80, protocol: 'TCP' }] }] } };
    expect(validatePodTemplateSpec(template, 'template').map(render)).toEqual([
      'template.spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
      'template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
    ]);
  });
});
