// Why a pod is not ready, from the signals the scheduler and the kubelet leave (upstream
// pkg/kubelet/kuberuntime container states and events, pkg/kubelet/prober Unhealthy events,
// pkg/kubelet/images pull errors, pkg/kubelet/volumemanager FailedMount, the scheduler's
// PodScheduled condition). Health itself is kubectl's reading (shared/printers/podHealth): a pod
// is healthy when Running with every container ready, done when Completed; everything else gets
// the most specific reason the rules find — the first failing init container, then the worst app
// container (errors before waits), with exit codes explained, the probe's own output and the last
// log lines when the caller fetched them.
import { isRecord, type KubeObject } from '../kubernetes/types';
import { humanQuantity } from '../kubernetes/quantity';
import { humanDuration, parseTimestamp } from '../printers/duration';
import { arrayAt, numberAt, stringAt, valueAt } from '../printers/fields';
import { summarizePod } from '../printers/pod';
import { podHealth } from '../printers/podHealth';
import { exitCodeHint, exitCodeMeaning, exitCodeShort } from './exitCodes';
import {
  containerOfFieldPath,
  condition,
  eventsAbout,
  findNamed,
  fromFinding,
  healthy,
  logKey,
  nameOf,
  namespaceOf,
  plural,
  worstFinding,
  type Diagnosis,
  type DiagnosisContext,
  type EventRecord,
  type Finding,
  type LogRequest,
} from './diagnosis';
import { nodeMismatches } from './scheduling';
import { diagnosePersistentVolumeClaim } from './storage';

type ContainerKind = 'init' | 'app';

interface ContainerView {
  name: string;
  kind: ContainerKind;
  spec: Record<string, unknown>;
  status: Record<string, unknown> | undefined;
}

function containersOf(pod: KubeObject, kind: ContainerKind): ContainerView[] {
  const specs = arrayAt(pod, 'spec', kind === 'init' ? 'initContainers' : 'containers').filter(isRecord);
  const statuses = arrayAt(pod, 'status', kind === 'init' ? 'initContainerStatuses' : 'containerStatuses').filter(isRecord);
  return specs.map((spec) => {
    const name = stringAt(spec, 'name');
    return { name, kind, spec, status: statuses.find((status) => status.name === name) };
  });
}

function label(container: ContainerView): string {
  return `${container.kind === 'init' ? 'init container' : 'container'} "${container.name}"`;
}

/** The pod's events, and those about one of its containers. */
function podEvents(pod: KubeObject, context: DiagnosisContext): EventRecord[] {
  return eventsAbout(context, pod, 'Pod');
}

function containerEvents(events: EventRecord[], container: string): EventRecord[] {
  return events.filter((event) => containerOfFieldPath(event.fieldPath) === container);
}

/** The log lines a caller fetched for this container, as a finding's log fields. */
function withLogs(pod: KubeObject, container: string, previous: boolean, context: DiagnosisContext): Pick<Finding, 'logRequest' | 'logLines'> {
  const logRequest: LogRequest = { namespace: namespaceOf(pod), pod: nameOf(pod), container, previous };
  const lines = context.logs?.get(logKey(logRequest.namespace, logRequest.pod, container));
  return lines ? { logRequest, logLines: [...lines] } : { logRequest };
}

function since(timestamp: unknown, now: Date): string {
  const time = parseTimestamp(timestamp);
  return time === undefined ? '' : `${humanDuration(now.getTime() - time)} ago`;
}

/** The container's memory limit as written (`20Mi`), if any. */
function memoryLimit(container: ContainerView): string | undefined {
  const limit = valueAt(container.spec, 'resources', 'limits', 'memory');
  return typeof limit === 'string' || typeof limit === 'number' ? String(limit) : undefined;
}

function commandText(container: ContainerView): string | undefined {
  const parts = [...arrayAt(container.spec, 'command'), ...arrayAt(container.spec, 'args')].map(String);
  return parts.length > 0 ? parts.map((part) => (/\s/.test(part) ? JSON.stringify(part) : part)).join(' ') : undefined;
}

/** The last probe failure of a kind (`Readiness`, `Liveness`, `Startup`) for a container: the probe's own output. */
function probeFailure(events: EventRecord[], probe: 'Readiness' | 'Liveness' | 'Startup'): { output: string; count: number } | undefined {
  const prefix = new RegExp(`^${probe} probe (?:failed|errored): ?`);
  const failures = events.filter((event) => event.reason === 'Unhealthy' && prefix.test(event.message));
  if (failures.length === 0) return undefined;
  const count = failures.reduce((sum, event) => sum + event.count, 0);
  return { output: failures[0].message.replace(prefix, '').trim(), count };
}

