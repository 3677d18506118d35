// `kubectl get pods` table: upstream pkg/printers/internalversion/printers.go printPod — the
// aggregate Ready count, the Status reason (init progress, waiting/terminated reasons,
// SchedulingGated, Terminating, Unknown), restarts with "(5m ago)", and the wide columns.
import { isConditionTrue } from '../kubernetes/conditions';
import type { KubeObject } from '../kubernetes/types';
import type { TableDef } from './table';
import { ageColumn, column, nameColumn } from './columns';
import { parseTimestamp, translateTimestampSince, humanDuration } from './duration';
import { arrayAt, booleanAt, hasValue, numberAt, stringAt, valueAt } from './fields';
import { isDeleting } from './format';

/** Upstream node.NodeUnreachablePodReason, set by the node lifecycle controller. */
const nodeUnreachablePodReason = 'NodeLost';

export interface PodSummary {
  /** `ready/total`, e.g. `1/1`. */
  ready: string;
  /** The STATUS cell. */
  status: string;
  /** The RESTARTS cell, e.g. `0` or `3 (5m ago)`. */
  restarts: string;
}

/** podutil.IsRestartableInitContainer: a sidecar, i.e. an init container with restartPolicy Always. */
function isRestartableInitContainer(container: unknown): boolean {
  return stringAt(container, 'restartPolicy') === 'Always';
}

/** The later of a running maximum and a container's lastState.terminated.finishedAt. */
function laterRestart(latest: number | undefined, containerStatus: unknown): number | undefined {
  if (!hasValue(containerStatus, 'lastState', 'terminated')) return latest;
  const finishedAt = parseTimestamp(valueAt(containerStatus, 'lastState', 'terminated', 'finishedAt'));
  if (finishedAt === undefined) return latest;
  return latest === undefined || finishedAt > latest ? finishedAt : latest;
}

function terminatedReason(terminated: unknown, prefix: string): string {
  const reason = stringAt(terminated, 'reason');
  if (reason !== '') return prefix + reason;
  const signal = numberAt(terminated, 'signal');
  if (signal !== 0) return `${prefix}Signal:${signal}`;
  return `${prefix}ExitCode:${numberAt(terminated, 'exitCode')}`;
}

