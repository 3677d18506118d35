// kill -9 while 16 clients write: after a restart every write that was acknowledged with a 2xx is
// there (creates and updates at least as new as acknowledged, deletes gone) and resourceVersions
// only grow. This is the guarantee etcd gives kube-apiserver (a reply is sent only after the
// revision is durable) and the "state survives" promise for kubedesk's SQLite store.
import { Agent, request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { until } from '../support/wait';

const NAMESPACE = 'durable';
const WRITERS = 16;
const UPDATES_PER_OBJECT = 3;
const WRITE_TIME_MS = 2_000;
const COLLECTION = `/api/v1/namespaces/${NAMESPACE}/configmaps`;

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.destroy();
});

interface Reply {
  status: number;
  body: string;
}

interface ConfigMapShape {
  metadata?: { name?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

/** What the clients know about one object: only what a 2xx acknowledged, plus what was in flight. */
interface Written {
  name: string;
  writer: number;
  /** The last acknowledged version (0 = the create) with its resourceVersion and payload. */
  version: number;
  resourceVersion: number;
  payload: string;
  /** Every acknowledged resourceVersion of this object, in order. */
  history: number[];
  /** The highest version a write was attempted for (acknowledged or not). */
  attemptedVersion: number;
  deleteAcknowledged: boolean;
  deleteAttempted: boolean;
}

function send(agent: Agent, method: string, path: string, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { authorization: `Bearer ${cluster.token}`, accept: 'application/json' };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(new URL(path, cluster.server), { method, headers, agent, timeout: 30_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
      response.on('aborted', () => reject(new Error('response aborted')));
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path} timed out`)));
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

function resourceVersionOf(reply: Reply): number {
  const object = JSON.parse(reply.body) as ConfigMapShape;
  const text = object.metadata?.resourceVersion ?? '';
  if (!/^\d+$/.test(text)) throw new Error(`resourceVersion ${JSON.stringify(text)} is not a number`);
  return Number(text);
}

function payloadFor(writer: number, sequence: number, version: number): string {
  return `writer ${writer} object ${sequence} version ${version} `.repeat(8);
}

function configMap(name: string, writer: number, sequence: number, version: number, resourceVersion?: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NAMESPACE, ...(resourceVersion === undefined ? {} : { resourceVersion: String(resourceVersion) }) },
    data: { writer: String(writer), sequence: String(sequence), version: String(version), payload: payloadFor(writer, sequence, version) },
  };
}

describe('kill -9 while 16 clients write', () => {
  const written = new Map<string, Written>();
  const unexpected: string[] = [];
  let acknowledgedWrites = 0;
  let interruptedWrites = 0;

  it('acknowledges writes from 16 concurrent clients until the server is killed', async () => {
    const namespace = await cluster.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    expect(namespace.status, namespace.body).toBe(201);

    let killed = false;
    const agents = Array.from({ length: WRITERS }, () => new Agent({ keepAlive: true, maxSockets: 1, ca: cluster.caPem }));

    async function writer(index: number): Promise<void> {
      const agent = agents[index];
      // Stops at the first failure: after the kill every request fails, and before it none should.
      const check = (what: string, reply: Reply, expected: number[]): boolean => {
        if (expected.includes(reply.status)) return true;
        if (!killed) unexpected.push(`writer ${index}: ${what} answered ${reply.status}: ${reply.body.slice(0, 300)}`);
        return false;
      };
      try {
        for (let sequence = 0; ; sequence++) {
          if (killed) return;
          const name = `w${index}-${sequence}`;
          const entry: Written = { name, writer: index, version: -1, resourceVersion: 0, payload: '', history: [], attemptedVersion: 0, deleteAcknowledged: false, deleteAttempted: false };
          written.set(name, entry);
          const created = await send(agent, 'POST', COLLECTION, configMap(name, index, sequence, 0));
          if (!check(`create ${name}`, created, [201])) return;
          Object.assign(entry, { version: 0, resourceVersion: resourceVersionOf(created), payload: payloadFor(index, sequence, 0) });
          entry.history.push(entry.resourceVersion);
          acknowledgedWrites++;
          for (let version = 1; version <= UPDATES_PER_OBJECT; version++) {
            if (killed) return;
            entry.attemptedVersion = version;
            const updated = await send(agent, 'PUT', `${COLLECTION}/${name}`, configMap(name, index, sequence, version, entry.resourceVersion));
            if (!check(`update ${name} to version ${version}`, updated, [200])) return;
            Object.assign(entry, { version, resourceVersion: resourceVersionOf(updated), payload: payloadFor(index, sequence, version) });
            entry.history.push(entry.resourceVersion);
            acknowledgedWrites++;
          }
          if (sequence % 4 === 3) {
            if (killed) return;
            entry.deleteAttempted = true;
            const deleted = await send(agent, 'DELETE', `${COLLECTION}/${name}`);
            if (!check(`delete ${name}`, deleted, [200, 202])) return;
            entry.deleteAcknowledged = true;
            acknowledgedWrites++;
          }
        }
      } catch (error) {
        if (killed) interruptedWrites++;
        else unexpected.push(`writer ${index}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }

    const started = Date.now();
    const writers = Array.from({ length: WRITERS }, (_, index) => writer(index));
    await until('writes to be acknowledged for 2 s', () => (unexpected.length > 0 || (Date.now() - started >= WRITE_TIME_MS && acknowledgedWrites >= WRITERS * 4) ? true : undefined), 60_000, 20);
    killed = true;
    const exit = await cluster.kill9();
    await Promise.all(writers);
    for (const agent of agents) agent.destroy();

    expect(unexpected).toEqual([]);
    expect(exit.signal).toBe('SIGKILL');
    expect(acknowledgedWrites).toBeGreaterThanOrEqual(WRITERS * 4);
    // The kill must land while writes are in flight, or it proves nothing.
    expect(interruptedWrites).toBeGreaterThan(0);
    const writersThatWrote = new Set([...written.values()].filter((entry) => entry.version >= 0).map((entry) => entry.writer));
    expect(writersThatWrote.size).toBe(WRITERS);
  });

