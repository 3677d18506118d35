// `kubedesk why TYPE/NAME [-n NS]`: why an object is not ready, in plain words. It reads the
// object and what the diagnosis engine (shared/diagnosis) needs around it — pods, events, owners,
// nodes, claims, Services, EndpointSlices — from the API of the kubeconfig's context (as kubectl
// picks it: --kubeconfig, --context, KUBECONFIG), fetches the last log lines of the container
// the reason points at (the previous instance of a crash-looping one), and prints the reason, its
// details and hints. Types are kubectl's names (pod/po, deployment/deploy, …, with an optional
// group: deployments.apps); `TYPE/NAME` and `TYPE NAME` both work. Exit status: 0 healthy, 1 not
// healthy, 2 for a usage error, an object that does not exist (printed as kubectl prints a
// Status error) or a cluster that cannot be asked.
import { diagnose, diagnosisInputs, formatDiagnosis, logKey, type Diagnosis, type DiagnosisContext, type DiagnosisInput } from '../../shared/diagnosis';
import type { KubeObject } from '../../shared/kubernetes/types';
import { ClientApiError, resources, type ApiClient, type GroupVersionResource } from '../client';
import { kubectlErrorText } from './clusterClient';
import { CommandUsageError, GLOBAL_FLAGS_USAGE, processIo, readKubeconfigFlag, runClientCommand, scanArgs, type CommandIo } from './clientCommand';
import type { KubeconfigFlags } from '../remote';

export type { CommandIo } from './clientCommand';

export const WHY_USAGE = `Usage:
  kubedesk why TYPE/NAME [-n NAMESPACE] [--context NAME] [--kubeconfig FILE]
  kubedesk why TYPE NAME [flags]
      Says in plain words why an object is not ready, or that it is healthy: the reason on the
      first line, then the signals it rests on (conditions, events, exit codes, probe output, the
      last log lines) and hints. TYPE: pod (po), deployment (deploy), statefulset (sts),
      daemonset (ds), replicaset (rs), replicationcontroller (rc), job, cronjob (cj),
      service (svc), ingress (ing), persistentvolumeclaim (pvc).
      The cluster is the kubeconfig's current context, as kubectl picks it (KUBECONFIG,
      --kubeconfig, --context); the namespace is -n, else the context's, else "default".
      Exit status: 0 healthy, 1 not healthy, 2 usage error, not found or cluster unreachable.
${GLOBAL_FLAGS_USAGE}`;

export class WhyUsageError extends CommandUsageError {}

interface ResourceType {
  kind: string;
  group: string;
  version: string;
  plural: string;
  names: string[];
}

