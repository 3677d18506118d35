// Tests of the cluster views' pure rules: kubedesk features from discovery or the relay's status,
// and the local clusters' list and actions.
import { describe, expect, it } from 'vitest';
import { kubedeskFeatures, localClusterActions, localClusterNameProblem, parseLocalClusters, statusMessage } from './clusterModel';

describe('kubedeskFeatures', () => {
  const history = [{ group: '' }, { group: 'history.kubedesk.dev' }];
  const plain = [{ group: '' }, { group: 'apps' }];

  it('counts the serving cluster as a kubedesk without asking', () => {
    expect(kubedeskFeatures({ cluster: '', discoveryLoaded: false, discovered: [] })).toBe('present');
  });

  it('reads a relayed cluster from discovery once it answered', () => {
    expect(kubedeskFeatures({ cluster: 'kubedesk-b', discoveryLoaded: true, discovered: history })).toBe('present');
    expect(kubedeskFeatures({ cluster: 'prod', discoveryLoaded: true, discovered: plain, status: { state: 'connected', kubedesk: true } })).toBe('absent');
  });

  it('falls back to the relay status until discovery answered, and is unknown before either', () => {
    expect(kubedeskFeatures({ cluster: 'prod', discoveryLoaded: false, discovered: [], status: { state: 'connected', kubedesk: false } })).toBe('absent');
    expect(kubedeskFeatures({ cluster: 'prod', discoveryLoaded: true, discovered: [], status: { state: 'connected', kubedesk: true } })).toBe('present');
    expect(kubedeskFeatures({ cluster: 'prod', discoveryLoaded: false, discovered: [], status: { state: 'unreachable', kubedesk: false } })).toBe('unknown');
    expect(kubedeskFeatures({ cluster: 'prod', discoveryLoaded: false, discovered: [] })).toBe('unknown');
  });
});

describe('local clusters', () => {
  it('parses the list by name, defaulting what is missing and leaving out what has no name', () => {
    const clusters = parseLocalClusters({ clusters: [{ name: 'b', context: 'kubedesk-b', dataDir: '/d/b', port: 7443, state: 'running', nodes: 3 }, { name: 'a', state: 'weird' }, { context: 'x' }] });
    expect(clusters).toEqual([
      { name: 'a', context: 'kubedesk-a', dataDir: '', state: 'stopped', nodes: 1 },
      { name: 'b', context: 'kubedesk-b', dataDir: '/d/b', port: 7443, state: 'running', nodes: 3 },
    ]);
    expect(parseLocalClusters({})).toEqual([]);
  });

  it('offers what each state allows', () => {
    expect(localClusterActions({ state: 'running' })).toEqual(['open', 'stop', 'delete']);
    expect(localClusterActions({ state: 'stopped' })).toEqual(['start', 'delete']);
    expect(localClusterActions({ state: 'starting' })).toEqual([]);
  });

  it.each([
    ['staging', undefined],
    ['b2', undefined],
    ['', 'a name is required'],
    ['Staging', 'lower-case letters'],
    ['-a', 'lower-case letters'],
    ['a_b', 'lower-case letters'],
    ['a'.repeat(64), 'at most 63 characters'],
  ])('checks the name %j before asking', (name, problem) => {
    const found = localClusterNameProblem(name);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });

  it('takes the message of a Status, else the code', () => {
    expect(statusMessage({ kind: 'Status', message: 'localclusters "a" already exists' }, 409)).toBe('localclusters "a" already exists');
    expect(statusMessage('oops', 500)).toBe('the server answered 500');
  });
});
