// Fuzzes the write paths of a real `kubedesk serve` with over a thousand malformed or mistyped
// request bodies (bad JSON, YAML and protobuf, wrong types, bad names, bad base64, broken patches,
// wrong media types, oversized bodies). Like kube-apiserver, every one must be refused with a 4xx
// and a `Status` body whose code matches the HTTP status — never a 5xx — and the server must stay up.
// Every case is invalid on purpose, so any 2xx is a validation gap worth reporting.
import { request as httpsRequest, Agent } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeKubernetesProtobuf, ProtobufWriter, wrapInEnvelope } from '../fixtures/protobuf/encode';
import { kubectlCreateConfigMap, kubectlCreateDeployment, kubectlCreateNamespace, kubectlCreateSecretGeneric } from '../fixtures/protobuf/capturedBodies';
import { startCluster, type TestCluster } from '../support/cluster';

const NAMESPACE = 'fuzz';
const BASE_NAME = 'fuzz-base';
const CASE_COUNT = 1_300;
const CONCURRENCY = 8;
const MAX_BODY_BYTES = 3 * 1024 * 1024;
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

let cluster: TestCluster;
let agent: Agent;

beforeAll(async () => {
  cluster = await startCluster();
  agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: cluster.caPem });
});

afterAll(async () => {
  agent?.destroy();
  await cluster?.destroy();
});

interface Reply {
  status: number;
  contentType: string;
  body: string;
}

interface FuzzCase {
  label: string;
  method: 'POST' | 'PUT' | 'PATCH';
  path: string;
  contentType: string;
  body: Buffer;
  /** The exact status upstream answers, where only one is right (413, 415, 409). */
  expectStatus?: number;
}

/** Sends raw bytes over the shared keep-alive agent (the harness's request() sends only text). */
function send(method: string, path: string, body: Buffer | undefined, contentType: string | undefined): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${cluster.token}`, accept: 'application/json' };
  if (contentType !== undefined) headers['content-type'] = contentType;
  if (body !== undefined) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(new URL(path, cluster.server), { method, headers, agent, timeout: 30_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path} timed out`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

// mulberry32: small, seeded and deterministic, so a failing case can be reproduced by its index.
function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  const integer = (low: number, high: number): number => low + Math.floor(next() * (high - low + 1));
  return {
    next,
    integer,
    pick<T>(items: readonly T[]): T {
      return items[integer(0, items.length - 1)];
    },
    bytes(length: number): Buffer {
      const buffer = Buffer.alloc(length);
      for (let index = 0; index < length; index++) buffer[index] = integer(0, 255);
      return buffer;
    },
  };
}

type Random = ReturnType<typeof createRandom>;
type PathStep = string | number;

interface Target {
  resource: string;
  collection: string;
  existing: string;
  build(name: string): Record<string, unknown>;
  /** Fields set to a value of the wrong type or out of range; each makes the object invalid. */
  wrongValues: Array<[PathStep[], unknown]>;
}

const image = 'kubedesk-test/busybox:4';
// A node selector nothing matches keeps the fuzz pods Pending, so no container ever starts.
const nowhere = { 'fuzz.kubedesk.io/nowhere': 'true' };

function container(): Record<string, unknown> {
  return { name: 'main', image, command: ['sleep', '3600'], ports: [{ containerPort: 80 }], env: [{ name: 'MODE', value: 'fuzz' }], resources: { limits: { cpu: '100m' } } };
}

function namespacedPath(group: string, resource: string): string {
  return `${group === 'v1' ? '/api/v1' : `/apis/${group}`}/namespaces/${NAMESPACE}/${resource}`;
}

