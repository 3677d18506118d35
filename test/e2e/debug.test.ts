// `kubectl debug` with the real kubectl 1.35 against `kubedesk serve` on real Docker: an ephemeral
// container in a running pod (sharing its network — it reaches the app on localhost — and, with
// --target, its processes), interactive sessions in a real terminal (tmux) that end and re-attach,
// `kubectl describe pod` listing it, --copy-to with --set-image and --share-processes, the debugging
// profiles, `kubectl debug node/…` with the host's namespaces and filesystem at /host, and what
// surrounds the subresource: RBAC as upstream's roles have it, a webhook and PodSecurity seeing
// pods/ephemeralcontainers, and a kubedesk restart adopting a running debugger.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { toolPaths } from '../support/tools';
import { serveWebhook } from '../support/webhookPod';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;
const namespace = 'debug-e2e';
const node = 'kubedesk';
const ok = (...args: string[]) => kubectlOk(cluster, args);
const inNamespace = (...args: string[]) => kubectlOk(cluster, ['-n', namespace, ...args]);
const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

/** The app: busybox httpd serving a page on :8080, its image spelled with the registry so --set-image has something to change. */
const appPod = (name: string, ns = namespace) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels: { app: name } },
  spec: {
    terminationGracePeriodSeconds: 1,
    containers: [{ name: 'web', image: `docker.io/${busyboxImage}`, command: ['sh', '-c', `echo hello-from-${name} > /tmp/index.html && exec httpd -f -p 8080 -h /tmp`] }],
  },
});

interface ContainerStatusView {
  name: string;
  ready: boolean;
  restartCount: number;
  started?: boolean;
  containerID?: string;
  state: { running?: { startedAt: string }; terminated?: { exitCode: number; reason: string }; waiting?: { reason: string; message?: string } };
}

async function ephemeralStatus(pod: string, container: string, ns = namespace): Promise<ContainerStatusView | undefined> {
  const json = JSON.parse(await kubectlOk(cluster, ['get', 'pod', pod, '-n', ns, '-o', 'json'])) as { status: { ephemeralContainerStatuses?: ContainerStatusView[] } };
  return json.status.ephemeralContainerStatuses?.find((entry) => entry.name === container);
}

const runningEphemeral = (pod: string, container: string, ns = namespace) =>
  until(`ephemeral container ${container} to run`, async () => {
    const status = await ephemeralStatus(pod, container, ns);
    return status?.state.running ? status : undefined;
  }, 60_000);

/** A terminal (tmux) running one kubectl command, read as a screen. */
class Terminal {
  private static count = 0;
  private readonly socket = `kubedesk-debug-e2e-${process.pid}-${Terminal.count++}`;
  private readonly session = 'kd';

  constructor(kubectlArgs: string[]) {
    const command = `KUBECONFIG=${cluster.kubeconfig} ${toolPaths().kubectl} ${kubectlArgs.map((arg) => `'${arg}'`).join(' ')}; echo kubectl-exited-$?; sleep 300`;
    this.tmux('new-session', '-d', '-s', this.session, '-x', '160', '-y', '50', command);
  }