const RESOURCE_TYPES: ResourceType[] = [
  { kind: 'Pod', group: '', version: 'v1', plural: 'pods', names: ['pod', 'po'] },
  { kind: 'Deployment', group: 'apps', version: 'v1', plural: 'deployments', names: ['deployment', 'deploy'] },
  { kind: 'StatefulSet', group: 'apps', version: 'v1', plural: 'statefulsets', names: ['statefulset', 'sts'] },
  { kind: 'DaemonSet', group: 'apps', version: 'v1', plural: 'daemonsets', names: ['daemonset', 'ds'] },
  { kind: 'ReplicaSet', group: 'apps', version: 'v1', plural: 'replicasets', names: ['replicaset', 'rs'] },
  { kind: 'ReplicationController', group: '', version: 'v1', plural: 'replicationcontrollers', names: ['replicationcontroller', 'rc'] },
  { kind: 'Job', group: 'batch', version: 'v1', plural: 'jobs', names: ['job'] },
  { kind: 'CronJob', group: 'batch', version: 'v1', plural: 'cronjobs', names: ['cronjob', 'cj'] },
  { kind: 'Service', group: '', version: 'v1', plural: 'services', names: ['service', 'svc'] },
  { kind: 'Ingress', group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', names: ['ingress', 'ing'] },
  { kind: 'PersistentVolumeClaim', group: '', version: 'v1', plural: 'persistentvolumeclaims', names: ['persistentvolumeclaim', 'pvc'] },
];

/**
 * A kubectl resource word → its type: singular, plural, short name or kind, any case, with an
 * optional `.group` or `.version.group` suffix (`deployments.apps`, `deployment.v1.apps`).
 */
export function resourceTypeOf(word: string): ResourceType | undefined {
  const lower = word.toLowerCase();
  for (const type of RESOURCE_TYPES) {
    for (const name of [type.plural, ...type.names]) {
      if (lower === name) return type;
      if (!lower.startsWith(`${name}.`)) continue;
      const rest = lower.slice(name.length + 1);
      if (rest === type.group || rest === `${type.version}.${type.group}` || (type.group === '' && rest === type.version)) return type;
    }
  }
  return undefined;
}

export interface WhyOptions {
  type: ResourceType;
  name: string;
  flags: KubeconfigFlags;
}

/** The command line after `why`; throws WhyUsageError, or returns undefined for --help. */
export function parseWhyArgs(argv: string[]): WhyOptions | undefined {
  const flags: KubeconfigFlags = {};
  const scanned = scanArgs(argv, { short: { n: 'namespace' }, usageError: WhyUsageError }, (flag, value) => readKubeconfigFlag(flags, flag, value));
  if (scanned === undefined) return undefined;
  const { positional } = scanned;
  let typeWord: string;
  let name: string;
  if (positional.length === 1 && positional[0].includes('/')) {
    const slash = positional[0].indexOf('/');
    [typeWord, name] = [positional[0].slice(0, slash), positional[0].slice(slash + 1)];
  } else if (positional.length === 2 && !positional[0].includes('/')) {
    [typeWord, name] = positional;
  } else if (positional.length === 0) {
    throw new WhyUsageError('you must name an object: TYPE/NAME or TYPE NAME');
  } else {
    throw new WhyUsageError(`expected TYPE/NAME or TYPE NAME, got: ${positional.join(' ')}`);
  }
  if (!name) throw new WhyUsageError(`arguments in resource/name form must have a single resource and name`);
  const type = resourceTypeOf(typeWord);
  if (!type) throw new WhyUsageError(`"${typeWord}" is not a type kubedesk why diagnoses (pod, deployment, statefulset, daemonset, replicaset, replicationcontroller, job, cronjob, service, ingress, persistentvolumeclaim)`);
  return { type, name, flags };
}

/** Where each list of the diagnosis context lives; namespaced lists are read in the object's namespace. */
const INPUT_RESOURCES: Record<DiagnosisInput, GroupVersionResource> = {
  pods: resources.pods,
  events: resources.events,
  replicaSets: resources.replicasets,
  jobs: resources.jobs,
  nodes: resources.nodes,
  persistentVolumeClaims: resources.persistentvolumeclaims,
  storageClasses: { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', namespaced: false, kind: 'StorageClass' },
  services: resources.services,
  endpointSlices: resources.endpointslices,
  endpoints: resources.endpoints,
  configMaps: resources.configmaps,
  secrets: resources.secrets,
};

/** A list the diagnosis can do without: a missing permission or resource leaves it unknown. */
async function optionalList(client: ApiClient, resource: GroupVersionResource, namespace?: string): Promise<KubeObject[] | undefined> {
  try {
    return (await client.resource(resource).listAll(namespace, { limit: 500 })).items;
  } catch (error) {
    if (error instanceof ClientApiError && (error.code === 403 || error.code === 404 || error.code === 405)) return undefined;
    throw error;
  }
}

const LOG_LINES = 5;
const LOG_LINE_LENGTH = 400;

/** The last lines of a container's log, or undefined when there is none to read. */
async function lastLogLines(client: ApiClient, namespace: string, pod: string, container: string, previous: boolean): Promise<string[] | undefined> {
  try {
    const body = await client.resource(resources.pods).getSubresource(namespace, pod, 'log', { container, tailLines: String(LOG_LINES), ...(previous ? { previous: 'true' } : {}) });
    const text = typeof body === 'string' ? body : body === null ? '' : JSON.stringify(body);
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-LOG_LINES).map((line) => (line.length > LOG_LINE_LENGTH ? `${line.slice(0, LOG_LINE_LENGTH)}…` : line));
  } catch (error) {
    if (error instanceof ClientApiError) return undefined;
    throw error;
  }
}

/** Reads the object and its context from the API and diagnoses it (with the log lines the reason points at). */
export async function diagnoseFromApi(client: ApiClient, type: ResourceType, namespace: string, name: string, now: () => Date = () => new Date()): Promise<{ object: KubeObject; diagnosis: Diagnosis }> {
  const object = await client.resource({ group: type.group, version: type.version, resource: type.plural, namespaced: true, kind: type.kind }).get(namespace, name);
  const context: { -readonly [K in keyof DiagnosisContext]: DiagnosisContext[K] } = { now: now() };
  const inputs = diagnosisInputs(type.kind);
  await Promise.all(
    inputs.map(async (input) => {
      const resource = INPUT_RESOURCES[input];
      context[input] = await optionalList(client, resource, resource.namespaced ? namespace : undefined);
    }),
  );
  let diagnosis = diagnose(type.kind, object, context);
  if (!diagnosis) throw new WhyUsageError(`kubedesk why does not diagnose ${type.plural}`);
  // node fit counts what every pod on a node requests, in any namespace
  if (diagnosis.code === 'Unschedulable' && inputs.includes('pods')) {
    const everywhere = await optionalList(client, resources.pods);
    if (everywhere) {
      context.pods = everywhere;
      diagnosis = diagnose(type.kind, object, context) ?? diagnosis;
    }
  }
  const request = diagnosis.logRequest;
  if (request && !diagnosis.logLines) {
    const lines = await lastLogLines(client, request.namespace, request.pod, request.container, request.previous);
    if (lines) {
      context.logs = new Map([[logKey(request.namespace, request.pod, request.container), lines]]);
      diagnosis = diagnose(type.kind, object, context) ?? diagnosis;
    }
  }
  return { object, diagnosis };
}

/** `kubedesk why …`: prints the diagnosis; 0 healthy, 1 not healthy, 2 usage / not found / unreachable. */
export function whyCommand(argv: string[], io: CommandIo = processIo): Promise<number> {
  return runClientCommand(
    {
      usage: WHY_USAGE,
      parse: parseWhyArgs,
      run: async (client, options, config) => {
        const { diagnosis } = await diagnoseFromApi(client, options.type, config.namespace, options.name);
        io.stdout(formatDiagnosis(diagnosis));
        return diagnosis.healthy ? 0 : 1;
      },
      failed: (error) => {
        io.stderr(`${kubectlErrorText(error)}\n`);
        return 2;
      },
    },
    argv,
    io,
  );
}
