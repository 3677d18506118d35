// NetworkPolicyController: kubedesk's policy agent, the part of a network plugin (Calico's Felix,
// kube-router's netpol controller) that turns NetworkPolicies into packet filters. It watches
// NetworkPolicies, Pods and Namespaces; every change recomputes the whole desired state
// (networkPolicyRules.ts, level-triggered, passes coalesced by CoalescedSync) and then:
//   - sets each running pod's filter inside the pod's own network namespace by running kd-netpol
//     there through the node's container runtime (the kubelet's runtime adapter), only where the
//     rules changed; a pod no policy isolates gets an empty filter (or is left alone when it never
//     had one);
//   - tells the service proxy (onDidChange + serviceBackendClients) which clients each Service
//     backend may serve, because Service traffic reaches backends from kd-netd's address.
// Connections that exist when a policy changes are kept (the filters accept established flows
// first, as most network plugins do); new connections follow the new policy.
import type { Disposable, Informer, SharedInformerFactory } from '../../client/informer';
import { resources } from '../../client/resources';
import { CoalescedSync, errorMessage } from '../coalescedSync';
import { buildPolicyModel, podFilterRules, serviceBackendClients, type FilterContext, type PolicyModel, type PolicyPod, type ServiceBackend, type ServiceTarget } from './networkPolicyRules';

/** What the controller needs from a node's container runtime (the kubelet's ContainerRuntime has it). */
export interface PodNetworkRuntime {
  listSandboxes(): Promise<Array<{ id: string; podUid: string; state: 'ready' | 'notready'; attempt: number }>>;
  runInSandboxNetwork(
    sandboxId: string,
    program: { executablePath: string; args: string[]; onlyIfUsedBefore?: boolean; timeoutMs?: number },
  ): Promise<{ exitCode: number; stdout: string; stderr: string; timedOut: boolean } | undefined>;
}

export interface PolicyNode {
  nodeName: string;
  runtime: PodNetworkRuntime;
}

export interface NetworkPolicyControllerOptions {
  /** the nodes and their runtimes (the kubelets') */
  nodes: () => PolicyNode[];
  /** kd-netpol on the host; throws when it has not been built */
  executablePath: () => string;
  /** the node's addresses on the pod network: ingress from them is always allowed */
  nodeAddresses: string[];
  /** the ClusterIP range (kd-netd decides for it) */
  serviceRange: string;
  /** kd-netd's address on the pod network, once it runs */
  proxyAddress: () => Promise<string | undefined>;
  /** ports kd-netd serves at that address for kubedesk's own servers (egress to them is kd-netd's to judge) */
  proxyPorts?: FilterContext['proxyPorts'];
  /** a full pass this often even without changes (kd-netd's address, a recreated sandbox); default 5 s */
  resyncIntervalMs?: number;
  /** a failed pass is tried again after this long; default 2 s */
  retryIntervalMs?: number;
  /** pods set at once; default 4 */
  concurrency?: number;
  onError?: (error: unknown) => void;
}

/** A pod to (re)filter: its sandbox, the rule lines and what they are as one text. */
interface Work {
  pod: PolicyPod;
  runtime: PodNetworkRuntime;
  sandboxId: string;
  rules: string[];
  text: string;
}

export class NetworkPolicyController {
  private readonly policies: Informer;
  private readonly pods: Informer;
  private readonly namespaces: Informer;
  private readonly syncs: CoalescedSync;
  private readonly listeners = new Set<() => void>();
  /** the rule text last set in each sandbox ('' = open) */
  private readonly applied = new Map<string, string>();
  private version = 0;
  private cached: { version: number; model: PolicyModel } | undefined;
  private proxyAddress: string | undefined;
  private firstPassDone = false;
  private resyncTimer: NodeJS.Timeout | undefined;
  private started = false;
  private lastFailure = '';
  /** whether the last change notice was sent with NetworkPolicies present */
  private notifiedWithPolicies = false;

  constructor(
    factory: SharedInformerFactory,
    private readonly options: NetworkPolicyControllerOptions,
  ) {
    this.policies = factory.informerFor(resources.networkpolicies);
    this.pods = factory.informerFor(resources.pods);
    this.namespaces = factory.informerFor(resources.namespaces);
    this.syncs = new CoalescedSync({ sync: () => this.sync(), name: 'network policies', retryIntervalMs: options.retryIntervalMs ?? 2_000, onError: options.onError });
  }

  start(): void {
    if (this.started || this.syncs.disposed) return;
    this.started = true;
    const changed = () => {
      this.version++;
      // Pods change all the time; without any policy (now or just before) nobody needs to hear it.
      const withPolicies = this.policies.list().length > 0;
      if (withPolicies || this.notifiedWithPolicies) for (const listener of this.listeners) listener();
      this.notifiedWithPolicies = withPolicies;
      this.syncs.request();
    };
    for (const informer of [this.policies, this.pods, this.namespaces]) {
      this.syncs.own(informer.addEventHandler({ onAdd: changed, onUpdate: changed, onDelete: changed }));
    }
    void Promise.all([this.policies, this.pods, this.namespaces].map((informer) => informer.waitForSync())).then((synced) => {
      if (synced.every(Boolean)) changed();
    });
    this.resyncTimer = setInterval(() => this.syncs.request(), this.options.resyncIntervalMs ?? 5_000);
    this.resyncTimer.unref();
  }