/** `: <output>` after a probe's reason, or a note that it printed nothing (an exec probe that only exits non-zero). */
function probeOutput(output: string, restartText = ''): string {
  return output.trim() ? `: ${firstLine(output)}${restartText}` : ` (the probe printed nothing)${restartText}`;
}

function firstLine(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? text;
  return line.trim();
}

// --- Container rules -------------------------------------------------------------------------

/** A terminated run: its exit code and what it means. */
function terminatedFinding(pod: KubeObject, container: ContainerView, terminated: Record<string, unknown>, restarting: boolean, events: EventRecord[], context: DiagnosisContext): Finding {
  const exitCode = numberAt(terminated, 'exitCode');
  const reason = stringAt(terminated, 'reason');
  const restarts = numberAt(container.status, 'restartCount');
  const meaning = exitCodeMeaning(exitCode, reason);
  const shownReason = reason && reason !== 'Error' && !meaning.includes(reason) ? ` (${reason})` : '';
  const details = [`Last exit: code ${exitCode}${shownReason}: ${meaning}${stringAt(terminated, 'finishedAt') ? `, ${since(terminated.finishedAt, context.now)}` : ''}`];
  const message = stringAt(terminated, 'message');
  if (message) details.push(`Termination message: ${firstLine(message)}`);
  const command = commandText(container);
  if (command) details.push(`Command: ${command}`);
  const hints: string[] = [];
  const restartText = restarting ? `, restarted ${plural(restarts, 'time')}` : '';
  const logs = withLogs(pod, container.name, restarting, context);

  if (reason === 'OOMKilled') {
    const limit = memoryLimit(container);
    if (limit) details.push(`Memory limit: ${limit} (${humanQuantity('memory', limit)})`);
    hints.push(exitCodeHint(exitCode, reason) ?? '');
    return {
      severity: 'error',
      code: 'OOMKilled',
      reason: `${label(container)} ${restarting ? 'keeps running' : 'ran'} out of memory: killed at its ${limit ? `${limit} ` : ''}memory limit (OOMKilled, exit code ${exitCode})${restartText}`,
      details,
      hints,
      ...logs,
    };
  }
  const liveness = probeFailure(containerEvents(events, container.name), 'Liveness');
  if (liveness && restarting) {
    details.push(`Liveness probe failed ${plural(liveness.count, 'time')}; the kubelet restarts the container each time it gives up`);
    hints.push("fix what the liveness probe checks, or give the container more time (initialDelaySeconds, a startupProbe, failureThreshold)");
    return {
      severity: 'error',
      code: 'LivenessProbeFailing',
      reason: `liveness probe failing on ${label(container)}${probeOutput(liveness.output, restartText)}`,
      details,
      hints,
      ...logs,
    };
  }
  const hint = exitCodeHint(exitCode, reason);
  if (hint) hints.push(hint);
  if (logs.logLines === undefined || logs.logLines.length === 0) hints.push(`kubectl logs ${nameOf(pod)} -c ${container.name}${restarting ? ' --previous' : ''} -n ${namespaceOf(pod)}`);
  return {
    severity: 'error',
    code: restarting ? 'CrashLoop' : 'ContainerFailed',
    reason: `${label(container)} ${restarting ? 'keeps crashing' : 'failed'}: exit code ${exitCode} (${exitCodeShort(exitCode, reason)})${restartText}`,
    details,
    hints,
    ...logs,
  };
}

const UNREACHABLE = /no such host|dial tcp|i\/o timeout|connection refused|network is unreachable|TLS handshake timeout|context deadline exceeded|server misbehaving|no route to host|Temporary failure in name resolution|proxyconnect/i;
const NOT_FOUND = /not found|manifest unknown|pull access denied|repository does not exist|unauthorized|denied|requested access to the resource is denied|no matching manifest/i;

