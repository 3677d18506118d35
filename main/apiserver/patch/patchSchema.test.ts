import { describe, expect, it } from 'vitest';
import { emptyPatchSchema, hasPatchSchema, lookupPatchField, patchSchemaFor, type PatchSchema } from './patchSchema';

/** Follows a path of object fields (`.name`) and list items (`[]`) through the schema tree. */
function fieldAt(schema: PatchSchema, path: string) {
  const steps = path.split('.');
  let current = schema;
  for (const [index, step] of steps.entries()) {
    const isItems = step.endsWith('[]');
    const field = lookupPatchField(current, isItems ? step.slice(0, -2) : step);
    if (index === steps.length - 1) return field;
    const next = isItems ? field?.items : field?.schema;
    if (!next) return undefined;
    current = next;
  }
  return undefined;
}

describe('patchSchemaFor', () => {
  const cases: { kind: [string, string]; path: string; expected: object }[] = [
    { kind: ['v1', 'Pod'], path: 'spec.containers', expected: { strategy: 'merge', mergeKey: 'name' } },
    { kind: ['v1', 'Pod'], path: 'spec.containers[].env', expected: { strategy: 'merge', mergeKey: 'name' } },
    { kind: ['v1', 'Pod'], path: 'spec.containers[].ports', expected: { strategy: 'merge', mergeKey: 'containerPort' } },
    { kind: ['v1', 'Pod'], path: 'spec.containers[].volumeMounts', expected: { strategy: 'merge', mergeKey: 'mountPath' } },
    { kind: ['v1', 'Pod'], path: 'spec.containers[].volumeDevices', expected: { strategy: 'merge', mergeKey: 'devicePath' } },
    { kind: ['v1', 'Pod'], path: 'spec.initContainers[].env', expected: { strategy: 'merge', mergeKey: 'name' } },
    { kind: ['v1', 'Pod'], path: 'spec.ephemeralContainers[].env', expected: { strategy: 'merge', mergeKey: 'name' } },
    { kind: ['v1', 'Pod'], path: 'spec.volumes', expected: { strategy: 'merge', mergeKey: 'name', retainKeys: true } },
    { kind: ['v1', 'Pod'], path: 'spec.imagePullSecrets', expected: { strategy: 'merge', mergeKey: 'name' } },
    { kind: ['v1', 'Pod'], path: 'spec.hostAliases', expected: { strategy: 'merge', mergeKey: 'ip' } },
    { kind: ['v1', 'Pod'], path: 'spec.topologySpreadConstraints', expected: { strategy: 'merge', mergeKey: 'topologyKey' } },
    { kind: ['v1', 'Pod'], path: 'spec.resourceClaims', expected: { strategy: 'merge', mergeKey: 'name', retainKeys: true } },
    { kind: ['v1', 'Pod'], path: 'status.conditions', expected: { strategy: 'merge', mergeKey: 'type' } },
    { kind: ['v1', 'Pod'], path: 'metadata.finalizers', expected: { strategy: 'merge' } },
    { kind: ['v1', 'Pod'], path: 'metadata.ownerReferences', expected: { strategy: 'merge', mergeKey: 'uid' } },
    { kind: ['v1', 'Service'], path: 'spec.ports', expected: { strategy: 'merge', mergeKey: 'port' } },
    { kind: ['v1', 'Node'], path: 'status.addresses', expected: { strategy: 'merge', mergeKey: 'type' } },
    { kind: ['v1', 'Node'], path: 'status.conditions', expected: { strategy: 'merge', mergeKey: 'type' } },
    { kind: ['apps/v1', 'Deployment'], path: 'spec.strategy', expected: { retainKeys: true } },
    { kind: ['apps/v1', 'Deployment'], path: 'spec.template.spec.containers[].env', expected: { strategy: 'merge', mergeKey: 'name' } },
    { kind: ['apps/v1', 'StatefulSet'], path: 'spec.template.spec.containers', expected: { strategy: 'merge', mergeKey: 'name' } },
    { kind: ['apps/v1', 'DaemonSet'], path: 'spec.template.metadata.finalizers', expected: { strategy: 'merge' } },
    { kind: ['apps/v1', 'ReplicaSet'], path: 'status.conditions', expected: { strategy: 'merge', mergeKey: 'type' } },
    { kind: ['batch/v1', 'Job'], path: 'spec.template.spec.containers', expected: { strategy: 'merge', mergeKey: 'name' } },
    { kind: ['batch/v1', 'CronJob'], path: 'spec.jobTemplate.spec.template.spec.containers[].ports', expected: { strategy: 'merge', mergeKey: 'containerPort' } },
    { kind: ['policy/v1', 'PodDisruptionBudget'], path: 'spec.selector', expected: { strategy: 'replace' } },
  ];

  it.each(cases)('tags $kind.1 $path as upstream does', ({ kind, path, expected }) => {
    expect(fieldAt(patchSchemaFor(...kind), path)).toMatchObject(expected);
  });

  it.each(['spec.tolerations', 'spec.readinessGates', 'spec.containers[].envFrom', 'spec.containers[].args'])('leaves the untagged Pod list %s to be replaced', (path) => {
    expect(fieldAt(patchSchemaFor('v1', 'Pod'), path)?.strategy).toBeUndefined();
  });

  it('gives Endpoints subsets no strategy, as upstream has none', () => {
    expect(fieldAt(patchSchemaFor('v1', 'Endpoints'), 'subsets')).toBeUndefined();
    expect(fieldAt(patchSchemaFor('v1', 'Endpoints'), 'metadata.finalizers')).toMatchObject({ strategy: 'merge' });
  });

  it('returns the empty schema for custom resources', () => {
    expect(patchSchemaFor('example.com/v1', 'Widget')).toBe(emptyPatchSchema);
    expect(hasPatchSchema('example.com/v1', 'Widget')).toBe(false);
    expect(hasPatchSchema('apps/v1', 'Deployment')).toBe(true);
  });

  it('does not mistake inherited object properties for fields', () => {
    expect(lookupPatchField(patchSchemaFor('v1', 'Pod'), 'constructor')).toBeUndefined();
    expect(patchSchemaFor('v1', 'constructor')).toBe(emptyPatchSchema);
  });
});
