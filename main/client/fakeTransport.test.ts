import { describe, expect, it } from 'vitest';
import { applyMergePatch, matchesFieldSelector, matchesLabelSelector, parseResourcePath } from './fakeTransport';

describe('fake transport helpers', () => {
  it.each([
    ['/api/v1/namespaces/a/pods/p/status', { group: '', version: 'v1', resource: 'pods', namespace: 'a', name: 'p', subresource: 'status' }],
    ['/api/v1/namespaces/a', { group: '', version: 'v1', resource: 'namespaces', name: 'a' }],
    ['/api/v1/namespaces/a/finalize', { group: '', version: 'v1', resource: 'namespaces', name: 'a', subresource: 'finalize' }],
    ['/apis/apps/v1/deployments', { group: 'apps', version: 'v1', resource: 'deployments' }],
    ['/api/v1/nodes/n%201', { group: '', version: 'v1', resource: 'nodes', name: 'n 1' }],
  ])('parses %s', (path, expected) => {
    expect(parseResourcePath(path)).toMatchObject(expected);
  });

  it.each([
    ['', {}, true],
    ['app=web', { app: 'web' }, true],
    ['app==web,tier!=db', { app: 'web', tier: 'front' }, true],
    ['app!=web', {}, true],
    ['app', { app: '' }, true],
    ['!app', { app: 'x' }, false],
    ['env in (a, b),app notin (x)', { env: 'b', app: 'y' }, true],
    ['env in (a,b)', { env: 'c' }, false],
  ])('matches label selector %j against %j: %s', (selector, labels, expected) => {
    expect(matchesLabelSelector(selector, labels)).toBe(expected);
  });

  it.each([
    ['metadata.name=a', true],
    ['spec.nodeName=n1,metadata.namespace!=x', true],
    ['spec.nodeName=', false],
    ['status.phase=Running', false],
  ])('matches field selector %j: %s', (selector, expected) => {
    expect(matchesFieldSelector(selector, { metadata: { name: 'a', namespace: 'ns' }, spec: { nodeName: 'n1' } })).toBe(expected);
  });

  it('applies a JSON merge patch, removing fields set to null', () => {
    expect(applyMergePatch({ a: { b: 1, c: 2 }, d: [1] }, { a: { b: null, e: 3 }, d: [2] })).toEqual({ a: { c: 2, e: 3 }, d: [2] });
  });
});