function imageFinding(pod: KubeObject, container: ContainerView, waitingReason: string, waitingMessage: string, events: EventRecord[]): Finding {
  const image = stringAt(container.spec, 'image');
  const ownEvents = containerEvents(events, container.name);
  const pullEvent = ownEvents.find((event) => event.reason === 'Failed' && event.message.startsWith('Failed to pull image'));
  const pullError = (pullEvent?.message ?? (waitingMessage.startsWith('Failed to pull image') ? waitingMessage : '')).replace(/^Failed to pull image "[^"]*": /, '');
  const details = [`Image: ${image} (imagePullPolicy ${stringAt(container.spec, 'imagePullPolicy') || 'default'})`];
  if (pullError) details.push(`Pull error: ${firstLine(pullError)}`);
  else if (waitingMessage) details.push(`Kubelet: ${firstLine(waitingMessage)}`);
  const buildHint = `build it on this machine: docker build -t ${image} .  (kubedesk runs images from the local Docker store: no push or load needed)`;
  if (waitingReason === 'InvalidImageName') {
    return { severity: 'error', code: 'InvalidImage', reason: `image name "${image}" of ${label(container)} is not valid`, details, hints: ['fix the image reference (registry/name:tag)'] };
  }
  if (waitingReason === 'ErrImageNeverPull') {
    return { severity: 'error', code: 'ImageMissing', reason: `image "${image}" is not in the local Docker image store and imagePullPolicy is Never`, details, hints: [buildHint] };
  }
  if (pullError && UNREACHABLE.test(pullError)) {
    return { severity: 'error', code: 'ImageMissing', reason: `image "${image}" is not in the local Docker image store and no registry is reachable to pull it`, details, hints: [buildHint, 'or connect this machine to the registry and the kubelet pulls it on its next try'] };
  }
  if (pullError && NOT_FOUND.test(pullError)) {
    return {
      severity: 'error',
      code: 'ImageNotFound',
      reason: `image "${image}" is not in the local Docker image store, and its registry does not have it or refuses access`,
      details,
      hints: ['check the image name and tag', 'a private registry needs imagePullSecrets (or docker login for locally pulled images)', buildHint],
    };
  }
  return {
    severity: 'error',
    code: 'ImagePullFailed',
    reason: `image "${image}" cannot be pulled${pullError ? `: ${firstLine(pullError)}` : ` (${waitingReason})`}`,
    details,
    hints: [buildHint],
  };
}

function kindWord(kind: string): string {
  return kind.toLowerCase() === 'configmap' ? 'ConfigMap' : 'Secret';
}

function keysOf(object: KubeObject | undefined): string[] {
  if (!object) return [];
  const keys = new Set<string>();
  for (const field of ['data', 'binaryData', 'stringData']) {
    const value = object[field];
    if (isRecord(value)) for (const key of Object.keys(value)) keys.add(key);
  }
  return [...keys].sort();
}

/** A missing ConfigMap/Secret or key, from the kubelet's CreateContainerConfigError or FailedMount text. */
function configReferenceFinding(pod: KubeObject, message: string, who: string, context: DiagnosisContext): Finding | undefined {
  const namespace = namespaceOf(pod);
  const missing = /(configmap|secret) "([^"]+)" not found/i.exec(message);
  if (missing) {
    const kind = kindWord(missing[1]);
    const name = missing[2];
    return {
      severity: 'error',
      code: 'ConfigMissing',
      reason: `${kind} "${name}" does not exist (${who} needs it)`,
      details: [`Kubelet: ${message}`],
      hints: [
        kind === 'ConfigMap' ? `create it: kubectl create configmap ${name} -n ${namespace} --from-literal=KEY=VALUE` : `create it: kubectl create secret generic ${name} -n ${namespace} --from-literal=KEY=VALUE`,
        'or mark the reference optional: true if the pod can run without it',
      ],
    };
  }
  const missingKey = /couldn't find key (\S+) in (ConfigMap|Secret) ([^/\s]+)\/(\S+)/.exec(message);
  if (missingKey) {
    const [, key, kind, objectNamespace, name] = missingKey;
    const source = kind === 'ConfigMap' ? findNamed(context.configMaps, objectNamespace, name) : findNamed(context.secrets, objectNamespace, name);
    const keys = keysOf(source);
    const details = [`Kubelet: ${message}`];
    if (source) details.push(keys.length > 0 ? `${kind} "${name}" has the keys: ${keys.join(', ')}` : `${kind} "${name}" has no keys at all`);
    return {
      severity: 'error',
      code: 'ConfigKeyMissing',
      reason: `${kind} "${name}" has no key "${key}" (${who} needs it)`,
      details,
      hints: [`add the key: kubectl edit ${kind.toLowerCase()} ${name} -n ${objectNamespace}`, 'or reference a key it has, or mark the reference optional: true'],
    };
  }
  return undefined;
}