const targets: Target[] = [
  {
    resource: 'configmaps',
    collection: namespacedPath('v1', 'configmaps'),
    existing: BASE_NAME,
    build: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'value' } }),
    wrongValues: [
      [['data'], { key: 1 }],
      [['data'], ['value']],
      [['data'], { key: { nested: 'value' } }],
      [['data'], { 'bad key!': 'value' }],
      [['binaryData'], { key: 'not base64!' }],
      [['immutable'], 'yes'],
    ],
  },
  {
    resource: 'secrets',
    collection: namespacedPath('v1', 'secrets'),
    existing: BASE_NAME,
    build: (name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', data: { key: 'dmFsdWU=' } }),
    wrongValues: [
      [['data'], { key: 'not base64!' }],
      [['data'], { key: 'abc' }],
      [['data'], { key: '@@@@' }],
      [['data'], { key: 'dmFsdWU=\u0000' }],
      [['data'], { key: 5 }],
      [['data'], 'dmFsdWU='],
      [['data'], { 'bad key': 'dmFsdWU=' }],
      [['stringData'], { key: 1 }],
      [['type'], 5],
    ],
  },
  {
    resource: 'pods',
    collection: namespacedPath('v1', 'pods'),
    existing: BASE_NAME,
    build: (name) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'fuzz' } }, spec: { nodeSelector: nowhere, containers: [container()] } }),
    wrongValues: [
      [['spec'], 'pod'],
      [['spec', 'containers'], 'busybox'],
      [['spec', 'containers'], []],
      [['spec', 'containers', 0, 'image'], 5],
      [['spec', 'containers', 0, 'name'], 'Not A Name'],
      [['spec', 'containers', 0, 'ports'], '80'],
      [['spec', 'containers', 0, 'ports', 0, 'containerPort'], 'http'],
      [['spec', 'containers', 0, 'ports', 0, 'containerPort'], 70_000],
      [['spec', 'containers', 0, 'env'], { MODE: 'fuzz' }],
      [['spec', 'containers', 0, 'resources', 'limits', 'cpu'], 'lots'],
      [['spec', 'containers', 0, 'command'], 'sleep 3600'],
      [['spec', 'restartPolicy'], 7],
      [['spec', 'restartPolicy'], 'Sometimes'],
      [['spec', 'terminationGracePeriodSeconds'], 'soon'],
    ],
  },
  {
    resource: 'deployments',
    collection: namespacedPath('apps/v1', 'deployments'),
    existing: BASE_NAME,
    build: (name) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: { replicas: 0, selector: { matchLabels: { app: 'fuzz' } }, template: { metadata: { labels: { app: 'fuzz' } }, spec: { nodeSelector: nowhere, containers: [container()] } } },
    }),
    wrongValues: [
      [['spec', 'replicas'], 'three'],
      [['spec', 'replicas'], 1.5],
      [['spec', 'replicas'], 2 ** 40],
      [['spec', 'replicas'], -1],
      [['spec', 'selector'], 'app=fuzz'],
      [['spec', 'selector', 'matchLabels'], { app: 'other' }],
      [['spec', 'template'], 'template'],
      [['spec', 'template', 'metadata', 'labels'], { app: 5 }],
      [['spec', 'template', 'spec', 'containers'], 'busybox'],
      [['spec', 'template', 'spec', 'containers', 0, 'image'], ['busybox']],
      [['spec', 'strategy', 'type'], 'Sideways'],
      [['spec', 'minReadySeconds'], 'soon'],
    ],
  },
  {
    resource: 'services',
    collection: namespacedPath('v1', 'services'),
    existing: BASE_NAME,
    build: (name) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: 'fuzz' }, ports: [{ port: 80, protocol: 'TCP' }] } }),
    wrongValues: [
      [['spec', 'ports'], '80'],
      [['spec', 'ports', 0, 'port'], 'http'],
      [['spec', 'ports', 0, 'port'], 70_000],
      [['spec', 'ports', 0, 'protocol'], 'ICMP'],
      [['spec', 'type'], 'Weird'],
      [['spec', 'clusterIP'], 5],
      [['spec', 'selector'], ['app']],
    ],
  },
  {
    resource: 'namespaces',
    collection: '/api/v1/namespaces',
    existing: NAMESPACE,
    build: (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
    wrongValues: [
      [['spec'], 'spec'],
      [['spec', 'finalizers'], 'kubernetes'],
      [['spec', 'finalizers'], [5]],
    ],
  },
  {
    resource: 'jobs',
    collection: namespacedPath('batch/v1', 'jobs'),
    existing: BASE_NAME,
    build: (name) => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name },
      spec: { suspend: true, template: { spec: { restartPolicy: 'Never', nodeSelector: nowhere, containers: [container()] } } },
    }),
    wrongValues: [
      [['spec', 'parallelism'], 'many'],
      [['spec', 'completions'], -1],
      [['spec', 'backoffLimit'], 'x'],
      [['spec', 'suspend'], 'yes'],
      [['spec', 'template'], 'template'],
      [['spec', 'template', 'spec', 'restartPolicy'], 'Always'],
      [['spec', 'template', 'spec', 'containers'], { name: 'main' }],
    ],
  },
];

