import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAdmissionWebhookServer, type AdmissionWebhookServer } from '../../../test/fixtures/admissionWebhookServer';
import { inMemoryApiServerPerTest, parseReply as parse } from '../../../test/fixtures/inMemoryApiServer';

type Review = { request: { uid: string; operation: string; object: { metadata: { name?: string; labels?: Record<string, string> } } | null; oldObject: unknown; name?: string; namespace?: string } };
type Handler = (review: Review, path: string) => Record<string, unknown> | Promise<Record<string, unknown>>;

let webhookServer: AdmissionWebhookServer;
let handler: Handler = () => ({ allowed: true });
const seen: Array<{ path: string; review: Review }> = [];
const { request, create } = inMemoryApiServerPerTest({ namespaces: ['default'] });

beforeAll(async () => {
  webhookServer = await startAdmissionWebhookServer<Review>((review, path) => {
    seen.push({ path, review });
    return handler(review, path);
  });
});

afterAll(() => webhookServer.close());

function webhook(name: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: { url: webhookServer.url(path), caBundle: webhookServer.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

beforeEach(() => {
  seen.length = 0;
  handler = () => ({ allowed: true });
});

const configMap = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: '1' } });

describe('admission webhooks', () => {
  it('rejects with the webhook message as upstream formats a denial', async () => {
    await create('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { metadata: { name: 'deny' }, webhooks: [webhook('deny.example.com', '/validate')] });
    handler = (review) => (review.request.object?.metadata.name === 'bad' ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'bad names are not allowed' } } : { allowed: true });
    const rejected = await request('POST', '/api/v1/namespaces/default/configmaps', configMap('bad'));
    expect(rejected.status).toBe(403);
    expect(parse(rejected)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message: 'admission webhook "deny.example.com" denied the request: bad names are not allowed' });
    expect((await request('GET', '/api/v1/namespaces/default/configmaps/bad')).status).toBe(404);
    expect((await request('POST', '/api/v1/namespaces/default/configmaps', configMap('good'))).status).toBe(201);
    const review = seen.at(-1)?.review.request;
    expect(review).toMatchObject({ operation: 'CREATE', name: 'good', namespace: 'default', oldObject: null });
    expect(seen.at(-1)?.path).toBe('/validate?timeout=10s');
  });

  it('applies a mutating webhook JSONPatch before the object is stored, and passes warnings on', async () => {
    await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { metadata: { name: 'label' }, webhooks: [webhook('label.example.com', '/mutate')] });
    const patch = [{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }];
    handler = () => ({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64'), warnings: ['labelled by the webhook'] });
    const created = await request('POST', '/api/v1/namespaces/default/configmaps', configMap('one', { app: 'x' }));
    expect(created.status).toBe(201);
    expect(parse(created).metadata.labels).toEqual({ app: 'x', mutated: 'yes' });
    expect(created.headers['Warning']).toBe('299 - "labelled by the webhook"');
    expect(parse(await request('GET', '/api/v1/namespaces/default/configmaps/one')).metadata.labels).toEqual({ app: 'x', mutated: 'yes' });
    const patched = await request('PATCH', '/api/v1/namespaces/default/configmaps/one', { metadata: { labels: { mutated: 'no' } } }, 'application/merge-patch+json');
    expect(parse(patched).metadata.labels.mutated).toBe('yes');
  });

  it('calls only the webhooks whose object selector matches', async () => {
    await create('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { metadata: { name: 'selected' }, webhooks: [webhook('selected.example.com', '/v', { objectSelector: { matchLabels: { checked: 'true' } } })] });
    handler = () => ({ allowed: false, status: { message: 'no' } });
    expect((await request('POST', '/api/v1/namespaces/default/configmaps', configMap('free'))).status).toBe(201);
    const denied = await request('POST', '/api/v1/namespaces/default/configmaps', configMap('checked', { checked: 'true' }));
    expect(denied.status).toBe(400);
    expect(parse(denied).message).toBe('admission webhook "selected.example.com" denied the request: no');
  });

  it('follows the failure policy when the webhook cannot be reached', async () => {
    const unreachable = (name: string, failurePolicy: string) => ({ ...webhook(name, '/'), clientConfig: { url: 'https://127.0.0.1:1/' }, failurePolicy });
    await create('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { metadata: { name: 'ignore' }, webhooks: [unreachable('ignore.example.com', 'Ignore')] });
    expect((await request('POST', '/api/v1/namespaces/default/configmaps', configMap('one'))).status).toBe(201);
    await create('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { metadata: { name: 'fail' }, webhooks: [unreachable('fail.example.com', 'Fail')] });
    const failed = await request('POST', '/api/v1/namespaces/default/configmaps', configMap('two'));
    expect(failed.status).toBe(500);
    expect(parse(failed).message).toMatch(/^Internal error occurred: failed calling webhook "fail\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:1\/\?timeout=10s": .*ECONNREFUSED/);
  });

  it('sees deletes with the old object', async () => {
    await create('/api/v1/namespaces/default/configmaps', configMap('keep'));
    await create('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { metadata: { name: 'nodelete' }, webhooks: [webhook('nodelete.example.com', '/d', { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })] });
    handler = () => ({ allowed: false, status: { message: 'kept' } });
    const denied = await request('DELETE', '/api/v1/namespaces/default/configmaps/keep');
    expect(parse(denied).message).toBe('admission webhook "nodelete.example.com" denied the request: kept');
    expect(seen.at(-1)?.review.request).toMatchObject({ operation: 'DELETE', object: null, oldObject: { metadata: { name: 'keep' } } });
  });

  it('validates webhook configurations with upstream messages and defaults them', async () => {
    const invalid = await request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { metadata: { name: 'bad' }, webhooks: [{ name: 'short', clientConfig: {}, admissionReviewVersions: ['v1'] }] });
    expect(invalid.status).toBe(422);
    expect(parse(invalid).message).toBe('ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: [webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots, webhooks[0].clientConfig: Required value: exactly one of url or service is required, webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun]');
    const created = parse(await request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { metadata: { name: 'ok' }, webhooks: [{ ...webhook('ok.example.com', '/'), clientConfig: { service: { namespace: 'default', name: 'hook' } } }] }));
    expect(created.webhooks[0]).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10, reinvocationPolicy: 'Never', clientConfig: { service: { port: 443 } }, rules: [{ scope: '*' }] });
  });
});