function waitingFinding(pod: KubeObject, container: ContainerView, waiting: Record<string, unknown>, events: EventRecord[], context: DiagnosisContext): Finding | undefined {
  const reason = stringAt(waiting, 'reason');
  const message = stringAt(waiting, 'message');
  switch (reason) {
    case 'CrashLoopBackOff': {
      const last = valueAt(container.status, 'lastState', 'terminated');
      if (isRecord(last)) return terminatedFinding(pod, container, last, true, events, context);
      return { severity: 'error', code: 'CrashLoop', reason: `${label(container)} keeps crashing (CrashLoopBackOff)`, details: message ? [`Kubelet: ${message}`] : [], ...withLogs(pod, container.name, true, context) };
    }
    case 'ErrImagePull':
    case 'ImagePullBackOff':
    case 'ErrImageNeverPull':
    case 'InvalidImageName':
    case 'ImageInspectError':
    case 'RegistryUnavailable':
      return imageFinding(pod, container, reason, message, events);
    case 'CreateContainerConfigError':
      return (
        configReferenceFinding(pod, message, label(container), context) ?? {
          severity: 'error',
          code: 'ContainerConfigError',
          reason: `${label(container)} cannot be set up: ${firstLine(message) || reason}`,
          details: message ? [`Kubelet: ${message}`] : [],
        }
      );
    case 'CreateContainerError':
    case 'RunContainerError':
    case 'PreStartHookError':
    case 'PostStartHookError':
    case 'ContainerCannotRun':
    case 'StartError':
      return {
        severity: 'error',
        code: 'ContainerStartFailed',
        reason: `${label(container)} cannot start: ${firstLine(message) || reason}`,
        details: [`Kubelet: ${reason}${message ? `: ${message}` : ''}`],
        hints: commandText(container) ? [`check the command: ${commandText(container) ?? ''}`] : [],
      };
    case '':
    case 'ContainerCreating':
    case 'PodInitializing':
      return undefined;
    default:
      return { severity: 'error', code: 'ContainerWaiting', reason: `${label(container)} is waiting: ${reason}${message ? `: ${firstLine(message)}` : ''}`, details: [] };
  }
}

/** A running container that is not ready: its readiness (or startup) probe, with the probe's own last output. */
function notReadyFinding(pod: KubeObject, container: ContainerView, events: EventRecord[], context: DiagnosisContext): Finding {
  const own = containerEvents(events, container.name);
  const started = valueAt(container.status, 'started');
  const startedAt = parseTimestamp(valueAt(container.status, 'state', 'running', 'startedAt'));
  // failures of an earlier run of the container do not explain this one
  const current = startedAt === undefined ? own : own.filter((event) => event.time === 0 || event.time >= startedAt - 1000);
  if (isRecord(container.spec.startupProbe) && started !== true) {
    const failure = probeFailure(current, 'Startup');
    if (failure) {
      return {
        severity: 'error',
        code: 'StartupProbeFailing',
        reason: `startup probe failing on ${label(container)}${probeOutput(failure.output)}`,
        details: [`Startup probe failed ${plural(failure.count, 'time')}`, probeText('Startup', container.spec.startupProbe)],
        hints: ['the container is restarted when the startup probe gives up (failureThreshold × periodSeconds)'],
        ...withLogs(pod, container.name, false, context),
      };
    }
    return { severity: 'warning', code: 'Starting', reason: `${label(container)} is starting (its startup probe has not succeeded yet)`, details: [probeText('Startup', container.spec.startupProbe)] };
  }
  const readiness = probeFailure(current, 'Readiness');
  if (readiness) {
    return {
      severity: 'error',
      code: 'ReadinessProbeFailing',
      reason: `readiness probe failing on ${label(container)}${probeOutput(readiness.output)}`,
      details: [`Readiness probe failed ${plural(readiness.count, 'time')}`, probeText('Readiness', container.spec.readinessProbe)],
      hints: ['the pod gets no Service traffic until the probe succeeds: check that the container listens where the probe looks'],
      ...withLogs(pod, container.name, false, context),
    };
  }
  if (isRecord(container.spec.readinessProbe)) {
    return { severity: 'warning', code: 'NotReady', reason: `${label(container)} is not ready yet (its readiness probe has not succeeded)`, details: [probeText('Readiness', container.spec.readinessProbe)] };
  }
  return { severity: 'warning', code: 'NotReady', reason: `${label(container)} is running but not ready`, details: [] };
}

