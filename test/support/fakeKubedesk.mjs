// A stand-in for bin/kubedesk.mjs that honours only the command-line contract (serve / reset,
// readiness = kubeconfig written + /readyz ok, SIGTERM stops), so the test harness in
// test/support/cluster.ts can be tested without the real cluster. Certificates come prepared
// from $KUBEDESK_FAKE_PKI (ca.crt, apiserver.crt, apiserver.key, admin.token).
import { readFileSync, rmSync, writeFileSync, renameSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';

const [command, ...rest] = process.argv.slice(2);
const flags = {};
for (let index = 0; index < rest.length; index += 2) flags[rest[index].replace(/^--/, '')] = rest[index + 1];

if (command === 'reset') {
  rmSync(flags['data-dir'], { recursive: true, force: true });
  process.exit(0);
}
if (command !== 'serve') {
  console.error(`unknown command ${command}`);
  process.exit(2);
}

const pki = process.env.KUBEDESK_FAKE_PKI;
const token = readFileSync(join(pki, 'admin.token'), 'utf8').trim();
const dataDir = flags['data-dir'];
mkdirSync(dataDir, { recursive: true });
const startsFile = join(dataDir, 'starts');
let starts = 0;
try {
  starts = Number(readFileSync(startsFile, 'utf8'));
} catch {
  starts = 0;
}
writeFileSync(startsFile, String(starts + 1));

const server = createServer({ cert: readFileSync(join(pki, 'apiserver.crt')), key: readFileSync(join(pki, 'apiserver.key')) }, (request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    if (request.url === '/readyz') return response.end('ok');
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 }));
    }
    if (request.url === '/version') {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ major: '1', minor: '35', gitVersion: 'v1.35.0-fake', platform: 'linux/amd64' }));
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ method: request.method, url: request.url, contentType: request.headers['content-type'] ?? null, body, starts: starts + 1 }));
  });
});

server.listen(Number(flags.port ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  const ca = readFileSync(join(pki, 'ca.crt')).toString('base64');
  const kubeconfig = [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${ca}`,
    `    server: https://127.0.0.1:${port}`,
    '  name: kubedesk',
    'contexts:',
    '- context:',
    '    cluster: kubedesk',
    '    user: kubedesk',
    '  name: kubedesk',
    'current-context: kubedesk',
    'kind: Config',
    'users:',
    '- name: kubedesk',
    '  user:',
    `    token: ${token}`,
    '',
  ].join('\n');
  writeFileSync(`${flags.kubeconfig}.tmp`, kubeconfig, { mode: 0o600 });
  renameSync(`${flags.kubeconfig}.tmp`, flags.kubeconfig);
  console.log(`fake kubedesk listening on ${port}`);
});

process.on('SIGTERM', () => {
  console.log('fake kubedesk stopping');
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