// Wrong for every kind: metadata of the wrong shape, type meta of the wrong type, bad labels.
const commonWrongValues: Array<[PathStep[], unknown]> = [
  [['metadata'], []],
  [['metadata'], 'metadata'],
  [['metadata', 'name'], 42],
  [['metadata', 'name'], { first: 'a' }],
  [['metadata', 'labels'], { app: 1 }],
  [['metadata', 'labels'], ['app']],
  [['metadata', 'labels'], { 'bad key!': 'value' }],
  [['metadata', 'labels'], { app: 'v'.repeat(64) }],
  [['metadata', 'annotations'], { note: true }],
  [['metadata', 'annotations'], { 'bad key!': 'value' }],
  [['metadata', 'finalizers'], 'finalizer'],
  [['metadata', 'ownerReferences'], { kind: 'Pod' }],
  [['metadata', 'generateName'], 7],
  [['apiVersion'], 1],
  [['kind'], { name: 'ConfigMap' }],
];

// Invalid as the name of any of the kinds above (DNS labels and subdomains alike).
const badNames = [
  'a'.repeat(300),
  'Upper-Case',
  'naïve-ünïcode',
  '日本語',
  'emoji-😀',
  'under_score',
  '-leading',
  'trailing-',
  'has space',
  '',
  '.',
  '..',
  'a/b',
  'per%cent',
  'tab\there',
  'nul\u0000byte',
  'line\nbreak',
];

function clone<T>(value: T): T {
  return structuredClone(value);
}

