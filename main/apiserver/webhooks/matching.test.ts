import { describe, expect, it } from 'vitest';
import { builtinResources } from '../../registry/resources';
import type { KindStrategy } from '../../registry/strategy';
import { isExemptResource, namespaceSelectorMatches, objectSelectorMatches, ruleMatches, type AdmissionAttributes } from './matching';

const defs = builtinResources();
const def = (group: string, resource: string): KindStrategy => {
  const found = defs.find((candidate) => candidate.group === group && candidate.resource === resource);
  if (!found) throw new Error(`no ${resource}`);
  return found;
};
const pods = def('', 'pods');
const namespaces = def('', 'namespaces');
const nodes = def('', 'nodes');
const rule = (resources: string[], extra: Record<string, unknown> = {}) => ({ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources, ...extra });

describe('ruleMatches', () => {
  const cases: Array<[string, unknown, Partial<AdmissionAttributes>, boolean]> = [
    ['a resource by name', rule(['pods']), {}, true],
    ['not its subresources', rule(['pods']), { subresource: 'status' }, false],
    ['a named subresource', rule(['pods/status']), { subresource: 'status' }, true],
    ['all subresources of a resource, and the resource itself', rule(['pods/*']), { subresource: '' }, true],
    ['a subresource of every resource', rule(['*/status']), { subresource: 'status' }, true],
    ['every resource and subresource', rule(['*/*']), { subresource: 'log' }, true],
    ['only listed operations', rule(['pods']), { operation: 'UPDATE' }, false],
    ['any operation with *', rule(['pods'], { operations: ['*'] }), { operation: 'DELETE' }, true],
    ['only listed groups', rule(['pods'], { apiGroups: ['apps'] }), {}, false],
    ['only listed versions', rule(['pods'], { apiVersions: ['v2'] }), {}, false],
    ['Namespaced scope for namespaced objects', rule(['pods'], { scope: 'Namespaced' }), {}, true],
    ['Cluster scope not for namespaced objects', rule(['pods'], { scope: 'Cluster' }), {}, false],
    ['Cluster scope for Namespace objects', rule(['namespaces'], { scope: 'Cluster' }), { def: namespaces, namespace: 'web' }, true],
    ['Namespaced scope not for Namespace objects', rule(['namespaces'], { scope: 'Namespaced' }), { def: namespaces, namespace: 'web' }, false],
    ['Cluster scope for cluster-scoped objects', rule(['nodes'], { scope: 'Cluster' }), { def: nodes, namespace: '' }, true],
  ];
  it.each(cases)('matches %s', (_name, candidate, overrides, expected) => {
    expect(ruleMatches(candidate, { operation: 'CREATE', def: pods, namespace: 'default', subresource: '', ...overrides })).toBe(expected);
  });
});

describe('selectors', () => {
  const attributes = (extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({ operation: 'CREATE', def: pods, namespace: 'default', name: 'p', subresource: '', dryRun: false, ...extra });
  const labelled = (labels: Record<string, string>) => ({ metadata: { name: 'p', labels } });

  it('reads the namespace labels, and passes cluster-scoped requests', () => {
    const selector = { matchLabels: { team: 'a' } };
    expect(namespaceSelectorMatches(selector, attributes(), () => ({ team: 'a' }))).toBe(true);
    expect(namespaceSelectorMatches(selector, attributes(), () => ({ team: 'b' }))).toBe(false);
    expect(namespaceSelectorMatches(selector, attributes({ def: nodes, namespace: '' }), () => undefined)).toBe(true);
    expect(namespaceSelectorMatches(selector, attributes({ def: namespaces, namespace: 'x', object: labelled({ team: 'a' }) }), () => undefined)).toBe(true);
  });

  it('matches the object selector against the new or the old object', () => {
    const selector = { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] };
    expect(objectSelectorMatches(selector, attributes({ object: labelled({ tier: 'web' }) }))).toBe(true);
    expect(objectSelectorMatches(selector, attributes({ object: labelled({}), oldObject: labelled({ tier: 'web' }) }))).toBe(true);
    expect(objectSelectorMatches(selector, attributes({ object: labelled({ tier: 'db' }) }))).toBe(false);
    expect(objectSelectorMatches({}, attributes())).toBe(true);
  });

  it('exempts the admission configuration kinds themselves', () => {
    expect(isExemptResource({ group: 'admissionregistration.k8s.io', resource: 'validatingwebhookconfigurations' })).toBe(true);
    expect(isExemptResource(pods)).toBe(false);
  });
});
