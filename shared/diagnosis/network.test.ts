import { describe, expect, it } from 'vitest';
import { NOW, makeDiagnosisPod, makeEvent, makeObject } from '../../test/fixtures/diagnosisObjects';
import type { DiagnosisContext } from './diagnosis';
import { diagnoseIngress, diagnoseService } from './network';

function context(extra: Partial<DiagnosisContext> = {}): DiagnosisContext {
  return { now: NOW, ...extra };
}

function service(name: string, spec: Record<string, unknown>) {
  return makeObject('v1', 'Service', name, { spec: { type: 'ClusterIP', ...spec } });
}

const webPods = [
  makeDiagnosisPod('web-a', { labels: { app: 'web' }, containers: [{ running: {}, ready: true, ports: [{ name: 'http', containerPort: 8080 }] }] }),
  makeDiagnosisPod('web-b', { labels: { app: 'web' }, containers: [{ running: {}, ready: true, ports: [{ name: 'http', containerPort: 8080 }] }] }),
  makeDiagnosisPod('db-a', { labels: { app: 'db' } }),
];

describe('diagnoseService', () => {
  it('calls a Service with ready selected pods healthy', () => {
    const good = service('web', { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] });
    expect(diagnoseService(good, context({ pods: webPods }))).toMatchObject({ healthy: true, reason: 'healthy: 2 ready endpoints' });
  });

  it('spots a selector typo and suggests the label the pods carry', () => {
    const typo = service('typo', { selector: { app: 'wbe' }, ports: [{ port: 80, targetPort: 8080 }] });
    const diagnosis = diagnoseService(typo, context({ pods: webPods }));
    expect(diagnosis).toMatchObject({ healthy: false, severity: 'error', code: 'SelectorMatchesNothing', reason: 'selector app=wbe matches no pod in namespace default — did you mean app=web?' });
    expect(diagnosis.details).toContain('Pods in default carry: app=web (2 pods), app=db (1 pod)');
    const wrongKey = service('key', { selector: { ap: 'web' } });
    expect(diagnoseService(wrongKey, context({ pods: webPods })).reason).toBe('selector ap=web matches no pod in namespace default — did you mean app=web?');
    const nothingClose = service('far', { selector: { tier: 'frontend' } });
    expect(diagnoseService(nothingClose, context({ pods: webPods })).reason).toBe('selector tier=frontend matches no pod in namespace default');
  });

  it('names a targetPort no selected container exposes, by number or by name', () => {
    const numeric = service('wrongport', { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 9090 }] });
    const diagnosis = diagnoseService(numeric, context({ pods: webPods }));
    expect(diagnosis).toMatchObject({ code: 'TargetPortNotExposed', reason: `targetPort 9090 (port 80) is not a port the selected pods' containers expose (they expose 8080/TCP "http")` });
    expect(diagnosis.hints[0]).toBe('set targetPort to the port the container listens on (http)');
    const named = service('named', { selector: { app: 'web' }, ports: [{ name: 'web', port: 80, targetPort: 'htp' }] });
    expect(diagnoseService(named, context({ pods: webPods })).reason).toBe(`targetPort "htp" (port 80 "web") is not the name of any port of the selected pods' containers (they expose 8080/TCP "http")`);
  });

  it('accepts a numeric targetPort when containers declare no ports at all', () => {
    const pods = [makeDiagnosisPod('plain', { labels: { app: 'plain' } })];
    expect(diagnoseService(service('plain', { selector: { app: 'plain' }, ports: [{ port: 80, targetPort: 3000 }] }), context({ pods })).healthy).toBe(true);
  });

  it('gives the selected pods’ reason when none is ready', () => {
    const pod = makeDiagnosisPod('api-a', { labels: { app: 'api' }, phase: 'Running', containers: [{ readinessProbe: { httpGet: { path: '/healthz', port: 8080 } }, running: {}, ready: false, ports: [{ containerPort: 8080 }] }] });
    const events = [makeEvent(pod, 'Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', { fieldPath: 'spec.containers{app}' })];
    const api = service('api', { selector: { app: 'api' }, ports: [{ port: 80, targetPort: 8080 }] });
    expect(diagnoseService(api, context({ pods: [pod], events }))).toMatchObject({ code: 'NoEndpoints', reason: 'none of the 1 pod it selects is ready: readiness probe failing on container "app": HTTP probe failed with statuscode: 503 (pod api-a)' });
  });

  it('reads endpoints for a Service without a selector, and trusts ExternalName', () => {
    const manual = service('manual', { ports: [{ port: 80 }] });
    const slice = makeObject('discovery.k8s.io/v1', 'EndpointSlice', 'manual-1', { endpoints: [{ addresses: ['10.0.0.9'], conditions: { ready: true } }] });
    slice.metadata.labels = { 'kubernetes.io/service-name': 'manual' };
    expect(diagnoseService(manual, context({ endpointSlices: [slice] }))).toMatchObject({ healthy: true, reason: 'healthy: no selector; 1 endpoint address set by hand' });
    expect(diagnoseService(manual, context({ endpointSlices: [] }))).toMatchObject({ healthy: false, code: 'NoEndpoints' });
    expect(diagnoseService(service('ext', { type: 'ExternalName', externalName: 'example.com' }), context()).healthy).toBe(true);
  });

  it('calls the API server’s Service and the ones kubedesk serves itself healthy', () => {
    const apiServer = service('kubernetes', { ports: [{ port: 443, targetPort: 6443 }] });
    apiServer.metadata.labels = { component: 'apiserver', provider: 'kubernetes' };
    expect(diagnoseService(apiServer, context({ endpoints: [] }))).toMatchObject({ healthy: true, reason: "healthy: the API server's own Service" });
    const dns = makeObject('v1', 'Service', 'kube-dns', { spec: { type: 'ClusterIP', ports: [{ port: 53, protocol: 'UDP' }] } }, 'kube-system');
    dns.metadata.annotations = { 'kubedesk.dev/served-by': 'kubedesk (cluster DNS in the kubedesk process)' };
    expect(diagnoseService(dns, context({ endpoints: [] }))).toMatchObject({ healthy: true, reason: 'healthy: served by kubedesk (cluster DNS in the kubedesk process)' });
  });
});

