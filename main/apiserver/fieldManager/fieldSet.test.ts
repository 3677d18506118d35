import { describe, expect, it } from 'vitest';
import { decodeFieldsV1, encodeFieldsV1, FieldSet, pathString } from './fieldSet';

// As a real API server encodes a Deployment created by `kubectl apply` (client-side).
const upstreamDeployment = {
  'f:metadata': {
    'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
    'f:labels': { '.': {}, 'f:app': {} },
  },
  'f:spec': {
    'f:progressDeadlineSeconds': {},
    'f:replicas': {},
    'f:selector': {},
    'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
    'f:template': {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"nginx"}': {
            '.': {},
            'f:image': {},
            'f:name': {},
            'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
          },
        },
        'f:restartPolicy': {},
      },
    },
  },
};

const upstreamFinalizers = { 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"example.com/a"': {}, 'v:"example.com/b"': {} } } };

describe('FieldsV1', () => {
  it.each([
    ['a Deployment', upstreamDeployment],
    ['a set of finalizers', upstreamFinalizers],
    ['list indexes', { 'f:spec': { 'f:items': { 'i:0': {}, 'i:2': { '.': {}, 'f:x': {} } } } }],
    ['an empty set', {}],
  ])('round-trips %s exactly as upstream encodes it', (_name, fields) => {
    expect(JSON.stringify(encodeFieldsV1(decodeFieldsV1(fields)))).toBe(JSON.stringify(fields));
  });

  it('canonicalises key elements whatever order the fields came in', () => {
    const set = decodeFieldsV1({ 'k:{"protocol":"TCP","containerPort":80}': {} });
    expect(set.has(['k:{"containerPort":80,"protocol":"TCP"}'])).toBe(true);
  });

  it('sorts elements as upstream does: fields, then keys, then values, then indexes', () => {
    const set = FieldSet.of(['i:1'], ['v:"b"'], ['k:{"name":"b"}'], ['f:z'], ['k:{"name":"a"}'], ['f:a']);
    expect(Object.keys(encodeFieldsV1(set))).toEqual(['f:a', 'f:z', 'k:{"name":"a"}', 'k:{"name":"b"}', 'v:"b"', 'i:1']);
  });

  it.each([
    ['an unknown element type', { 'x:foo': {} }],
    ['a non-object node', { 'f:spec': 'yes' }],
    ['a malformed key', { 'k:{not json': {} }],
  ])('refuses %s', (_name, fields) => {
    expect(() => decodeFieldsV1(fields)).toThrow();
  });
});

describe('field set operations', () => {
  const a = FieldSet.of(['f:spec', 'f:replicas'], ['f:spec', 'f:paused'], ['f:metadata', 'f:labels', 'f:app']);
  const b = FieldSet.of(['f:spec', 'f:replicas'], ['f:data', 'f:x']);

  it('unions, intersects and subtracts exact paths', () => {
    expect(a.union(b).paths().map(pathString)).toEqual(['.data.x', '.metadata.labels.app', '.spec.paused', '.spec.replicas']);
    expect(a.intersection(b).paths().map(pathString)).toEqual(['.spec.replicas']);
    expect(a.difference(b).paths().map(pathString)).toEqual(['.metadata.labels.app', '.spec.paused']);
  });

  it('removes whole subtrees with a recursive difference', () => {
    expect(a.recursiveDifference(FieldSet.of(['f:spec'])).paths().map(pathString)).toEqual(['.metadata.labels.app']);
  });

  it('prints paths as conflict messages show them', () => {
    expect(pathString(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:image'])).toBe('.spec.template.spec.containers[name="nginx"].image');
    expect(pathString(['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'])).toBe('.ports[containerPort=80,protocol="TCP"]');
    expect(pathString(['f:metadata', 'f:finalizers', 'v:"a"'])).toBe('.metadata.finalizers[="a"]');
  });
});