/** `Readiness probe: tcpSocket :8080, every 10s`, as `kubectl describe` sums a probe up. */
function probeText(kind: string, probe: unknown): string {
  if (!isRecord(probe)) return `${kind} probe: none`;
  let action = 'unknown handler';
  if (isRecord(probe.httpGet)) action = `http-get ${stringAt(probe.httpGet, 'scheme').toLowerCase() || 'http'}://${stringAt(probe.httpGet, 'host')}:${String(valueAt(probe.httpGet, 'port') ?? '')}${stringAt(probe.httpGet, 'path') || '/'}`;
  else if (isRecord(probe.tcpSocket)) action = `tcp-socket ${stringAt(probe.tcpSocket, 'host')}:${String(valueAt(probe.tcpSocket, 'port') ?? '')}`;
  else if (isRecord(probe.exec)) action = `exec [${arrayAt(probe.exec, 'command').map(String).join(' ')}]`;
  else if (isRecord(probe.grpc)) action = `grpc :${String(valueAt(probe.grpc, 'port') ?? '')}`;
  const period = numberAt(probe, 'periodSeconds') || 10;
  return `${kind} probe: ${action} every ${period}s, failure threshold ${numberAt(probe, 'failureThreshold') || 3}`;
}

function containerFinding(pod: KubeObject, container: ContainerView, events: EventRecord[], context: DiagnosisContext): Finding | undefined {
  const status = container.status;
  if (!status) return undefined;
  const waiting = valueAt(status, 'state', 'waiting');
  if (isRecord(waiting)) return waitingFinding(pod, container, waiting, events, context);
  const terminated = valueAt(status, 'state', 'terminated');
  if (isRecord(terminated)) {
    if (numberAt(terminated, 'exitCode') === 0) return undefined;
    return terminatedFinding(pod, container, terminated, false, events, context);
  }
  const sidecar = container.kind === 'init' && stringAt(container.spec, 'restartPolicy') === 'Always';
  if (isRecord(valueAt(status, 'state', 'running'))) {
    if (container.kind === 'init' && !sidecar) return { severity: 'warning', code: 'InitRunning', reason: `${label(container)} is still running (app containers start after it completes)`, details: [] };
    if (status.ready !== true) return notReadyFinding(pod, container, events, context);
  }
  return undefined;
}

// --- Pod-level rules ------------------------------------------------------------------------

/** "0/3 nodes are available: 1 node(s) had untolerated taint…, 2 Insufficient cpu. preemption: …" → the predicates. */
export function schedulerPredicates(message: string): string {
  const main = message.split(/\.\s*preemption:/)[0].replace(/\.$/, '');
  const colon = main.indexOf('nodes are available:');
  return colon >= 0 ? main.slice(colon + 'nodes are available:'.length).trim() : main;
}

function unschedulableFinding(pod: KubeObject, message: string, context: DiagnosisContext): Finding {
  const predicates = schedulerPredicates(message);
  const details = [`Scheduler: ${message}`];
  const hints: string[] = [];
  const selector = valueAt(pod, 'spec', 'nodeSelector');
  const selectorText = isRecord(selector) && Object.keys(selector).length > 0 ? ` (nodeSelector ${Object.entries(selector).map(([key, value]) => `${key}=${String(value)}`).join(',')})` : '';
  if (context.nodes) {
    if (context.nodes.length === 0) details.push('The cluster has no nodes.');
    for (const mismatch of nodeMismatches(pod, context.nodes, context.pods)) {
      details.push(`Node ${mismatch.node}: ${mismatch.problems.join('; ')}`);
      for (const hint of mismatch.hints) if (!hints.includes(hint)) hints.push(hint);
    }
  }
  const claims = unboundClaims(pod, context);
  for (const claim of claims) details.push(claim);
  const nodeAffinity = /node affinity\/selector/.test(message) ? selectorText : '';
  return { severity: 'error', code: 'Unschedulable', reason: `cannot be scheduled: ${predicates}${nodeAffinity}`, details, hints };
}

