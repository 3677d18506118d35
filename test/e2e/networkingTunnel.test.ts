// The Docker Desktop path of service networking, exercised on Linux: with
// KUBEDESK_POD_NETWORK=tunnel the host process never dials a pod IP itself; NodePort, Ingress and
// the API server's service proxy reach pods through kd-netd's tunnel port published on 127.0.0.1
// (docs/architecture.md, "Service networking"). That traffic is the node's, so NetworkPolicies
// never block it, even though it reaches pods from kd-netd's address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { freePort, hostGet } from '../support/hostHttp';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;
let ingressHttp = 0;
const namespace = 'tunnel-e2e';
const ok = (...args: string[]) => kubectlOk(cluster, args);

beforeAll(async () => {
  ingressHttp = await freePort();
  cluster = await startCluster({ extraArgs: ['--ingress-http-port', String(ingressHttp), '--ingress-https-port', '0'], env: { KUBEDESK_POD_NETWORK: 'tunnel' } });
  await ok('create', 'namespace', namespace);
  const manifest = {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', namespace, labels: { app: 'web' } },
        spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'web', image: busyboxImage, command: ['sh', '-c', 'mkdir -p /www && echo via-tunnel > /www/index.html && exec httpd -f -p 8080 -h /www'], ports: [{ name: 'http', containerPort: 8080 }] }] },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace }, spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'client', namespace, labels: { app: 'client' } },
        spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: busyboxImage, command: ['sleep', '100000'] }] },
      },
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'web', namespace },
        spec: { rules: [{ host: 'tunnel.kubedesk.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
      },
    ],
  };
  await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));
  await ok('wait', '-n', namespace, '--for=condition=Ready', 'pod/web', 'pod/client', '--timeout=90s');
}, 180_000);

afterAll(async () => {
  await cluster?.destroy();
}, 120_000);

describe('service networking through the kd-netd tunnel', () => {
  it('serves the NodePort, the Ingress and the API server proxy without dialing pod IPs from the host', async () => {
    const nodePort = Number((await ok('get', 'svc', 'web', '-n', namespace, '-o', 'jsonpath={.spec.ports[0].nodePort}')).trim());
    const viaNodePort = await until('the node port', async () => {
      const reply = await hostGet(nodePort).catch(() => undefined);
      return reply?.status === 200 ? reply : undefined;
    });
    expect(viaNodePort.body.trim()).toBe('via-tunnel');
    const viaIngress = await until('the Ingress', async () => {
      const reply = await hostGet(ingressHttp, '/', { host: 'tunnel.kubedesk.test' }).catch(() => undefined);
      return reply?.status === 200 ? reply : undefined;
    });
    expect(viaIngress.body.trim()).toBe('via-tunnel');
    const viaProxy = await ok('get', '--raw', `/api/v1/namespaces/${namespace}/services/web:http/proxy/`);
    expect(viaProxy.trim()).toBe('via-tunnel');
    const viaPodProxy = await ok('get', '--raw', `/api/v1/namespaces/${namespace}/pods/web:8080/proxy/`);
    expect(viaPodProxy.trim()).toBe('via-tunnel');
  });

  it("keeps the node's traffic through the tunnel flowing under a default-deny NetworkPolicy", async () => {
    const podIp = (await ok('get', 'pod', 'web', '-n', namespace, '-o', 'jsonpath={.status.podIP}')).trim();
    await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny', namespace }, spec: { podSelector: {} } }));
    await until('pods to be isolated', async () => {
      const result = await cluster.kubectl(['exec', '-n', namespace, 'client', '--', 'sh', '-c', `timeout 2 wget -qO- http://${podIp}:8080/ >/dev/null 2>&1 && echo OPEN || echo CLOSED`]);
      return result.stdout.includes('CLOSED') ? true : undefined;
    }, 20_000, 300);
    const nodePort = Number((await ok('get', 'svc', 'web', '-n', namespace, '-o', 'jsonpath={.spec.ports[0].nodePort}')).trim());
    expect((await hostGet(nodePort)).body.trim()).toBe('via-tunnel');
    expect((await hostGet(ingressHttp, '/', { host: 'tunnel.kubedesk.test' })).body.trim()).toBe('via-tunnel');
    expect((await ok('get', '--raw', `/api/v1/namespaces/${namespace}/pods/web:8080/proxy/`)).trim()).toBe('via-tunnel');
  });
});