describe('diagnoseIngress', () => {
  function ingress(backend: Record<string, unknown>, host?: string) {
    return makeObject('networking.k8s.io/v1', 'Ingress', 'site', { spec: { rules: [{ ...(host ? { host } : {}), http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: backend } }] } }] } });
  }
  const web = service('web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] });

  it('names a backend Service that does not exist', () => {
    const diagnosis = diagnoseIngress(ingress({ name: 'nowhere', port: { number: 80 } }), context({ services: [web], pods: webPods }));
    expect(diagnosis).toMatchObject({ healthy: false, code: 'BackendMissing', reason: 'backend Service "nowhere" does not exist (path /)' });
  });

  it('names a backend port the Service does not have', () => {
    expect(diagnoseIngress(ingress({ name: 'web', port: { number: 8080 } }, 'example.com'), context({ services: [web], pods: webPods })).reason).toBe('backend Service "web" has no port 8080 (example.com/)');
  });

  it('passes on a backend Service’s own reason, and is healthy when backends serve', () => {
    const broken = service('web', { selector: { app: 'wbe' }, ports: [{ port: 80 }] });
    expect(diagnoseIngress(ingress({ name: 'web', port: { number: 80 } }), context({ services: [broken], pods: webPods })).reason).toBe('backend Service "web": selector app=wbe matches no pod in namespace default — did you mean app=web?');
    expect(diagnoseIngress(ingress({ name: 'web', port: { name: 'http' } }), context({ services: [web], pods: webPods }))).toMatchObject({ healthy: true, reason: 'healthy: backend Service web has ready endpoints' });
  });
});
