// NetworkPolicy enforced, end to end, with the real kubectl 1.35 against a real `kubedesk serve` on
// Docker, busybox pods in two namespaces: default deny, allows by pod label, by namespace label and
// by both, egress deny (to a pod and to a Service), DNS under egress deny and with UDP 53 to
// kube-dns allowed, ipBlock with except, a named port, a port range, UDP, established connections
// outliving a new deny, and removing a policy restoring the traffic. Each change is timed from the
// moment kubectl returns to the moment a pod sees it, on one clock (/proc/uptime, which the host
// and every container share), by a probe loop running in the pod.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;
const nsA = 'np-a';
const nsB = 'np-b';
let serverIp = '';
let serviceIp = '';
let dnsIp = '';
const latencies: Record<string, number> = {};

const ok = (...args: string[]) => kubectlOk(cluster, args);
const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

function uptimeMs(): number {
  return Math.round(Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 1000);
}

/** A shell probe that succeeds when `command` does within 400 ms (a blocked SYN would hang). */
const probeFunction = `probe() { "$@" >/dev/null 2>&1 & p=$!; n=0; while [ $n -lt 8 ]; do sleep 0.05; if ! kill -0 $p 2>/dev/null; then wait $p; return $?; fi; n=$((n+1)); done; kill $p 2>/dev/null; wait $p 2>/dev/null; return 1; }`;

const http = (ip: string, port: number) => `wget -qO- http://${ip}:${port}/`;

/** Whether `command` succeeds from the pod (given 2 s: a settled answer, not a timing). */
async function reaches(ns: string, pod: string, command: string): Promise<boolean> {
  const result = await cluster.kubectl(['exec', '-n', ns, pod, '--', 'sh', '-c', `timeout 2 ${command} >/dev/null 2>&1 && echo OPEN || echo CLOSED`], { timeoutMs: 30_000 });
  if (!/OPEN|CLOSED/.test(result.stdout)) throw new Error(`probe from ${ns}/${pod} failed: ${result.stdout}${result.stderr}`);
  return result.stdout.includes('OPEN');
}

async function expectPaths(paths: Array<[ns: string, pod: string, command: string, open: boolean]>): Promise<void> {
  const seen = await Promise.all(paths.map(([ns, pod, command]) => reaches(ns, pod, command)));
  expect(paths.map(([ns, pod, command], index) => `${ns}/${pod} ${command}: ${seen[index] ? 'open' : 'closed'}`)).toEqual(
    paths.map(([ns, pod, command, open]) => `${ns}/${pod} ${command}: ${open ? 'open' : 'closed'}`),
  );
}

/**
 * Runs `change` while a loop in the pod probes `command` every ~50 ms, and returns how long after
 * `change` returned the pod first saw the path `open` (or closed): the enforcement latency.
 */
async function timedChange(label: string, ns: string, pod: string, command: string, open: boolean, change: () => Promise<unknown>): Promise<number> {
  const marker = `/tmp/watch-${Math.random().toString(36).slice(2)}`;
  const script = [
    probeFunction,
    `: > ${marker}`,
    'end=$(( $(cut -d. -f1 /proc/uptime) + 20 ))',
    'while [ $(cut -d. -f1 /proc/uptime) -lt $end ]; do',
    '  t=$(cut -d" " -f1 /proc/uptime)',
    `  if probe ${command}; then got=open; else got=closed; fi`,
    `  if [ $got = ${open ? 'open' : 'closed'} ]; then echo "FLIP $t"; exit 0; fi`,
    'done',
    'echo NEVER',
  ].join('\n');
  const watcher = cluster.kubectl(['exec', '-n', ns, pod, '--', 'sh', '-c', script], { timeoutMs: 60_000 });
  await until('the probe loop to run', async () => ((await cluster.kubectl(['exec', '-n', ns, pod, '--', 'test', '-f', marker])).code === 0 ? true : undefined), 20_000, 100);
  await change();
  const changed = uptimeMs();
  const result = await watcher;
  const flip = /FLIP (\d+\.\d+)/.exec(result.stdout);
  if (!flip) throw new Error(`${label}: ${ns}/${pod} never saw ${command} ${open ? 'open' : 'closed'}: ${result.stdout}${result.stderr}`);
  const latency = Math.max(0, Math.round(Number(flip[1]) * 1000) - changed);
  latencies[label] = latency;
  return latency;
}

