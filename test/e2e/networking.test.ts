// Service networking end to end, with the real kubectl 1.35 against a real `kubedesk
// serve` on Docker: ClusterIP traffic from pods by short name and FQDN following scaling,
// readiness and pod replacement; cluster DNS (headless Services, StatefulSet pod names,
// ExternalName, outside names, dnsPolicy); session affinity; UDP; NodePort, LoadBalancer and
// Ingress from the host at 127.0.0.1; `kubectl port-forward svc/…` and `kubectl proxy`; the
// `kubernetes` Service from a pod; and that a deleted Service stops answering and frees its ports.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { toolPaths } from '../support/tools';
import { freePort, hostGet } from '../support/hostHttp';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;
let upstream: UdpSocket;
let ingressHttp = 0;
let ingressHttps = 0;
const namespace = 'net-e2e';
const other = 'net-other';
const outsideName = 'outside.kubedesk.test';
const outsideIp = '192.0.2.44'; // TEST-NET-1: answered by the fake upstream, never contacted

const ok = (...args: string[]) => kubectlOk(cluster, args);
const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

/** Runs a shell script in the client pod and returns its output. */
async function inClient(script: string, pod = 'client', ns = namespace): Promise<string> {
  const result = await cluster.kubectl(['exec', '-n', ns, pod, '--', 'sh', '-c', script], { timeoutMs: 120_000 });
  return result.stdout + result.stderr;
}

/** `count` GETs of url from the client pod; one line per answer (the pod name) or FAIL. */
async function hits(url: string, count: number, pod = 'client', ns = namespace): Promise<string[]> {
  const out = await inClient(`for i in $(seq ${count}); do timeout 3 wget -qO- ${url} || echo FAIL; done`, pod, ns);
  return out.split('\n').map((line) => line.trim()).filter((line) => line !== '');
}

/** A DNS server on 127.0.0.1 that answers every A question with outsideIp (stands for the internet). */
async function startFakeUpstream(): Promise<{ socket: UdpSocket; port: number }> {
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    if (query.length < 12) return;
    let offset = 12;
    while (offset < query.length && query[offset] !== 0) offset += query[offset] + 1;
    const questionEnd = offset + 5;
    const header = Buffer.from(query.subarray(0, 12));
    header.writeUInt16BE(0x8180, 2); // response, recursion desired + available, NOERROR
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(1, 6);
    header.writeUInt16BE(0, 8);
    header.writeUInt16BE(0, 10);
    const answer = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4, ...outsideIp.split('.').map(Number)]);
    socket.send(Buffer.concat([header, query.subarray(12, questionEnd), answer]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, port: socket.address().port };
}

const webPod = (extra: Record<string, unknown> = {}) => ({
  terminationGracePeriodSeconds: 1,
  containers: [
    {
      name: 'web',
      image: busyboxImage,
      command: ['sh', '-c', 'mkdir -p /www && hostname > /www/index.html && touch /tmp/ready && exec httpd -f -p 8080 -h /www'],
      ports: [{ name: 'http', containerPort: 8080 }],
      readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, periodSeconds: 1 },
    },
  ],
  ...extra,
});

const sleeper = (name: string, ns: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns },
  spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: busyboxImage, command: ['sleep', '100000'] }], ...spec },
});

async function readyEndpoints(service: string, ns = namespace): Promise<string[]> {
  const out = await ok('get', 'endpointslices', '-n', ns, '-l', `kubernetes.io/service-name=${service}`, '-o', 'jsonpath={range .items[*].endpoints[?(@.conditions.ready==true)]}{.targetRef.name}{"\\n"}{end}');
  return out.split('\n').filter((line) => line !== '').sort();
}

async function runningPods(selector: string): Promise<string[]> {
  const out = await ok('get', 'pods', '-n', namespace, '-l', selector, '--field-selector', 'status.phase=Running', '-o', 'jsonpath={range .items[?(@.metadata.deletionTimestamp)]}{end}{range .items[*]}{.metadata.name}{"\\n"}{end}');
  return out.split('\n').filter((line) => line !== '').sort();
}