  it('gave every acknowledged write its own, growing resourceVersion', () => {
    const all: number[] = [];
    for (const entry of written.values()) {
      for (let index = 1; index < entry.history.length; index++) expect(entry.history[index], entry.name).toBeGreaterThan(entry.history[index - 1]);
      all.push(...entry.history);
    }
    expect(new Set(all).size).toBe(all.length);
  });

  it('restarts with every acknowledged write in place', async () => {
    await cluster.restart();
    const problems: string[] = [];
    for (const entry of written.values()) {
      const reply = await cluster.request('GET', `${COLLECTION}/${entry.name}`);
      if (entry.deleteAcknowledged) {
        if (reply.status !== 404) problems.push(`${entry.name}: deleted with a 2xx but GET answered ${reply.status}`);
        continue;
      }
      if (entry.version < 0 || (entry.deleteAttempted && reply.status === 404)) {
        // Never acknowledged (or its delete was in flight): it may or may not exist.
        if (reply.status !== 200 && reply.status !== 404) problems.push(`${entry.name}: GET answered ${reply.status}`);
        continue;
      }
      if (reply.status !== 200) {
        problems.push(`${entry.name}: acknowledged at version ${entry.version} (resourceVersion ${entry.resourceVersion}) but GET answered ${reply.status}: ${reply.body.slice(0, 200)}`);
        continue;
      }
      const object = JSON.parse(reply.body) as ConfigMapShape;
      const resourceVersion = Number(object.metadata?.resourceVersion);
      const version = Number(object.data?.version);
      if (!(version >= entry.version && version <= entry.attemptedVersion)) problems.push(`${entry.name}: version ${version}, acknowledged ${entry.version}, attempted up to ${entry.attemptedVersion}`);
      if (!(resourceVersion >= entry.resourceVersion)) problems.push(`${entry.name}: resourceVersion ${resourceVersion} older than the acknowledged ${entry.resourceVersion}`);
      if (version === entry.version && (resourceVersion !== entry.resourceVersion || object.data?.payload !== entry.payload)) {
        problems.push(`${entry.name}: version ${version} with resourceVersion ${resourceVersion} and payload ${JSON.stringify(object.data?.payload?.slice(0, 40))}, acknowledged as resourceVersion ${entry.resourceVersion}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('holds no object that no client tried to write', async () => {
    const list = await cluster.request('GET', COLLECTION);
    expect(list.status).toBe(200);
    const items = (JSON.parse(list.body) as { items: ConfigMapShape[] }).items;
    // kube-root-ca.crt is the root CA publisher's, as in every namespace.
    const strangers = items.filter((item) => {
      if (item.metadata?.name === 'kube-root-ca.crt') return false;
      const entry = written.get(item.metadata?.name ?? '');
      if (!entry || entry.deleteAcknowledged) return true;
      return Number(item.data?.version) > entry.attemptedVersion || item.data?.writer !== String(entry.writer);
    });
    expect(strangers.map((item) => item.metadata?.name)).toEqual([]);
    expect(items.length).toBeGreaterThanOrEqual([...written.values()].filter((entry) => entry.version >= 0 && !entry.deleteAttempted).length);
  });

  it('gives new writes resourceVersions above every acknowledged one', async () => {
    const highest = Math.max(...[...written.values()].flatMap((entry) => entry.history));
    const list = await cluster.request('GET', COLLECTION);
    expect(Number((JSON.parse(list.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion)).toBeGreaterThanOrEqual(highest);

    const created = await cluster.request('POST', COLLECTION, configMap('after-restart', 99, 0, 0));
    expect(created.status, created.body).toBe(201);
    const createdVersion = resourceVersionOf(created);
    expect(createdVersion).toBeGreaterThan(highest);

    const survivor = [...written.values()].find((entry) => entry.version >= 0 && !entry.deleteAttempted);
    expect(survivor).toBeDefined();
    const current = await cluster.request('GET', `${COLLECTION}/${survivor?.name ?? ''}`);
    const updated = await cluster.request('PUT', `${COLLECTION}/${survivor?.name ?? ''}`, configMap(survivor?.name ?? '', survivor?.writer ?? 0, 0, 10, resourceVersionOf(current)));
    expect(updated.status, updated.body).toBe(200);
    expect(resourceVersionOf(updated)).toBeGreaterThan(createdVersion);

    const stale = await cluster.request('PUT', `${COLLECTION}/${survivor?.name ?? ''}`, configMap(survivor?.name ?? '', survivor?.writer ?? 0, 0, 11, resourceVersionOf(current)));
    expect(stale.status).toBe(409);
  });
});
