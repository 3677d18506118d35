import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../apiserver/apiError';
import { PortForwardStore, type StoredEvent } from './portForwardStore';

const now = () => new Date('2026-01-02T03:04:05.678Z');

function body(name: string, spec: unknown = { target: { kind: 'Pod', name: 'web-1' }, port: 8080 }): Record<string, unknown> {
  return { apiVersion: 'kubedesk.dev/v1alpha1', kind: 'PortForward', metadata: { name }, spec };
}

function thrown(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('PortForwardStore', () => {
  it('creates an object with server-set fields, empty status and the next resourceVersion', () => {
    const store = new PortForwardStore({ now });
    const created = store.create('default', { ...body('web'), status: { phase: 'Active' }, metadata: { name: 'web', uid: 'mine', labels: { a: 'b' } } });
    expect(created.metadata).toMatchObject({ name: 'web', namespace: 'default', resourceVersion: '1', generation: 1, creationTimestamp: '2026-01-02T03:04:05Z', labels: { a: 'b' } });
    expect(created.metadata.uid).not.toBe('mine');
    expect(created.status).toEqual({});
    expect(store.resourceVersion()).toBe('1');
  });

  it('refuses an invalid spec with 422 Invalid and the real kind\'s field paths', () => {
    const error = thrown(() => new PortForwardStore().create('default', body('web', { target: { kind: 'Job', name: 'x' }, port: 70000, localPort: -1 })));
    expect(error.code).toBe(422);
    expect(error.reason).toBe('Invalid');
    expect(error.details?.causes?.map((cause) => cause.field)).toEqual(['spec.target.kind', 'spec.port', 'spec.localPort']);
    expect(error.message).toMatch(/^PortForward\.kubedesk\.dev "web" is invalid: \[spec\.target\.kind: Unsupported value: "Job"/);
  });

  it('refuses a missing name, a second object of the same name, another namespace and another apiVersion', () => {
    const store = new PortForwardStore();
    expect(thrown(() => store.create('default', { spec: body('x').spec })).details?.causes?.map((cause) => cause.field)).toEqual(['metadata.name']);
    store.create('default', body('web'));
    const duplicate = thrown(() => store.create('default', body('web')));
    expect([duplicate.code, duplicate.message]).toEqual([409, 'portforwards.kubedesk.dev "web" already exists']);
    expect(thrown(() => store.create('default', { ...body('other'), metadata: { name: 'other', namespace: 'kube-system' } })).code).toBe(400);
    expect(thrown(() => store.create('default', { ...body('other'), apiVersion: 'v1' })).code).toBe(400);
  });

  it('generates a name from generateName', () => {
    const created = new PortForwardStore().create('default', { spec: body('x').spec, metadata: { generateName: 'web-8080-' } });
    expect(created.metadata.name).toMatch(/^web-8080-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('stores nothing on a dry run', () => {
    const store = new PortForwardStore();
    store.create('default', body('web'), { dryRun: true });
    expect(store.list()).toEqual([]);
    expect(store.resourceVersion()).toBe('0');
  });

  it('deletes with uid and resourceVersion preconditions', () => {
    const store = new PortForwardStore();
    const created = store.create('default', body('web'));
    expect(thrown(() => store.delete('default', 'web', { uid: 'other' })).code).toBe(409);
    expect(thrown(() => store.delete('default', 'web', { resourceVersion: '99' })).code).toBe(409);
    const deleted = store.delete('default', 'web', { uid: created.metadata.uid });
    expect(deleted.metadata.resourceVersion).toBe('2');
    expect(thrown(() => store.get('default', 'web')).message).toBe('portforwards.kubedesk.dev "web" not found');
  });

  it('writes status only when it changes, as a MODIFIED event that remembers the object before', () => {
    const store = new PortForwardStore();
    const created = store.create('default', body('web'));
    const events: StoredEvent[] = [];
    store.subscribe((event) => events.push(event));
    expect(store.setStatus('default', 'web', created.metadata.uid ?? '', { phase: 'Active', localPort: 1234 })).toBe(true);
    expect(store.setStatus('default', 'web', created.metadata.uid ?? '', { phase: 'Active', localPort: 1234 })).toBe(false);
    expect(store.setStatus('default', 'web', 'another-uid', { phase: 'Failed' })).toBe(false);
    expect(events.map((event) => [event.type, event.resourceVersion, event.previous?.status, event.object.status])).toEqual([['MODIFIED', 2, {}, { phase: 'Active', localPort: 1234 }]]);
  });

  it('starts a watch with the current objects, from a resourceVersion with the later events, or expired', () => {
    const store = new PortForwardStore({ historySize: 1 });
    store.create('default', body('a'));
    store.create('default', body('b'));
    store.delete('default', 'a');
    const fromNothing = store.watchStart('');
    expect('events' in fromNothing && fromNothing.events.map((event) => [event.type, event.object.metadata.name])).toEqual([['ADDED', 'b']]);
    const fromTwo = store.watchStart('2');
    expect('events' in fromTwo && fromTwo.events.map((event) => [event.type, event.object.metadata.name, event.resourceVersion])).toEqual([['DELETED', 'a', 3]]);
    expect(store.watchStart('0')).toEqual(store.watchStart(''));
    expect(store.watchStart('1')).toEqual({ expired: 'too old resource version: 1 (2)' });
    expect(store.watchStart('3')).toEqual({ events: [] });
    expect(store.watchStart('40')).toEqual({ expired: expect.stringContaining('earlier run') });
    expect(thrown(() => store.watchStart('abc')).code).toBe(400);
  });
});
