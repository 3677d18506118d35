// PortForwards (kubedesk.dev/v1alpha1) end to end with the real kubectl: a forward to a
// Deployment's pod answers on 127.0.0.1 and keeps answering, through the same local port, from
// the pod that replaces it; a Service forward keeps working across pod replacement; a taken port
// leaves the forward Failed with a message; invalid specs are refused with field paths; deleting
// the forward frees its port; a forward comes back on its local port after kubedesk restarts.
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { answersWith, portRefused, readyWebPod, webDeployment, webService } from '../support/forwardTargets';
import { hostGet } from '../support/hostHttp';
import { kubectlOk, kubectlState, until } from '../support/wait';

let cluster: TestCluster;
const namespace = 'pf-e2e';

const ok = (...args: string[]) => kubectlOk(cluster, ['-n', namespace, ...args]);
const apply = (manifest: object) => kubectlOk(cluster, ['-n', namespace, 'apply', '-f', '-'], JSON.stringify(manifest));

function portForward(name: string, spec: Record<string, unknown>): object {
  return { apiVersion: 'kubedesk.dev/v1alpha1', kind: 'PortForward', metadata: { name, namespace }, spec };
}

async function statusOf(name: string): Promise<{ phase?: string; localPort?: number; message?: string; pod?: string }> {
  return JSON.parse(await ok('get', 'portforward', name, '-o', 'jsonpath={.status}') || '{}') as { phase?: string; localPort?: number; message?: string; pod?: string };
}

function runningPod(): Promise<string> {
  return readyWebPod(cluster, namespace);
}

/** Polls the local port until it answers with `body` (the pod's hostname). */
function answers(port: number, body: string): Promise<string> {
  return answersWith(port, body, kubectlState(cluster, ['-n', namespace, 'get', 'pf,pods', '-o', 'wide']));
}

const refused = portRefused;

beforeAll(async () => {
  cluster = await startCluster();
  await kubectlOk(cluster, ['create', 'namespace', namespace]);
  await apply(webDeployment(namespace));
  await apply(webService(namespace));
}, 240_000);

afterAll(async () => {
  await cluster?.destroy();
});