beforeAll(async () => {
  const fake = await startFakeUpstream();
  upstream = fake.socket;
  [ingressHttp, ingressHttps] = [await freePort(), await freePort()];
  cluster = await startCluster({
    extraArgs: ['--ingress-http-port', String(ingressHttp), '--ingress-https-port', String(ingressHttps)],
    env: { KUBEDESK_DNS_UPSTREAM: `127.0.0.1:${fake.port}` },
  });
  await ok('create', 'namespace', namespace);
  await ok('create', 'namespace', other);
  await apply({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace },
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: webPod() } },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
      sleeper('client', namespace),
      sleeper('client', other),
    ],
  });
  await ok('wait', '-n', namespace, '--for=condition=Ready', 'pod/client', '--timeout=90s');
  await ok('wait', '-n', other, '--for=condition=Ready', 'pod/client', '--timeout=90s');
  await until('two ready web endpoints', async () => ((await readyEndpoints('web')).length === 2 ? true : undefined), 90_000);
}, 240_000);

afterAll(async () => {
  upstream?.close();
  await cluster?.destroy();
}, 120_000);

describe('ClusterIP Services', () => {
  it('allocates a cluster IP from the service range and gives the kubernetes and kube-dns Services fixed ones', async () => {
    const ip = (await ok('get', 'svc', 'web', '-n', namespace, '-o', 'jsonpath={.spec.clusterIP}')).trim();
    const kubernetes = (await ok('get', 'svc', 'kubernetes', '-o', 'jsonpath={.spec.clusterIP}')).trim();
    const dns = (await ok('get', 'svc', 'kube-dns', '-n', 'kube-system', '-o', 'jsonpath={.spec.clusterIP}')).trim();
    expect(kubernetes).toMatch(/^10\.\d+\.128\.1$/);
    expect(dns).toBe(kubernetes.replace(/\.1$/, '.10'));
    const prefix = kubernetes.split('.').slice(0, 2).join('.');
    expect(ip.startsWith(`${prefix}.`)).toBe(true);
    expect(Number(ip.split('.')[2])).toBeGreaterThanOrEqual(128);
  });

  it('reaches the Service from a pod by short name and every longer name, spread over both pods', async () => {
    const pods = await runningPods('app=web');
    for (const name of ['web', `web.${namespace}`, `web.${namespace}.svc`, `web.${namespace}.svc.cluster.local`]) {
      const answers = await hits(`http://${name}/`, 12);
      expect(answers.filter((line) => line === 'FAIL'), name).toEqual([]);
      expect([...new Set(answers)].sort(), name).toEqual(pods);
    }
    const fromOther = await hits(`http://web.${namespace}/`, 4, 'client', other);
    expect(fromOther.every((line) => pods.includes(line))).toBe(true);
  });

  it('follows scaling up without failed requests once the endpoints settle', async () => {
    await ok('scale', 'deployment', 'web', '-n', namespace, '--replicas=3');
    await until('three ready web endpoints', async () => ((await readyEndpoints('web')).length === 3 ? true : undefined), 90_000);
    const pods = await readyEndpoints('web');
    const answers = await hits('http://web/', 24);
    expect(answers.filter((line) => line === 'FAIL')).toEqual([]);
    expect([...new Set(answers)].sort()).toEqual(pods);
  });

  it('stops sending traffic to a pod whose readiness probe fails, and resumes when it passes again', async () => {
    const [victim] = await readyEndpoints('web');
    await ok('exec', '-n', namespace, victim, '--', 'rm', '/tmp/ready');
    await until('the unready pod to leave the endpoints', async () => (!(await readyEndpoints('web')).includes(victim) ? true : undefined), 30_000, 300);
    const answers = await hits('http://web/', 20);
    expect(answers.filter((line) => line === 'FAIL')).toEqual([]);
    expect(answers).not.toContain(victim);
    await ok('exec', '-n', namespace, victim, '--', 'touch', '/tmp/ready');
    await until('the pod to come back', async () => ((await readyEndpoints('web')).includes(victim) ? true : undefined), 30_000, 300);
    const again = await hits('http://web/', 24);
    expect(again).toContain(victim);
  });

  it('keeps answering while a pod is deleted and replaced', async () => {
    const [victim] = await readyEndpoints('web');
    await ok('delete', 'pod', victim, '-n', namespace, '--wait=false');
    await until('the deleted pod to leave the endpoints', async () => (!(await readyEndpoints('web')).includes(victim) ? true : undefined), 30_000, 300);
    await until('three ready endpoints again', async () => ((await readyEndpoints('web')).length === 3 ? true : undefined), 90_000);
    const answers = await hits('http://web/', 15);
    expect(answers.filter((line) => line === 'FAIL')).toEqual([]);
    expect(answers).not.toContain(victim);
  });

  it('keeps one client on one pod with sessionAffinity ClientIP', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'sticky', namespace },
      spec: { selector: { app: 'web' }, sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: 8080 }] },
    });
    await until('sticky endpoints', async () => ((await readyEndpoints('sticky')).length === 3 ? true : undefined));
    const answers = await until('sticky answers', async () => {
      const lines = await hits('http://sticky/', 10);
      return lines.includes('FAIL') ? undefined : lines;
    });
    expect(new Set(answers).size).toBe(1);
  });

  it('carries UDP through the cluster IP', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'udp-echo', namespace, labels: { app: 'udp-echo' } },
          spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'echo', image: busyboxImage, command: ['udp-echo', '9000'] }] },
        },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'udp-echo', namespace }, spec: { selector: { app: 'udp-echo' }, ports: [{ port: 53, protocol: 'UDP', targetPort: 9000 }] } },
      ],
    });
    await until('the UDP endpoint', async () => ((await readyEndpoints('udp-echo')).length === 1 ? true : undefined), 90_000);
    const ip = (await ok('get', 'svc', 'udp-echo', '-n', namespace, '-o', 'jsonpath={.spec.clusterIP}')).trim();
    const reply = await until('a UDP echo', async () => {
      const out = await inClient(`udp-echo -c ${ip} 53 ping-udp`);
      return out.includes('ping-udp') ? out : undefined;
    });
    expect(reply.trim()).toBe('udp-echo ping-udp');
  });

  it('gives pods created after a Service its environment variables', async () => {
    await apply(sleeper('env-check', namespace));
    await ok('wait', '-n', namespace, '--for=condition=Ready', 'pod/env-check', '--timeout=90s');
    const ip = (await ok('get', 'svc', 'web', '-n', namespace, '-o', 'jsonpath={.spec.clusterIP}')).trim();
    const env = await inClient('env', 'env-check');
    expect(env).toContain(`WEB_SERVICE_HOST=${ip}`);
    expect(env).toContain('WEB_SERVICE_PORT=80');
    expect(env).toContain(`WEB_PORT_80_TCP=tcp://${ip}:80`);
    expect(env).toMatch(/KUBERNETES_SERVICE_HOST=10\.\d+\.128\.1/);
  });

  it('lets a pod reach the API server through the kubernetes Service, as an in-cluster client', async () => {
    // the real kubectl (client-go) inside a pod, with in-cluster config: KUBERNETES_SERVICE_HOST,
    // the projected token and CA, verifying the serving certificate for the Service IP and names
    const tools = dirname(toolPaths().kubectl);
    await apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'in-cluster', namespace },
      spec: {
        terminationGracePeriodSeconds: 0,
        volumes: [{ name: 'tools', hostPath: { path: tools, type: 'Directory' } }],
        containers: [{ name: 'c', image: busyboxImage, command: ['sleep', '100000'], volumeMounts: [{ name: 'tools', mountPath: '/tools', readOnly: true }] }],
      },
    });
    await ok('wait', '-n', namespace, '--for=condition=Ready', 'pod/in-cluster', '--timeout=90s');
    // RBAC applies to the pod's service account as on a real cluster: let it read
    await ok('create', 'rolebinding', 'default-view', '--clusterrole=view', `--serviceaccount=${namespace}:default`, '-n', namespace);
    const version = JSON.parse(await inClient('/tools/kubectl get --raw /version', 'in-cluster'));
    expect(version).toMatchObject({ major: '1', minor: '35' });
    const pods = await inClient('/tools/kubectl get pods -o name', 'in-cluster');
    expect(pods).toContain('pod/in-cluster');
    const byName = await inClient(
      '/tools/kubectl --server https://kubernetes.default.svc.cluster.local --certificate-authority /var/run/secrets/kubernetes.io/serviceaccount/ca.crt --token "$(cat /var/run/secrets/kubernetes.io/serviceaccount/token)" get --raw /livez',
      'in-cluster',
    );
    expect(byName.trim()).toBe('ok');
  });
});