/** Enforcement must follow a change within about a second (a loaded 2-core machine gets some slack). */
const latencyBudgetMs = 1500;

function policy(ns: string, name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: ns }, spec };
}

const sleeper = (ns: string, name: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels },
  spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: busyboxImage, command: ['sleep', '100000'] }] },
});

beforeAll(async () => {
  cluster = await startCluster();
  await apply({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: nsA, labels: { team: 'a' } } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: nsB, labels: { team: 'b' } } },
    ],
  });
  await apply({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'server', namespace: nsA, labels: { app: 'server' } },
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [
            {
              name: 'web',
              image: busyboxImage,
              // httpd on 8080 (named http), 9001 and 9005; a TCP sink on 7000 that keeps what it receives; UDP echo on 5000
              command: [
                'sh',
                '-c',
                [
                  'mkdir -p /www && hostname > /www/index.html',
                  'httpd -p 9001 -h /www && httpd -p 9005 -h /www',
                  '(udp-echo 5000 &)',
                  'printf "#!/bin/sh\\ncat >> /tmp/received\\n" > /tmp/sink && chmod +x /tmp/sink && (nc -ll -p 7000 -e /tmp/sink &)',
                  'exec httpd -f -p 8080 -h /www',
                ].join(' && '),
              ],
              ports: [
                { name: 'http', containerPort: 8080 },
                { containerPort: 9001 },
                { containerPort: 9005 },
                { name: 'echo', containerPort: 5000, protocol: 'UDP' },
              ],
            },
          ],
        },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'server', namespace: nsA }, spec: { selector: { app: 'server' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
      sleeper(nsA, 'client', { app: 'client' }),
      sleeper(nsA, 'other', { app: 'other' }),
      sleeper(nsB, 'client', { app: 'client' }),
      sleeper(nsB, 'other', { app: 'other' }),
    ],
  });
  await ok('wait', '-n', nsA, '--for=condition=Ready', 'pod/server', 'pod/client', 'pod/other', '--timeout=90s');
  await ok('wait', '-n', nsB, '--for=condition=Ready', 'pod/client', 'pod/other', '--timeout=90s');
  serverIp = (await ok('get', 'pod', 'server', '-n', nsA, '-o', 'jsonpath={.status.podIP}')).trim();
  serviceIp = (await ok('get', 'svc', 'server', '-n', nsA, '-o', 'jsonpath={.spec.clusterIP}')).trim();
  dnsIp = (await ok('get', 'svc', 'kube-dns', '-n', 'kube-system', '-o', 'jsonpath={.spec.clusterIP}')).trim();
  await until('the Service to answer', async () => ((await reaches(nsA, 'client', http(serviceIp, 80))) ? true : undefined), 60_000);
}, 240_000);

afterEach(async () => {
  // every test starts from no policy at all
  await ok('delete', 'networkpolicies', '--all', '-n', nsA);
  await ok('delete', 'networkpolicies', '--all', '-n', nsB);
  await until('every path open again', async () => ((await Promise.all([reaches(nsA, 'client', http(serverIp, 8080)), reaches(nsB, 'client', http(serverIp, 8080)), reaches(nsB, 'client', http(serviceIp, 80))])).every(Boolean) ? true : undefined), 30_000);
});

afterAll(async () => {
  console.log('NetworkPolicy enforcement latency after kubectl returned (ms):', latencies);
  await cluster?.destroy();
}, 120_000);