describe('PortForward', () => {
  it('is served as a kind kubectl knows', async () => {
    const resources = await kubectlOk(cluster, ['api-resources', '--api-group=kubedesk.dev']);
    expect(resources).toMatch(/portforwards\s+pf\s+kubedesk\.dev\/v1alpha1\s+true\s+PortForward/);
    expect(await kubectlOk(cluster, ['explain', 'pf.spec.target'])).toContain('kind');
  });

  it('forwards to a pod and follows the Deployment to the pod that replaces it', async () => {
    const first = await runningPod();
    await apply(portForward('to-pod', { target: { kind: 'Pod', name: first }, port: 'http' }));
    const active = await until('the forward to be Active', async () => {
      const status = await statusOf('to-pod');
      return status.phase === 'Active' && status.localPort ? status : undefined;
    }, 60_000, 500, kubectlState(cluster, ['-n', namespace, 'get', 'pf', '-o', 'yaml']));
    const localPort = active.localPort ?? 0;
    const table = await ok('get', 'pf');
    expect(table.split('\n')[0].trim().split(/\s+/)).toEqual(['NAME', 'TARGET', 'PORT', 'LOCAL', 'STATUS', 'AGE']);
    expect(table).toMatch(new RegExp(`to-pod\\s+pod/${first}\\s+http\\s+127\\.0\\.0\\.1:${localPort}\\s+Active`));
    expect(await answers(localPort, first)).toBe(first);

    await ok('delete', 'pod', first, '--wait=false');
    const replacement = await until('a new ready pod', async () => {
      const name = await runningPod();
      return name !== first ? name : undefined;
    }, 120_000);
    expect(await answers(localPort, replacement)).toBe(replacement);
    await until('status.pod to name the new pod', async () => ((await statusOf('to-pod')).pod === replacement ? true : undefined), 30_000);
  }, 300_000);

  it('forwards to a Service port across pod replacement', async () => {
    await apply(portForward('to-service', { target: { kind: 'Service', name: 'web' }, port: 80 }));
    const status = await until('the Service forward to be Active', async () => {
      const current = await statusOf('to-service');
      return current.phase === 'Active' && current.localPort ? current : undefined;
    }, 60_000);
    const localPort = status.localPort ?? 0;
    const before = await runningPod();
    expect(await answers(localPort, before)).toBe(before);
    await ok('delete', 'pod', before, '--wait=false');
    const after = await until('a new ready pod', async () => {
      const name = await runningPod();
      return name !== before ? name : undefined;
    }, 120_000);
    expect(await answers(localPort, after)).toBe(after);
  }, 300_000);

  it('fails with a message naming a local port that is taken', async () => {
    const holder: Server = await new Promise((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => resolve(server));
    });
    const address = holder.address();
    const taken = typeof address === 'object' && address ? address.port : 0;
    try {
      await apply(portForward('busy', { target: { kind: 'Service', name: 'web' }, port: 'http', localPort: taken }));
      const status = await until('the forward to fail', async () => {
        const current = await statusOf('busy');
        return current.phase === 'Failed' ? current : undefined;
      }, 60_000);
      expect(status.message).toContain(`port ${taken} on 127.0.0.1 is already in use`);
      expect(await ok('get', 'pf', 'busy')).toMatch(/Failed/);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
      await ok('delete', 'pf', 'busy');
    }
  }, 120_000);

  it('refuses invalid specs with field paths', async () => {
    const result = await cluster.kubectl(['-n', namespace, 'apply', '-f', '-'], {
      input: JSON.stringify(portForward('bad', { target: { kind: 'Deployment', name: 'web' }, port: 0, localPort: 70000 })),
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('The PortForward "bad" is invalid');
    expect(result.stderr).toContain('spec.target.kind: Unsupported value: "Deployment"');
    expect(result.stderr).toContain('spec.port: Invalid value: 0');
    expect(result.stderr).toContain('spec.localPort: Invalid value: 70000');
  });

  it('comes back on the same local port after kubedesk restarts', async () => {
    const pod = await runningPod();
    await apply(portForward('survives-restart', { target: { kind: 'Pod', name: pod }, port: 'http' }));
    const before = await until('the forward to be Active', async () => {
      const status = await statusOf('survives-restart');
      return status.phase === 'Active' && status.localPort ? status : undefined;
    }, 60_000, 500, kubectlState(cluster, ['-n', namespace, 'get', 'pf', '-o', 'yaml']));
    const localPort = before.localPort ?? 0;
    expect(await answers(localPort, pod)).toBe(pod);

    await cluster.restart();
    // The pod may be the same one or a replacement; either way a web pod's hostname answers.
    const answered = await until(`127.0.0.1:${localPort} to answer with a pod name after the restart`, async () => {
      const response = await hostGet(localPort).catch(() => undefined);
      const body = response?.body.trim() ?? '';
      return /^web-[a-z0-9]+-[a-z0-9]+$/.test(body) ? body : undefined;
    }, 90_000, 500, kubectlState(cluster, ['-n', namespace, 'get', 'pf,pods', '-o', 'wide']));
    expect(answered).toMatch(/^web-/);
    expect((await statusOf('survives-restart')).localPort).toBe(localPort);
    await ok('delete', 'pf', 'survives-restart');
  }, 240_000);

  it('frees the local port when the forward is deleted', async () => {
    const localPort = (await statusOf('to-pod')).localPort ?? 0;
    expect(localPort).toBeGreaterThan(0);
    await ok('delete', 'pf', 'to-pod');
    await until('the port to be closed', async () => ((await refused(localPort)) ? true : undefined), 30_000);
  });
});
