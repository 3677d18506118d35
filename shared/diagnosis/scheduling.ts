// Why a pod fits no node, node by node: the scheduler's Filter plugins as a person would check
// them by hand (upstream pkg/scheduler/framework/plugins: NodeUnschedulable, NodeAffinity for
// spec.nodeSelector and required node affinity, TaintToleration for NoSchedule/NoExecute taints,
// NodeResourcesFit for cpu, memory and pods against allocatable minus what the node's pods
// request). The scheduler's own message names the predicates and counts; this names the nodes.
import { isRecord, type KubeObject } from '../kubernetes/types';
import { formatIecBytes, formatMilliQuantity, parseMilliValue, parseValue } from '../kubernetes/quantity';
import { arrayAt, stringAt, valueAt } from '../printers/fields';
import { nameOf, stringMap } from './diagnosis';

export interface NodeMismatch {
  node: string;
  /** what keeps the pod off this node, in plain words */
  problems: string[];
  /** the fix for each problem, when there is a usual one */
  hints: string[];
}

interface Toleration {
  key: string;
  operator: string;
  value: string;
  effect: string;
}

function tolerationsOf(pod: KubeObject): Toleration[] {
  return arrayAt(pod, 'spec', 'tolerations')
    .filter(isRecord)
    .map((toleration) => ({ key: stringAt(toleration, 'key'), operator: stringAt(toleration, 'operator') || 'Equal', value: stringAt(toleration, 'value'), effect: stringAt(toleration, 'effect') }));
}

/** v1 Toleration.ToleratesTaint. */
function tolerates(tolerations: Toleration[], taint: { key: string; value: string; effect: string }): boolean {
  return tolerations.some((toleration) => {
    if (toleration.effect !== '' && toleration.effect !== taint.effect) return false;
    if (toleration.key === '' && toleration.operator === 'Exists') return true;
    if (toleration.key !== taint.key) return false;
    return toleration.operator === 'Exists' || toleration.value === taint.value;
  });
}

/** One NodeSelectorRequirement against a node's labels (In, NotIn, Exists, DoesNotExist, Gt, Lt). */
function requirementMatches(requirement: unknown, labels: Record<string, string>): boolean {
  const key = stringAt(requirement, 'key');
  const values = arrayAt(requirement, 'values').map(String);
  const has = Object.prototype.hasOwnProperty.call(labels, key);
  switch (stringAt(requirement, 'operator')) {
    case 'In':
      return has && values.includes(labels[key]);
    case 'NotIn':
      return !has || !values.includes(labels[key]);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
      return has && Number(labels[key]) > Number(values[0]);
    case 'Lt':
      return has && Number(labels[key]) < Number(values[0]);
    default:
      return false;
  }
}