/** Volumes whose PersistentVolumeClaim is missing or not bound (when the claims are known). */
function unboundClaims(pod: KubeObject, context: DiagnosisContext): string[] {
  if (!context.persistentVolumeClaims) return [];
  const result: string[] = [];
  for (const volume of arrayAt(pod, 'spec', 'volumes')) {
    const claimName = stringAt(volume, 'persistentVolumeClaim', 'claimName');
    if (!claimName) continue;
    const claim = findNamed(context.persistentVolumeClaims, namespaceOf(pod), claimName);
    if (!claim) result.push(`Volume "${stringAt(volume, 'name')}": PersistentVolumeClaim "${claimName}" does not exist`);
    else if (stringAt(claim, 'status', 'phase') !== 'Bound') result.push(`Volume "${stringAt(volume, 'name')}": PersistentVolumeClaim "${claimName}" is not bound: ${diagnosePersistentVolumeClaim(claim, context).reason}`);
  }
  return result;
}

/** Why containers are not created yet: volumes that do not mount, a sandbox that does not start. */
function setupFinding(pod: KubeObject, events: EventRecord[], context: DiagnosisContext): Finding | undefined {
  const namespace = namespaceOf(pod);
  // claims first: the kubelet's FailedMount text is about the claim, and the claim knows why
  for (const volume of arrayAt(pod, 'spec', 'volumes')) {
    const claimName = stringAt(volume, 'persistentVolumeClaim', 'claimName');
    if (!claimName || !context.persistentVolumeClaims) continue;
    const volumeName = stringAt(volume, 'name');
    const claim = findNamed(context.persistentVolumeClaims, namespace, claimName);
    if (!claim) {
      return { severity: 'error', code: 'VolumeNotReady', reason: `volume "${volumeName}": PersistentVolumeClaim "${claimName}" does not exist`, hints: [`create the claim, or fix spec.volumes[].persistentVolumeClaim.claimName`] };
    }
    if (stringAt(claim, 'status', 'phase') !== 'Bound') {
      const claimDiagnosis = diagnosePersistentVolumeClaim(claim, context);
      return {
        severity: claimDiagnosis.severity === 'ok' ? 'warning' : claimDiagnosis.severity,
        code: 'VolumeNotReady',
        reason: `volume "${volumeName}": PersistentVolumeClaim "${claimName}" is not bound: ${claimDiagnosis.reason}`,
        details: claimDiagnosis.details,
        hints: claimDiagnosis.hints,
      };
    }
  }
  const failedMounts = events.filter((event) => event.reason === 'FailedMount' || event.reason === 'FailedAttachVolume');
  if (failedMounts.length > 0) {
    const message = failedMounts[0].message;
    const volume = /for volume "([^"]+)"/.exec(message)?.[1];
    const inner = message.replace(/^MountVolume\.\w+ failed for volume "[^"]+" : /, '');
    const who = volume ? `volume "${volume}"` : 'a volume';
    const config = configReferenceFinding(pod, inner, who, context);
    if (config) return { ...config, reason: volume ? `volume "${volume}": ${config.reason.replace(/ \(volume "[^"]+" needs it\)$/, '')}` : config.reason };
    const claim = /PVC ([^/\s]+)\/(\S+?) has non-bound phase|persistentvolumeclaim "([^"]+)" not found/.exec(inner);
    if (claim) {
      const claimName = claim[2] ?? claim[3];
      return { severity: 'error', code: 'VolumeNotReady', reason: `${who}: PersistentVolumeClaim "${claimName}" ${claim[3] ? 'does not exist' : 'is not bound'}`, details: [`Kubelet: ${message}`] };
    }
    return { severity: 'error', code: 'VolumeNotReady', reason: `${who} cannot be mounted: ${firstLine(inner)}`, details: [`Kubelet: ${message}`] };
  }
  const sandbox = events.find((event) => event.reason === 'FailedCreatePodSandBox' || event.reason === 'FailedKillPod');
  if (sandbox) return { severity: 'error', code: 'SandboxFailed', reason: `the pod's sandbox cannot be created: ${firstLine(sandbox.message.replace(/^Failed to create pod sandbox: /, ''))}`, details: [`Kubelet: ${sandbox.message}`] };
  return undefined;
}

