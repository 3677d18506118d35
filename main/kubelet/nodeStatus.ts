// The kubelet's Node object and Lease, after upstream pkg/kubelet/kubelet_node_status.go and
// nodestatus/setters.go: labels, capacity and allocatable from the host, node info, addresses,
// the four pressure conditions and Ready (False with a reason while the container runtime is down).
import { createHash } from 'node:crypto';
import { readFileSync, statfsSync } from 'node:fs';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatMicroTime, formatTime } from '../../shared/kubernetes/time';
import { findCondition, statusConditions, transitionTime, type Condition, type ConditionStatus } from '../../shared/kubernetes/conditions';
import type { RuntimeInfo } from './runtime/containerRuntime';

export const KUBELET_VERSION = 'v1.35.0';
export const MAX_PODS = 110;

export interface NodeIdentity {
  nodeName: string;
  zone: string;
  /** the first node of a cluster carries the control-plane role label, as kind and minikube do */
  controlPlane: boolean;
  internalIP: string;
  dataDir: string;
}

export function nodeLabels(identity: NodeIdentity, info: RuntimeInfo | undefined): Record<string, string> {
  const arch = info?.architecture ?? (process.arch === 'x64' ? 'amd64' : process.arch);
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': arch,
    'kubernetes.io/hostname': identity.nodeName,
    'kubernetes.io/os': 'linux',
    'topology.kubernetes.io/zone': identity.zone,
    'topology.kubernetes.io/region': 'local',
  };
  if (identity.controlPlane) labels['node-role.kubernetes.io/control-plane'] = '';
  return labels;
}

function readTrimmed(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function ephemeralStorageBytes(path: string): number {
  try {
    const stats = statfsSync(path);
    return stats.blocks * stats.bsize;
  } catch {
    return 0;
  }
}

export function nodeInfo(identity: NodeIdentity, info: RuntimeInfo | undefined): Record<string, string> {
  const machine = readTrimmed('/etc/machine-id') || 'kubedesk';
  const machineID = createHash('sha256').update(`${machine}/${identity.nodeName}`).digest('hex').slice(0, 32);
  return {
    machineID,
    systemUUID: `${machineID.slice(0, 8)}-${machineID.slice(8, 12)}-${machineID.slice(12, 16)}-${machineID.slice(16, 20)}-${machineID.slice(20, 32)}`,
    bootID: readTrimmed('/proc/sys/kernel/random/boot_id'),
    kernelVersion: info?.kernelVersion ?? '',
    osImage: info?.operatingSystem ?? '',
    containerRuntimeVersion: info ? `docker://${info.runtimeVersion}` : '',
    kubeletVersion: KUBELET_VERSION,
    kubeProxyVersion: KUBELET_VERSION,
    operatingSystem: 'linux',
    architecture: info?.architecture ?? (process.arch === 'x64' ? 'amd64' : process.arch),
  };
}

function condition(type: string, status: ConditionStatus, reason: string, message: string, now: string, previous: Condition[]): Condition {
  return { type, status, lastHeartbeatTime: now, lastTransitionTime: transitionTime(findCondition(previous, type), status, now), reason, message };
}

/** The status block; `runtimeUp` false turns Ready False as upstream's runtime-state check does. */
export function nodeStatus(identity: NodeIdentity, info: RuntimeInfo | undefined, runtimeUp: boolean, previous: KubeObject | undefined, now: Date): Record<string, unknown> {
  const stamp = formatTime(now);
  const previousStatus = previous && isRecord(previous.status) ? previous.status : {};
  const previousConditions = statusConditions(previousStatus);
  const capacity: Record<string, string> = isRecord(previousStatus.capacity) ? (previousStatus.capacity as Record<string, string>) : {};
  if (info) {
    capacity.cpu = String(info.cpus);
    capacity.memory = `${Math.floor(info.memoryBytes / 1024)}Ki`;
  }
  capacity.pods = String(MAX_PODS);
  capacity['ephemeral-storage'] = `${Math.floor(ephemeralStorageBytes(identity.dataDir) / 1024)}Ki`;
  capacity['hugepages-2Mi'] = '0';
  capacity['hugepages-1Gi'] = '0';
  const conditions = [
    condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available', stamp, previousConditions),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure', stamp, previousConditions),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available', stamp, previousConditions),
    runtimeUp
      ? condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', stamp, previousConditions)
      : condition('Ready', 'False', 'KubeletNotReady', 'container runtime is down', stamp, previousConditions),
  ];
  return {
    capacity,
    allocatable: { ...capacity },
    conditions,
    addresses: [
      { type: 'InternalIP', address: identity.internalIP },
      { type: 'Hostname', address: identity.nodeName },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: nodeInfo(identity, info),
  };
}

export function nodeObject(identity: NodeIdentity, info: RuntimeInfo | undefined, runtimeUp: boolean, now: Date): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: identity.nodeName, labels: nodeLabels(identity, info), annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } },
    spec: {},
    status: nodeStatus(identity, info, runtimeUp, undefined, now),
  };
}

export function leaseObject(nodeName: string, nodeUid: string | undefined, now: Date): KubeObject {
  const metadata: KubeObject['metadata'] = { name: nodeName, namespace: 'kube-node-lease' };
  if (nodeUid) metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUid }];
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata,
    spec: { holderIdentity: nodeName, leaseDurationSeconds: 40, renewTime: formatMicroTime(now) },
  };
}
