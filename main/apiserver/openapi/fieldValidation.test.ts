import { describe, expect, it } from 'vitest';
import { base64Error, decodeAgainstSchema, decodeErrorMessage, findTypeErrors, findUnknownFields, pruneUnknownFields, quantityError, QUANTITY_FORMAT_WRONG, strictDecodingMessage } from './fieldValidation';

function deployment(): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'default',
      labels: { app: 'web' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      creationTimestamp: '2025-01-01T00:00:00Z',
      managedFields: [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.27',
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              env: [{ name: 'A', value: 'b' }, { name: 'C', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: 0.25 } },
              readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
              securityContext: { runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
            },
          ],
          volumes: [{ name: 'cache', emptyDir: { sizeLimit: '1Gi' } }],
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 30 }],
        },
      },
    },
    status: { replicas: 2, conditions: [{ type: 'Available', status: 'True', lastUpdateTime: '2025-01-01T00:00:00Z' }] },
  };
}

describe('findUnknownFields', () => {
  it('finds nothing in a valid, fully populated Deployment', () => {
    expect(findUnknownFields(deployment(), 'apps/v1', 'Deployment')).toEqual([]);
  });

  it.each([
    ['the top level', (d: Record<string, unknown>) => { d.extra = 1; }, ['unknown field "extra"']],
    ['metadata', (d: Record<string, unknown>) => { (d.metadata as Record<string, unknown>).nmae = 'x'; }, ['unknown field "metadata.nmae"']],
    ['spec', (d: Record<string, unknown>) => { const spec = d.spec as Record<string, unknown>; spec.foo = 1; spec.bar = 2; }, ['unknown field "spec.foo"', 'unknown field "spec.bar"']],
    ['a list item', (d: Record<string, unknown>) => { containerOf(d).foo = true; }, ['unknown field "spec.template.spec.containers[0].foo"']],
    ['a nested list item', (d: Record<string, unknown>) => { ((containerOf(d).ports as Record<string, unknown>[])[0]).hostname = 'x'; }, ['unknown field "spec.template.spec.containers[0].ports[0].hostname"']],
    ['a field with the wrong case', (d: Record<string, unknown>) => { (d.spec as Record<string, unknown>).Replicas = 3; }, ['unknown field "spec.Replicas"']],
  ])('reports an unknown field in %s with its full path', (_where, mutate, expected) => {
    const object = deployment();
    mutate(object);
    expect(findUnknownFields(object, 'apps/v1', 'Deployment')).toEqual(expected);
  });

  it('treats map keys, FieldsV1 and RawExtension content as free-form', () => {
    const revision = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r', labels: { anything: 'goes' } }, revision: 1, data: { spec: { whatever: { deep: true } } } };
    expect(findUnknownFields(revision, 'apps/v1', 'ControllerRevision')).toEqual([]);
  });

  it('checks core kinds and tells core and events.k8s.io Events apart', () => {
    expect(findUnknownFields({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' }, binaryData: {}, immutable: false }, 'v1', 'ConfigMap')).toEqual([]);
    expect(findUnknownFields({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, datas: {} }, 'v1', 'ConfigMap')).toEqual(['unknown field "datas"']);
    expect(findUnknownFields({ involvedObject: {}, note: 'x' }, 'v1', 'Event')).toEqual(['unknown field "note"']);
    expect(findUnknownFields({ regarding: {}, note: 'x' }, 'events.k8s.io/v1', 'Event')).toEqual([]);
  });

  it('descends into a CRD openAPIV3Schema only as far as the JSONSchemaProps fields go', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'crontabs.stable.example.com' },
      spec: {
        group: 'stable.example.com',
        names: { plural: 'crontabs', kind: 'CronTab' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, default: { a: 1 } } } } } }],
      },
    };
    expect(findUnknownFields(crd, 'apiextensions.k8s.io/v1', 'CustomResourceDefinition')).toEqual([]);
    const typo = structuredClone(crd);
    (typo.spec.versions[0].schema.openAPIV3Schema.properties.spec as Record<string, unknown>).typ = 'object';
    expect(findUnknownFields(typo, 'apiextensions.k8s.io/v1', 'CustomResourceDefinition')).toEqual(['unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.typ"']);
  });

  it('returns nothing for kinds without a built-in schema', () => {
    expect(findUnknownFields({ spec: { anything: 1 } }, 'stable.example.com/v1', 'CronTab')).toEqual([]);
    expect(findUnknownFields({ spec: { anything: 1 } }, 'apps/v2', 'Deployment')).toEqual([]);
  });
});

