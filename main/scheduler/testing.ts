// Builders of Node and Pod objects for the scheduler's tests (upstream keeps the like in
// pkg/scheduler/testing/wrappers.go). Not used by production code.
import type { Affinity, ContainerPort, Node, Pod, Taint, Toleration, TopologySpreadConstraint } from './api';

export interface NodeOptions {
  labels?: Record<string, string>;
  cpu?: string;
  memory?: string;
  pods?: string;
  taints?: Taint[];
  unschedulable?: boolean;
  ready?: 'True' | 'False' | 'Unknown' | 'absent';
}

export function makeNode(name: string, options: NodeOptions = {}): Node {
  const allocatable = { cpu: options.cpu ?? '4', memory: options.memory ?? '8Gi', pods: options.pods ?? '110', 'ephemeral-storage': '100Gi' };
  const ready = options.ready ?? 'True';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(options.labels ?? {}) } },
    spec: { taints: options.taints, unschedulable: options.unschedulable },
    status: { allocatable, capacity: allocatable, conditions: ready === 'absent' ? [] : [{ type: 'Ready', status: ready }] },
  };
}

export interface PodOptions {
  namespace?: string;
  labels?: Record<string, string>;
  cpu?: string;
  memory?: string;
  nodeName?: string;
  ports?: ContainerPort[];
  tolerations?: Toleration[];
  affinity?: Affinity;
  nodeSelector?: Record<string, string>;
  spread?: TopologySpreadConstraint[];
  priority?: number;
  initContainers?: { cpu?: string; memory?: string; restartPolicy?: string }[];
  schedulerName?: string;
  schedulingGates?: { name: string }[];
  overhead?: Record<string, string>;
}

export function makePod(name: string, options: PodOptions = {}): Pod {
  const requests = (cpu?: string, memory?: string): Record<string, string> => ({ ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: options.namespace ?? 'default', labels: options.labels, uid: `uid-${name}` },
    spec: {
      nodeName: options.nodeName,
      nodeSelector: options.nodeSelector,
      affinity: options.affinity,
      tolerations: options.tolerations,
      topologySpreadConstraints: options.spread,
      priority: options.priority,
      schedulerName: options.schedulerName,
      schedulingGates: options.schedulingGates,
      overhead: options.overhead,
      containers: [{ name: 'main', image: 'busybox', ports: options.ports, resources: { requests: requests(options.cpu, options.memory) } }],
      initContainers: options.initContainers?.map((init, index) => ({ name: `init-${index}`, image: 'busybox', restartPolicy: init.restartPolicy, resources: { requests: requests(init.cpu, init.memory) } })),
    },
    status: { phase: 'Pending' },
  };
}
