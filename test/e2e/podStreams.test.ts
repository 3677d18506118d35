// The real kubectl 1.35 against pods on real Docker: `kubectl run`,
// logs with every flag (follow, tail, since, timestamps, container, limit-bytes, previous), exec
// (exit codes, piped stdin, a real terminal in tmux with resize), attach, cp both ways and
// port-forward (SPDY tunnelled in WebSocket, and plain SPDY). Expected output follows upstream kubectl
// and kubelet: `command terminated with exit code N`, RFC3339Nano log timestamps, `Forwarding from …`.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { backgroundKubectl } from '../support/processes';
import { toolPaths } from '../support/tools';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;

// Pods other than `web` (which the `kubectl run` test creates) are created up front so their
// containers start while earlier tests run.
const podsManifest = `
apiVersion: v1
kind: Pod
metadata: { name: talker }
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: talker
      image: ${busyboxImage}
      command: ['sh', '-c', 'for i in 1 2 3 4 5; do echo line-$i; done; exec sleep 3600']
---
apiVersion: v1
kind: Pod
metadata: { name: ticker }
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: ticker
      image: ${busyboxImage}
      command: ['sh', '-c', 'i=0; while true; do i=$((i+1)); echo tick-$i; sleep 0.3; done']
---
apiVersion: v1
kind: Pod
metadata: { name: pair }
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: first
      image: ${busyboxImage}
      command: ['sh', '-c', 'echo from-first; exec sleep 3600']
    - name: second
      image: ${busyboxImage}
      command: ['sh', '-c', 'echo from-second; exec sleep 3600']
---
apiVersion: v1
kind: Pod
metadata: { name: crasher }
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: crasher
      image: ${busyboxImage}
      command: ['sh', '-c', 'echo marker-$(cat /proc/sys/kernel/random/uuid); sleep 2; exit 1']
---
apiVersion: v1
kind: Pod
metadata: { name: echoer }
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: echoer
      image: ${busyboxImage}
      stdin: true
      tty: false
      command: ['sh', '-c', 'while read l; do echo got:$l; done']
`;

// `kubectl run` itself is checked by the first test; it runs here so that every other test that
// uses `web` also works when run alone (vitest -t).
let webCreated: string;

beforeAll(async () => {
  cluster = await startCluster();
  webCreated = await ok([
    'run', 'web', `--image=${busyboxImage}`, '--port=8080', '--command', '--',
    'sh', '-c', 'mkdir -p /www && echo hello-from-pod > /www/index.html && exec httpd -f -p 8080 -h /www',
  ]);
  await ok(['apply', '-f', '-'], podsManifest);
});

afterAll(async () => {
  await cluster?.destroy();
});

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);

/** Waits until every container of the pod is ready and the phase is Running. */
async function waitForRunning(name: string, timeoutMs = 60_000): Promise<void> {
  await until(
    `pod ${name} to be Running and ready`,
    async () => {
      const out = await ok(['get', 'pod', name, '-o', 'jsonpath={.status.phase} {.status.containerStatuses[*].ready}']);
      const [phase, ...ready] = out.trim().split(/\s+/);
      return phase === 'Running' && ready.length > 0 && ready.every((value) => value === 'true') ? true : undefined;
    },
    timeoutMs, 150,
  );
}

