// Tests of the cluster list's parsing and order, the relay base paths, and the plain words for a
// relayed cluster's state.
import { describe, expect, it } from 'vitest';
import { clusterBasePath, clusterDescription, clusterGroup, clusterLabel, insecureWarning, orderClusters, parseClusterList, parseClusterStatus, serverHost, stateWords, type ClusterEntry } from './clusters';

function entry(name: string, change: Partial<ClusterEntry> = {}): ClusterEntry {
  return { name, cluster: name, user: name, server: `https://${name}.example:6443`, insecure: false, authKind: 'token', current: false, self: false, basePath: clusterBasePath(name), readOnly: false, ...change };
}

describe('clusterBasePath', () => {
  it('is empty for the serving cluster and encodes a context name under /ui/clusters', () => {
    expect(clusterBasePath('')).toBe('');
    expect(clusterBasePath('prod')).toBe('/ui/clusters/prod');
    expect(clusterBasePath('arn:aws:eks:eu-west-1:1234:cluster/prod')).toBe('/ui/clusters/arn%3Aaws%3Aeks%3Aeu-west-1%3A1234%3Acluster%2Fprod');
  });
});

describe('parseClusterList', () => {
  it('reads the serving cluster, the contexts and the kubeconfig error, leaving malformed entries out', () => {
    const list = parseClusterList({
      self: 'kubedesk',
      kubeconfigFiles: ['/root/.kube/config', 3],
      clusters: [
        { name: 'kubedesk', cluster: 'kubedesk', user: 'kubedesk-admin', server: 'https://127.0.0.1:6443', insecure: false, authKind: 'token', current: true, self: true, basePath: '', readOnly: false },
        { name: 'prod', server: 'https://prod.example', insecure: true, authKind: 'exec', impersonate: { user: 'jane', groups: ['ops', 1] }, self: false, basePath: '/ui/clusters/prod', readOnly: true },
        { name: '' },
        'nonsense',
        { name: 'odd', authKind: 'kerberos' },
      ],
      error: 'kubeconfig could not be read: bad yaml',
    });
    expect(list.self).toBe('kubedesk');
    expect(list.kubeconfigFiles).toEqual(['/root/.kube/config']);
    expect(list.error).toBe('kubeconfig could not be read: bad yaml');
    expect(list.clusters.map((cluster) => cluster.name)).toEqual(['kubedesk', 'prod', 'odd']);
    expect(list.clusters[0]).toMatchObject({ self: true, basePath: '', current: true });
    expect(list.clusters[1]).toMatchObject({ insecure: true, authKind: 'exec', impersonate: { user: 'jane', groups: ['ops'] }, readOnly: true, basePath: '/ui/clusters/prod' });
    expect(list.clusters[2]).toMatchObject({ authKind: 'none', basePath: '/ui/clusters/odd', server: '' });
  });

  it('answers an empty list with an error for a body that is not an object', () => {
    expect(parseClusterList('<html>')).toMatchObject({ clusters: [], error: expect.stringContaining('could not be read') });
  });
});

describe('orderClusters', () => {
  it('puts the serving cluster first, then local kubedesk clusters, then the other contexts, each by name', () => {
    const ordered = orderClusters([entry('zeta'), entry('kubedesk-b'), entry('alpha'), entry('kubedesk', { self: true }), entry('kubedesk-a')]);
    expect(ordered.map((cluster) => cluster.name)).toEqual(['kubedesk', 'kubedesk-a', 'kubedesk-b', 'alpha', 'zeta']);
    expect(ordered.map((cluster) => clusterGroup(cluster))).toEqual(['self', 'local', 'local', 'kubeconfig', 'kubeconfig']);
  });

  it('counts the serving cluster as itself even when its context is a kubedesk-* one', () => {
    expect(orderClusters([entry('kubedesk-a'), entry('kubedesk-b', { self: true })]).map((cluster) => cluster.name)).toEqual(['kubedesk-b', 'kubedesk-a']);
  });
});

