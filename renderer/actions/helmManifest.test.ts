import { describe, expect, it } from 'vitest';
import type { DiscoveredResource } from '../kinds/discovery';
import { applyBody, hookOutcome, hooksFor, installOrder, manifestObjects, releaseHooks, removedObjects, resolveObjects, splitManifest, uninstallOrder } from './helmManifest';

const discovered: DiscoveredResource[] = [
  { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: [], shortNames: [] },
  { group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true, verbs: [], shortNames: [] },
  { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true, verbs: [], shortNames: [] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false, verbs: [], shortNames: [] },
];

const MANIFEST = `---
# Source: mychart/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports: [{port: 80}]
---
# Source: mychart/templates/empty.yaml
# nothing rendered here
---
# Source: mychart/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: other
  annotations:
    helm.sh/resource-policy: keep
---
# Source: mychart/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
---
# Source: mychart/templates/role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
`;

describe('a release manifest', () => {
  it('splits on helm separators and drops documents with only comments', () => {
    expect(splitManifest(MANIFEST)).toHaveLength(4);
  });

  it('resolves each object to its REST path, defaulting the namespace to the release one', () => {
    const objects = resolveObjects(manifestObjects(MANIFEST, 'apps-ns'), discovered);
    expect(objects.map((object) => [object.path, object.kindKey, object.keep])).toEqual([
      ['/api/v1/namespaces/apps-ns/services/web', 'services', false],
      ['/api/v1/namespaces/other/configmaps/settings', 'configmaps', true],
      ['/apis/apps/v1/namespaces/apps-ns/deployments/web', 'deployments.apps', false],
      ['/apis/rbac.authorization.k8s.io/v1/clusterroles/reader', 'clusterroles.rbac.authorization.k8s.io', false],
    ]);
  });

  it('refuses a kind the cluster does not serve with helm words', () => {
    expect(() => resolveObjects(manifestObjects('apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n', 'ns'), discovered)).toThrow('no matches for kind "Widget" in version "example.com/v1"');
  });

  it('orders objects for install and uninstall as helm sorts kinds', () => {
    const objects = manifestObjects(MANIFEST, 'ns');
    expect(installOrder(objects).map((object) => object.kind)).toEqual(['ConfigMap', 'ClusterRole', 'Service', 'Deployment']);
    expect(uninstallOrder(objects).map((object) => object.kind)).toEqual(['Service', 'Deployment', 'ClusterRole', 'ConfigMap']);
  });

  it('finds the objects the target manifest no longer has', () => {
    const current = manifestObjects(MANIFEST, 'ns');
    const target = manifestObjects('apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n', 'ns');
    expect(removedObjects(current, target).map((object) => `${object.kind}/${object.name}`)).toEqual(['ConfigMap/settings', 'Deployment/web', 'ClusterRole/reader']);
  });

  it('stamps the ownership helm records on every object it applies', () => {
    const [service, , , role] = resolveObjects(manifestObjects(MANIFEST, 'ns'), discovered);
    expect(applyBody(service, 'demo', 'ns').metadata).toEqual({ name: 'web', namespace: 'ns', labels: { 'app.kubernetes.io/managed-by': 'Helm' }, annotations: { 'meta.helm.sh/release-name': 'demo', 'meta.helm.sh/release-namespace': 'ns' } });
    expect(applyBody(role, 'demo', 'ns').metadata.namespace).toBeUndefined();
  });
});

describe('release hooks', () => {
  const hooks = releaseHooks([
    { name: 'b', kind: 'Job', path: 'b.yaml', manifest: '', events: ['pre-delete'], weight: 0 },
    { name: 'a', kind: 'Job', path: 'a.yaml', manifest: '', events: ['pre-delete', 'post-delete'], weight: 0, delete_policies: ['hook-succeeded'] },
    { name: 'z', kind: 'Pod', path: 'z.yaml', manifest: '', events: ['pre-delete'], weight: -5 },
  ]);

  it('runs one event hooks by weight then name, defaulting to before-hook-creation', () => {
    expect(hooksFor(hooks, 'pre-delete').map((hook) => hook.name)).toEqual(['z', 'a', 'b']);
    expect(hooksFor(hooks, 'post-delete').map((hook) => hook.deletePolicies)).toEqual([['hook-succeeded']]);
    expect(hooks[0].deletePolicies).toEqual(['before-hook-creation']);
  });

  it('judges a Job or Pod hook finished as helm waits for it', () => {
    expect(hookOutcome('Job', { metadata: {}, status: { conditions: [{ type: 'Complete', status: 'True' }] } })).toBe('done');
    expect(hookOutcome('Job', { metadata: {}, status: { conditions: [{ type: 'Failed', status: 'True' }] } })).toBe('failed');
    expect(hookOutcome('Job', { metadata: {}, status: {} })).toBe('running');
    expect(hookOutcome('Pod', { metadata: {}, status: { phase: 'Succeeded' } })).toBe('done');
    expect(hookOutcome('ConfigMap', { metadata: {} })).toBe('done');
  });
});
