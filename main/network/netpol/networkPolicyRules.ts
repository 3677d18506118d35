// NetworkPolicy (networking.k8s.io/v1) semantics as a pure function of the API objects, after the
// comments of staging/src/k8s.io/api/networking/v1/types.go and the conformance cases of
// test/e2e/network/netpol: a pod selected by no policy of a type is not isolated for that type;
// an isolated pod admits traffic that matches at least one rule of any policy selecting it
// (policies add up); a peer is a podSelector (the policy's namespace), a namespaceSelector (all
// pods there), both (those pods in those namespaces) or an ipBlock minus its `except`; ports match
// by protocol, number, range (port..endPort) or name — a named port resolves against the
// destination pod's container ports (the selected pod for ingress, each peer pod for egress);
// policyTypes default to Ingress, plus Egress when egress rules exist. Ingress from the pod's own
// node is always allowed, as upstream says.
//
// Two outputs: the packet filter of each pod's network namespace (kd-netpol's rule text, see
// main/network/netd/packetFilter.h), and for Service traffic, which kd-netd proxies, the clients
// each backend may serve (the client's egress and the backend's ingress both allow it).
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { selectorMatches } from '../../../shared/kubernetes/labelSelector';
import { formatCidr, parseCidr, parseIpv4, subtractCidrs, type Cidr } from '../../../shared/net/ipv4';

export type PolicyProtocol = 'TCP' | 'UDP' | 'SCTP';

export interface NamedPort {
  name: string;
  port: number;
  protocol: PolicyProtocol;
}

/** A pod as policies see it: one with a pod-network address (not hostNetwork, not finished). */
export interface PolicyPod {
  uid: string;
  namespace: string;
  name: string;
  nodeName: string;
  ip: string;
  labels: Record<string, string>;
  namedPorts: NamedPort[];
}

/** Something traffic goes to or comes from: a pod, an address outside the pod network, or a
 * stand-in for a server kubedesk runs itself (cluster DNS answers as kube-system/k8s-app=kube-dns). */
export type PolicyEndpoint =
  | { kind: 'pod'; pod: PolicyPod }
  | { kind: 'address'; ip: string }
  | { kind: 'virtual'; namespace: string; labels: Record<string, string>; namedPorts: NamedPort[] };

interface PortMatch {
  protocol: PolicyProtocol;
  port?: number | string;
  endPort?: number;
}

type Peer = { kind: 'pods'; policyNamespace: string; podSelector?: unknown; namespaceSelector?: unknown } | { kind: 'block'; cidrs: Cidr[]; whole: Cidr; except: Cidr[] } | { kind: 'none' };

interface Rule {
  /** undefined: every peer */
  peers?: Peer[];
  /** undefined: every port and protocol */
  ports?: PortMatch[];
}

export interface CompiledPolicy {
  namespace: string;
  name: string;
  podSelector: unknown;
  ingress?: Rule[];
  egress?: Rule[];
}

export interface PolicyModel {
  policies: CompiledPolicy[];
  pods: PolicyPod[];
  podsByIp: Map<string, PolicyPod>;
  namespaceLabels: Map<string, Record<string, string>>;
  /** memo: the policies selecting each pod, per direction */
  selecting: Map<string, { ingress: CompiledPolicy[]; egress: CompiledPolicy[] }>;
}

export interface FilterContext {
  /** the node's addresses on the pod network (the host): ingress from them is always allowed */
  nodeAddresses: string[];
  /** kd-netd's address: Service traffic arrives from it, already checked per client */
  proxyAddress?: string;
  /**
   * Ports kd-netd serves at its own address for kubedesk's servers (the API at 6443, DNS at 53,
   * what the `kubernetes` and `kube-dns` Endpoints publish): an isolated pod may send to them and
   * kd-netd decides per client, as for ClusterIPs.
   */
  proxyPorts?: { protocol: PolicyProtocol; port: number }[];
  /** ClusterIPs: an isolated pod may send to them, kd-netd decides per Service backend */
  serviceRange: string;
}