function containerOf(object: Record<string, unknown>): Record<string, unknown> {
  const template = (object.spec as Record<string, unknown>).template as Record<string, unknown>;
  return ((template.spec as Record<string, unknown>).containers as Record<string, unknown>[])[0];
}

describe('findTypeErrors', () => {
  it('finds nothing in a valid, fully populated Deployment', () => {
    expect(findTypeErrors(deployment(), 'apps/v1', 'Deployment')).toEqual([]);
  });

  it.each([
    ['a string for an int32', (d: Record<string, unknown>) => { (d.spec as Record<string, unknown>).replicas = '3'; }, 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['a fraction for an int32', (d: Record<string, unknown>) => { (d.spec as Record<string, unknown>).replicas = 1.5; }, 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['a number for a string in a list item', (d: Record<string, unknown>) => { containerOf(d).image = 5; }, 'json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string'],
    ['an object for a list', (d: Record<string, unknown>) => { ((d.spec as Record<string, unknown>).template as { spec: Record<string, unknown> }).spec.containers = { name: 'x' }; }, 'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container'],
    ['a string for a struct', (d: Record<string, unknown>) => { (d.spec as Record<string, unknown>).strategy = 'Recreate'; }, 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.strategy of type v1.DeploymentStrategy'],
    ['a number for a label value', (d: Record<string, unknown>) => { (d.metadata as { labels: Record<string, unknown> }).labels.tier = 1; }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
    ['a bool for an IntOrString', (d: Record<string, unknown>) => { containerOf(d).readinessProbe = { httpGet: { port: true } }; }, 'json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.template.spec.containers.readinessProbe.httpGet.port of type int32'],
    ['a number for a timestamp', (d: Record<string, unknown>) => { (d.metadata as Record<string, unknown>).creationTimestamp = 5; }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string'],
    ['an unparsable quantity', (d: Record<string, unknown>) => { containerOf(d).resources = { limits: { memory: '12 parsecs' } }; }, QUANTITY_FORMAT_WRONG],
    ['an array for a bool', (d: Record<string, unknown>) => { (d.spec as Record<string, unknown>).paused = []; }, 'json: cannot unmarshal array into Go struct field DeploymentSpec.spec.paused of type bool'],
    ['a string for the spec', (d: Record<string, unknown>) => { d.spec = 'x'; }, 'json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec'],
  ])('reports %s as the Go decoder words it', (_what, mutate, expected) => {
    const object = deployment();
    mutate(object);
    expect(findTypeErrors(object, 'apps/v1', 'Deployment')).toEqual([expected]);
  });

  it('accepts numbers and strings for quantities and IntOrStrings, and null anywhere', () => {
    const object = deployment();
    containerOf(object).resources = { limits: { cpu: 2, memory: null }, requests: { cpu: '1e3', memory: '1.5Gi' } };
    (object.spec as Record<string, unknown>).replicas = null;
    expect(findTypeErrors(object, 'apps/v1', 'Deployment')).toEqual([]);
  });

  it('reports Secret data that is not base64 as the base64 decoder does', () => {
    const secret = (data: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data });
    expect(findTypeErrors(secret({ a: 'aGVsbG8=', b: 'aGk=' }), 'v1', 'Secret')).toEqual([]);
    expect(findTypeErrors(secret({ a: 'not base64!' }), 'v1', 'Secret')).toEqual(['illegal base64 data at input byte 3']);
    expect(findTypeErrors(secret({ a: 7 }), 'v1', 'Secret')).toEqual(['json: cannot unmarshal number into Go struct field Secret.data of type []uint8']);
  });

  it('returns nothing for kinds without a built-in schema or bodies that are not objects', () => {
    expect(findTypeErrors({ spec: 1 }, 'stable.example.com/v1', 'CronTab')).toEqual([]);
    expect(findTypeErrors('text', 'apps/v1', 'Deployment')).toEqual([]);
  });
});

describe('decodeAgainstSchema', () => {
  it('reports and drops unknown fields in the one walk, as the separate walks would', () => {
    const object = deployment();
    (object.spec as Record<string, unknown>).foo = 1;
    containerOf(object).bar = { deep: true };
    const separate = structuredClone(object);
    const expectedUnknown = findUnknownFields(separate, 'apps/v1', 'Deployment');
    pruneUnknownFields(separate, 'apps/v1', 'Deployment');

    const decoded = decodeAgainstSchema(object, 'apps/v1', 'Deployment', true);
    // document order: spec.template comes before the field added last
    expect(decoded).toEqual({ unknownFields: ['unknown field "spec.template.spec.containers[0].bar"', 'unknown field "spec.foo"'] });
    expect(decoded.unknownFields).toEqual(expectedUnknown);
    expect(object).toEqual(separate);
  });

  it('reports only the first type error, which wins over unknown fields', () => {
    const object = deployment();
    (object.spec as Record<string, unknown>).foo = 1;
    (object.spec as Record<string, unknown>).replicas = '3';
    containerOf(object).image = 5;
    expect(decodeAgainstSchema(object, 'apps/v1', 'Deployment', true)).toEqual({
      typeError: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      unknownFields: [],
    });
  });

  it('drops unknown fields without reporting them when field validation is Ignore', () => {
    const object = deployment();
    (object.metadata as Record<string, unknown>).nmae = 'x';
    expect(decodeAgainstSchema(object, 'apps/v1', 'Deployment', false)).toEqual({ unknownFields: [] });
    expect(object.metadata).not.toHaveProperty('nmae');
  });

  it('keeps at most 100 unknown fields, as sigs.k8s.io/json does, and still drops them all', () => {
    const object: Record<string, unknown> = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    for (let index = 0; index < 150; index++) object[`extra${index}`] = index;
    const decoded = decodeAgainstSchema(object, 'v1', 'ConfigMap', true);
    expect(decoded.unknownFields).toHaveLength(100);
    expect(decoded.unknownFields[0]).toBe('unknown field "extra0"');
    expect(Object.keys(object)).toEqual(['apiVersion', 'kind', 'metadata']);
  });

  it('finds nothing for kinds without a built-in schema and leaves them as they are', () => {
    const object = { spec: { anything: 1 } };
    expect(decodeAgainstSchema(object, 'stable.example.com/v1', 'CronTab', true)).toEqual({ unknownFields: [] });
    expect(object).toEqual({ spec: { anything: 1 } });
  });
});

describe('custom decoders', () => {
  it.each([
    ['100m', undefined],
    ['1.5Gi', undefined],
    ['+3e-2', undefined],
    ['.5', undefined],
    ['', QUANTITY_FORMAT_WRONG],
    ['1 Gi', QUANTITY_FORMAT_WRONG],
    ['1Gb', QUANTITY_FORMAT_WRONG],
    ['1Gi2', "unable to parse quantity's suffix"],
    ['1.2.3', 'unable to parse numeric part of quantity'],
  ])('parses quantity %j like resource.ParseQuantity', (text, expected) => {
    expect(quantityError(text)).toBe(expected);
  });

  it.each([
    ['', undefined],
    ['aGVsbG8=', undefined],
    ['aGVs\nbG8=', undefined],
    ['aGVsbA==', undefined],
    ['aGVsbG8', 'illegal base64 data at input byte 4'],
    ['aG=s', 'illegal base64 data at input byte 2'],
    ['aGVsbA=', 'illegal base64 data at input byte 7'],
    ['aGVsbG8=x', 'illegal base64 data at input byte 8'],
    ['a', 'illegal base64 data at input byte 0'],
  ])('decodes %j like base64.StdEncoding', (text, expected) => {
    expect(base64Error(text)).toBe(expected);
  });
});

describe('status messages', () => {
  it('joins unknown fields after the strict decoding prefix', () => {
    expect(strictDecodingMessage(['unknown field "spec.foo"', 'unknown field "spec.bar"'])).toBe('strict decoding error: unknown field "spec.foo", unknown field "spec.bar"');
  });

  it('wraps decode failures as transformDecodeError does', () => {
    expect(decodeErrorMessage('apps/v1', 'Deployment', 'Deployment', 'strict decoding error: unknown field "spec.foo"')).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"',
    );
  });
});
