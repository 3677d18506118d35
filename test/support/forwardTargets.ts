// What the port-forward suites forward to and how they probe it: a Deployment `web` of one busybox
// httpd pod that answers with its hostname (= the pod's name) on its container port `http` (8080),
// a Service `web` (port 80 → http), and probes of a local port: answers with a body, or refuses.
import type { TestCluster } from './cluster';
import { hostGet } from './hostHttp';
import { busyboxImage } from './images';
import { kubectlOk, kubectlState, until } from './wait';

export function webDeployment(namespace: string): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
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
        },
      },
    },
  };
}

export function webService(namespace: string): object {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } };
}

/** The name of the one ready, not terminating pod with app=web. */
export function readyWebPod(cluster: TestCluster, namespace: string): Promise<string> {
  return until(
    'one ready web pod',
    async () => {
      const names = (await kubectlOk(cluster, ['-n', namespace, 'get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[?(@.status.containerStatuses[0].ready==true)]}{.metadata.name}{" "}{.metadata.deletionTimestamp}{"\\n"}{end}']))
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.includes(' '));
      return names.length === 1 ? names[0] : undefined;
    },
    120_000,
    500,
    kubectlState(cluster, ['-n', namespace, 'get', 'pods', '-o', 'wide']),
  );
}

/** Polls 127.0.0.1:port until it answers with `body` (a web pod's hostname). */
export function answersWith(port: number, body: string, describeState: () => Promise<string>, intervalMs = 500): Promise<string> {
  return until(`127.0.0.1:${port} to answer ${body}`, async () => {
    const response = await hostGet(port).catch(() => undefined);
    return response?.body.trim() === body ? body : undefined;
  }, 90_000, intervalMs, describeState);
}

/** True when nothing listens on 127.0.0.1:port any more. */
export function portRefused(port: number): Promise<boolean> {
  return hostGet(port).then(
    () => false,
    (error: unknown) => error instanceof Error && 'code' in error && error.code === 'ECONNREFUSED',
  );
}
