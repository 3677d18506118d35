import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { builtinKinds } from '../kinds';
import { qualifiedResource } from '../resources';
import { defaultImagePullPolicy } from './podSpec';

/** The strategies of the stored built-in kinds, by group-qualified resource (`pods`, `deployments.apps`). */
const kinds = Object.fromEntries(builtinKinds.filter((kind) => !kind.conversion).map((kind) => [qualifiedResource(kind), kind]));

function applied(resource: string, obj: KubeObject, create = true): KubeObject {
  const copy = structuredClone(obj);
  kinds[resource].defaults(copy);
  if (create) kinds[resource].prepareForCreate(copy);
  return copy;
}

describe('pod defaults', () => {
  const pod = applied('pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
    spec: {
      containers: [{
        name: 'app', image: 'nginx', ports: [{ containerPort: 80 }],
        resources: { limits: { cpu: '1', memory: '64Mi' } },
        readinessProbe: { httpGet: { port: 80 } },
      }],
      volumes: [{ name: 'scratch' }, { name: 'cfg', configMap: { name: 'cfg' } }],
    },
  });
  const spec = pod.spec as Record<string, unknown>;
  const container = (spec.containers as Array<Record<string, unknown>>)[0];

  it('fills the pod spec defaults', () => {
    expect(spec).toMatchObject({
      restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30,
      securityContext: {}, enableServiceLinks: true, serviceAccountName: 'default', serviceAccount: 'default',
    });
  });

  it('leaves priority and preemptionPolicy to the Priority admission plugin', () => {
    expect(spec).not.toHaveProperty('priority');
    expect(spec).not.toHaveProperty('preemptionPolicy');
  });

  it('adds the not-ready and unreachable tolerations', () => {
    expect(spec.tolerations).toEqual([
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  });

  it('fills container, port and probe defaults and copies limits into requests', () => {
    expect(container).toMatchObject({
      imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      resources: { limits: { cpu: '1', memory: '64Mi' }, requests: { cpu: '1', memory: '64Mi' } },
      readinessProbe: { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
    });
  });

  it('turns a source-less volume into an emptyDir and sets file modes', () => {
    expect(spec.volumes).toEqual([{ name: 'scratch', emptyDir: {} }, { name: 'cfg', configMap: { name: 'cfg', defaultMode: 420 } }]);
  });

  it.each([
    ['nginx', 'Always'], ['nginx:latest', 'Always'], ['nginx:1.27', 'IfNotPresent'], ['localhost:5000/app', 'Always'],
    ['localhost:5000/app:v1', 'IfNotPresent'], ['nginx@sha256:abc', 'IfNotPresent'], ['', 'IfNotPresent'],
  ])('pulls %s with policy %s', (image, policy) => {
    expect(defaultImagePullPolicy(image)).toBe(policy);
  });
});

describe('workload defaults', () => {
  it('fills deployment defaults and the template pod spec', () => {
    const deployment = applied('deployments.apps', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } } },
    });
    expect(deployment.spec).toMatchObject({
      replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      template: { spec: { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, containers: [{ imagePullPolicy: 'IfNotPresent' }] } },
    });
    // Template pods do not get the Pod-only and admission defaults.
    const templateSpec = (deployment.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(templateSpec.enableServiceLinks).toBeUndefined();
    expect(templateSpec.serviceAccountName).toBeUndefined();
  });

  it('fills job defaults and generates the selector at create', () => {
    const job = applied('jobs.batch', {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', namespace: 'default', uid: 'u-1' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } } },
    });
    expect(job.spec).toMatchObject({
      completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } },
      template: { metadata: { labels: { 'batch.kubernetes.io/controller-uid': 'u-1', 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': 'u-1', 'job-name': 'pi' } } },
    });
    expect(job.spec).not.toHaveProperty('manualSelector');
  });

  it('gives a job the labels of its template', () => {
    const job = applied('jobs.batch', {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', namespace: 'default', uid: 'u-2' },
      spec: { template: { metadata: { labels: { app: 'pi' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } } },
    });
    expect(job.metadata.labels).toEqual({ app: 'pi', 'batch.kubernetes.io/controller-uid': 'u-2', 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': 'u-2', 'job-name': 'pi' });
  });

  it('fills cronjob defaults without job defaults inside the template', () => {
    const cronJob = applied('cronjobs.batch', {
      apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'tick', namespace: 'default' },
      spec: { schedule: '@hourly', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 't', image: 'busybox' }] } } } } },
    });
    expect(cronJob.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    const jobSpec = (cronJob.spec as { jobTemplate: { spec: Record<string, unknown> } }).jobTemplate.spec;
    expect(jobSpec.backoffLimit).toBeUndefined();
    expect(jobSpec.template).toMatchObject({ spec: { schedulerName: 'default-scheduler' } });
  });

  it('fills statefulset and daemonset defaults', () => {
    const statefulSet = applied('statefulsets.apps', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: 'default' }, spec: { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }] } });
    expect(statefulSet.spec).toMatchObject({
      replicas: 1, podManagementPolicy: 'OrderedReady', revisionHistoryLimit: 10,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      volumeClaimTemplates: [{ spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }],
    });
    const daemonSet = applied('daemonsets.apps', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'a', namespace: 'default' }, spec: {} });
    expect(daemonSet.spec).toMatchObject({ revisionHistoryLimit: 10, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } });
  });
});

describe('core defaults', () => {
  it('fills service defaults', () => {
    const service = applied('services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
    expect(service.spec).toEqual({
      selector: { app: 'web' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], type: 'ClusterIP', sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster', ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'],
    });
  });

  it('fills NodePort and LoadBalancer service defaults', () => {
    const service = applied('services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { type: 'LoadBalancer', ports: [{ port: 80, targetPort: 'http' }] } });
    expect(service.spec).toMatchObject({ externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true, ports: [{ targetPort: 'http' }] });
  });

  it('gives a secret type Opaque and folds stringData into data', () => {
    const secret = applied('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, stringData: { user: 'admin' } });
    expect(secret).toMatchObject({ type: 'Opaque', data: { user: 'YWRtaW4=' } });
    expect(secret).not.toHaveProperty('stringData');
  });

  it('labels a namespace with its name, and adds the kubernetes finalizer only at create', () => {
    const namespace = applied('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev' } });
    expect(namespace).toMatchObject({ metadata: { labels: { 'kubernetes.io/metadata.name': 'dev' } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    const updated = applied('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev' }, spec: {} }, false);
    expect(updated.spec).toEqual({});
  });

  it('defaults a persistent volume claim', () => {
    const claim = applied('persistentvolumeclaims', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'default' }, spec: {} });
    expect(claim).toMatchObject({ spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } });
  });
});
