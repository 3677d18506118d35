// The control plane and Docker going away and coming back: after kill -9 and a restart
// of `kubedesk serve` the same containers keep running (no restart, no duplicate); while dockerd is
// stopped the node turns NotReady, and when it is back the node is Ready and the pods run again.
// The dockerd part stops the machine's Docker daemon, so it runs only where that is allowed
// (CI, or KUBEDESK_TEST_RESTART_DOCKER=1).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { repositoryRoot } from '../support/tools';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.destroy();
});

const ok = (...args: string[]) => kubectlOk(cluster, args);

function podContainers(pod: string): { id: string; name: string; status: string }[] {
  const out = execFileSync('docker', ['ps', '-a', '--no-trunc', '--filter', `label=io.kubernetes.pod.name=${pod}`, '--format', '{{.ID}} {{.Names}} {{.Status}}'], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, name, ...status] = line.split(' ');
      return { id, name, status: status.join(' ') };
    });
}

async function runningPod(name: string): Promise<void> {
  await until(`${name} Running`, async () => ((await ok('get', 'pod', name, '-o', 'jsonpath={.status.phase} {.status.containerStatuses[0].ready}')) === 'Running true' ? true : undefined), 60_000, 250);
}

describe('control-plane restarts', () => {
  it('keeps the same containers running across kill -9 and restart', async () => {
    await ok('run', 'steady', '--image=kubedesk-test/busybox:4', '--', 'sleep', '3600');
    await runningPod('steady');
    const before = podContainers('steady');
    expect(before).toHaveLength(2); // sandbox + app container
    await cluster.kill9();
    expect(podContainers('steady').every((container) => container.status.startsWith('Up'))).toBe(true);
    await cluster.restart();
    await runningPod('steady');
    // give the kubelet a few sync rounds to (wrongly) restart or duplicate anything
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const after = podContainers('steady');
    expect(after.map((container) => container.id).sort()).toEqual(before.map((container) => container.id).sort());
    expect(after.every((container) => container.status.startsWith('Up'))).toBe(true);
    expect(await ok('get', 'pod', 'steady', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}')).toBe('0');
  });

  it('removes the containers of a pod whose object went away while the kubelet was down', async () => {
    await ok('run', 'doomed', '--image=kubedesk-test/busybox:4', '--', 'sleep', '3600');
    await runningPod('doomed');
    // A forced delete removes the object at once; killing the server right after leaves the
    // containers behind for the restarted kubelet to find without a pod.
    await ok('delete', 'pod', 'doomed', '--grace-period=0', '--force', '--wait=false');
    await cluster.kill9();
    await cluster.restart();
    await until('doomed containers removed', async () => (podContainers('doomed').length === 0 ? true : undefined), 30_000, 250);
    expect((await cluster.kubectl(['get', 'pod', 'doomed'])).stderr).toContain('pods "doomed" not found');
  });
});

const restartDocker = process.env.CI === 'true' || process.env.KUBEDESK_TEST_RESTART_DOCKER === '1';

describe.runIf(restartDocker)('Docker restarts', () => {
  // The machine's own daemon, as its pid file names it: the test stops exactly that process and
  // waits for it to exit before starting a new one (a new dockerd refuses to start while the old
  // one's pid file is still there).
  const pidFile = '/var/run/docker.pid';

  function daemonPid(): number {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 1) throw new Error(`${pidFile} does not hold a process id`);
    const command = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (command !== 'dockerd') throw new Error(`${pidFile} names process ${pid} (${command}), not dockerd`);
    return pid;
  }

  // gone, or a zombie its parent has not reaped yet (it has exited and released its pid file)
  function processGone(pid: number): boolean {
    if (!existsSync(`/proc/${pid}`)) return true;
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').startsWith('Z');
    } catch {
      return true;
    }
  }

  function dockerUp(): boolean {
    try {
      execFileSync('docker', ['info'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  }

  it('turns the node NotReady while dockerd is down and brings pods back when it returns', async () => {
    await ok('run', 'survivor', '--image=kubedesk-test/busybox:4', '--', 'sleep', '3600');
    await runningPod('survivor');
    const pid = daemonPid();
    process.kill(pid, 'SIGTERM');
    await until('dockerd exited', async () => (processGone(pid) ? true : undefined), 60_000, 250);
    expect(dockerUp()).toBe(false);
    await until('node NotReady', async () => {
      const ready = await ok('get', 'node', 'kubedesk', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].message}');
      return ready.startsWith('False container runtime is down') ? true : undefined;
    }, 40_000, 250);
    // started as scripts/ci-setup.sh starts it; the script waits until `docker info` answers
    execFileSync('bash', [join(repositoryRoot, 'scripts', 'start-dockerd.sh')], { stdio: 'inherit', timeout: 90_000 });
    expect(dockerUp()).toBe(true);
    await until('node Ready', async () => ((await ok('get', 'node', 'kubedesk', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')) === 'True' ? true : undefined), 40_000, 250);
    // The pod's status still says Running from before the outage until the kubelet's relist sees the
    // stopped containers, so wait for the restart itself rather than for Running.
    const restarts = await until('the survivor restarted and ready again', async () => {
      const [count, ready] = (await ok('get', 'pod', 'survivor', '-o', 'jsonpath={.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].ready}')).split(' ');
      return Number(count) >= 1 && ready === 'true' ? Number(count) : undefined;
    }, 60_000, 250);
    expect(restarts).toBeGreaterThanOrEqual(1);
  }, 240_000);
});