  /** Asks for a full pass now (e.g. kd-netd has started, with its address). */
  resync(): void {
    this.syncs.request();
  }

  /** Called whenever policies, pods or namespaces change (the service proxy re-renders). */
  onDidChange(listener: () => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** The policy model of the current caches. */
  model(): PolicyModel {
    if (this.cached?.version !== this.version) {
      this.cached = { version: this.version, model: buildPolicyModel({ policies: this.policies.list(), pods: this.pods.list(), namespaces: this.namespaces.list() }) };
    }
    return this.cached.model;
  }

  /** For kd-netd: per backend, the clients that may use it through the Service; undefined when all may. */
  serviceBackendClients(service: ServiceTarget, backends: ServiceBackend[]): string[][] | undefined {
    if (!this.policies.hasSynced() || !this.pods.hasSynced() || this.policies.list().length === 0) return undefined;
    return serviceBackendClients(this.model(), service, backends, { nodeAddresses: this.options.nodeAddresses });
  }

  /** Resolves when every change seen so far has been applied (for tests). */
  idle(): Promise<void> {
    return this.syncs.idle();
  }

  async dispose(): Promise<void> {
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.listeners.clear();
    await this.syncs.dispose();
  }

  // ---------------------------------------------------------------- reconciling

  private context(): FilterContext {
    return { nodeAddresses: this.options.nodeAddresses, proxyAddress: this.proxyAddress, proxyPorts: this.options.proxyPorts, serviceRange: this.options.serviceRange };
  }

  private async sync(): Promise<void> {
    if (![this.policies, this.pods, this.namespaces].every((informer) => informer.hasSynced())) return;
    const address = await this.options.proxyAddress().catch(() => undefined);
    if (address !== this.proxyAddress) {
      this.proxyAddress = address;
      this.applied.clear(); // every isolated pod's filter names kd-netd's address
    }
    const model = this.model();
    const context = this.context();
    const desired = new Map(model.pods.map((pod) => [pod.uid, podFilterRules(model, pod, context)]));
    const inPlay = [...desired.values()].some((rules) => rules.length > 0) || [...this.applied.values()].some((text) => text !== '');
    if (!inPlay && this.firstPassDone) return;

    const work: Work[] = [];
    const seen = new Set<string>();
    for (const node of this.options.nodes()) {
      const sandboxes = await node.runtime.listSandboxes();
      const latest = new Map<string, { id: string; attempt: number }>();
      for (const sandbox of sandboxes) {
        if (sandbox.state !== 'ready') continue;
        seen.add(sandbox.id);
        const current = latest.get(sandbox.podUid);
        if (!current || sandbox.attempt > current.attempt) latest.set(sandbox.podUid, sandbox);
      }
      for (const pod of model.pods) {
        if (pod.nodeName !== node.nodeName) continue;
        const sandbox = latest.get(pod.uid);
        if (!sandbox) continue;
        const rules = desired.get(pod.uid) ?? [];
        const text = rules.join('\n');
        const before = this.applied.get(sandbox.id);
        if (before === text) continue;
        // a sandbox made since the first pass never had a filter: nothing to clear
        if (before === undefined && text === '' && this.firstPassDone) {
          this.applied.set(sandbox.id, '');
          continue;
        }
        work.push({ pod, runtime: node.runtime, sandboxId: sandbox.id, rules, text });
      }
    }
    for (const id of this.applied.keys()) if (!seen.has(id)) this.applied.delete(id);

    const failures = await this.runAll(work);
    this.firstPassDone = true;
    if (failures.length > 0) {
      const message = `network policies: ${failures.length} pod filter(s) not set: ${failures.slice(0, 3).join('; ')}`;
      // the same failure every retry is reported once
      if (message !== this.lastFailure) this.syncs.report(new Error(message));
      this.lastFailure = message;
      this.syncs.retryLater();
    } else {
      this.lastFailure = '';
    }
  }

  /** Sets the filters, a few pods at a time; returns what failed. */
  private async runAll(work: Work[]): Promise<string[]> {
    if (work.length === 0) return [];
    let executablePath: string;
    try {
      executablePath = this.options.executablePath();
    } catch (error) {
      return [errorMessage(error)];
    }
    const failures: string[] = [];
    const queue = [...work];
    const worker = async () => {
      for (let item = queue.shift(); item && !this.syncs.disposed; item = queue.shift()) {
        const failure = await this.apply(item, executablePath);
        if (failure) failures.push(failure);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency ?? 4, queue.length) }, worker));
    return failures;
  }

  private async apply(work: Work, executablePath: string): Promise<string | undefined> {
    const where = `${work.pod.namespace}/${work.pod.name}`;
    try {
      const clearing = work.rules.length === 0;
      const result = await work.runtime.runInSandboxNetwork(work.sandboxId, { executablePath, args: ['apply', ...work.rules], onlyIfUsedBefore: clearing });
      if (result && (result.exitCode !== 0 || result.timedOut)) {
        return `${where}: ${result.timedOut ? 'kd-netpol timed out' : (result.stderr.trim() || `kd-netpol exited with ${result.exitCode}`)}`;
      }
      this.applied.set(work.sandboxId, work.text);
      return undefined;
    } catch (error) {
      return `${where}: ${errorMessage(error)}`;
    }
  }
}