describe('cluster DNS', () => {
  it('uses the cluster resolver with the namespace search path and ndots:5', async () => {
    const resolv = await inClient('cat /etc/resolv.conf');
    const dns = (await ok('get', 'svc', 'kube-dns', '-n', 'kube-system', '-o', 'jsonpath={.spec.clusterIP}')).trim();
    expect(resolv).toContain(`nameserver ${dns}`);
    expect(resolv).toContain(`search ${namespace}.svc.cluster.local svc.cluster.local cluster.local`);
    expect(resolv).toContain('options ndots:5');
  });

  it('resolves a headless Service to its ready pods and StatefulSet pods by name', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace }, spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 8080 }] } },
        {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          metadata: { name: 'db', namespace },
          spec: { serviceName: 'db', replicas: 2, selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: webPod() } },
        },
      ],
    });
    await until('two db endpoints', async () => ((await readyEndpoints('db')).length === 2 ? true : undefined), 120_000);
    const ip0 = (await ok('get', 'pod', 'db-0', '-n', namespace, '-o', 'jsonpath={.status.podIP}')).trim();
    const ip1 = (await ok('get', 'pod', 'db-1', '-n', namespace, '-o', 'jsonpath={.status.podIP}')).trim();
    const headless = await inClient(`nslookup db.${namespace}.svc.cluster.local`);
    expect(headless).toContain(ip0);
    expect(headless).toContain(ip1);
    const member = await inClient(`nslookup db-0.db.${namespace}.svc.cluster.local`);
    expect(member).toContain(ip0);
    expect(member).not.toContain(ip1);
    // the pod's own FQDN (hostname + subdomain) and a request by that name
    const hosts = await inClient('cat /etc/hosts', 'db-1');
    expect(hosts).toMatch(new RegExp(`^${ip1.replace(/\./g, '\\.')}\\s+db-1\\.db\\.${namespace}\\.svc\\.cluster\\.local\\s+db-1$`, 'm'));
    const answer = await hits(`http://db-1.db:8080/`, 1);
    expect(answer).toEqual(['db-1']);
  });

  it('answers an ExternalName Service with a CNAME to its target', async () => {
    await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'alias', namespace }, spec: { type: 'ExternalName', externalName: `web.${namespace}.svc.cluster.local` } });
    const webIp = (await ok('get', 'svc', 'web', '-n', namespace, '-o', 'jsonpath={.spec.clusterIP}')).trim();
    const out = await until('the CNAME', async () => {
      const text = await inClient(`nslookup alias.${namespace}.svc.cluster.local`);
      return text.includes(webIp) ? text : undefined;
    });
    expect(out).toContain(`web.${namespace}.svc.cluster.local`);
  });

  it('still resolves names outside the cluster through the host resolvers', async () => {
    const out = await inClient(`nslookup ${outsideName}`);
    expect(out).toContain(outsideIp);
  });

  it('honours dnsPolicy Default, None with dnsConfig, and ClusterFirst with extra dnsConfig', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        sleeper('dns-default', namespace, { dnsPolicy: 'Default' }),
        sleeper('dns-none', namespace, { dnsPolicy: 'None', dnsConfig: { nameservers: ['192.0.2.53'], searches: ['example.test'], options: [{ name: 'ndots', value: '2' }] } }),
        sleeper('dns-extra', namespace, { dnsConfig: { searches: ['extra.test'], options: [{ name: 'timeout', value: '3' }] } }),
      ],
    });
    for (const pod of ['dns-default', 'dns-none', 'dns-extra']) await ok('wait', '-n', namespace, '--for=condition=Ready', `pod/${pod}`, '--timeout=90s');
    const dns = (await ok('get', 'svc', 'kube-dns', '-n', 'kube-system', '-o', 'jsonpath={.spec.clusterIP}')).trim();
    const asDefault = await inClient('cat /etc/resolv.conf', 'dns-default');
    expect(asDefault).not.toContain(dns);
    expect(asDefault).not.toContain('svc.cluster.local');
    const asNone = await inClient('cat /etc/resolv.conf', 'dns-none');
    expect(asNone).toContain('nameserver 192.0.2.53');
    expect(asNone).toContain('search example.test');
    expect(asNone).toContain('ndots:2');
    const extra = await inClient('cat /etc/resolv.conf', 'dns-extra');
    expect(extra).toContain(`nameserver ${dns}`);
    expect(extra).toContain(`search ${namespace}.svc.cluster.local svc.cluster.local cluster.local extra.test`);
    expect(extra).toMatch(/options .*ndots:5/);
    expect(extra).toMatch(/options .*timeout:3/);
  });
});

