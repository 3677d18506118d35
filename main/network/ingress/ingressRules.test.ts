import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { buildRoutingTable, buildTlsTable, hostMatches, isHandledIngress, normalizeHost, pathMatches, route, selectTls, type PathType } from './ingressRules';

interface PathSpec {
  path?: string;
  pathType?: PathType;
  service: string;
  port?: number | string;
}

function ingress(name: string, options: { rules?: { host?: string; paths: PathSpec[] }[]; defaultBackend?: string; created?: string; namespace?: string; className?: string; annotations?: Record<string, string>; tls?: { hosts?: string[]; secretName: string }[] } = {}): KubeObject {
  const backend = (service: string, port: number | string = 80) => ({ service: { name: service, port: typeof port === 'number' ? { number: port } : { name: port } } });
  const spec: Record<string, unknown> = {
    rules: (options.rules ?? []).map((rule) => ({
      ...(rule.host === undefined ? {} : { host: rule.host }),
      http: { paths: rule.paths.map((path) => ({ path: path.path ?? '/', pathType: path.pathType ?? 'Prefix', backend: backend(path.service, path.port) })) },
    })),
  };
  if (options.defaultBackend) spec.defaultBackend = backend(options.defaultBackend);
  if (options.className) spec.ingressClassName = options.className;
  if (options.tls) spec.tls = options.tls;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: options.namespace ?? 'default', creationTimestamp: options.created ?? '2026-01-01T00:00:00Z', annotations: options.annotations },
    spec,
  };
}

function ingressClass(name: string, controller: string, isDefault: boolean): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name, annotations: isDefault ? { 'ingressclass.kubernetes.io/is-default-class': 'true' } : {} },
    spec: { controller },
  };
}

function serviceOf(table: ReturnType<typeof buildRoutingTable>, host: string, url: string): string | undefined {
  const match = route(table, host, url);
  if (!match) return undefined;
  return match.backend.kind === 'service' ? match.backend.name : match.backend.kind;
}

describe('pathMatches', () => {
  // The examples table of the Ingress concept page and the types.go comments.
  it.each([
    ['Prefix', '/', '/anything', true],
    ['Prefix', '/', '/', true],
    ['Exact', '/foo', '/foo', true],
    ['Exact', '/foo', '/bar', false],
    ['Exact', '/foo', '/foo/', false],
    ['Exact', '/foo/', '/foo', false],
    ['Exact', '/Foo', '/foo', false],
    ['Prefix', '/foo', '/foo', true],
    ['Prefix', '/foo', '/foo/', true],
    ['Prefix', '/foo/', '/foo', true],
    ['Prefix', '/foo/', '/foo/', true],
    ['Prefix', '/foo', '/foo/bar', true],
    ['Prefix', '/foo', '/foobar', false],
    ['Prefix', '/aaa/bb', '/aaa/bbb', false],
    ['Prefix', '/aaa/bbb', '/aaa/bbb', true],
    ['Prefix', '/aaa/bbb/', '/aaa/bbb', true],
    ['Prefix', '/aaa/bbb', '/aaa/bbb/', true],
    ['Prefix', '/aaa/bbb', '/aaa/bbb/ccc', true],
    ['Prefix', '/aaa/bbb', '/aaa/bbbxyz', false],
    ['Prefix', '/foo/bar', '/foo', false],
    ['ImplementationSpecific', '/foo', '/foo/bar', true],
    ['ImplementationSpecific', '/foo', '/foobar', false],
  ] as const)('%s %s against %s gives %s', (pathType, rulePath, requestPath, expected) => {
    expect(pathMatches(pathType, rulePath, requestPath)).toBe(expected);
  });
});

describe('hostMatches and normalizeHost', () => {
  it.each([
    ['foo.bar.com', 'foo.bar.com', true],
    ['foo.bar.com', 'bar.com', false],
    ['*.foo.com', 'bar.foo.com', true],
    ['*.foo.com', 'baz.bar.foo.com', false],
    ['*.foo.com', 'foo.com', false],
    ['*.foo.com', '.foo.com', false],
  ])('pattern %s against %s gives %s', (pattern, host, expected) => {
    expect(hostMatches(pattern, host)).toBe(expected);
  });

  it.each([
    ['Foo.Example.COM:8080', 'foo.example.com'],
    ['foo.example.com.', 'foo.example.com'],
    ['127.0.0.1:80', '127.0.0.1'],
    ['[::1]:8443', '::1'],
    ['::1', '::1'],
    ['', ''],
  ])('normalizes the Host header %j to %j', (header, expected) => {
    expect(normalizeHost(header)).toBe(expected);
  });
});