describe('names and addresses', () => {
  it.each([
    ['https://10.0.0.1:6443', '10.0.0.1:6443'],
    ['https://api.example.com', 'api.example.com:443'],
    ['http://localhost', 'localhost:80'],
    ['https://[::1]:8443/prefix', '[::1]:8443'],
    ['not a url', 'not a url'],
  ])('prints the server %s as %s', (server, host) => {
    expect(serverHost(server)).toBe(host);
  });

  it('labels the choice and describes each kind of cluster', () => {
    expect(clusterLabel('', { self: 'kubedesk' })).toBe('This cluster (kubedesk)');
    expect(clusterLabel('', undefined)).toBe('This cluster');
    expect(clusterLabel('prod', { self: 'kubedesk' })).toBe('prod');
    expect(clusterDescription(entry('kubedesk', { self: true, server: 'https://127.0.0.1:6443' }))).toBe('This cluster — 127.0.0.1:6443');
    expect(clusterDescription(entry('kubedesk-b', { server: 'https://127.0.0.1:7443' }))).toBe('Local kubedesk cluster — 127.0.0.1:7443');
    expect(clusterDescription(entry('prod'))).toBe('prod.example:6443');
  });

  it('warns about a context that skips TLS verification, naming its server', () => {
    expect(insecureWarning(entry('prod'))).toBeUndefined();
    expect(insecureWarning(entry('lab', { insecure: true }))).toContain('lab skips TLS verification (insecure-skip-tls-verify)');
    expect(insecureWarning(entry('lab', { insecure: true }))).toContain('lab.example:6443');
  });
});

describe('parseClusterStatus', () => {
  it('reads a status and refuses an unknown state', () => {
    expect(parseClusterStatus({ state: 'certificate-not-trusted', message: 'x509', fingerprint: 'AB:CD', kubedesk: false, warnings: ['w', 2], user: { username: 'jane', groups: ['ops'] } })).toEqual({ state: 'certificate-not-trusted', message: 'x509', fingerprint: 'AB:CD', user: { username: 'jane', groups: ['ops'] }, kubedesk: false, warnings: ['w'] });
    expect(parseClusterStatus({ state: 'sleepy' })).toBeUndefined();
    expect(parseClusterStatus(null)).toBeUndefined();
  });
});

describe('stateWords', () => {
  it('says nothing for a connected cluster', () => {
    expect(stateWords({ state: 'connected', message: '' }, 'prod')).toBeUndefined();
  });

  it.each([
    ['unreachable', 'Cannot reach prod at prod.example:6443', 'kubedesk keeps trying'],
    ['certificate-not-trusted', 'The certificate of prod is not trusted', 'Compare the fingerprint'],
    ['unauthorized', 'prod refused the credentials', 'expired or was revoked (401 Unauthorized)'],
    ['error', 'prod cannot be used', 'could not talk'],
  ] as const)('words %s as "%s"', (state, title, advice) => {
    const words = stateWords({ state, message: 'the relay’s message' }, 'prod', 'https://prod.example:6443');
    expect(words?.title).toBe(title);
    expect(words?.advice).toContain(advice);
    expect(words?.message).toBe('the relay’s message');
  });

  it('keeps the fingerprint of an untrusted certificate', () => {
    expect(stateWords({ state: 'certificate-not-trusted', message: 'm', fingerprint: 'AB:CD:EF' }, 'prod')?.fingerprint).toBe('AB:CD:EF');
  });

  it('tells a missing credential plugin from a failing one and keeps what it printed', () => {
    const missing = stateWords({ state: 'exec-failed', message: 'exec: "gke-gcloud-auth-plugin": executable file not found in $PATH' }, 'gke');
    expect(missing?.title).toBe('The credential plugin of gke is missing');
    const failing = stateWords({ state: 'exec-failed', message: 'the plugin exited with status 1', stderr: 'error: token refresh failed\nrun gcloud auth login' }, 'gke');
    expect(failing?.title).toBe('The credential plugin of gke failed');
    expect(failing?.stderr).toBe('error: token refresh failed\nrun gcloud auth login');
  });
});