  private tmux(...args: string[]): string {
    const result = spawnSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8', timeout: 10_000 });
    if (result.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', this.session);
  }

  type(line: string): void {
    this.tmux('send-keys', '-t', this.session, line, 'Enter');
  }

  async waitFor(what: string, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
    try {
      return await until(what, () => pattern.exec(this.screen()) ?? undefined, timeoutMs, 150);
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- terminal ---\n${this.screen()}`);
    }
  }

  private tag = 0;

  /** Types a command between two fresh tags and checks what it printed between them. */
  async ask(command: string, expected: RegExp): Promise<string> {
    const tag = `t${++this.tag}x`;
    this.type(`echo ${tag}-begin; ${command}; echo ${tag}-end`);
    const [, output] = await this.waitFor(`${command} to answer`, new RegExp(`^${tag}-begin\\s*\\n([\\s\\S]*?)^${tag}-end`, 'm'));
    expect(output).toMatch(expected);
    return output;
  }

  /** Ends kubectl (and the terminal) without ending what runs in the container, as closing a window does. */
  close(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { timeout: 10_000 });
  }
}

async function withTerminal<T>(kubectlArgs: string[], use: (terminal: Terminal) => Promise<T>): Promise<T> {
  const terminal = new Terminal(kubectlArgs);
  try {
    return await use(terminal);
  } finally {
    terminal.close();
  }
}

beforeAll(async () => {
  cluster = await startCluster();
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { 'webhooks.kubedesk.test': 'enabled' } } });
  await apply(appPod('web'));
  await inNamespace('wait', '--for=condition=Ready', 'pod/web', '--timeout=90s');
}, 180_000);

afterAll(async () => {
  await cluster?.kubectl(['delete', 'validatingwebhookconfiguration', 'ephemeral-containers', '--ignore-not-found']);
  await cluster?.destroy();
}, 120_000);

describe('kubectl debug into a running pod', () => {
  it('runs an ephemeral container that shares the pod network and, with --target, the app processes; it ends, re-attaches and is never restarted', async () => {
    await withTerminal(['debug', 'web', '-n', namespace, '-it', `--image=${busyboxImage}`, '--target=web', '-c', 'debugger'], async (terminal) => {
      await terminal.waitFor('the targeting notice', /^Targeting container "web"\. If you don't see processes from this container it may be because the container runtime doesn't support this feature\.$/m);
      await terminal.waitFor('the prompt hint', /^If you don't see a command prompt, try pressing enter\.$/m);
      await terminal.waitFor('the shell prompt', /^\/ # $/m);
      await terminal.ask('wget -qO- http://localhost:8080/', /^hello-from-web\s*$/m);
      const processes = await terminal.ask('ps -o pid,args', /httpd -f -p 8080 -h \/tmp/);
      expect(processes).toMatch(/^\s+1 httpd -f -p 8080 -h \/tmp\s*$/m);
      await terminal.ask('hostname', /^web\s*$/m);
    });
    // the window closed: the debugger keeps running, never restarted
    const running = await runningEphemeral('web', 'debugger');
    expect(running).toMatchObject({ ready: false, restartCount: 0 });
    expect(running).not.toHaveProperty('started');

    await withTerminal(['attach', 'web', '-n', namespace, '-c', 'debugger', '-it'], async (terminal) => {
      await terminal.waitFor('the prompt hint', /^If you don't see a command prompt, try pressing enter\.$/m);
      terminal.type('');
      await terminal.ask('echo again-$((6*7))', /^again-42\s*$/m);
      terminal.type('exit 0');
      await terminal.waitFor('the end of the session', /^Session ended, the ephemeral container will not be restarted but may be reattached using 'kubectl attach web -c debugger -i -t' if it is still running$/m);
      await terminal.waitFor('kubectl to exit', /^kubectl-exited-0$/m);
    });
    const ended = await until('the debugger to terminate', async () => {
      const status = await ephemeralStatus('web', 'debugger');
      return status?.state.terminated ? status : undefined;
    });
    expect(ended).toMatchObject({ restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } });
    expect(await inNamespace('logs', 'web', '-c', 'debugger')).toContain('hello-from-web');
    // attaching to it now fails as upstream's kubelet says
    const late = await cluster.kubectl(['attach', 'web', '-n', namespace, '-c', 'debugger', '-i']);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(new RegExp(`^error: unable to upgrade connection: container debugger not found in pod web_${namespace}\n$`, 'm'));
  }, 180_000);

  it('names the debugger itself and says so, as kubectl prints on a real cluster', async () => {
    const result = await cluster.kubectl(['debug', 'web', '-n', namespace, `--image=${busyboxImage}`, '--profile=general', '--', 'sh', '-c', 'echo named-run']);
    expect(result.code, result.stderr).toBe(0);
    const [, name] = /^Defaulting debug container name to (debugger-[a-z0-9]{5})\.\n$/.exec(result.stdout) ?? [];
    expect(name).toBeDefined();
    await until('the named debugger to finish', async () => ((await ephemeralStatus('web', name))?.state.terminated ? true : undefined));
    expect(await inNamespace('logs', 'web', '-c', name)).toBe('named-run\n');
    // the general profile lets it trace processes
    expect(await inNamespace('get', 'pod', 'web', '-o', `jsonpath={.spec.ephemeralContainers[?(@.name=="${name}")].securityContext.capabilities.add}`)).toBe('["SYS_PTRACE"]');
  }, 90_000);

  it('is listed by kubectl describe pod under Ephemeral Containers, with its events', async () => {
    const described = await inNamespace('describe', 'pod', 'web');
    const section = /^Ephemeral Containers:\n([\s\S]*?)^Conditions:/m.exec(described)?.[1] ?? '';
    const debuggerSection = /^ {2}debugger:\n([\s\S]*?)(?=^ {2}\S)/m.exec(section)?.[1] ?? '';
    expect(debuggerSection).toMatch(/^ {4}Container ID: +docker:\/\/[0-9a-f]{64}\n {4}Image: +kubedesk-test\/busybox:4\n {4}Image ID: +docker:\/\/sha256:[0-9a-f]{64}\n {4}Port: +<none>\n {4}Host Port: +<none>\n/);
    expect(debuggerSection).toMatch(/^ {4}State: +Terminated\n {6}Reason: +Completed\n {6}Exit Code: +0\n {6}Started: .*\n {6}Finished: .*\n {4}Ready: +False\n {4}Restart Count: +0\n/m);
    expect(described).toMatch(/Normal {2}Started .*kubelet +spec\.ephemeralContainers\{debugger\}: Started container debugger$/m);
  });
});

describe('the debugging profiles', () => {
  const capabilities = async (container: string): Promise<bigint> => BigInt(`0x${(/CapEff:\s+([0-9a-f]+)/.exec(await inNamespace('exec', 'web', '-c', container, '--', 'cat', '/proc/self/status')) ?? [])[1]}`);
  const NET_ADMIN = 1n << 12n;
  const SYS_PTRACE = 1n << 19n;

  it('gives netadmin NET_ADMIN and general SYS_PTRACE, which baseline lacks', async () => {
    for (const [profile, name] of [['netadmin', 'net'], ['general', 'gen'], ['baseline', 'base']]) {
      await inNamespace('debug', 'web', `--image=${busyboxImage}`, `--profile=${profile}`, '-c', name, '--', 'sleep', '3600');
    }
    for (const name of ['net', 'gen', 'base']) await runningEphemeral('web', name);
    expect((await capabilities('net')) & NET_ADMIN).toBe(NET_ADMIN);
    expect((await capabilities('gen')) & SYS_PTRACE).toBe(SYS_PTRACE);
    expect((await capabilities('base')) & (NET_ADMIN | SYS_PTRACE)).toBe(0n);
  }, 90_000);

  it('runs sysadmin privileged', async () => {
    await inNamespace('debug', 'web', `--image=${busyboxImage}`, '--profile=sysadmin', '-c', 'sys', '--', 'sleep', '3600');
    const containerID = await until('the sysadmin debugger to be created', async () => (await ephemeralStatus('web', 'sys'))?.containerID, 60_000);
    // Docker itself may refuse privileged containers on a host missing capabilities; what kubedesk asks is what counts.
    expect(execFileSync('docker', ['inspect', '--format', '{{.HostConfig.Privileged}}', containerID.replace('docker://', '')], { encoding: 'utf8' }).trim()).toBe('true');
  }, 90_000);

  it('refuses restricted with a root image as the kubelet does, and warns on legacy', async () => {
    const restricted = await cluster.kubectl(['debug', 'web', '-n', namespace, `--image=${busyboxImage}`, '--profile=restricted', '-c', 'strict', '--', 'sleep', '3600']);
    expect(restricted.code, restricted.stderr).toBe(0);
    const uid = await inNamespace('get', 'pod', 'web', '-o', 'jsonpath={.metadata.uid}');
    const waiting = await until('the restricted debugger to wait', async () => {
      const state = (await ephemeralStatus('web', 'strict'))?.state.waiting;
      return state?.message ? state : undefined;
    });
    expect(waiting).toEqual({ reason: 'CreateContainerConfigError', message: `container has runAsNonRoot and image will run as root (pod: "web_${namespace}(${uid})", container: strict)` });

    const legacy = await cluster.kubectl(['debug', 'web', '-n', namespace, `--image=${busyboxImage}`, '-c', 'old', '--', 'true']);
    expect(legacy.code, legacy.stderr).toBe(0);
    expect(legacy.stderr).toBe('--profile=legacy is deprecated and will be removed in the future. It is recommended to explicitly specify a profile, for example "--profile=general".\n');
  }, 90_000);
});

describe('kubectl debug --copy-to', () => {
  it('copies the pod with a new image, shared processes and a debugging shell', async () => {
    await withTerminal(['debug', 'web', '-n', namespace, '-it', `--image=${busyboxImage}`, '--copy-to=web-copy', `--set-image=web=${busyboxImage}`, '--share-processes', '-c', 'shell', '--profile=general'], async (terminal) => {
      await terminal.waitFor('the prompt hint', /^If you don't see a command prompt, try pressing enter\.$/m);
      terminal.type('');
      await terminal.ask('wget -qO- http://localhost:8080/', /^hello-from-web\s*$/m);
      const processes = await terminal.ask('ps -o args', /httpd -f -p 8080 -h \/tmp/);
      expect(processes).toContain('/pause');
    });
    const copy = JSON.parse(await inNamespace('get', 'pod', 'web-copy', '-o', 'json')) as { metadata: { labels?: Record<string, string> }; spec: { shareProcessNamespace?: boolean; containers: Array<{ name: string; image: string; stdin?: boolean; tty?: boolean }> } };
    expect(copy.spec.shareProcessNamespace).toBe(true);
    expect(copy.spec.containers.map((container) => [container.name, container.image])).toEqual([['web', busyboxImage], ['shell', busyboxImage]]);
    expect(copy.spec.containers[1]).toMatchObject({ stdin: true, tty: true });
    expect(copy.metadata.labels).toBeUndefined();
    await inNamespace('delete', 'pod', 'web-copy', '--now');
  }, 180_000);
});

describe('kubectl debug node/…', () => {
  it('runs a pod on the node in the host namespaces with the Docker host\'s filesystem at /host', async () => {
    const clusterId = readFileSync(join(cluster.dataDir, 'cluster-id'), 'utf8').trim();
    const pod = await withTerminal(['debug', `node/${node}`, '-n', namespace, '-it', `--image=${busyboxImage}`], async (terminal) => {
      const [, name] = await terminal.waitFor('the creation notice', new RegExp(`^Creating debugging pod (node-debugger-${node}-[a-z0-9]{5}) with container debugger on node ${node}\\.$`, 'm'));
      await terminal.waitFor('the prompt hint', /^If you don't see a command prompt, try pressing enter\.$/m);
      terminal.type('');
      await terminal.ask(`cat /host${cluster.dataDir}/cluster-id`, new RegExp(`^${clusterId}\\s*$`, 'm'));
      await terminal.ask('hostname', new RegExp(`^${hostname()}\\s*$`, 'm'));
      // the host's processes: this cluster's own app among them
      await terminal.ask('ps -o args', /httpd -f -p 8080 -h \/tmp/);
      return name;
    });
    const spec = JSON.parse(await inNamespace('get', 'pod', pod, '-o', 'jsonpath={.spec}')) as Record<string, unknown>;
    expect(spec).toMatchObject({ nodeName: node, hostNetwork: true, hostPID: true, hostIPC: true });
    expect(spec.volumes).toContainEqual({ name: 'host-root', hostPath: { path: '/', type: '' } });
    await inNamespace('delete', 'pod', pod, '--now');
  }, 180_000);
});

describe('around pods/ephemeralcontainers', () => {
  it('is not in the edit role, as upstream keeps it out, and works once granted', async () => {
    await inNamespace('create', 'serviceaccount', 'dev');
    await inNamespace('create', 'rolebinding', 'dev-edit', '--clusterrole=edit', `--serviceaccount=${namespace}:dev`);
    const as = `--as=system:serviceaccount:${namespace}:dev`;
    const refused = await cluster.kubectl(['debug', 'web', '-n', namespace, as, `--image=${busyboxImage}`, '-c', 'as-dev', '--profile=general', '--', 'true']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`Error from server (Forbidden): pods "web" is forbidden: User "system:serviceaccount:${namespace}:dev" cannot patch resource "pods/ephemeralcontainers" in API group "" in the namespace "${namespace}"`);
    expect((await cluster.kubectl(['auth', 'can-i', 'patch', 'pods', '--subresource=ephemeralcontainers', '-n', namespace, as])).stdout.trim()).toBe('no');
    await inNamespace('create', 'role', 'debugger', '--verb=patch', '--resource=pods/ephemeralcontainers');
    await inNamespace('create', 'rolebinding', 'dev-debugger', '--role=debugger', `--serviceaccount=${namespace}:dev`);
    const granted = await cluster.kubectl(['debug', 'web', '-n', namespace, as, `--image=${busyboxImage}`, '-c', 'as-dev', '--profile=general', '--', 'true']);
    expect(granted.code, granted.stderr).toBe(0);
    expect((await cluster.kubectl(['auth', 'can-i', 'patch', 'pods', '--subresource=ephemeralcontainers', '-n', namespace, as])).stdout.trim()).toBe('yes');
  }, 60_000);

  it('is seen by validating webhooks as a Pod UPDATE of pods/ephemeralcontainers, which may refuse it', async () => {
    const caBundle = await serveWebhook(cluster, namespace, 'admission');
    await apply({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'ephemeral-containers' },
      webhooks: [{
        name: 'ephemeral.kubedesk.test',
        clientConfig: { service: { namespace, name: 'admission', path: '/subresources' }, caBundle },
        rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/ephemeralcontainers'], scope: 'Namespaced' }],
        namespaceSelector: { matchLabels: { 'webhooks.kubedesk.test': 'enabled' } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 5,
      }],
    });
    const denied = await cluster.kubectl(['debug', 'web', '-n', namespace, `--image=${busyboxImage}`, '-c', 'denied-one', '--profile=general', '--', 'true']);
    expect(denied.code).toBe(1);
    expect(denied.stderr.trim()).toBe('Error from server (Forbidden): admission webhook "ephemeral.kubedesk.test" denied the request: ephemeral container denied-one is not allowed');
    await inNamespace('debug', 'web', `--image=${busyboxImage}`, '-c', 'allowed-one', '--profile=general', '--', 'true');
    const log = await inNamespace('logs', 'webhook');
    const reviews = log.split('\n').filter((line) => line.startsWith('review ')).map((line) => JSON.parse(line.slice('review '.length)) as { object: { ephemeralContainers?: string[] } });
    const review = reviews.find((entry) => entry.object.ephemeralContainers?.includes('allowed-one'));
    expect(review).toMatchObject({
      operation: 'UPDATE',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'ephemeralcontainers',
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      name: 'web',
      namespace,
      object: { apiVersion: 'v1', kind: 'Pod', name: 'web' },
    });
    await ok('delete', 'validatingwebhookconfiguration', 'ephemeral-containers');
  }, 180_000);

  it('is judged by PodSecurity: sysadmin is refused where baseline is enforced', async () => {
    const strict = 'debug-baseline';
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: strict, labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } });
    await apply(appPod('guarded', strict));
    const refused = await cluster.kubectl(['debug', 'guarded', '-n', strict, `--image=${busyboxImage}`, '--profile=sysadmin', '-c', 'root', '--', 'true']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('Error from server (Forbidden): pods "guarded" is forbidden: violates PodSecurity "baseline:latest": privileged (container "root" must not set securityContext.privileged=true)');
    const allowed = await cluster.kubectl(['debug', 'guarded', '-n', strict, `--image=${busyboxImage}`, '--profile=baseline', '-c', 'plain', '--', 'true']);
    expect(allowed.code, allowed.stderr).toBe(0);
  }, 60_000);

  it('keeps a running debugger across a kubedesk restart, adopted and still reachable', async () => {
    const before = await runningEphemeral('web', 'net');
    await cluster.restart();
    await until('the API after the restart', async () => ((await cluster.kubectl(['get', 'pod', 'web', '-n', namespace])).code === 0 ? true : undefined));
    expect(await inNamespace('exec', 'web', '-c', 'net', '--', 'echo', 'still-here')).toBe('still-here\n');
    const after = await runningEphemeral('web', 'net');
    expect(after.containerID).toBe(before.containerID);
    expect(after.restartCount).toBe(0);
    // and the ones that ended stay ended
    expect((await ephemeralStatus('web', 'debugger'))?.state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
  }, 180_000);
});