function setPath(object: Record<string, unknown>, path: PathStep[], value: unknown): Record<string, unknown> {
  let node: unknown = object;
  for (let index = 0; index < path.length - 1; index++) {
    const step = path[index];
    const container = node as Record<PathStep, unknown>;
    if (typeof container[step] !== 'object' || container[step] === null) container[step] = typeof path[index + 1] === 'number' ? [] : {};
    node = container[step];
  }
  (node as Record<PathStep, unknown>)[path[path.length - 1]] = value;
  return object;
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

function existingPath(target: Target): string {
  return `${target.collection}/${target.existing}`;
}

function caseName(index: number): string {
  return `fz-${index}`;
}

function randomUnicode(random: Random, length: number): string {
  let text = '';
  for (let index = 0; index < length; index++) text += String.fromCodePoint(random.pick([random.integer(0x80, 0x7ff), random.integer(0x800, 0xd7ff), random.integer(0x1f300, 0x1f6ff)]));
  return text;
}

function nested(depth: number, leaf: string): string {
  return '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
}

type Generator = (random: Random, index: number) => FuzzCase;

const generators: Generator[] = [
  function truncatedJson(random, index) {
    const target = random.pick(targets);
    const text = JSON.stringify(target.build(caseName(index)));
    const cut = random.integer(1, text.length - 1);
    return { label: `${target.resource}: JSON cut at ${cut}/${text.length}`, method: random.pick(['POST', 'PUT'] as const), path: random.next() < 0.5 ? target.collection : existingPath(target), contentType: 'application/json', body: Buffer.from(text.slice(0, cut)) };
  },
  function garbageBytes(random) {
    const target = random.pick(targets);
    const body = random.bytes(random.integer(1, 300));
    const method = random.pick(['POST', 'PUT'] as const);
    return { label: `${target.resource}: ${body.length} random bytes as JSON`, method, path: method === 'POST' ? target.collection : existingPath(target), contentType: random.pick(['application/json', 'application/yaml']), body };
  },
  function trailingGarbage(random, index) {
    const target = random.pick(targets);
    const suffix = random.pick(['}', ']', ',', 'x', '{}', '"', 'null', '\u0000', '{"kind":"Pod"}']);
    return { label: `${target.resource}: JSON followed by ${JSON.stringify(suffix)}`, method: 'POST', path: target.collection, contentType: 'application/json', body: Buffer.from(JSON.stringify(target.build(caseName(index))) + suffix) };
  },
  function notAnObject(random) {
    const target = random.pick(targets);
    const text = random.pick(['null', '[]', '[{}]', '"configmap"', '42', 'true', '{}', '{"kind":null}', '\ufeff{}']);
    const method = random.pick(['POST', 'PUT'] as const);
    return { label: `${target.resource}: body ${JSON.stringify(text)}`, method, path: method === 'POST' ? target.collection : existingPath(target), contentType: 'application/json', body: Buffer.from(text) };
  },
  function malformedYaml(random, index) {
    const target = random.pick(targets);
    const name = caseName(index);
    const object = target.build(name);
    const head = `apiVersion: ${String(object.apiVersion)}\nkind: ${String(object.kind)}\n`;
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let level = 1; level < 9; level++) {
      const previous = String.fromCharCode(96 + level);
      const current = String.fromCharCode(97 + level);
      laughs.push(`${current}: &${current} [${Array.from({ length: 9 }, () => `*${previous}`).join(',')}]`);
    }
    const variants: Array<[string, string]> = [
      ['tab indentation', `${head}metadata:\n\tname: ${name}\n`],
      ['duplicate keys', `${head}metadata:\n  name: ${name}\n  name: ${name}-again\n`],
      ['duplicate top-level keys', `${head}kind: Secret\nmetadata:\n  name: ${name}\n`],
      ['an alias bomb', `${head}metadata:\n  name: ${name}\n${laughs.join('\n')}\n`],
      ['an unclosed quote', `${head}metadata:\n  name: "${name}\n`],
      ['an unclosed flow mapping', `${head}metadata: {name: ${name}\n`],
      ['two documents', `${head}metadata:\n  name: ${name}\n---\n${head}metadata:\n  name: ${name}-b\n`],
      ['bad indentation', `${head}metadata:\n    name: ${name}\n  labels: {}\n`],
      ['a list', `- ${head.trim().split('\n').join('\n- ')}\n`],
      ['a scalar', `just a string\n`],
      ['an undefined alias', `${head}metadata:\n  name: *missing\n`],
      ['a complex key as a label', `${head}metadata:\n  name: ${name}\n  labels:\n    ? [a, b]\n    : c\n`],
      ['a number as name', `${head}metadata:\n  name: 12e3\n`],
      ['a control character', `${head}metadata:\n  name: ${name}\u0007\n`],
    ];
    const [what, text] = random.pick(variants);
    return { label: `${target.resource}: YAML with ${what}`, method: 'POST', path: target.collection, contentType: 'application/yaml', body: Buffer.from(text) };
  },
  function protobufGarbage(random) {
    const target = random.pick(targets);
    const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
    const variants: Array<[string, Buffer]> = [
      ['random bytes', random.bytes(random.integer(1, 200))],
      ['the magic and random bytes', Buffer.concat([magic, random.bytes(random.integer(0, 200))])],
      ['the magic alone', magic],
      ['a varint that never ends', Buffer.concat([magic, Buffer.from([0x0a]), Buffer.alloc(12, 0xff)])],
      ['a length beyond the end', Buffer.concat([magic, Buffer.from([0x12, 0xff, 0xff, 0x03, 0x01, 0x02])])],
      ['a JSON raw object', Buffer.from(wrapInEnvelope('v1', 'ConfigMap', Buffer.from('{"metadata":{"name":"x"}}')))],
      ['metadata as a varint', Buffer.from(wrapInEnvelope('v1', 'ConfigMap', new ProtobufWriter().varintField(1, 5).finish()))],
      ['a name of invalid UTF-8', Buffer.from(wrapInEnvelope('v1', 'ConfigMap', new ProtobufWriter().messageField(1, (meta) => meta.bytesField(1, Uint8Array.from([0xff, 0xfe, 0x41]))).finish()))],
      ['a group wire type', Buffer.from(wrapInEnvelope('v1', 'ConfigMap', new ProtobufWriter().tag(1, 3).tag(1, 4).finish()))],
    ];
    const [what, body] = random.pick(variants);
    const method = random.pick(['POST', 'PUT'] as const);
    return { label: `${target.resource}: protobuf of ${what}`, method, path: method === 'POST' ? target.collection : existingPath(target), contentType: PROTOBUF, body };
  },
  function truncatedProtobuf(random) {
    const [resource, captured] = random.pick([
      ['configmaps', kubectlCreateConfigMap],
      ['secrets', kubectlCreateSecretGeneric],
      ['namespaces', kubectlCreateNamespace],
      ['deployments', kubectlCreateDeployment],
    ] as const);
    const target = targets.find((candidate) => candidate.resource === resource) ?? targets[0];
    // The last four bytes are two empty trailing strings: a cut there would leave a valid body.
    const cut = random.integer(1, captured.length - 5);
    return { label: `${resource}: captured kubectl protobuf cut at ${cut}/${captured.length}`, method: 'POST', path: target.collection, contentType: PROTOBUF, body: Buffer.from(captured.subarray(0, cut)) };
  },
  function protobufOfTheWrongKind(random) {
    const target = random.pick(targets.filter((candidate) => candidate.resource !== 'namespaces'));
    return { label: `${target.resource}: protobuf Namespace posted to the wrong collection`, method: 'POST', path: target.collection, contentType: PROTOBUF, body: Buffer.from(kubectlCreateNamespace) };
  },
  function protobufWithABadName(random) {
    const target = random.pick(targets);
    const name = random.pick(badNames.filter((candidate) => candidate.length < 1000));
    return { label: `${target.resource}: protobuf named ${JSON.stringify(name.slice(0, 40))}`, method: 'POST', path: target.collection, contentType: PROTOBUF, body: Buffer.from(encodeKubernetesProtobuf(target.build(name))) };
  },
  function wrongValue(random, index) {
    const target = random.pick(targets);
    const [path, value] = random.pick([...target.wrongValues, ...commonWrongValues]);
    const put = random.next() < 0.3;
    const object = setPath(clone(target.build(put ? target.existing : caseName(index))), path, clone(value));
    return { label: `${target.resource}: ${path.join('.')} = ${JSON.stringify(value).slice(0, 60)}${put ? ' (update)' : ''}`, method: put ? 'PUT' : 'POST', path: put ? existingPath(target) : target.collection, contentType: 'application/json', body: json(object) };
  },
  function wrongValueInYaml(random, index) {
    const target = random.pick(targets);
    const [path, value] = random.pick(target.wrongValues);
    const object = setPath(clone(target.build(caseName(index))), path, clone(value));
    // JSON is a subset of YAML 1.2: the same wrong value, through the YAML decoder.
    return { label: `${target.resource}: YAML with ${path.join('.')} = ${JSON.stringify(value).slice(0, 60)}`, method: 'POST', path: target.collection, contentType: 'application/yaml', body: json(object) };
  },
  function badName(random) {
    const target = random.pick(targets);
    const name = random.next() < 0.15 ? randomUnicode(random, random.integer(1, 40)) : random.pick(badNames);
    // "trailing-" + "-" would be a valid prefix: the generated suffix makes the name end well.
    const generated = random.next() < 0.15 && !name.endsWith('-');
    const object = target.build(name);
    if (generated) setPath(object, ['metadata'], { generateName: `${name}-` });
    return { label: `${target.resource}: ${generated ? 'generateName' : 'name'} ${JSON.stringify(name.slice(0, 40))} (${name.length} chars)`, method: 'POST', path: target.collection, contentType: 'application/json', body: json(object) };
  },
  function mismatchedIdentity(random, index) {
    const target = random.pick(targets);
    const object = target.build(caseName(index));
    const variants: Array<[string, PathStep[], unknown]> = [
      ['another kind', ['kind'], target.resource === 'secrets' ? 'ConfigMap' : 'Secret'],
      ['an unknown apiVersion', ['apiVersion'], 'v2'],
      ['another group', ['apiVersion'], target.resource === 'deployments' ? 'batch/v1' : 'apps/v1'],
      ['no kind', ['kind'], ''],
    ];
    if (target.resource !== 'namespaces') variants.push(['another namespace', ['metadata', 'namespace'], 'elsewhere']);
    const [what, path, value] = random.pick(variants);
    setPath(object, path, value);
    return { label: `${target.resource}: body with ${what}`, method: 'POST', path: target.collection, contentType: 'application/json', body: json(object) };
  },
  function badUpdate(random, index) {
    const target = random.pick(targets);
    const variants: Array<[string, Record<string, unknown>, string, number | undefined]> = [
      ['a name other than the URL', target.build(`${caseName(index)}-other`), existingPath(target), 400],
      ['a stale resourceVersion', setPath(target.build(target.existing), ['metadata', 'resourceVersion'], '1'), existingPath(target), 409],
      ['a resourceVersion that is not a number', setPath(target.build(target.existing), ['metadata', 'resourceVersion'], 'abc'), existingPath(target), undefined],
      ['a uid precondition that fails', setPath(target.build(target.existing), ['metadata', 'uid'], '00000000-0000-0000-0000-000000000000'), existingPath(target), undefined],
      ['a name that does not exist', target.build(caseName(index)), `${target.collection}/${caseName(index)}`, 404],
    ];
    const [what, object, path, expectStatus] = random.pick(variants);
    return { label: `${target.resource}: update with ${what}`, method: 'PUT', path, contentType: 'application/json', body: json(object), expectStatus };
  },
  function badJsonPatch(random) {
    const target = random.pick(targets);
    const variants: Array<[string, string]> = [
      ['not JSON', '[{"op":"add",'],
      ['an object, not a list', '{"op":"add","path":"/metadata/labels","value":{}}'],
      ['no op', '[{"path":"/metadata/labels"}]'],
      ['an unknown op', '[{"op":"frobnicate","path":"/metadata/labels","value":{}}]'],
      ['a path without a slash', '[{"op":"add","path":"metadata","value":{}}]'],
      ['a missing path', '[{"op":"remove","path":"/spec/nothing/here"}]'],
      ['a failing test', '[{"op":"test","path":"/metadata/name","value":"someone-else"}]'],
      ['a move from nowhere', '[{"op":"move","from":"/nothing","path":"/metadata/labels"}]'],
      ['an index out of range', '[{"op":"replace","path":"/metadata/finalizers/99","value":"x"}]'],
      ['a bad escape', '[{"op":"add","path":"/metadata/labels/a~2b","value":"x"}]'],
      ['a label of the wrong type', '[{"op":"add","path":"/metadata/labels","value":{"app":5}}]'],
      ['metadata replaced by a string', '[{"op":"replace","path":"/metadata","value":"gone"}]'],
      ['a renamed object', '[{"op":"replace","path":"/metadata/name","value":"renamed"}]'],
      ['an op of the wrong type', '[{"op":5,"path":"/metadata/labels","value":{}}]'],
      ['a list of numbers', '[1,2,3]'],
    ];
    const [what, body] = random.pick(variants);
    return { label: `${target.resource}: JSON patch with ${what}`, method: 'PATCH', path: existingPath(target), contentType: 'application/json-patch+json', body: Buffer.from(body) };
  },
  function badMergePatch(random) {
    const target = random.pick(targets);
    const [path, value] = random.pick([...target.wrongValues, ...commonWrongValues.filter(([path]) => path[0] === 'metadata' && path.length > 1)]);
    const variants: Array<[string, string]> = [
      ['a cut body', '{"metadata":{"labels":{"a":"b"}'],
      ['a list', '[{"metadata":{}}]'],
      ['a string', '"patch"'],
      ['a renamed object', '{"metadata":{"name":"renamed"}}'],
      [`${path.join('.')} = ${JSON.stringify(value).slice(0, 60)}`, JSON.stringify(setPath({}, path, value))],
    ];
    const [what, body] = random.next() < 0.5 ? variants[variants.length - 1] : random.pick(variants);
    return { label: `${target.resource}: merge patch with ${what}`, method: 'PATCH', path: existingPath(target), contentType: 'application/merge-patch+json', body: Buffer.from(body) };
  },
  function badStrategicPatch(random) {
    const target = random.pick(targets.filter((candidate) => ['pods', 'deployments', 'jobs'].includes(candidate.resource)));
    const podSpec = target.resource === 'pods' ? ['spec'] : ['spec', 'template', 'spec'];
    const variants: Array<[string, unknown]> = [
      ['an unknown directive', { $patch: 'explode' }],
      ['containers as a string', setPath({}, [...podSpec, 'containers'], 'busybox')],
      ['a container without its merge key', setPath({}, [...podSpec, 'containers'], [{ image: 'other' }])],
      ['a container of the wrong type', setPath({}, [...podSpec, 'containers'], [{ name: 'main', image: 5 }])],
      ['a bad element order', setPath({}, [...podSpec, '$setElementOrder/containers'], 'main')],
      ['retainKeys of the wrong type', setPath({}, [...podSpec, '$retainKeys'], 5)],
      ['a renamed object', { metadata: { name: 'renamed' } }],
    ];
    const [what, body] = random.pick(variants);
    const text = random.next() < 0.2 ? JSON.stringify(body).slice(0, -1) : JSON.stringify(body);
    return { label: `${target.resource}: strategic merge patch with ${what}${text.endsWith('}') ? '' : ' (cut)'}`, method: 'PATCH', path: existingPath(target), contentType: 'application/strategic-merge-patch+json', body: Buffer.from(text) };
  },
  function badApplyPatch(random) {
    const target = random.pick(targets);
    const object = target.build(target.existing);
    const variants: Array<[string, string, string]> = [
      ['no fieldManager', '', JSON.stringify(object)],
      ['tab indentation', '?fieldManager=fuzz', `apiVersion: ${String(object.apiVersion)}\nkind: ${String(object.kind)}\nmetadata:\n\tname: ${target.existing}\n`],
      ['another kind', '?fieldManager=fuzz', JSON.stringify({ ...object, kind: target.resource === 'secrets' ? 'ConfigMap' : 'Secret' })],
      ['a list', '?fieldManager=fuzz', '- a\n- b\n'],
    ];
    const [what, query, body] = random.pick(variants);
    return { label: `${target.resource}: apply patch with ${what}`, method: 'PATCH', path: `${existingPath(target)}${query}`, contentType: 'application/apply-patch+yaml', body: Buffer.from(body) };
  },
  function wrongMediaType(random, index) {
    const target = random.pick(targets);
    const patch = random.next() < 0.4;
    const contentType = patch
      ? random.pick(['application/json', 'text/plain', 'application/xml', PROTOBUF, 'application/x-www-form-urlencoded'])
      : random.pick(['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/json-patch+json', 'image/png']);
    const body = patch ? json({ metadata: { labels: { fuzz: 'yes' } } }) : json(target.build(caseName(index)));
    return { label: `${target.resource}: ${patch ? 'PATCH' : 'POST'} as ${contentType}`, method: patch ? 'PATCH' : 'POST', path: patch ? existingPath(target) : target.collection, contentType, body, expectStatus: 415 };
  },
  function badQuery(random, index) {
    const target = random.pick(targets);
    const query = random.pick(['?dryRun=Maybe', '?dryRun=All&dryRun=Some', '?fieldValidation=Loose', '?fieldValidation=strict-ish']);
    return { label: `${target.resource}: POST with ${query}`, method: 'POST', path: `${target.collection}${query}`, contentType: 'application/json', body: json(target.build(caseName(index))) };
  },
  function deepNesting(random, index) {
    const target = targets[0];
    const depth = random.pick([1_000, 10_000, 100_000]);
    const variants: Array<[string, string]> = [
      ['deep data', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${caseName(index)}"},"data":${nested(depth, '"x"')}}`],
      ['deep labels', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${caseName(index)}","labels":${nested(depth, '"x"')}}}`],
      ['a deep list', '['.repeat(depth) + ']'.repeat(depth)],
    ];
    const [what, body] = random.pick(variants);
    return { label: `${target.resource}: ${what} nested ${depth} levels`, method: 'POST', path: target.collection, contentType: random.pick(['application/json', 'application/yaml']), body: Buffer.from(body) };
  },
];

function hugeBodyCases(random: Random): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const shapes: Array<[FuzzCase['method'], string, number]> = [
    ['POST', 'application/json', 0],
    ['POST', 'application/yaml', 1],
    ['POST', PROTOBUF, 2],
    ['PUT', 'application/json', 0],
    ['PATCH', 'application/merge-patch+json', 0],
    ['PATCH', 'application/strategic-merge-patch+json', 0],
    ['PATCH', 'application/json-patch+json', 0],
    ['POST', 'application/json', 1],
  ];
  shapes.forEach(([method, contentType, shape], index) => {
    const size = MAX_BODY_BYTES + random.integer(1, 200_000);
    const target = targets[0];
    // A well-formed object: only its size is wrong.
    const filler = 'x'.repeat(size);
    let body: Buffer;
    if (contentType === PROTOBUF) body = Buffer.from(encodeKubernetesProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `fz-huge-${index}` }, data: { big: filler } }));
    else if (contentType === 'application/json-patch+json') body = json([{ op: 'add', path: '/data/big', value: filler }]);
    else if (method === 'PATCH') body = json({ data: { big: filler } });
    else body = json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: method === 'PUT' ? target.existing : `fz-huge-${index}` }, data: { big: filler } });
    if (shape === 1 && contentType === 'application/json') body = Buffer.from(random.bytes(size).toString('base64').slice(0, size));
    cases.push({ label: `${target.resource}: ${method} of ${body.length} bytes as ${contentType}`, method, path: method === 'POST' ? target.collection : existingPath(target), contentType, body, expectStatus: 413 });
  });
  // Just under the limit but with a name of a mebibyte: refused by validation, not by size.
  cases.push({ label: 'configmaps: a name of 1 MiB', method: 'POST', path: targets[0].collection, contentType: 'application/json', body: json(targets[0].build('a'.repeat(1 << 20))) });
  cases.push({ label: 'namespaces: a name of 1 MiB', method: 'POST', path: '/api/v1/namespaces', contentType: 'application/json', body: json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n'.repeat(1 << 20) } }) });
  return cases;
}

function buildCases(seed: number): FuzzCase[] {
  const random = createRandom(seed);
  const cases: FuzzCase[] = [];
  for (let index = 0; index < CASE_COUNT; index++) cases.push(generators[index % generators.length](random, index));
  return [...cases, ...hugeBodyCases(random)];
}

/** Why a reply is wrong for a case, or undefined when it is the 4xx Status it should be. */
function problemWith(fuzzCase: FuzzCase, reply: Reply): string | undefined {
  if (reply.status < 400 || reply.status >= 500) return `answered ${reply.status}`;
  if (fuzzCase.expectStatus !== undefined && reply.status !== fuzzCase.expectStatus) return `answered ${reply.status}, expected ${fuzzCase.expectStatus}`;
  if (!reply.contentType.startsWith('application/json')) return `answered ${reply.status} with content type ${JSON.stringify(reply.contentType)}`;
  let status: unknown;
  try {
    status = JSON.parse(reply.body);
  } catch {
    return `answered ${reply.status} with a body that is not JSON`;
  }
  if (typeof status !== 'object' || status === null) return `answered ${reply.status} with a body that is not an object`;
  const fields = status as Record<string, unknown>;
  if (fields.kind !== 'Status' || fields.apiVersion !== 'v1' || fields.status !== 'Failure') return `answered ${reply.status} with a body that is not a Failure Status`;
  if (fields.code !== reply.status) return `answered ${reply.status} with a Status of code ${String(fields.code)}`;
  if (typeof fields.message !== 'string' || typeof fields.reason !== 'string') return `answered ${reply.status} with a Status lacking message or reason`;
  return undefined;
}

describe('malformed and mistyped request bodies', () => {
  it('accepts the well-formed baseline of every fuzzed kind', async () => {
    // The namespace first: every other baseline object lives in it.
    const ordered = [...targets].sort((left, right) => Number(right.resource === 'namespaces') - Number(left.resource === 'namespaces'));
    for (const target of ordered) {
      const reply = await send('POST', target.collection, json(target.build(target.existing)), 'application/json');
      expect(reply.status, `${target.resource}: ${reply.body}`).toBe(201);
    }
  });

  it('answers each of more than 1,200 invalid bodies with a 4xx Status and never a 5xx', async () => {
    const cases = buildCases(20_240_601);
    expect(cases.length).toBeGreaterThanOrEqual(1_200);
    const problems: string[] = [];
    const tally = new Map<number | string, number>();
    let next = 0;
    const started = Date.now();
    async function worker(): Promise<void> {
      while (next < cases.length) {
        const index = next++;
        const fuzzCase = cases[index];
        let problem: string | undefined;
        try {
          const reply = await send(fuzzCase.method, fuzzCase.path, fuzzCase.body, fuzzCase.contentType);
          tally.set(reply.status, (tally.get(reply.status) ?? 0) + 1);
          problem = problemWith(fuzzCase, reply);
          if (problem) problem += `: ${reply.body.slice(0, 300)}`;
        } catch (error) {
          tally.set('error', (tally.get('error') ?? 0) + 1);
          problem = `failed: ${error instanceof Error ? error.message : String(error)}`;
        }
        if (problem) problems.push(`#${index} ${fuzzCase.method} ${fuzzCase.path.slice(0, 120)} [${fuzzCase.contentType}] ${fuzzCase.label.slice(0, 200)} — ${problem}`);
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));
    const elapsed = Date.now() - started;
    const summary = `${cases.length} cases in ${elapsed} ms; statuses ${JSON.stringify(Object.fromEntries(tally))}; ${problems.length} problems`;
    expect(problems, `${summary}\n${problems.slice(0, 60).join('\n')}`).toEqual([]);
    expect(elapsed).toBeLessThan(60_000);
  });

  it('stays up and keeps serving kubectl afterwards', async () => {
    expect(cluster.pid()).toBeDefined();
    const ready = await send('GET', '/readyz', undefined, undefined);
    expect(ready.status).toBe(200);
    expect(ready.body.trim()).toBe('ok');
    const namespaces = await cluster.kubectl(['get', 'ns']);
    expect(namespaces.code, namespaces.stderr).toBe(0);
    expect(namespaces.stdout).toMatch(new RegExp(`^${NAMESPACE}\\s+Active`, 'm'));
    const listed = await cluster.kubectl(['get', 'configmap', BASE_NAME, '-n', NAMESPACE, '-o', 'jsonpath={.data.key}']);
    expect(listed.stdout).toBe('value');
  });
});
