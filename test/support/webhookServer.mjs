// A minimal admission webhook for the end-to-end suite (test/e2e/admissionWebhooks.test.ts), run by
// the host's node binary inside a busybox pod: HTTPS on :8443 with the certificate mounted at
// /webhook/tls.crt and /webhook/tls.key. POST /validate refuses objects labelled `forbidden`
// (Status 403 Forbidden with its own message); POST /mutate adds the label `mutated-by=webhook`
// with a JSONPatch; POST /subresources (test/e2e/subresourceAdmission.test.ts, debug.test.ts) logs
// what it was sent as one `review {json}` line and refuses scales above 5 replicas, evictions of pods
// named `keep-…` and ephemeral containers named `denied-…`. All answer admission.k8s.io/v1
// AdmissionReviews.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const directory = process.env.WEBHOOK_DIR ?? '/webhook';
const port = Number(process.env.WEBHOOK_PORT ?? 8443);

function validate(request) {
  const labels = request.object?.metadata?.labels ?? {};
  if (Object.hasOwn(labels, 'forbidden')) {
    return { allowed: false, status: { code: 403, reason: 'Forbidden', message: `${request.kind.kind} "${request.name}" carries the forbidden label` } };
  }
  return { allowed: true, warnings: ['checked by the test webhook'] };
}

function mutate(request) {
  const labels = request.object?.metadata?.labels;
  const patch = labels ? [{ op: 'add', path: '/metadata/labels/mutated-by', value: 'webhook' }] : [{ op: 'add', path: '/metadata/labels', value: { 'mutated-by': 'webhook' } }];
  return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') };
}

function subresources(request) {
  const seen = {
    operation: request.operation,
    kind: request.kind,
    resource: request.resource,
    subResource: request.subResource,
    requestKind: request.requestKind,
    name: request.name,
    namespace: request.namespace,
    object: {
      apiVersion: request.object?.apiVersion,
      kind: request.object?.kind,
      name: request.object?.metadata?.name,
      replicas: request.object?.spec?.replicas,
      ephemeralContainers: request.object?.spec?.ephemeralContainers?.map((container) => container.name),
    },
  };
  console.log(`review ${JSON.stringify(seen)}`);
  const replicas = request.object?.spec?.replicas;
  if (request.subResource === 'scale' && typeof replicas === 'number' && replicas > 5) {
    return { allowed: false, status: { code: 403, reason: 'Forbidden', message: `scale to ${replicas} is above the limit of 5` } };
  }
  if (request.subResource === 'eviction' && String(request.name ?? '').startsWith('keep-')) {
    return { allowed: false, status: { code: 403, reason: 'Forbidden', message: `pod ${request.name} must not be evicted` } };
  }
  const denied = (request.object?.spec?.ephemeralContainers ?? []).find((container) => String(container.name).startsWith('denied-'));
  if (request.subResource === 'ephemeralcontainers' && denied) {
    return { allowed: false, status: { code: 403, reason: 'Forbidden', message: `ephemeral container ${denied.name} is not allowed` } };
  }
  return { allowed: true };
}

const handlers = { '/validate': validate, '/mutate': mutate, '/subresources': subresources };

const server = createServer({ cert: readFileSync(`${directory}/tls.crt`), key: readFileSync(`${directory}/tls.key`) }, (req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'POST' || !Object.hasOwn(handlers, path)) {
      res.writeHead(path === '/healthz' ? 200 : 404).end(path === '/healthz' ? 'ok' : 'not found');
      return;
    }
    let review;
    try {
      review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end('bad json');
      return;
    }
    const answer = handlers[path](review.request);
    console.log(`${path} ${review.request.operation} ${review.request.kind.kind} ${review.request.namespace ?? ''}/${review.request.name ?? ''} allowed=${answer.allowed}`);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...answer } }));
  });
});

server.listen(port, () => console.log(`webhook listening on :${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