function jsonPatchAnswer(operations: object[]): Record<string, unknown> {
  return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(operations)).toString('base64') };
}

/** A promise with its resolve function, for holding a webhook call open. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('admission webhooks and concurrent writers', () => {
  // The webhook stamps every write anew, so the write carries the webhook's object; the write
  // asking for label slow=yes is held until the test has changed the object behind its back.
  async function raceSetup(): Promise<{ held: ReturnType<typeof gate>; started: ReturnType<typeof gate> }> {
    await create('/api/v1/namespaces/default/configmaps', configMap('raced'));
    await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { metadata: { name: 'stamp' }, webhooks: [webhook('stamp.example.com', '/stamp')] });
    const held = gate();
    const started = gate();
    let stamps = 0;
    let slowCalls = 0;
    handler = async (review) => {
      if (review.request.object?.metadata.labels?.slow === 'yes' && slowCalls++ === 0) {
        started.open();
        await held.opened;
      }
      return jsonPatchAnswer([{ op: 'add', path: '/metadata/annotations', value: { stamp: String(++stamps) } }]);
    };
    return { held, started };
  }

  it.each([
    // a patch applies to the newer object; an unconditional update replaces it, as upstream
    ['a merge patch', 'PATCH', () => ({ metadata: { labels: { slow: 'yes' } } }), 'application/merge-patch+json', { a: '1', other: 'writer' }],
    ['an update without resourceVersion', 'PUT', (current: { metadata: Record<string, unknown> }) => ({ ...current, metadata: { ...current.metadata, resourceVersion: undefined, labels: { slow: 'yes' } } }), 'application/json', { a: '1' }],
    ['a server-side apply', 'PATCH', () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'raced', labels: { slow: 'yes' } } }), 'application/apply-patch+yaml', { a: '1', other: 'writer' }],
  ])('retries %s that raced another writer instead of answering 409, as upstream GuaranteedUpdate does', async (_name, method, body, contentType, data) => {
    const { held, started } = await raceSetup();
    const current = parse(await request('GET', '/api/v1/namespaces/default/configmaps/raced'));
    const query = contentType === 'application/apply-patch+yaml' ? '?fieldManager=tester' : '';
    const slow = request(method, `/api/v1/namespaces/default/configmaps/raced${query}`, body(current), contentType);
    await started.opened;
    const other = await request('PATCH', '/api/v1/namespaces/default/configmaps/raced', { data: { other: 'writer' } }, 'application/merge-patch+json');
    expect(other.status).toBe(200);
    held.open();
    const reply = await slow;
    expect(reply.status, reply.body.toString()).toBe(200);
    const stored = parse(await request('GET', '/api/v1/namespaces/default/configmaps/raced'));
    expect(stored.metadata.labels).toEqual({ slow: 'yes' });
    expect(stored.data).toEqual(data);
    expect(stored.metadata.annotations.stamp).toBeDefined();
  });

  it('still answers 409 when the client named the resourceVersion that changed', async () => {
    const { held, started } = await raceSetup();
    const current = parse(await request('GET', '/api/v1/namespaces/default/configmaps/raced'));
    const slow = request('PUT', '/api/v1/namespaces/default/configmaps/raced', { ...current, metadata: { ...current.metadata, labels: { slow: 'yes' } } });
    await started.opened;
    expect((await request('PATCH', '/api/v1/namespaces/default/configmaps/raced', { data: { other: 'writer' } }, 'application/merge-patch+json')).status).toBe(200);
    held.open();
    const reply = await slow;
    expect(reply.status).toBe(409);
    expect(parse(reply).message).toBe('Operation cannot be fulfilled on configmaps "raced": the object has been modified; please apply your changes to the latest version and try again');
  });
});

describe('mutating webhook reinvocation', () => {
  const selector = { objectSelector: { matchLabels: { reinvocation: 'test' } } };

  beforeEach(async () => {
    // `a-first` runs before `b-second` (configurations in name order) and records what it saw
    handler = (review, path) => {
      const labels = review.request.object?.metadata.labels ?? {};
      if (path.startsWith('/second')) return jsonPatchAnswer([{ op: 'add', path: '/metadata/labels/second', value: 'yes' }]);
      const name = path.startsWith('/first') ? 'first' : 'never';
      return jsonPatchAnswer([{ op: 'add', path: `/metadata/labels/${name}-saw-second`, value: String(labels.second === 'yes') }]);
    };
  });

  const calls = (prefix: string) => seen.filter((call) => call.path.startsWith(prefix)).length;

  it('calls an IfNeeded webhook once more when a later webhook changed the object, a Never one not', async () => {
    await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { metadata: { name: 'a-first' }, webhooks: [webhook('first.example.com', '/first', { ...selector, reinvocationPolicy: 'IfNeeded' }), webhook('never.example.com', '/never', { ...selector, reinvocationPolicy: 'Never' })] });
    await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { metadata: { name: 'b-second' }, webhooks: [webhook('second.example.com', '/second', selector)] });
    const created = parse(await request('POST', '/api/v1/namespaces/default/configmaps', configMap('reinvoked', { reinvocation: 'test' })));
    expect(created.metadata.labels).toEqual({ reinvocation: 'test', second: 'yes', 'first-saw-second': 'true', 'never-saw-second': 'false' });
    expect([calls('/first'), calls('/never'), calls('/second')]).toEqual([2, 1, 1]);
    const review = seen.filter((call) => call.path.startsWith('/first')).at(-1)?.review.request;
    expect(review?.object?.metadata.labels).toMatchObject({ second: 'yes', 'first-saw-second': 'false' });
  });

  it('does not call an IfNeeded webhook again when nothing after it changed the object', async () => {
    handler = (review, path) => (path.startsWith('/first') ? jsonPatchAnswer([{ op: 'add', path: '/metadata/labels/first', value: 'yes' }]) : { allowed: true });
    await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { metadata: { name: 'a-first' }, webhooks: [webhook('first.example.com', '/first', { ...selector, reinvocationPolicy: 'IfNeeded' })] });
    await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { metadata: { name: 'b-second' }, webhooks: [webhook('second.example.com', '/second', selector)] });
    const created = parse(await request('POST', '/api/v1/namespaces/default/configmaps', configMap('once', { reinvocation: 'test' })));
    expect(created.metadata.labels).toEqual({ reinvocation: 'test', first: 'yes' });
    expect([calls('/first'), calls('/second')]).toEqual([1, 1]);
  });
});

describe('ValidatingAdmissionPolicy', () => {
  const policy = (validations: unknown[]) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'limit' },
    spec: { matchConstraints: { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }, validations },
  });
  const binding = (actions: string[]) => ({ metadata: { name: 'limit-binding' }, spec: { policyName: 'limit', validationActions: actions } });

  it('denies with upstream text when an expression is false', async () => {
    await create('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', policy([{ expression: "object.metadata.name.startsWith('ok-')" }]));
    await create('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', binding(['Deny']));
    const denied = await request('POST', '/api/v1/namespaces/default/configmaps', configMap('nope'));
    expect(denied.status).toBe(422);
    expect(parse(denied)).toMatchObject({ reason: 'Invalid', message: `configmaps "nope" is forbidden: ValidatingAdmissionPolicy 'limit' with binding 'limit-binding' denied request: failed expression: object.metadata.name.startsWith('ok-')` });
    expect((await request('POST', '/api/v1/namespaces/default/configmaps', configMap('ok-one'))).status).toBe(201);
  });

  it('warns instead under the Warn action, with the validation message and reason', async () => {
    await create('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', policy([{ expression: 'size(object.data) > 5', message: 'too little data', reason: 'Forbidden' }]));
    await create('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', binding(['Warn', 'Audit']));
    const created = await request('POST', '/api/v1/namespaces/default/configmaps', configMap('small'));
    expect(created.status).toBe(201);
    expect(created.headers['Warning']).toBe(`299 - "Validation failed for ValidatingAdmissionPolicy 'limit' with binding 'limit-binding': too little data"`);
  });

  it('rejects a binding without validation actions', async () => {
    const reply = await request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { metadata: { name: 'b' }, spec: { policyName: 'p' } });
    expect(parse(reply).message).toBe('ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b" is invalid: spec.validationActions: Required value: at least one validation action is required');
  });
});