function httpGetText(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { timeout: 10_000, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${url} timed out`)));
    request.on('error', reject);
  });
}

describe('kubectl run', () => {
  it('starts a pod that reaches 1/1 Running', async () => {
    expect(webCreated).toBe('pod/web created\n');
    const table = await until('web to show 1/1 Running', async () => {
      const out = await ok(['get', 'pod', 'web']);
      return /^web\s+1\/1\s+Running\s+0\s+\S+$/m.test(out) ? out : undefined;
    }, 60_000, 150);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    const podIP = await ok(['get', 'pod', 'web', '-o', 'jsonpath={.status.podIP}']);
    expect(podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  });
});

describe('kubectl run -i --rm', () => {
  it('attaches to a one-off pod, prints its output and deletes it', async () => {
    const result = await cluster.kubectl(
      ['run', 'once', `--image=${busyboxImage}`, '--restart=Never', '--rm', '-i', '--command', '--', 'sh', '-c', 'read l; echo once:$l'],
      { input: 'ping\n', timeoutMs: 90_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('once:ping');
    expect(result.stdout).toContain('pod "once" deleted');
    const gone = await cluster.kubectl(['get', 'pod', 'once']);
    expect(gone.stderr).toContain('pods "once" not found');
  });
});

describe('kubectl logs', () => {
  beforeAll(async () => {
    await waitForRunning('talker');
    // The container may be running a moment before its first lines reach the log.
    await until('talker to print its five lines', async () => ((await ok(['logs', 'talker'])).includes('line-5') ? true : undefined), 30_000, 150);
  });

  it('prints the whole log', async () => {
    expect(await ok(['logs', 'talker'])).toBe('line-1\nline-2\nline-3\nline-4\nline-5\n');
    expect(await ok(['logs', 'pod/talker'])).toBe('line-1\nline-2\nline-3\nline-4\nline-5\n');
  });

  it.each([
    { tail: '2', expected: 'line-4\nline-5\n' },
    { tail: '1', expected: 'line-5\n' },
    { tail: '0', expected: '' },
    { tail: '10', expected: 'line-1\nline-2\nline-3\nline-4\nline-5\n' },
    { tail: '-1', expected: 'line-1\nline-2\nline-3\nline-4\nline-5\n' },
  ])('prints the last lines with --tail=$tail', async ({ tail, expected }) => {
    expect(await ok(['logs', 'talker', `--tail=${tail}`])).toBe(expected);
  });

  it('keeps recent lines with --since=1h and drops them once they are older than --since', async () => {
    expect(await ok(['logs', 'talker', '--since=1h'])).toBe('line-1\nline-2\nline-3\nline-4\nline-5\n');
    // The lines were written at start-up; a one-second window soon excludes all of them.
    await until('--since=1s to exclude the start-up lines', async () => ((await ok(['logs', 'talker', '--since=1s'])) === '' ? true : undefined), 15_000, 150);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await ok(['logs', 'talker', `--since-time=${future}`])).toBe('');
    const past = new Date(Date.now() - 3_600_000).toISOString();
    expect(await ok(['logs', 'talker', `--since-time=${past}`])).toBe('line-1\nline-2\nline-3\nline-4\nline-5\n');
  });

  it('prefixes each line with an RFC3339Nano timestamp with --timestamps', async () => {
    const lines = (await ok(['logs', 'talker', '--timestamps'])).trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    lines.forEach((line, index) => {
      const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z) (.*)$/.exec(line);
      expect(match, line).not.toBeNull();
      if (!match) return;
      expect(match[2]).toBe(`line-${index + 1}`);
      const when = Date.parse(match[1]);
      expect(Math.abs(Date.now() - when)).toBeLessThan(10 * 60_000);
    });
    expect(await ok(['logs', 'talker', '--timestamps', '--tail=1'])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z line-5\n$/);
  });

  it('selects a container with -c in a pod with two containers', async () => {
    await waitForRunning('pair');
    await until('both containers of pair to log', async () => ((await ok(['logs', 'pair', '-c', 'second'])) === 'from-second\n' ? true : undefined), 30_000, 150);
    expect(await ok(['logs', 'pair', '-c', 'first'])).toBe('from-first\n');
    expect(await ok(['logs', 'pair', '--container=second'])).toBe('from-second\n');
    const defaulted = await cluster.kubectl(['logs', 'pair']);
    expect(defaulted.code).toBe(0);
    expect(defaulted.stdout).toBe('from-first\n');
    expect(defaulted.stderr).toContain('Defaulted container "first" out of: first, second');
    const all = await ok(['logs', 'pair', '--all-containers', '--prefix']);
    expect(all).toContain('[pod/pair/first] from-first');
    expect(all).toContain('[pod/pair/second] from-second');
    const missing = await cluster.kubectl(['logs', 'pair', '-c', 'third']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('container third is not valid for pod pair');
  });

  it('stops after --limit-bytes bytes', async () => {
    expect(await ok(['logs', 'talker', '--limit-bytes=8'])).toBe('line-1\nl');
    expect(await ok(['logs', 'talker', '--limit-bytes=1'])).toBe('l');
  });

  it('streams new lines with -f', async () => {
    await waitForRunning('ticker');
    const follow = backgroundKubectl(cluster, ['logs', '-f', 'ticker']);
    try {
      const ticks = () => [...follow.output().matchAll(/^tick-(\d+)$/gm)].map((match) => Number(match[1]));
      // The first chunk is the log so far; what arrives later was written while following.
      const initial = await until('logs -f to print the existing log', () => {
        const seen = ticks();
        return seen.length > 0 ? seen : undefined;
      }, 30_000, 150);
      const last = initial[initial.length - 1];
      const later = await until('logs -f to stream two new lines', () => {
        const seen = ticks();
        return seen.filter((tick) => tick > last).length >= 2 ? seen : undefined;
      }, 15_000, 150);
      // Whole lines, in order, without gaps or repeats.
      expect(later).toEqual(later.map((_, index) => later[0] + index));
      expect(follow.running()).toBe(true);
    } finally {
      await follow.stop();
    }
    expect(follow.errors()).toBe('');
  });

  it('shows the previous run of a restarted container with --previous', async () => {
    const restarted = await until('crasher to restart once', async () => {
      const count = Number(await ok(['get', 'pod', 'crasher', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}']));
      return count >= 1 ? count : undefined;
    }, 60_000, 150);
    // Compare the two runs while the restart count stays put, so both reads see the same pair.
    const runs = await until('a stable view of the current and previous runs', async () => {
      const before = Number(await ok(['get', 'pod', 'crasher', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}']));
      const previous = await ok(['logs', 'crasher', '--previous']);
      const current = await ok(['logs', 'crasher']);
      const after = Number(await ok(['get', 'pod', 'crasher', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}']));
      return before === after && current !== '' ? { previous, current } : undefined;
    }, 30_000, 150);
    expect(restarted).toBeGreaterThanOrEqual(1);
    expect(runs.previous).toMatch(/^marker-[0-9a-f-]{36}\n$/);
    expect(runs.current).toMatch(/^marker-[0-9a-f-]{36}\n$/);
    expect(runs.previous).not.toBe(runs.current);
    expect(await ok(['logs', 'crasher', '-p', '--timestamps'])).toMatch(/^\S+Z marker-[0-9a-f-]{36}\n$/);
  });

  it('refuses --previous for a container that never restarted', async () => {
    const result = await cluster.kubectl(['logs', 'talker', '--previous']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('previous terminated container "talker" in pod "talker" not found');
  });
});

describe('kubectl exec', () => {
  beforeAll(async () => {
    await waitForRunning('web');
  });

  it('runs a command and prints its output', async () => {
    expect(await ok(['exec', 'web', '--', 'cat', '/www/index.html'])).toBe('hello-from-pod\n');
    expect(await ok(['exec', 'pair', '-c', 'second', '--', 'sh', '-c', 'echo out; echo err >&2'])).toBe('out\n');
  });

  it('propagates the exit code of the command', async () => {
    const result = await cluster.kubectl(['exec', 'web', '--', 'sh', '-c', 'echo partial; exit 7']);
    expect(result.code).toBe(7);
    expect(result.stdout).toBe('partial\n');
    expect(result.stderr).toContain('command terminated with exit code 7');
  });

  it('reports a command that cannot start', async () => {
    const result = await cluster.kubectl(['exec', 'web', '--', '/no/such/binary']);
    // Docker (as cri-dockerd did) reports the failed exec in the output stream with exit code 126.
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('no such file or directory');
  });

  it('pipes stdin to the command with -i', async () => {
    const echoed = await cluster.kubectl(['exec', '-i', 'web', '--', 'cat'], { input: 'hello\n' });
    expect(echoed.code).toBe(0);
    expect(echoed.stdout).toBe('hello\n');
    const text = `${randomBytes(48_000).toString('base64')}\n`;
    const counted = await cluster.kubectl(['exec', '-i', 'web', '--', 'wc', '-c'], { input: text });
    expect(counted.code).toBe(0);
    expect(counted.stdout.trim()).toBe(String(text.length));
  });

  it('runs an interactive shell with -it in a real terminal, following resizes', async () => {
    const socket = `kubedesk-e2e-${process.pid}`;
    const session = 'kd';
    const tmux = (...args: string[]) => {
      const result = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', timeout: 10_000 });
      if (result.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${result.stderr}`);
      return result.stdout;
    };
    const screen = () => tmux('capture-pane', '-p', '-J', '-t', session);
    // Resizes travel asynchronously (SIGWINCH → kubectl → resize channel → Docker), so the
    // question is asked again until the shell's answer matches, each time with a fresh tag.
    let question = 0;
    const askUntil = async (what: string, shellExpression: string, expected: string): Promise<void> => {
      const deadline = Date.now() + 20_000;
      let answer: string | undefined;
      while (Date.now() < deadline) {
        const tag = `q${++question}`;
        tmux('send-keys', '-t', session, `echo ${tag}:${shellExpression}`, 'Enter');
        const pattern = new RegExp(`^${tag}:(.*?)\\s*$`, 'm');
        const answerDeadline = Date.now() + 2_000;
        answer = undefined;
        while (answer === undefined && Date.now() < answerDeadline) {
          answer = pattern.exec(screen())?.[1];
          if (answer === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        if (answer === expected) return;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      throw new Error(`timed out waiting for ${what}: the shell answered ${String(answer)}, expected ${expected}`);
    };
    const command = `KUBECONFIG=${cluster.kubeconfig} ${toolPaths().kubectl} exec -it web -- sh; echo kubectl-exited-$?; sleep 120`;
    tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', command);
    try {
      const [height, width] = tmux('display-message', '-p', '-t', session, '#{pane_height} #{pane_width}').trim().split(' ');
      expect(Number(width)).toBe(120);
      await until('the shell prompt', () => (/# $/m.test(screen()) ? true : undefined), 30_000, 150);

      tmux('send-keys', '-t', session, 'echo $((6*7))', 'Enter');
      await until('the shell to print 42', () => (/^42\s*$/m.test(screen()) ? true : undefined), 30_000, 150);

      expect(`${height} ${width}`).toBe('40 120');
      await askUntil('stty to report the terminal size', '$(stty size)', '40 120');

      tmux('resize-window', '-t', session, '-x', '100', '-y', '30');
      const [newHeight, newWidth] = tmux('display-message', '-p', '-t', session, '#{pane_height} #{pane_width}').trim().split(' ');
      expect(Number(newWidth)).toBe(100);
      await askUntil('stty to report the new size after the resize', '$(stty size)', `${newHeight} ${newWidth}`);

      tmux('send-keys', '-t', session, 'tty', 'Enter');
      await until('tty to name a terminal', () => (/^\/dev\/pts\/\d+\s*$/m.test(screen()) ? true : undefined), 30_000, 150);

      tmux('send-keys', '-t', session, 'exit 3', 'Enter');
      await until('kubectl to exit with the shell', () => (screen().includes('kubectl-exited-3') ? true : undefined), 30_000, 150);
      expect(screen()).toContain('command terminated with exit code 3');
    } catch (error) {
      let pane = '';
      try {
        pane = screen();
      } catch {
        pane = '(no pane)';
      }
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- terminal ---\n${pane}`);
    } finally {
      spawnSync('tmux', ['-L', socket, 'kill-server'], { timeout: 10_000 });
    }
  });
});

describe('kubectl attach', () => {
  it('sends stdin to a running container and prints its output with -i', async () => {
    await waitForRunning('echoer');
    const attach = backgroundKubectl(cluster, ['attach', '-i', 'echoer'], { stdin: true });
    try {
      attach.child.stdin?.write('x\n');
      await until('the container to answer got:x', () => (attach.output().includes('got:x\n') ? true : undefined), 20_000, 150);
      attach.child.stdin?.write('second line\n');
      await until('the container to answer the second line', () => (attach.output().includes('got:second line\n') ? true : undefined), 20_000, 150);
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\nstdout: ${attach.output()}\nstderr: ${attach.errors()}`);
    } finally {
      await attach.stop();
    }
  });

  it('shows the output of a looping printer without -i', async () => {
    await waitForRunning('ticker');
    const attach = backgroundKubectl(cluster, ['attach', 'ticker']);
    try {
      await until('attach to stream two ticks', () => ([...attach.output().matchAll(/^tick-\d+$/gm)].length >= 2 ? true : undefined), 20_000, 150);
      expect(attach.running()).toBe(true);
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\nstdout: ${attach.output()}\nstderr: ${attach.errors()}`);
    } finally {
      await attach.stop();
    }
  });
});

describe('kubectl cp', () => {
  it('copies a file into the pod and back unchanged', async () => {
    await waitForRunning('web');
    const original = join(cluster.root, 'upload.bin');
    const copy = join(cluster.root, 'download.bin');
    const content = Buffer.concat([Buffer.from('first line\nsecond line\n'), randomBytes(100_000)]);
    writeFileSync(original, content);

    await ok(['cp', original, 'web:/tmp/f']);
    expect((await ok(['exec', 'web', '--', 'wc', '-c', '/tmp/f'])).trim()).toBe(`${content.length} /tmp/f`);
    expect(await ok(['exec', 'web', '--', 'head', '-n', '2', '/tmp/f'])).toBe('first line\nsecond line\n');

    await ok(['cp', 'web:/tmp/f', copy]);
    expect(readFileSync(copy).equals(content)).toBe(true);
  });

  it('copies a directory out of the pod', async () => {
    await waitForRunning('web');
    await ok(['exec', 'web', '--', 'sh', '-c', 'mkdir -p /tmp/tree/sub && echo a > /tmp/tree/a.txt && echo b > /tmp/tree/sub/b.txt']);
    const target = join(cluster.root, 'tree');
    await ok(['cp', 'web:/tmp/tree', target]);
    expect(readFileSync(join(target, 'a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(target, 'sub', 'b.txt'), 'utf8')).toBe('b\n');
  });
});

describe('kubectl port-forward', () => {
  it.each<{ transport: string; env: Record<string, string>; ports: string }>([
    { transport: 'SPDY tunnelled in a WebSocket (the default)', env: {}, ports: ':8080' },
    { transport: 'plain SPDY (KUBECTL_PORT_FORWARD_WEBSOCKETS=false)', env: { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }, ports: '0:8080' },
  ])('forwards a local port to the pod over $transport', async ({ env, ports }) => {
    await waitForRunning('web');
    const forward = backgroundKubectl(cluster, ['port-forward', 'pod/web', ports], { env });
    try {
      const port = await until('port-forward to listen', () => /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/.exec(forward.output())?.[1], 20_000, 150);
      expect(Number(port)).toBeGreaterThan(0);
      for (let attempt = 0; attempt < 3; attempt++) {
        const reply = await httpGetText(`http://127.0.0.1:${port}/`);
        expect(reply.status).toBe(200);
        expect(reply.body).toBe('hello-from-pod\n');
      }
      expect(forward.output()).toContain(`Handling connection for ${port}`);
      expect(forward.running()).toBe(true);
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\nstdout: ${forward.output()}\nstderr: ${forward.errors()}`);
    } finally {
      await forward.stop();
    }
  });
});