describe('reaching Services from the host', () => {
  it('serves a NodePort Service on 127.0.0.1:<nodePort>', async () => {
    await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-np', namespace }, spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] } });
    const nodePort = Number((await ok('get', 'svc', 'web-np', '-n', namespace, '-o', 'jsonpath={.spec.ports[0].nodePort}')).trim());
    expect(nodePort).toBeGreaterThanOrEqual(30000);
    expect(nodePort).toBeLessThanOrEqual(32767);
    const pods = await readyEndpoints('web');
    const answer = await until('the node port to answer', async () => {
      const reply = await hostGet(nodePort).catch(() => undefined);
      return reply?.status === 200 ? reply : undefined;
    });
    expect(pods).toContain(answer.body.trim());
    expect(pods).toContain(curl(`http://127.0.0.1:${nodePort}/`));
  });

  it('serves a LoadBalancer Service on 127.0.0.1:<port> and reports the address in its status', async () => {
    const port = await freePort();
    await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-lb', namespace }, spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port, targetPort: 'http' }] } });
    const ingress = await until('the load balancer address', async () => {
      const ip = (await ok('get', 'svc', 'web-lb', '-n', namespace, '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}')).trim();
      return ip !== '' ? ip : undefined;
    });
    expect(ingress).toBe('127.0.0.1');
    const reply = await until('the load balancer to answer', async () => {
      const answer = await hostGet(port).catch(() => undefined);
      return answer?.status === 200 ? answer : undefined;
    });
    expect((await readyEndpoints('web')).includes(reply.body.trim())).toBe(true);
    const table = await ok('get', 'svc', 'web-lb', '-n', namespace);
    expect(table).toMatch(/web-lb\s+LoadBalancer\s+10\.\S+\s+127\.0\.0\.1\s+/);
  });

  it('leaves a LoadBalancer whose port is taken pending, with an event saying why, until the port is free', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-busy', namespace }, spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port, targetPort: 'http' }] } });
      const event = await until('a warning event', async () => {
        const events = await ok('get', 'events', '-n', namespace, '--field-selector', 'involvedObject.name=web-busy,type=Warning', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}');
        return events.includes(String(port)) ? events : undefined;
      });
      expect(event).toMatch(new RegExp(`${port}.*(in use|already)`));
      const table = await ok('get', 'svc', 'web-busy', '-n', namespace);
      expect(table).toContain('<pending>');
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    await until('the load balancer to take the freed port', async () => {
      const answer = await hostGet(port).catch(() => undefined);
      return answer?.status === 200 ? true : undefined;
    }, 60_000);
  });

  it('routes Ingress rules by host and path, with a default backend and TLS from a Secret', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'api', namespace, labels: { app: 'api' } },
          spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'api', image: busyboxImage, command: ['sh', '-c', 'mkdir -p /www/v1 && echo api-root > /www/index.html && echo api-v1 > /www/v1/index.html && exec httpd -f -p 8080 -h /www'], ports: [{ containerPort: 8080 }] }] },
        },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace }, spec: { selector: { app: 'api' }, ports: [{ name: 'http', port: 8080 }] } },
        {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          metadata: { name: 'site', namespace },
          spec: {
            defaultBackend: { service: { name: 'web', port: { name: 'http' } } },
            rules: [
              { host: 'api.kubedesk.test', http: { paths: [{ path: '/v1', pathType: 'Prefix', backend: { service: { name: 'api', port: { number: 8080 } } } }] } },
              { host: 'exact.kubedesk.test', http: { paths: [{ path: '/', pathType: 'Exact', backend: { service: { name: 'api', port: { name: 'http' } } } }] } },
            ],
          },
        },
      ],
    });
    await ok('wait', '-n', namespace, '--for=condition=Ready', 'pod/api', '--timeout=90s');
    await until('api endpoints', async () => ((await readyEndpoints('api')).length === 1 ? true : undefined));
    const classes = await ok('get', 'ingressclass');
    expect(classes).toMatch(/kubedesk\s+kubedesk\.dev\/ingress/);
    const v1 = await until('the /v1 rule', async () => {
      const reply = await hostGet(ingressHttp, '/v1/', { host: 'api.kubedesk.test' }).catch(() => undefined);
      return reply?.status === 200 ? reply : undefined;
    });
    expect(v1.body.trim()).toBe('api-v1');
    expect(curl('-H', 'Host: api.kubedesk.test', `http://127.0.0.1:${ingressHttp}/v1/`)).toBe('api-v1');
    const exact = await hostGet(ingressHttp, '/', { host: 'exact.kubedesk.test' });
    expect(exact.body.trim()).toBe('api-root');
    const fallback = await hostGet(ingressHttp, '/', { host: 'nothing.kubedesk.test' });
    expect((await readyEndpoints('web')).includes(fallback.body.trim())).toBe(true);
    const address = await until('the Ingress address', async () => {
      const ip = (await ok('get', 'ingress', 'site', '-n', namespace, '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}')).trim();
      return ip !== '' ? ip : undefined;
    });
    expect(address).toBe('127.0.0.1');

    // TLS: a certificate for secure.kubedesk.test from a Secret, chosen by SNI
    const files = await selfSignedCertificate('secure.kubedesk.test');
    await ok('create', 'secret', 'tls', 'secure-tls', '-n', namespace, '--cert', files.certificate, '--key', files.key);
    await apply({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'secure', namespace },
      spec: { tls: [{ hosts: ['secure.kubedesk.test'], secretName: 'secure-tls' }], rules: [{ host: 'secure.kubedesk.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'api', port: { number: 8080 } } } }] } }] },
    });
    const secure = await until('the TLS rule', async () => {
      const reply = await httpsGet(ingressHttps, 'secure.kubedesk.test').catch(() => undefined);
      return reply?.status === 200 && reply.subject.includes('secure.kubedesk.test') ? reply : undefined;
    });
    expect(secure.body.trim()).toBe('api-root');
    expect(curl('-k', '--resolve', `secure.kubedesk.test:${ingressHttps}:127.0.0.1`, `https://secure.kubedesk.test:${ingressHttps}/`)).toBe('api-root');
  });

  it('reaches a Service through kubectl port-forward svc/<name>', async () => {
    const port = await freePort();
    const tools = toolPaths();
    const forward: ChildProcess = spawn(tools.kubectl, ['port-forward', '-n', namespace, 'svc/web', `${port}:80`], { env: { ...process.env, KUBECONFIG: cluster.kubeconfig }, stdio: 'ignore' });
    try {
      const reply = await until('the port-forward', async () => {
        const answer = await hostGet(port).catch(() => undefined);
        return answer?.status === 200 ? answer : undefined;
      }, 30_000);
      expect((await readyEndpoints('web')).includes(reply.body.trim())).toBe(true);
    } finally {
      forward.kill();
    }
  });

  it('reaches a Service and a pod through kubectl proxy', async () => {
    const port = await freePort();
    const tools = toolPaths();
    const proxy: ChildProcess = spawn(tools.kubectl, ['proxy', `--port=${port}`], { env: { ...process.env, KUBECONFIG: cluster.kubeconfig }, stdio: 'ignore' });
    try {
      const reply = await until('kubectl proxy', async () => {
        const answer = await hostGet(port, `/api/v1/namespaces/${namespace}/services/web:http/proxy/`).catch(() => undefined);
        return answer?.status === 200 ? answer : undefined;
      }, 30_000);
      expect((await readyEndpoints('web')).includes(reply.body.trim())).toBe(true);
      const pod = await hostGet(port, `/api/v1/namespaces/${namespace}/pods/api:8080/proxy/v1/`);
      expect(pod.body.trim()).toBe('api-v1');
    } finally {
      proxy.kill();
    }
    const raw = await ok('get', '--raw', `/api/v1/namespaces/${namespace}/services/http:api:8080/proxy/v1/`);
    expect(raw.trim()).toBe('api-v1');
  });
});