function protocolOf(value: unknown): PolicyProtocol {
  return value === 'UDP' || value === 'SCTP' ? value : 'TCP';
}

function labelsOf(object: { metadata: { labels?: Record<string, string> } }): Record<string, string> {
  return isRecord(object.metadata.labels) ? object.metadata.labels : {};
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** The pod as policies see it, or undefined when policies do not apply to it (hostNetwork, no IP yet, finished). */
export function policyPodOf(pod: KubeObject): PolicyPod | undefined {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const status = isRecord(pod.status) ? pod.status : {};
  if (spec.hostNetwork === true) return undefined;
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return undefined;
  const ip = typeof status.podIP === 'string' ? status.podIP : '';
  if (parseIpv4(ip) === undefined) return undefined;
  const namedPorts: NamedPort[] = [];
  for (const container of [...list(spec.initContainers), ...list(spec.containers)]) {
    for (const port of list(container.ports)) {
      if (typeof port.name === 'string' && port.name !== '' && typeof port.containerPort === 'number') {
        namedPorts.push({ name: port.name, port: port.containerPort, protocol: protocolOf(port.protocol) });
      }
    }
  }
  return {
    uid: pod.metadata.uid ?? '',
    namespace: pod.metadata.namespace ?? '',
    name: pod.metadata.name ?? '',
    nodeName: typeof spec.nodeName === 'string' ? spec.nodeName : '',
    ip,
    labels: labelsOf(pod),
    namedPorts,
  };
}

function compilePeer(peer: Record<string, unknown>, policyNamespace: string): Peer {
  if (isRecord(peer.ipBlock)) {
    const whole = typeof peer.ipBlock.cidr === 'string' ? parseCidr(peer.ipBlock.cidr) : undefined;
    // An IPv6 block (the pod network is IPv4 only) or a malformed one matches nothing.
    if (!whole || !String(peer.ipBlock.cidr).includes('/')) return { kind: 'none' };
    const except = (Array.isArray(peer.ipBlock.except) ? peer.ipBlock.except : []).flatMap((text: unknown) => {
      const parsed = typeof text === 'string' && text.includes('/') ? parseCidr(text) : undefined;
      return parsed ? [parsed] : [];
    });
    return { kind: 'block', whole, except, cidrs: subtractCidrs(whole, except) };
  }
  const podSelector = isRecord(peer.podSelector) ? peer.podSelector : undefined;
  const namespaceSelector = isRecord(peer.namespaceSelector) ? peer.namespaceSelector : undefined;
  if (!podSelector && !namespaceSelector) return { kind: 'none' };
  return { kind: 'pods', policyNamespace, podSelector, namespaceSelector };
}

function compilePorts(value: unknown): PortMatch[] | undefined {
  const ports = list(value);
  if (!Array.isArray(value) || ports.length === 0) return undefined;
  return ports.map((port) => {
    const match: PortMatch = { protocol: protocolOf(port.protocol) };
    if (typeof port.port === 'number' || (typeof port.port === 'string' && port.port !== '')) {
      // an int-or-string given as digits in a string is a number, as intstr parses it
      match.port = typeof port.port === 'string' && /^\d+$/.test(port.port) ? Number(port.port) : port.port;
    }
    if (typeof port.endPort === 'number' && typeof match.port === 'number') match.endPort = port.endPort;
    return match;
  });
}

function compileRules(value: unknown, peerField: 'from' | 'to', namespace: string): Rule[] {
  return list(value).map((rule) => {
    const peers = list(rule[peerField]);
    const compiled: Rule = {};
    if (Array.isArray(rule[peerField]) && peers.length > 0) compiled.peers = peers.map((peer) => compilePeer(peer, namespace));
    const ports = compilePorts(rule.ports);
    if (ports) compiled.ports = ports;
    return compiled;
  });
}

/** One NetworkPolicy object in the form the checks use; policyTypes inferred when absent. */
export function compilePolicy(policy: KubeObject): CompiledPolicy {
  const spec = isRecord(policy.spec) ? policy.spec : {};
  const namespace = policy.metadata.namespace ?? '';
  const declared = Array.isArray(spec.policyTypes) ? spec.policyTypes.filter((type): type is string => typeof type === 'string') : [];
  const hasEgressRules = list(spec.egress).length > 0;
  const types = declared.length > 0 ? declared : hasEgressRules ? ['Ingress', 'Egress'] : ['Ingress'];
  const compiled: CompiledPolicy = { namespace, name: policy.metadata.name ?? '', podSelector: isRecord(spec.podSelector) ? spec.podSelector : {} };
  if (types.includes('Ingress')) compiled.ingress = compileRules(spec.ingress, 'from', namespace);
  if (types.includes('Egress')) compiled.egress = compileRules(spec.egress, 'to', namespace);
  return compiled;
}

export interface PolicyModelInput {
  policies: Iterable<KubeObject>;
  pods: Iterable<KubeObject>;
  namespaces: Iterable<KubeObject>;
}

export function buildPolicyModel(input: PolicyModelInput): PolicyModel {
  const namespaceLabels = new Map<string, Record<string, string>>();
  for (const namespace of input.namespaces) namespaceLabels.set(namespace.metadata.name ?? '', labelsOf(namespace));
  const pods: PolicyPod[] = [];
  const podsByIp = new Map<string, PolicyPod>();
  for (const pod of input.pods) {
    const policyPod = policyPodOf(pod);
    if (!policyPod) continue;
    pods.push(policyPod);
    podsByIp.set(policyPod.ip, policyPod);
  }
  pods.sort((first, second) => (first.ip < second.ip ? -1 : first.ip > second.ip ? 1 : first.uid < second.uid ? -1 : 1));
  const policies = [...input.policies].map(compilePolicy);
  return { policies, pods, podsByIp, namespaceLabels, selecting: new Map() };
}

function namespaceLabelsOf(model: PolicyModel, namespace: string): Record<string, string> {
  // the API server sets this label on every namespace; a namespace not in the cache yet still has it
  return model.namespaceLabels.get(namespace) ?? { 'kubernetes.io/metadata.name': namespace };
}

/** The policies that select `pod`, for ingress and for egress. */
export function selectingPolicies(model: PolicyModel, pod: PolicyPod): { ingress: CompiledPolicy[]; egress: CompiledPolicy[] } {
  const cached = model.selecting.get(pod.uid);
  if (cached) return cached;
  const ingress: CompiledPolicy[] = [];
  const egress: CompiledPolicy[] = [];
  for (const policy of model.policies) {
    if (policy.namespace !== pod.namespace || !selectorMatches(policy.podSelector, pod.labels)) continue;
    if (policy.ingress) ingress.push(policy);
    if (policy.egress) egress.push(policy);
  }
  const result = { ingress, egress };
  model.selecting.set(pod.uid, result);
  return result;
}

function endpointIp(endpoint: PolicyEndpoint): string | undefined {
  return endpoint.kind === 'pod' ? endpoint.pod.ip : endpoint.kind === 'address' ? endpoint.ip : undefined;
}

function inBlock(peer: Extract<Peer, { kind: 'block' }>, ip: string | undefined): boolean {
  const value = ip === undefined ? undefined : parseIpv4(ip);
  if (value === undefined) return false;
  const contains = (cidr: Cidr) => value >= cidr.address && value < cidr.address + 2 ** (32 - cidr.prefix);
  return contains(peer.whole) && !peer.except.some(contains);
}

function peerMatches(model: PolicyModel, peer: Peer, endpoint: PolicyEndpoint): boolean {
  if (peer.kind === 'none') return false;
  if (peer.kind === 'block') return inBlock(peer, endpointIp(endpoint));
  const identity = endpoint.kind === 'pod' ? endpoint.pod : endpoint.kind === 'virtual' ? endpoint : undefined;
  if (!identity) return false;
  const namespaceOk = peer.namespaceSelector ? selectorMatches(peer.namespaceSelector, namespaceLabelsOf(model, identity.namespace)) : identity.namespace === peer.policyNamespace;
  return namespaceOk && (peer.podSelector ? selectorMatches(peer.podSelector, identity.labels) : true);
}

function namedPortsOf(endpoint: PolicyEndpoint): NamedPort[] {
  return endpoint.kind === 'pod' ? endpoint.pod.namedPorts : endpoint.kind === 'virtual' ? endpoint.namedPorts : [];
}

function portMatches(match: PortMatch, port: number, protocol: PolicyProtocol, destinationPorts: NamedPort[]): boolean {
  if (match.protocol !== protocol) return false;
  if (match.port === undefined) return true;
  if (typeof match.port === 'number') return match.endPort !== undefined ? port >= match.port && port <= match.endPort : port === match.port;
  return destinationPorts.some((named) => named.name === match.port && named.protocol === protocol && named.port === port);
}

function ruleAllows(model: PolicyModel, rule: Rule, peer: PolicyEndpoint, port: number, protocol: PolicyProtocol, destinationPorts: NamedPort[]): boolean {
  if (rule.peers && !rule.peers.some((candidate) => peerMatches(model, candidate, peer))) return false;
  return !rule.ports || rule.ports.some((match) => portMatches(match, port, protocol, destinationPorts));
}

/** Whether `target` accepts a new connection from `source` on its `port`/`protocol`. */
export function ingressAllows(model: PolicyModel, target: PolicyPod, source: PolicyEndpoint, port: number, protocol: PolicyProtocol, context?: Pick<FilterContext, 'nodeAddresses'>): boolean {
  const policies = selectingPolicies(model, target).ingress;
  if (policies.length === 0) return true;
  const sourceIp = endpointIp(source);
  if (sourceIp !== undefined && context?.nodeAddresses.includes(sourceIp)) return true;
  return policies.some((policy) => (policy.ingress ?? []).some((rule) => ruleAllows(model, rule, source, port, protocol, target.namedPorts)));
}

/** Whether `source` may open a connection to `destination`'s `port`/`protocol`. */
export function egressAllows(model: PolicyModel, source: PolicyPod, destination: PolicyEndpoint, port: number, protocol: PolicyProtocol): boolean {
  const policies = selectingPolicies(model, source).egress;
  if (policies.length === 0) return true;
  const ports = namedPortsOf(destination);
  return policies.some((policy) => (policy.egress ?? []).some((rule) => ruleAllows(model, rule, destination, port, protocol, ports)));
}

// ---------------------------------------------------------------- a pod's packet filter

/** A port set as the filter writes it: a protocol (or all), and a range (or every port). */
interface PortRange {
  protocol?: PolicyProtocol;
  low?: number;
  high?: number;
}

function ruleText(verdictChain: string, address: { option: 'src' | 'dst'; cidr?: string }, range: PortRange): string {
  const words = [verdictChain];
  if (address.cidr) words.push(address.option, address.cidr);
  if (range.protocol) words.push('proto', range.protocol.toLowerCase());
  if (range.protocol && range.low !== undefined) words.push('dport', range.high !== undefined && range.high !== range.low ? `${range.low}-${range.high}` : String(range.low));
  return words.join(' ');
}

/** The port ranges a rule's `ports` give when the destination's named ports are `destinationPorts`. */
function portRanges(ports: PortMatch[] | undefined, destinationPorts: NamedPort[]): PortRange[] {
  if (!ports) return [{}];
  return ports.flatMap((match): PortRange[] => {
    if (match.port === undefined) return [{ protocol: match.protocol }];
    if (typeof match.port === 'number') return [{ protocol: match.protocol, low: match.port, high: match.endPort ?? match.port }];
    return destinationPorts.filter((named) => named.name === match.port && named.protocol === match.protocol).map((named) => ({ protocol: match.protocol, low: named.port }));
  });
}

/** The addresses a peer stands for, as CIDRs; pods by their /32. */
function peerCidrs(model: PolicyModel, peer: Peer): string[] {
  if (peer.kind === 'none') return [];
  if (peer.kind === 'block') return peer.cidrs.map(formatCidr);
  return model.pods.filter((pod) => peerMatches(model, peer, { kind: 'pod', pod })).map((pod) => `${pod.ip}/32`);
}

/** The pods a rule's peers cover (for named ports, which only pods have). */
function peerPods(model: PolicyModel, peers: Peer[] | undefined): PolicyPod[] {
  if (!peers) return model.pods;
  return model.pods.filter((pod) => peers.some((peer) => peerMatches(model, peer, { kind: 'pod', pod })));
}

function hasNamedPort(ports: PortMatch[] | undefined): boolean {
  return (ports ?? []).some((match) => typeof match.port === 'string');
}

function ingressLines(model: PolicyModel, pod: PolicyPod, policies: CompiledPolicy[], context: FilterContext): string[] {
  const lines = new Set<string>();
  for (const policy of policies) {
    for (const rule of policy.ingress ?? []) {
      const sources = rule.peers ? [...new Set(rule.peers.flatMap((peer) => peerCidrs(model, peer)))] : [undefined];
      const ranges = portRanges(rule.ports, pod.namedPorts);
      for (const source of sources) for (const range of ranges) lines.add(ruleText('accept input', { option: 'src', cidr: source }, range));
    }
  }
  const always = ['accept input state established,related', 'accept input in lo'];
  for (const address of [...context.nodeAddresses, ...(context.proxyAddress ? [context.proxyAddress] : [])]) always.push(`accept input src ${address}/32`);
  return ['policy input drop', ...always, ...[...lines].sort()];
}

function egressLines(model: PolicyModel, policies: CompiledPolicy[], context: FilterContext): string[] {
  const lines = new Set<string>();
  for (const policy of policies) {
    for (const rule of policy.egress ?? []) {
      const plain = (rule.ports ?? []).filter((match) => typeof match.port !== 'string');
      const named = (rule.ports ?? []).filter((match) => typeof match.port === 'string');
      // numbered ports (or none): every destination address of the rule
      if (!rule.ports || plain.length > 0) {
        const destinations = rule.peers ? [...new Set(rule.peers.flatMap((peer) => peerCidrs(model, peer)))] : [undefined];
        const ranges = portRanges(rule.ports ? plain : undefined, []);
        for (const destination of destinations) for (const range of ranges) lines.add(ruleText('accept output', { option: 'dst', cidr: destination }, range));
      }
      // named ports: each destination pod's own number for the name
      if (hasNamedPort(rule.ports)) {
        for (const destination of peerPods(model, rule.peers)) {
          for (const range of portRanges(named, destination.namedPorts)) lines.add(ruleText('accept output', { option: 'dst', cidr: `${destination.ip}/32` }, range));
        }
      }
    }
  }
  const always = ['accept output state established,related', 'accept output out lo', `accept output dst ${context.serviceRange}`];
  if (context.proxyAddress) {
    for (const { protocol, port } of context.proxyPorts ?? []) always.push(ruleText('accept output', { option: 'dst', cidr: `${context.proxyAddress}/32` }, { protocol, low: port }));
  }
  return ['policy output drop', ...always, ...[...lines].sort()];
}

/**
 * The packet filter for `pod`'s network namespace, as kd-netpol rule lines: nothing when no policy
 * isolates it; else, per isolated direction, a DROP policy with the always-allowed traffic first
 * (established and related flows, loopback, for ingress the node and kd-netd, for egress the
 * ClusterIPs and kd-netd's own server ports, where kd-netd decides) and one ACCEPT
 * per (peer address, port range) of the rules.
 */
export function podFilterRules(model: PolicyModel, pod: PolicyPod, context: FilterContext): string[] {
  const { ingress, egress } = selectingPolicies(model, pod);
  return [...(ingress.length > 0 ? ingressLines(model, pod, ingress, context) : []), ...(egress.length > 0 ? egressLines(model, egress, context) : [])];
}

// ---------------------------------------------------------------- Service traffic (kd-netd)

export interface ServiceTarget {
  /** the ClusterIP and Service port the client sends to */
  ip: string;
  port: number;
  protocol: PolicyProtocol;
}

/** A Service backend: a pod or other address (ip:port), or a server of kubedesk's own under a policy identity. */
export type ServiceBackend = { kind: 'address'; ip: string; port: number } | { kind: 'virtual'; endpoint: Extract<PolicyEndpoint, { kind: 'virtual' }> | { kind: 'address'; ip: string }; port: number };

/**
 * Cluster DNS as NetworkPolicies see it. kubedesk answers DNS itself, so there is no CoreDNS pod;
 * policies still name it as they would on a kubeadm cluster — kube-system pods labelled
 * k8s-app=kube-dns with the ports dns (UDP 53), dns-tcp (TCP 53) and metrics (TCP 9153).
 */
export function clusterDnsBackend(): ServiceBackend {
  return {
    kind: 'virtual',
    port: 53,
    endpoint: {
      kind: 'virtual',
      namespace: 'kube-system',
      labels: { 'k8s-app': 'kube-dns' },
      namedPorts: [
        { name: 'dns', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, protocol: 'TCP' },
        { name: 'metrics', port: 9153, protocol: 'TCP' },
      ],
    },
  };
}

function backendEndpoint(model: PolicyModel, backend: ServiceBackend): PolicyEndpoint {
  if (backend.kind === 'virtual') return backend.endpoint;
  const pod = model.podsByIp.get(backend.ip);
  return pod ? { kind: 'pod', pod } : { kind: 'address', ip: backend.ip };
}

/**
 * Whether `client` may reach `backend` through the Service address `service`: its egress must
 * allow the backend (after translation, as upstream) or the ClusterIP itself (before it, which
 * lets an ipBlock naming the ClusterIP work), and the backend's ingress must allow the client.
 */
export function serviceConnectionAllowed(model: PolicyModel, client: PolicyPod, service: ServiceTarget, backend: ServiceBackend, context: Pick<FilterContext, 'nodeAddresses'>): boolean {
  const destination = backendEndpoint(model, backend);
  const egress =
    egressAllows(model, client, destination, backend.port, service.protocol) || egressAllows(model, client, { kind: 'address', ip: service.ip }, service.port, service.protocol);
  if (!egress) return false;
  return destination.kind !== 'pod' || ingressAllows(model, destination.pod, { kind: 'pod', pod: client }, backend.port, service.protocol, context);
}

/**
 * For one Service port and its backends: undefined when every client may use every backend (no
 * policy applies), else per backend the client addresses allowed (pods, and always the node).
 */
export function serviceBackendClients(model: PolicyModel, service: ServiceTarget, backends: ServiceBackend[], context: Pick<FilterContext, 'nodeAddresses'>): string[][] | undefined {
  if (model.policies.length === 0 || backends.length === 0) return undefined;
  let restricted = false;
  const lists = backends.map((backend) => {
    const allowed: string[] = [];
    for (const client of model.pods) {
      if (serviceConnectionAllowed(model, client, service, backend, context)) allowed.push(client.ip);
      else restricted = true;
    }
    return [...new Set([...allowed, ...context.nodeAddresses])].sort(compareAddresses);
  });
  return restricted ? lists : undefined;
}

function compareAddresses(first: string, second: string): number {
  return (parseIpv4(first) ?? 0) - (parseIpv4(second) ?? 0);
}