describe('route', () => {
  const table = buildRoutingTable([
    ingress('paths', {
      rules: [
        {
          host: 'foo.example.com',
          paths: [
            { path: '/', service: 'root' },
            { path: '/api', service: 'api' },
            { path: '/api/v2', service: 'api-v2' },
            { path: '/api/v2', pathType: 'Exact', service: 'api-v2-exact' },
            { path: '/login', pathType: 'Exact', service: 'login' },
          ],
        },
        { host: '*.example.com', paths: [{ path: '/', service: 'wildcard' }] },
        { paths: [{ path: '/shared', service: 'any-host' }] },
      ],
    }),
    ingress('fallback', { rules: [{ host: 'only-api.example.org', paths: [{ path: '/api', service: 'org-api' }] }], defaultBackend: 'org-default', created: '2026-01-02T00:00:00Z' }),
  ]);

  it.each([
    { name: 'the longest matching prefix wins', host: 'foo.example.com', url: '/api/users', want: 'api' },
    { name: 'Exact beats Prefix of the same length', host: 'foo.example.com', url: '/api/v2', want: 'api-v2-exact' },
    { name: 'a longer prefix wins over a shorter one', host: 'foo.example.com', url: '/api/v2/things', want: 'api-v2' },
    { name: 'prefixes match whole path elements only', host: 'foo.example.com', url: '/apiary', want: 'root' },
    { name: 'the query string is not part of the path', host: 'foo.example.com', url: '/login?next=/', want: 'login' },
    { name: 'an Exact path does not match a trailing slash', host: 'foo.example.com', url: '/login/', want: 'root' },
    { name: 'the Host header port and case do not matter', host: 'FOO.example.com:8080', url: '/api', want: 'api' },
    { name: 'a wildcard host covers one more label', host: 'bar.example.com', url: '/x', want: 'wildcard' },
    { name: 'an exact host wins over a wildcard that covers it', host: 'foo.example.com', url: '/', want: 'root' },
    { name: 'a wildcard does not cover two more labels, so the host-less rules apply', host: 'a.b.example.com', url: '/shared/x', want: 'any-host' },
    { name: 'a wildcard does not cover the bare domain', host: 'example.com', url: '/shared', want: 'any-host' },
    { name: 'an unknown host with no matching path falls to the default backend', host: 'other.test', url: '/nothing', want: 'org-default' },
    { name: 'a host group without a matching path uses its Ingress default backend', host: 'only-api.example.org', url: '/web', want: 'org-default' },
    { name: 'a host group answers its own paths', host: 'only-api.example.org', url: '/api', want: 'org-api' },
  ])('$name', ({ host, url, want }) => {
    expect(serviceOf(table, host, url)).toBe(want);
  });

  it('reports no match (a 404) when nothing matches and there is no default backend', () => {
    const onlyHost = buildRoutingTable([ingress('a', { rules: [{ host: 'a.test', paths: [{ path: '/app', service: 'app' }] }] })]);
    expect(route(onlyHost, 'a.test', '/other')).toBeUndefined();
    expect(route(onlyHost, 'b.test', '/app')).toBeUndefined();
    expect(route(buildRoutingTable([]), 'a.test', '/')).toBeUndefined();
  });

  it('gives the oldest Ingress the same host, path and pathType', () => {
    const newer = ingress('newer', { created: '2026-02-01T00:00:00Z', rules: [{ host: 'dup.test', paths: [{ path: '/', service: 'newer' }] }] });
    const older = ingress('older', { created: '2026-01-01T00:00:00Z', rules: [{ host: 'dup.test', paths: [{ path: '/', service: 'older' }] }] });
    const match = route(buildRoutingTable([newer, older]), 'dup.test', '/');
    expect(match).toMatchObject({ ingress: 'default/older', host: 'dup.test', path: '/', pathType: 'Prefix' });
  });

  it('merges the paths of several Ingresses for one host', () => {
    const first = ingress('first', { rules: [{ host: 'merge.test', paths: [{ path: '/a', service: 'a' }] }] });
    const second = ingress('second', { namespace: 'other', rules: [{ host: 'merge.test', paths: [{ path: '/b', service: 'b' }] }] });
    const table = buildRoutingTable([first, second]);
    expect(route(table, 'merge.test', '/b/x')?.backend).toEqual({ kind: 'service', namespace: 'other', name: 'b', port: 80 });
    expect(serviceOf(table, 'merge.test', '/a')).toBe('a');
  });

  it('reads service ports by name and resource backends', () => {
    const byName = ingress('named', { rules: [{ paths: [{ path: '/', service: 'web', port: 'http' }] }] });
    expect(route(buildRoutingTable([byName]), 'x', '/')?.backend).toEqual({ kind: 'service', namespace: 'default', name: 'web', port: 'http' });
    const resource: KubeObject = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'static', namespace: 'default' },
      spec: { defaultBackend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'static-assets' } } },
    };
    expect(route(buildRoutingTable([resource]), 'x', '/')?.backend).toEqual({ kind: 'resource', namespace: 'default', apiGroup: 'k8s.example.com', resourceKind: 'StorageBucket', name: 'static-assets' });
  });
});