/** The Ready, Status and Restarts cells of a pod, computed as upstream printPod does. */
export function summarizePod(pod: unknown, now: Date): PodSummary {
  const initContainerSpecs = arrayAt(pod, 'spec', 'initContainers');
  let totalContainers = arrayAt(pod, 'spec', 'containers').length;
  let readyContainers = 0;
  let restarts = 0;
  let restartableInitContainerRestarts = 0;
  let lastRestartDate: number | undefined;
  let lastRestartableInitContainerRestartDate: number | undefined;

  const phase = stringAt(pod, 'status', 'phase');
  let reason = phase;
  const statusReason = stringAt(pod, 'status', 'reason');
  if (statusReason !== '') reason = statusReason;

  for (const condition of arrayAt(pod, 'status', 'conditions')) {
    if (stringAt(condition, 'type') === 'PodScheduled' && stringAt(condition, 'reason') === 'SchedulingGated') {
      reason = 'SchedulingGated';
    }
  }

  const initContainersByName = new Map<string, unknown>();
  for (const container of initContainerSpecs) {
    initContainersByName.set(stringAt(container, 'name'), container);
    if (isRestartableInitContainer(container)) totalContainers++;
  }

  let initializing = false;
  const initContainerStatuses = arrayAt(pod, 'status', 'initContainerStatuses');
  for (let index = 0; index < initContainerStatuses.length; index++) {
    const containerStatus = initContainerStatuses[index];
    const restartCount = numberAt(containerStatus, 'restartCount');
    const restartable = isRestartableInitContainer(initContainersByName.get(stringAt(containerStatus, 'name')));
    restarts += restartCount;
    lastRestartDate = laterRestart(lastRestartDate, containerStatus);
    if (restartable) {
      restartableInitContainerRestarts += restartCount;
      lastRestartableInitContainerRestartDate = laterRestart(lastRestartableInitContainerRestartDate, containerStatus);
    }
    const terminated = valueAt(containerStatus, 'state', 'terminated');
    const waitingReason = stringAt(containerStatus, 'state', 'waiting', 'reason');
    if (hasValue(containerStatus, 'state', 'terminated') && numberAt(terminated, 'exitCode') === 0) {
      continue;
    }
    if (restartable && booleanAt(containerStatus, 'started')) {
      if (booleanAt(containerStatus, 'ready')) readyContainers++;
      continue;
    }
    if (hasValue(containerStatus, 'state', 'terminated')) {
      reason = terminatedReason(terminated, 'Init:');
    } else if (waitingReason !== '' && waitingReason !== 'PodInitializing') {
      reason = `Init:${waitingReason}`;
    } else {
      reason = `Init:${index}/${initContainerSpecs.length}`;
    }
    initializing = true;
    break;
  }

  const initialized = isConditionTrue(pod, 'Initialized');
  if (!initializing || initialized) {
    restarts = restartableInitContainerRestarts;
    lastRestartDate = lastRestartableInitContainerRestartDate;
    let hasRunning = false;
    const containerStatuses = arrayAt(pod, 'status', 'containerStatuses');
    // Walk backwards so the first container's state decides the reason, as upstream does.
    for (let index = containerStatuses.length - 1; index >= 0; index--) {
      const containerStatus = containerStatuses[index];
      restarts += numberAt(containerStatus, 'restartCount');
      lastRestartDate = laterRestart(lastRestartDate, containerStatus);
      const waitingReason = stringAt(containerStatus, 'state', 'waiting', 'reason');
      const terminated = valueAt(containerStatus, 'state', 'terminated');
      if (waitingReason !== '') {
        reason = waitingReason;
      } else if (hasValue(containerStatus, 'state', 'terminated')) {
        reason = terminatedReason(terminated, '');
      } else if (booleanAt(containerStatus, 'ready') && hasValue(containerStatus, 'state', 'running')) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A pod whose other containers still run is not "Completed" just because one exited 0.
    if (reason === 'Completed' && hasRunning) {
      reason = isConditionTrue(pod, 'Ready') ? 'Running' : 'NotReady';
    }
  }

  if (isDeleting(pod) && statusReason === nodeUnreachablePodReason) {
    reason = 'Unknown';
  } else if (isDeleting(pod) && phase !== 'Succeeded' && phase !== 'Failed') {
    reason = 'Terminating';
  }

  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestartDate !== undefined) {
    restartsText = `${restarts} (${humanDuration(now.getTime() - lastRestartDate)} ago)`;
  }

  return { ready: `${readyContainers}/${totalContainers}`, status: reason, restarts: restartsText };
}

function readinessGatesCell(pod: unknown): string {
  const gates = arrayAt(pod, 'spec', 'readinessGates');
  if (gates.length === 0) return '<none>';
  let trueConditions = 0;
  for (const gate of gates) {
    if (isConditionTrue(pod, stringAt(gate, 'conditionType'))) trueConditions++;
  }
  return `${trueConditions}/${gates.length}`;
}

/** The pod IP: status.podIPs[0], falling back to status.podIP as the v1→internal conversion does. */
function podIP(pod: unknown): string {
  return stringAt(pod, 'status', 'podIPs', 0, 'ip') || stringAt(pod, 'status', 'podIP');
}

export const podTable: TableDef = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    ageColumn(),
    column('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', { priority: 1 }),
    column('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', { priority: 1 }),
    column('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.', { priority: 1 }),
    column('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', { priority: 1 }),
  ],
  row(pod: KubeObject, now: Date): unknown[] {
    const summary = summarizePod(pod, now);
    return [
      pod.metadata.name ?? '',
      summary.ready,
      summary.status,
      summary.restarts,
      translateTimestampSince(pod.metadata.creationTimestamp, now),
      podIP(pod) || '<none>',
      stringAt(pod, 'spec', 'nodeName') || '<none>',
      stringAt(pod, 'status', 'nominatedNodeName') || '<none>',
      readinessGatesCell(pod),
    ];
  },
};