function affinityTermsMatch(pod: KubeObject, node: KubeObject): boolean {
  const terms = arrayAt(pod, 'spec', 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
  if (terms.length === 0) return true;
  const labels = node.metadata.labels ?? {};
  const name = nameOf(node);
  return terms.some((term) => {
    const expressions = arrayAt(term, 'matchExpressions');
    const fields = arrayAt(term, 'matchFields');
    if (expressions.length === 0 && fields.length === 0) return false;
    return expressions.every((requirement) => requirementMatches(requirement, labels)) && fields.every((requirement) => requirementMatches(requirement, { 'metadata.name': name }));
  });
}

function containerRequests(container: unknown): { cpu: number; memory: number } {
  const requests = valueAt(container, 'resources', 'requests');
  const limits = valueAt(container, 'resources', 'limits');
  // a limit without a request is also the request (upstream defaulting)
  const pick = (resource: string) => (isRecord(requests) && requests[resource] !== undefined ? requests[resource] : isRecord(limits) ? limits[resource] : undefined);
  return { cpu: parseMilliValue(pick('cpu')), memory: parseValue(pick('memory')) };
}

/** A pod's effective request: max(sum of app containers, each init container). */
export function podRequests(pod: KubeObject): { cpu: number; memory: number } {
  const total = { cpu: 0, memory: 0 };
  for (const container of arrayAt(pod, 'spec', 'containers')) {
    const requests = containerRequests(container);
    total.cpu += requests.cpu;
    total.memory += requests.memory;
  }
  for (const container of arrayAt(pod, 'spec', 'initContainers')) {
    const requests = containerRequests(container);
    total.cpu = Math.max(total.cpu, requests.cpu);
    total.memory = Math.max(total.memory, requests.memory);
  }
  return total;
}

function terminal(pod: KubeObject): boolean {
  const phase = stringAt(pod, 'status', 'phase');
  return phase === 'Succeeded' || phase === 'Failed';
}

/** What keeps `pod` off each node; nodes that would take it are left out. */
export function nodeMismatches(pod: KubeObject, nodes: readonly KubeObject[], pods: readonly KubeObject[] | undefined): NodeMismatch[] {
  const nodeSelector = stringMap(valueAt(pod, 'spec', 'nodeSelector'));
  const tolerations = tolerationsOf(pod);
  const wanted = podRequests(pod);
  const result: NodeMismatch[] = [];
  for (const node of nodes) {
    const name = nameOf(node);
    const labels = node.metadata.labels ?? {};
    const problems: string[] = [];
    const hints: string[] = [];
    const requestedNode = stringAt(pod, 'spec', 'nodeName');
    if (requestedNode && requestedNode !== name) problems.push(`the pod asks for node ${requestedNode}`);
    if (valueAt(node, 'spec', 'unschedulable') === true && !tolerates(tolerations, { key: 'node.kubernetes.io/unschedulable', value: '', effect: 'NoSchedule' })) {
      problems.push('it is cordoned (unschedulable)');
      hints.push(`kubectl uncordon ${name}`);
    }
    for (const [key, value] of Object.entries(nodeSelector)) {
      if (!Object.prototype.hasOwnProperty.call(labels, key)) {
        problems.push(`it has no label ${key} (nodeSelector wants ${key}=${value})`);
        hints.push(`label the node: kubectl label node ${name} ${key}=${value} — or change the pod's nodeSelector`);
      } else if (labels[key] !== value) {
        problems.push(`its label is ${key}=${labels[key]}, nodeSelector wants ${key}=${value}`);
        hints.push(`change the pod's nodeSelector to ${key}=${labels[key]}, or relabel the node: kubectl label node ${name} ${key}=${value} --overwrite`);
      }
    }
    if (!affinityTermsMatch(pod, node)) problems.push("its labels match none of the pod's required node affinity terms");
    for (const taint of arrayAt(node, 'spec', 'taints')) {
      const effect = stringAt(taint, 'effect');
      if (effect !== 'NoSchedule' && effect !== 'NoExecute') continue;
      const key = stringAt(taint, 'key');
      const value = stringAt(taint, 'value');
      if (tolerates(tolerations, { key, value, effect })) continue;
      const text = `${key}${value ? `=${value}` : ''}:${effect}`;
      problems.push(`it has the taint ${text}, which the pod does not tolerate`);
      hints.push(`add a toleration for ${text} to the pod, or remove the taint: kubectl taint node ${name} ${key}:${effect}-`);
    }
    if (pods) {
      const allocatable = valueAt(node, 'status', 'allocatable');
      const used = { cpu: 0, memory: 0, pods: 0 };
      for (const other of pods) {
        if (stringAt(other, 'spec', 'nodeName') !== name || terminal(other) || other.metadata.uid === pod.metadata.uid) continue;
        const requests = podRequests(other);
        used.cpu += requests.cpu;
        used.memory += requests.memory;
        used.pods++;
      }
      const cpu = parseMilliValue(isRecord(allocatable) ? allocatable.cpu : undefined);
      const memory = parseValue(isRecord(allocatable) ? allocatable.memory : undefined);
      const podCapacity = parseValue(isRecord(allocatable) ? allocatable.pods : undefined);
      if (wanted.cpu > 0 && cpu > 0 && wanted.cpu > cpu - used.cpu) {
        problems.push(`not enough CPU: the pod requests ${formatMilliQuantity(wanted.cpu)}, ${formatMilliQuantity(Math.max(0, cpu - used.cpu))} of ${formatMilliQuantity(cpu)} is free`);
        hints.push("lower the pod's CPU request, or make room on a node");
      }
      if (wanted.memory > 0 && memory > 0 && wanted.memory > memory - used.memory) {
        problems.push(`not enough memory: the pod requests ${formatIecBytes(wanted.memory)}, ${formatIecBytes(Math.max(0, memory - used.memory))} of ${formatIecBytes(memory)} is free`);
        hints.push("lower the pod's memory request, or make room on a node");
      }
      if (podCapacity > 0 && used.pods + 1 > podCapacity) problems.push(`it already runs ${used.pods} of ${podCapacity} pods`);
    }
    if (problems.length > 0) result.push({ node: name, problems, hints });
  }
  return result;
}