describe('NetworkPolicy', () => {
  it('blocks all ingress of the selected pods with a default deny, and removing it restores the traffic', async () => {
    await expectPaths([
      [nsA, 'client', http(serverIp, 8080), true],
      [nsB, 'client', http(serviceIp, 80), true],
    ]);
    const blocked = await timedChange('default deny', nsB, 'client', http(serverIp, 8080), false, () =>
      apply(policy(nsA, 'default-deny', { podSelector: {}, policyTypes: ['Ingress'] })),
    );
    expect(blocked).toBeLessThan(latencyBudgetMs);
    await expectPaths([
      [nsA, 'client', http(serverIp, 8080), false],
      [nsB, 'client', http(serverIp, 8080), false],
      // Service traffic reaches the backend from kd-netd, which applies the backend's policy for the client
      [nsA, 'client', http(serviceIp, 80), false],
      [nsB, 'client', http(`server.${nsA}`, 80), false],
      // a pod always reaches itself
      [nsA, 'server', http('127.0.0.1', 8080), true],
    ]);
    const restored = await timedChange('policy removed', nsB, 'client', http(serverIp, 8080), true, () => ok('delete', 'networkpolicy', 'default-deny', '-n', nsA));
    expect(restored).toBeLessThan(latencyBudgetMs);
    await expectPaths([
      [nsA, 'client', http(serverIp, 8080), true],
      [nsB, 'client', http(serviceIp, 80), true],
    ]);
  });

  it('opens exactly the path an allow rule by pod label names, directly and through the Service', async () => {
    await apply(policy(nsA, 'default-deny', { podSelector: {}, policyTypes: ['Ingress'] }));
    const opened = await timedChange('allow by pod label', nsA, 'client', http(serverIp, 8080), true, () =>
      apply(policy(nsA, 'from-clients', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }] }] })),
    );
    expect(opened).toBeLessThan(latencyBudgetMs);
    await expectPaths([
      [nsA, 'client', http(serverIp, 8080), true],
      [nsA, 'client', http(serviceIp, 80), true],
      [nsA, 'client', http('server', 80), true],
      [nsA, 'other', http(serverIp, 8080), false],
      [nsA, 'other', http(serviceIp, 80), false],
      // the same label in another namespace is another peer: a podSelector alone means the policy's namespace
      [nsB, 'client', http(serverIp, 8080), false],
      [nsB, 'client', http(serviceIp, 80), false],
    ]);
    // a pod label change moves a pod in and out of the peers
    const relabelled = await timedChange('pod label added', nsA, 'other', http(serverIp, 8080), true, () => ok('label', 'pod', 'other', '-n', nsA, 'app=client', '--overwrite'));
    expect(relabelled).toBeLessThan(latencyBudgetMs);
    await ok('label', 'pod', 'other', '-n', nsA, 'app=other', '--overwrite');
    await until('the relabelled pod shut out again', async () => (!(await reaches(nsA, 'other', http(serverIp, 8080))) ? true : undefined), 10_000, 200);
    // a new pod (a new address) that matches is let in as soon as it runs
    await apply(sleeper(nsA, 'late-client', { app: 'client' }));
    await ok('wait', '-n', nsA, '--for=condition=Ready', 'pod/late-client', '--timeout=60s');
    const ready = uptimeMs();
    await until('the new pod let in', async () => ((await reaches(nsA, 'late-client', http(serverIp, 8080))) ? true : undefined), 10_000, 100);
    latencies['new pod let in (from Ready, includes kubectl exec)'] = uptimeMs() - ready;
    await ok('delete', 'pod', 'late-client', '-n', nsA, '--wait=false');
  });

  it('opens the path from the namespaces a namespaceSelector picks, and with a podSelector only those pods there', async () => {
    await apply(policy(nsA, 'from-team-b', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'b' } } }] }] }));
    await until('np-b allowed', async () => ((await reaches(nsB, 'other', http(serverIp, 8080))) ? true : undefined), 10_000, 200);
    await expectPaths([
      [nsB, 'client', http(serverIp, 8080), true],
      [nsB, 'other', http(serverIp, 8080), true],
      [nsB, 'other', http(serviceIp, 80), true],
      [nsA, 'client', http(serverIp, 8080), false],
      [nsA, 'client', http(serviceIp, 80), false],
    ]);
    const narrowed = await timedChange('namespace and pod selector', nsB, 'other', http(serverIp, 8080), false, () =>
      apply(
        policy(nsA, 'from-team-b', {
          podSelector: { matchLabels: { app: 'server' } },
          ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'b' } }, podSelector: { matchLabels: { app: 'client' } } }] }],
        }),
      ),
    );
    expect(narrowed).toBeLessThan(latencyBudgetMs);
    await expectPaths([
      [nsB, 'client', http(serverIp, 8080), true],
      [nsB, 'other', http(serverIp, 8080), false],
      [nsA, 'client', http(serverIp, 8080), false],
    ]);
    // a namespace label change is a policy change too
    const relabelled = await timedChange('namespace label removed', nsB, 'client', http(serverIp, 8080), false, () => ok('label', 'namespace', nsB, 'team-'));
    expect(relabelled).toBeLessThan(latencyBudgetMs);
    await ok('label', 'namespace', nsB, 'team=b');
  });

  it('blocks a pod’s outbound connections under egress deny, to pods and to Services, and leaves other pods alone', async () => {
    const blocked = await timedChange('egress deny', nsB, 'client', http(serverIp, 8080), false, () => apply(policy(nsB, 'no-egress', { podSelector: { matchLabels: { app: 'client' } }, policyTypes: ['Egress'] })));
    expect(blocked).toBeLessThan(latencyBudgetMs);
    await expectPaths([
      [nsB, 'client', http(serverIp, 8080), false],
      [nsB, 'client', http(serviceIp, 80), false],
      [nsB, 'other', http(serverIp, 8080), true],
      [nsB, 'other', http(serviceIp, 80), true],
      [nsA, 'client', http(serverIp, 8080), true],
    ]);
    await apply(policy(nsB, 'to-server', { podSelector: { matchLabels: { app: 'client' } }, policyTypes: ['Egress'], egress: [{ to: [{ podSelector: { matchLabels: { app: 'server' } }, namespaceSelector: {} }], ports: [{ port: 8080 }] }] }));
    await until('egress to the server allowed', async () => ((await reaches(nsB, 'client', http(serverIp, 8080))) ? true : undefined), 10_000, 200);
    await expectPaths([
      [nsB, 'client', http(serverIp, 8080), true],
      // the Service's backend port is what the rule names: its ClusterIP works too
      [nsB, 'client', http(serviceIp, 80), true],
      [nsB, 'client', http(serverIp, 9001), false],
    ]);
  });

  it('fails DNS lookups under egress deny and resolves again once UDP 53 to kube-dns is allowed', async () => {
    const lookup = `nslookup server.${nsA}.svc.cluster.local`;
    expect(await reaches(nsB, 'client', lookup)).toBe(true);
    await apply(policy(nsB, 'no-egress', { podSelector: {}, policyTypes: ['Egress'] }));
    await until('lookups to fail', async () => (!(await reaches(nsB, 'client', lookup)) ? true : undefined), 10_000, 200);
    const resolved = await timedChange('DNS allowed', nsB, 'client', lookup, true, () =>
      apply(
        policy(nsB, 'dns', {
          podSelector: {},
          policyTypes: ['Egress'],
          egress: [{ to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }], ports: [{ port: 53, protocol: 'UDP' }] }],
        }),
      ),
    );
    expect(resolved).toBeLessThan(latencyBudgetMs);
    await expectPaths([
      [nsB, 'client', lookup, true],
      [nsB, 'other', lookup, true],
      // names resolve, connections still do not
      [nsB, 'client', http(`server.${nsA}`, 80), false],
    ]);
    // an ipBlock naming the DNS Service's address works as well
    await apply(policy(nsB, 'dns', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: `${dnsIp}/32` } }], ports: [{ port: 53, protocol: 'UDP' }] }] }));
    await expectPaths([[nsB, 'client', lookup, true]]);
    await ok('delete', 'networkpolicy', 'dns', '-n', nsB);
    await until('lookups to fail again', async () => (!(await reaches(nsB, 'client', lookup)) ? true : undefined), 10_000, 200);
  });

  it('allows an ipBlock except its except blocks', async () => {
    const clientA = await podIp(nsA, 'client');
    const subnet = `${serverIp.split('.').slice(0, 2).join('.')}.0.0/16`;
    const opened = await timedChange('ipBlock with except', nsA, 'client', http(serverIp, 8080), false, () =>
      apply(policy(nsA, 'block', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ ipBlock: { cidr: subnet, except: [`${clientA}/32`] } }] }] })),
    );
    expect(opened).toBeLessThan(latencyBudgetMs);
    await expectPaths([
      [nsA, 'client', http(serverIp, 8080), false],
      [nsA, 'other', http(serverIp, 8080), true],
      [nsB, 'client', http(serverIp, 8080), true],
    ]);
  });

  it('opens a named port, a port range and a UDP port, and nothing else', async () => {
    await apply(policy(nsA, 'default-deny', { podSelector: {}, policyTypes: ['Ingress'] }));
    await until('default deny in force', async () => (!(await reaches(nsB, 'client', http(serverIp, 8080))) ? true : undefined), 10_000, 200);
    const opened = await timedChange('named port', nsB, 'client', http(serverIp, 8080), true, () =>
      apply(policy(nsA, 'http', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ ports: [{ port: 'http' }] }] })),
    );
    expect(opened).toBeLessThan(latencyBudgetMs);
    await expectPaths([
      [nsB, 'client', http(serverIp, 8080), true],
      [nsB, 'client', http(serverIp, 9001), false],
      [nsB, 'client', `udp-echo -c ${serverIp} 5000 hello`, false],
    ]);
    const ranged = await timedChange('port range', nsB, 'client', http(serverIp, 9005), true, () =>
      apply(policy(nsA, 'range', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ ports: [{ port: 9000, endPort: 9010, protocol: 'TCP' }, { port: 'echo', protocol: 'UDP' }] }] })),
    );
    expect(ranged).toBeLessThan(latencyBudgetMs);
    await expectPaths([
      [nsB, 'client', http(serverIp, 9001), true],
      [nsB, 'client', http(serverIp, 9005), true],
      [nsB, 'client', http(serverIp, 8080), true],
      [nsB, 'client', `udp-echo -c ${serverIp} 5000 hello`, true],
    ]);
    // the policies add up; removing one closes only its ports
    await ok('delete', 'networkpolicy', 'http', '-n', nsA);
    await until('port 8080 closed', async () => (!(await reaches(nsB, 'client', http(serverIp, 8080))) ? true : undefined), 10_000, 200);
    await expectPaths([[nsB, 'client', http(serverIp, 9005), true]]);
  });

  it('keeps a connection established before a deny, and refuses new ones', async () => {
    // the client sends "before", waits, then "after" on the same connection; the deny lands in between
    const mark = `m${Date.now()}`;
    const session = cluster.kubectl(['exec', '-n', nsB, 'client', '--', 'sh', '-c', `(echo ${mark}-before; sleep 5; echo ${mark}-after; sleep 1) | nc ${serverIp} 7000`], { timeoutMs: 60_000 });
    await until('the first line delivered', async () => ((await ok('exec', '-n', nsA, 'server', '--', 'cat', '/tmp/received')).includes(`${mark}-before`) ? true : undefined), 10_000, 200);
    await apply(policy(nsA, 'default-deny', { podSelector: {}, policyTypes: ['Ingress'] }));
    await until('new connections blocked', async () => (!(await reaches(nsB, 'other', http(serverIp, 8080))) ? true : undefined), 10_000, 200);
    await session;
    expect(await ok('exec', '-n', nsA, 'server', '--', 'cat', '/tmp/received')).toContain(`${mark}-after`);
    expect(await reaches(nsB, 'client', `sh -c "echo probe | nc ${serverIp} 7000"`)).toBe(false);
  });
});

async function podIp(ns: string, name: string): Promise<string> {
  return (await ok('get', 'pod', name, '-n', ns, '-o', 'jsonpath={.status.podIP}')).trim();
}