/** The diagnosis of one pod. */
export function diagnosePod(pod: KubeObject, context: DiagnosisContext): Diagnosis {
  const health = podHealth(pod, context.now);
  const summary = summarizePod(pod, context.now);
  const events = podEvents(pod, context);
  const appContainers = containersOf(pod, 'app');
  if (health === 'healthy') {
    const details: string[] = [];
    for (const container of appContainers) {
      const last = valueAt(container.status, 'lastState', 'terminated');
      const restarts = numberAt(container.status, 'restartCount');
      if (restarts > 0 && isRecord(last)) details.push(`${label(container)} restarted ${plural(restarts, 'time')}; last exit: code ${numberAt(last, 'exitCode')} (${exitCodeMeaning(numberAt(last, 'exitCode'), stringAt(last, 'reason'))}) ${since(last.finishedAt, context.now)}`);
    }
    return healthy('Healthy', `healthy: running, ${summary.ready} containers ready`, details);
  }
  if (health === 'completed') return healthy('Completed', 'healthy: completed (every container exited successfully)');
  if (health === 'terminating') {
    const grace = valueAt(pod, 'metadata', 'deletionGracePeriodSeconds');
    return fromFinding({ severity: 'warning', code: 'Terminating', reason: `being deleted${typeof grace === 'number' ? ` (grace period ${grace}s)` : ''}`, details: [`Deletion requested ${since(pod.metadata.deletionTimestamp, context.now)}`] });
  }

  const findings: Finding[] = [];
  const phase = stringAt(pod, 'status', 'phase');
  const statusReason = stringAt(pod, 'status', 'reason');
  const statusMessage = stringAt(pod, 'status', 'message');
  if (phase === 'Failed' && statusReason) {
    const hints = statusReason === 'Evicted' ? ['the node ran short of a resource: lower usage or requests, or free the node'] : statusReason === 'DeadlineExceeded' ? ['the pod ran past spec.activeDeadlineSeconds'] : [];
    findings.push({ severity: 'error', code: 'PodFailed', reason: `failed: ${statusReason}${statusMessage ? `: ${firstLine(statusMessage)}` : ''}`, details: [], hints });
  }

  const scheduled = condition(pod, 'PodScheduled');
  if (!stringAt(pod, 'spec', 'nodeName')) {
    if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') findings.push(unschedulableFinding(pod, scheduled.message, context));
    else if (scheduled?.reason === 'SchedulingGated' || arrayAt(pod, 'spec', 'schedulingGates').length > 0) {
      const gates = arrayAt(pod, 'spec', 'schedulingGates').map((gate) => stringAt(gate, 'name')).filter(Boolean);
      findings.push({ severity: 'warning', code: 'SchedulingGated', reason: `waiting for its scheduling gates to be removed: ${gates.join(', ') || scheduled?.message || 'gated'}`, details: [] });
    } else {
      const failed = events.find((event) => event.reason === 'FailedScheduling');
      if (failed) findings.push(unschedulableFinding(pod, failed.message, context));
      else findings.push({ severity: 'warning', code: 'Scheduling', reason: 'waiting to be scheduled onto a node', details: [] });
    }
    return decide(findings, summary.status);
  }

  const statusesKnown = appContainers.some((container) => container.status !== undefined);
  const initContainers = containersOf(pod, 'init');
  for (const container of initContainers) {
    const finding = containerFinding(pod, container, events, context);
    if (finding) {
      findings.push(finding);
      break;
    }
    const done = isRecord(valueAt(container.status, 'state', 'terminated')) || (stringAt(container.spec, 'restartPolicy') === 'Always' && container.status?.started === true);
    if (!done) break;
  }
  const creating = !statusesKnown || appContainers.some((container) => ['ContainerCreating', 'PodInitializing', ''].includes(stringAt(container.status, 'state', 'waiting', 'reason')) && isRecord(valueAt(container.status, 'state', 'waiting')));
  if (creating || !statusesKnown) {
    const setup = setupFinding(pod, events, context);
    if (setup) findings.push(setup);
  }
  for (const container of appContainers) {
    const finding = containerFinding(pod, container, events, context);
    if (finding) findings.push(finding);
  }
  if (findings.length === 0 && creating) findings.push({ severity: 'warning', code: 'Starting', reason: `containers are being created (${summary.status})`, details: [] });
  return decide(findings, summary.status);
}

function decide(findings: Finding[], status: string): Diagnosis {
  const worst = worstFinding(findings);
  if (!worst) return fromFinding({ severity: 'warning', code: 'Unknown', reason: `not ready: ${status}`, details: [] });
  const others = findings.filter((finding) => finding !== worst).map((finding) => `Also: ${finding.reason}`);
  return fromFinding(worst, [], others);
}