describe('isHandledIngress', () => {
  const ours = ingressClass('kubedesk', 'kubedesk.dev/ingress', true);
  const oursNotDefault = ingressClass('kubedesk', 'kubedesk.dev/ingress', false);
  const nginxDefault = ingressClass('nginx', 'k8s.io/ingress-nginx', true);
  const aliasOfOurs = ingressClass('local', 'kubedesk.dev/ingress', false);
  it.each([
    { name: 'class kubedesk is ours', ingress: ingress('a', { className: 'kubedesk' }), classes: [oursNotDefault], want: true },
    { name: 'class kubedesk is ours even before the classes are known', ingress: ingress('a', { className: 'kubedesk' }), classes: [], want: true },
    { name: 'another controller\'s class is not ours', ingress: ingress('a', { className: 'nginx' }), classes: [ours, nginxDefault], want: false },
    { name: 'a class naming our controller is ours', ingress: ingress('a', { className: 'local' }), classes: [aliasOfOurs], want: true },
    { name: 'no class while kubedesk is the default is ours', ingress: ingress('a'), classes: [ours], want: true },
    { name: 'no class while kubedesk is not the default is not ours', ingress: ingress('a'), classes: [oursNotDefault, nginxDefault], want: false },
    { name: 'no class and no IngressClass API is ours', ingress: ingress('a'), classes: undefined, want: true },
    { name: 'the legacy annotation naming kubedesk is ours', ingress: ingress('a', { annotations: { 'kubernetes.io/ingress.class': 'kubedesk' } }), classes: [oursNotDefault], want: true },
    { name: 'the legacy annotation naming another class is not ours', ingress: ingress('a', { annotations: { 'kubernetes.io/ingress.class': 'nginx' } }), classes: [ours], want: false },
  ])('$name', ({ ingress: subject, classes, want }) => {
    expect(isHandledIngress(subject, classes)).toBe(want);
  });
});

describe('selectTls', () => {
  const entries = buildTlsTable([
    ingress('older', { created: '2026-01-01T00:00:00Z', tls: [{ hosts: ['*.example.com'], secretName: 'wildcard' }, { secretName: 'any-name' }] }),
    ingress('newer', { created: '2026-01-02T00:00:00Z', tls: [{ hosts: ['Foo.Example.com'], secretName: 'foo' }] }),
  ]);
  it.each([
    { name: 'an exact host wins over an older wildcard', serverName: 'foo.example.com', want: 'foo' },
    { name: 'a wildcard covers one label', serverName: 'bar.example.com', want: 'wildcard' },
    { name: 'an entry without hosts covers any other name', serverName: 'a.b.example.com', want: 'any-name' },
    { name: 'no SNI takes the entry without hosts', serverName: undefined, want: 'any-name' },
  ])('$name', ({ serverName, want }) => {
    expect(selectTls(entries, serverName)?.secretName).toBe(want);
  });

  it('finds nothing (the fallback certificate) when no entry covers the name', () => {
    expect(selectTls(buildTlsTable([ingress('a', { tls: [{ hosts: ['a.test'], secretName: 's' }] })]), 'b.test')).toBeUndefined();
  });
});
