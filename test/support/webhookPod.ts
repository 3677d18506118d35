// An admission webhook served from a pod, for the end-to-end suites: test/support/webhookServer.mjs
// run by the host's node binary inside a busybox pod (its shared libraries mounted from the host),
// HTTPS with a certificate for `<service>.<namespace>.svc` that the configurations trust through
// caBundle.
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeTestCertificates } from '../fixtures/testCertificates';
import type { TestCluster } from './cluster';
import { busyboxImage } from './images';
import { repositoryRoot } from './tools';
import { kubectlOk, kubectlState, until } from './wait';

/** The host's node binary and the directories its shared libraries load from, as hostPath mounts. */
export function nodeMounts(): { volumes: object[]; mounts: object[]; libraryPath: string } {
  const ldd = execFileSync('ldd', [process.execPath], { encoding: 'utf8' });
  const directories = new Set<string>();
  for (const match of ldd.matchAll(/(\/\S+\.so[.\d]*)/g)) directories.add(dirname(match[1]));
  const volumes: object[] = [{ name: 'node', hostPath: { path: realpathSync(process.execPath), type: 'File' } }];
  const mounts: object[] = [{ name: 'node', mountPath: '/node/node', readOnly: true }];
  [...directories].forEach((directory, index) => {
    volumes.push({ name: `lib${index}`, hostPath: { path: realpathSync(directory), type: 'Directory' } });
    mounts.push({ name: `lib${index}`, mountPath: directory, readOnly: true });
  });
  return { volumes, mounts, libraryPath: [...directories].join(':') };
}

/**
 * Runs webhookServer.mjs as pod `webhook` behind Service `service` in `namespace` (which must
 * exist) and waits for its endpoint; returns the caBundle the webhook configurations need.
 */
export async function serveWebhook(cluster: TestCluster, namespace: string, service: string): Promise<string> {
  const certificates = makeTestCertificates([`${service}.${namespace}.svc`]);
  const node = nodeMounts();
  const manifest = {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'webhook-server', namespace },
        data: { 'server.mjs': readFileSync(join(repositoryRoot, 'test', 'support', 'webhookServer.mjs'), 'utf8'), 'tls.crt': certificates.certPem, 'tls.key': certificates.keyPem },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'webhook', namespace, labels: { app: 'webhook' } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'webhook',
              image: busyboxImage,
              command: ['/node/node', '/webhook/server.mjs'],
              env: [{ name: 'LD_LIBRARY_PATH', value: node.libraryPath }],
              ports: [{ name: 'https', containerPort: 8443 }],
              readinessProbe: { tcpSocket: { port: 8443 }, periodSeconds: 1 },
              volumeMounts: [{ name: 'server', mountPath: '/webhook', readOnly: true }, ...node.mounts],
            },
          ],
          volumes: [{ name: 'server', configMap: { name: 'webhook-server' } }, ...node.volumes],
        },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: service, namespace }, spec: { selector: { app: 'webhook' }, ports: [{ name: 'https', port: 443, targetPort: 'https' }] } },
    ],
  };
  await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));
  await until(
    'the webhook endpoint to be ready',
    async () => ((await kubectlOk(cluster, ['get', 'endpointslices', '-n', namespace, '-l', `kubernetes.io/service-name=${service}`, '-o', 'jsonpath={.items[*].endpoints[?(@.conditions.ready==true)].addresses[0]}'])).trim() || undefined),
    120_000,
    500,
    async () => `${await kubectlState(cluster, ['get', 'pods', '-n', namespace, '-o', 'wide'])()}\n${await kubectlState(cluster, ['logs', '-n', namespace, 'webhook'])()}`,
  );
  return Buffer.from(certificates.caPem).toString('base64');
}
