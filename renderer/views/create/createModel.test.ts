import { describe, expect, it } from 'vitest';
import { builtinKinds } from '../../kinds';
import { defaultNamespaceOf, lineAt, planApply, planLabel, splitDocuments, STARTER_YAML } from './createModel';

describe('splitting a YAML stream', () => {
  it('returns each non-empty document with the line it starts on', () => {
    const text = '---\na: 1\n---\n# only a comment\n---\nb: 2\nc: 3\n';
    const documents = splitDocuments(text);
    expect(documents.map((document) => [document.index, document.line, document.object])).toEqual([
      [1, 2, { a: 1 }],
      [2, 6, { b: 2, c: 3 }],
    ]);
  });

  it('reports parse errors with line numbers in the whole text', () => {
    const documents = splitDocuments('a: 1\n---\nb: [\n');
    expect(documents).toHaveLength(2);
    expect(documents[1].object).toBeUndefined();
    expect(documents[1].problems[0].line).toBeGreaterThanOrEqual(3);
  });

  it('refuses documents that are not mappings', () => {
    const [document] = splitDocuments('- a\n- b\n');
    expect(document.problems[0].message).toMatch(/not a mapping/);
  });

  it('parses the starter example into a Deployment and a Service', () => {
    expect(splitDocuments(STARTER_YAML).map((document) => document.object?.kind)).toEqual(['Deployment', 'Service']);
  });

  it('counts lines from offsets', () => {
    expect(lineAt('a\nb\nc', 4)).toBe(3);
  });
});

describe('planning the server-side apply of a document', () => {
  it.each([
    ['a namespaced object without a namespace', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }, '/apis/apps/v1/namespaces/team/deployments/web', 'team'],
    ['a namespaced object with its own namespace', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'other' } }, '/api/v1/namespaces/other/configmaps/c', 'other'],
    ['a cluster-scoped object', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } }, '/api/v1/namespaces/fresh', undefined],
  ])('maps %s to its path', (_name, object, path, namespace) => {
    const result = planApply(object, builtinKinds, 'team');
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.plan.path).toBe(path);
      expect(result.plan.namespace).toBe(namespace);
      if (namespace) expect(result.plan.body.metadata).toMatchObject({ namespace });
    }
  });

  it.each([
    ['no apiVersion', { kind: 'Pod', metadata: { name: 'p' } }, /apiVersion not set/],
    ['no kind', { apiVersion: 'v1', metadata: { name: 'p' } }, /kind not set/],
    ['no name', { apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'p-' } }, /metadata.name is required/],
    ['an unknown kind', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }, /no matches for kind "Widget" in version "example.com\/v1"/],
    ['an unserved version', { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'w' } }, /no matches for kind "Deployment" in version "apps\/v1beta1"/],
  ])('explains a document with %s', (_name, object, message) => {
    const result = planApply(object, builtinKinds, 'default');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it('labels results as kubectl does', () => {
    const deployment = planApply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }, builtinKinds, 'default');
    const service = planApply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' } }, builtinKinds, 'default');
    expect(deployment.ok && planLabel(deployment.plan)).toBe('deployment.apps/web');
    expect(service.ok && planLabel(service.plan)).toBe('service/web');
  });

  it.each([
    [[], 'default'],
    [['team'], 'team'],
    [['a', 'b'], 'default'],
  ])('defaults the namespace from the selection %j to %s', (selected, expected) => {
    expect(defaultNamespaceOf(selected)).toBe(expected);
  });
});