describe('restarting kubedesk', () => {
  it('keeps every cluster IP and keeps Services answering by name, without restarting pods', async () => {
    const before = await ok('get', 'svc', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}={.spec.clusterIP}{"\\n"}{end}');
    const subnetFile = readFileSync(join(cluster.dataDir, 'network', 'subnet'), 'utf8');
    await cluster.restart();
    const after = await ok('get', 'svc', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}={.spec.clusterIP}{"\\n"}{end}');
    expect(after).toBe(before);
    expect(readFileSync(join(cluster.dataDir, 'network', 'subnet'), 'utf8')).toBe(subnetFile);
    const answers = await until('the Service after the restart', async () => {
      const lines = await hits('http://web/', 6);
      return lines.includes('FAIL') ? undefined : lines;
    }, 60_000);
    expect(answers.every((line) => line.startsWith('web-'))).toBe(true);
    expect((await ok('get', 'pod', 'client', '-n', namespace, '-o', 'jsonpath={.status.containerStatuses[0].restartCount}')).trim()).toBe('0');
  });
});

describe('deleting a Service', () => {
  it('stops its cluster IP from answering and releases its host ports', async () => {
    await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'doomed', namespace }, spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] } });
    const ip = (await ok('get', 'svc', 'doomed', '-n', namespace, '-o', 'jsonpath={.spec.clusterIP}')).trim();
    const nodePort = Number((await ok('get', 'svc', 'doomed', '-n', namespace, '-o', 'jsonpath={.spec.ports[0].nodePort}')).trim());
    await until('the Service to answer', async () => ((await hits(`http://${ip}/`, 1))[0] !== 'FAIL' ? true : undefined));
    await until('the node port to answer', async () => ((await hostGet(nodePort).catch(() => undefined))?.status === 200 ? true : undefined));
    await ok('delete', 'svc', 'doomed', '-n', namespace);
    await until('the cluster IP to go quiet', async () => ((await hits(`http://${ip}/`, 1))[0] === 'FAIL' ? true : undefined), 15_000);
    await until('the node port to be free', async () => {
      const server = createServer();
      const bound = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(nodePort, '127.0.0.1', () => resolve(true));
      });
      if (bound) await new Promise((resolve) => server.close(resolve));
      return bound ? true : undefined;
    }, 15_000);
  });
});

/** What a user types: curl from the host, body trimmed. */
function curl(...args: string[]): string {
  return execFileSync('curl', ['-sS', '--max-time', '5', ...args], { encoding: 'utf8' }).trim();
}

async function selfSignedCertificate(host: string): Promise<{ certificate: string; key: string }> {
  const { mkdtempSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'kd-tls-'));
  const keyPath = join(dir, 'tls.key');
  const certPath = join(dir, 'tls.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '2', '-subj', `/CN=${host}`, '-addext', `subjectAltName=DNS:${host}`], { stdio: 'ignore' });
  return { certificate: certPath, key: keyPath };
}

function httpsGet(port: number, servername: string): Promise<{ status: number; body: string; subject: string }> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest({ host: '127.0.0.1', port, path: '/', servername, headers: { host: servername }, rejectUnauthorized: false, timeout: 5_000 }, (response) => {
      const certificate = (response.socket as import('node:tls').TLSSocket).getPeerCertificate();
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, subject: `${certificate.subject?.CN ?? ''} ${certificate.subjectaltname ?? ''}` }));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
    request.end();
  });
}
