// The landing page (#/overview): nodes with their requested (and, when metrics.k8s.io answers,
// used) CPU and memory against allocatable — what `kubectl describe node` and `kubectl top node`
// show —, pods by health as `kubectl get pods` STATUS and READY read (each count a link to the pods
// list filtered to that health), workloads whose ready count is below the desired one with the
// reason why (shared/diagnosis), the newest Warning events, image pulls in progress, and,
// on an empty cluster, what to do next. Cluster objects come from watches; only the metrics are
// fetched, on a slow timer, because metrics.k8s.io cannot be watched (upstream metrics-server).
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { translateTimestampSince } from '../../../shared/printers/duration';
import { isRecord } from '../../../shared/kubernetes/types';
import { useAppState, useCollection, useKinds, useNamespacedItems, useNow, useServices } from '../../context';
import { daemonSets, deployments, events, kindOf, nodes, pods, statefulSets } from '../../kinds';
import { formatRoute, type Route } from '../../store/routes';
import { currentPulls, pullSummaries } from './imagePulls';
import { POD_HEALTH_LABELS, POD_HEALTHS, type PodHealth } from '../../../shared/printers/podHealth';
import { POD_HEALTH_TONES } from '../../kinds/tones';
import { countPodHealth, formatCpu, formatMemory, fraction, nodeLoads, nodeUsageOf, notReadyWorkloads, recentWarnings, type NodeLoad, type ResourceAmounts, type WarningEvent } from './overviewModel';
import { diagnosisOf, diagnosisTone, reasonBesideCount } from '../diagnosis/diagnosisModel';
import { useDiagnosisContext } from '../diagnosis/useDiagnosis';
import { ClusterLoad } from '../usage/UsageCharts';
import { KubedeskOnly, useShownContext } from '../clusters/KubedeskOnly';

const METRICS_PATH = '/apis/metrics.k8s.io/v1beta1/nodes';
const METRICS_REFRESH_MS = 30_000;
const SYSTEM_NAMESPACES = new Set(['kube-system', 'kube-public', 'kube-node-lease']);
const DIAGNOSIS_WATCHES = ['replicasets.apps'];
const HEALTH_HINTS: Record<PodHealth, string> = {
  healthy: 'STATUS Running with every container ready',
  'not-ready': 'Running, but not every container is ready (READY below total, e.g. a failing readiness probe)',
  failing: 'CrashLoopBackOff, Error, ImagePullBackOff, ErrImagePull, CreateContainerConfigError, Unknown…',
  pending: 'Pending, ContainerCreating or running init containers',
  terminating: 'being deleted',
  completed: 'Completed: every container exited successfully',
};

export function Overview() {
  const selected = useAppState((state) => state.selectedNamespaces);
  const podItems = useNamespacedItems(pods);
  const allPods = useCollection(pods);
  const nodeCollection = useCollection(nodes);
  const deploymentItems = useNamespacedItems(deployments);
  const statefulSetItems = useNamespacedItems(statefulSets);
  const daemonSetItems = useNamespacedItems(daemonSets);
  const eventItems = useNamespacedItems(events);
  const usage = useNodeUsage();

  // a pod's health depends only on its object, so counting on each change of the pods is enough
  const healthCounts = useMemo(() => countPodHealth(podItems.items), [podItems.items]);
  const loads = useMemo(() => nodeLoads(Object.values(nodeCollection.items), Object.values(allPods.items), usage), [nodeCollection.items, allPods.items, usage]);
  const notReady = useMemo(
    () =>
      notReadyWorkloads([
        { kindKey: deployments.key, kind: deployments.kind, items: deploymentItems.items },
        { kindKey: statefulSets.key, kind: statefulSets.kind, items: statefulSetItems.items },
        { kindKey: daemonSets.key, kind: daemonSets.kind, items: daemonSetItems.items },
      ]),
    [deploymentItems.items, statefulSetItems.items, daemonSetItems.items],
  );
  const warnings = useMemo(() => recentWarnings(eventItems.items, 20), [eventItems.items]);
  // the overview keeps pods, events and nodes cached; a Deployment's pods are found through its ReplicaSets
  const diagnosisContext = useDiagnosisContext('Deployment', DIAGNOSIS_WATCHES);
  const pulls = useMemo(() => pullSummaries(currentPulls(podItems.items, eventItems.items)), [podItems.items, eventItems.items]);

  const loaded = podItems.collection.phase !== 'loading' && deploymentItems.collection.phase !== 'loading';
  const hasUserObjects = useMemo(
    () => [podItems.items, deploymentItems.items, statefulSetItems.items, daemonSetItems.items].some((items) => items.some((object) => !SYSTEM_NAMESPACES.has(object.metadata.namespace ?? ''))),
    [podItems.items, deploymentItems.items, statefulSetItems.items, daemonSetItems.items],
  );
  const scope = selected.length === 0 ? 'all namespaces' : selected.join(', ');

  return (
    <section className="overview" aria-label="Overview">
      <header className="view-header">
        <h1>Overview</h1>
        <span className="count">{scope}</span>
      </header>
      {pulls.length > 0 && (
        <div className="overview-pulls" role="status" data-testid="image-pulls">
          {pulls.map((pull) => (
            <div key={pull.image} className="overview-pull">
              <span className="progress-bar indeterminate" aria-hidden="true" />
              Pulling image <code>{pull.image}</code>…{pull.pods > 1 ? ` (${pull.pods} pods)` : ''}
            </div>
          ))}
        </div>
      )}
      {loaded && !hasUserObjects && <GetStarted namespaces={selected} />}
      <div className="overview-grid">
        <PodHealthCounts counts={healthCounts} loading={podItems.collection.phase === 'loading'} />
        <Panel title="Nodes" count={loads.length}>
          {loads.length === 0 ? <p className="hint">{nodeCollection.phase === 'loading' ? 'Loading…' : 'No nodes registered yet: the kubelet registers one when kubedesk starts.'}</p> : loads.map((load) => <NodeCard key={load.name} load={load} />)}
        </Panel>
        <Panel title="Workloads not ready" count={notReady.length}>
          {notReady.length === 0 ? (
            <p className="hint">Every Deployment, StatefulSet and DaemonSet has all its replicas ready.</p>
          ) : (
            <ul className="overview-list">
              {notReady.map((workload) => {
                const diagnosis = diagnosisOf(workload.kind, workload.object, diagnosisContext);
                return (
                  <li key={`${workload.kindKey}/${workload.namespace}/${workload.name}`} className="overview-not-ready" data-testid="not-ready-workload" data-name={workload.name}>
                    <div className="overview-not-ready-title">
                      <a href={formatRoute({ view: 'detail', kindKey: workload.kindKey, namespace: workload.namespace, name: workload.name })}>{workload.name}</a>
                      <span className="muted"> {workload.kind} · {workload.namespace}</span>
                      <span className={`overview-ratio tone-${workload.ready === 0 ? 'error' : 'warn'}`}>
                        {workload.ready}/{workload.desired} ready
                      </span>
                    </div>
                    {diagnosis && !diagnosis.healthy && (
                      <div className={`overview-why tone-${diagnosisTone(diagnosis)}`} title={diagnosis.reason} data-testid="not-ready-reason" data-code={diagnosis.code}>
                        {/* the ready count is on the line above */}
                        {reasonBesideCount(diagnosis)}
                      </div>
                    )}
                  </li>
                );
              })}
            </ul>
          )}
        </Panel>
        <KubedeskOnly feature="Usage history" compact>
          <ClusterLoad />
        </KubedeskOnly>
        <Panel title="Recent warnings" count={warnings.length} wide>
          {warnings.length === 0 ? <p className="hint">No Warning events{selected.length > 0 ? ` in ${scope}` : ''}.</p> : <Warnings warnings={warnings} />}
        </Panel>
      </div>
    </section>
  );
}

function Panel({ title, count, wide, children }: { title: string; count?: number; wide?: boolean; children: ReactNode }) {
  return (
    <div className={`overview-panel${wide ? ' wide' : ''}`}>
      <h2>
        {title}
        {count !== undefined && <span className="count"> {count}</span>}
      </h2>
      {children}
    </div>
  );
}

function PodHealthCounts({ counts, loading }: { counts: Record<PodHealth, number>; loading: boolean }) {
  const navigate = useAppState((state) => state.navigate);
  const setListFilter = useAppState((state) => state.setListFilter);
  const total = POD_HEALTHS.reduce((sum, health) => sum + counts[health], 0);
  const open = (health: PodHealth) => {
    setListFilter(pods.key, `health:${health}`);
    navigate({ view: 'list', kindKey: pods.key });
  };
  return (
    <Panel title="Pods" count={loading ? undefined : total}>
      <div className="overview-phases" data-testid="pod-health">
        {POD_HEALTHS.map((health) => (
          <button
            key={health}
            className={`overview-phase phase-${POD_HEALTH_TONES[health] ?? 'muted'}${counts[health] === 0 ? ' zero' : ''}`}
            onClick={() => open(health)}
            data-testid={`pods-${health}`}
            data-count={loading ? undefined : counts[health]}
            title={`${POD_HEALTH_LABELS[health]}: ${HEALTH_HINTS[health]}. Click to list them.`}
          >
            <span className="overview-phase-count">{loading ? '…' : counts[health]}</span>
            <span className="overview-phase-name">{POD_HEALTH_LABELS[health]}</span>
          </button>
        ))}
      </div>
      {total > 0 && (
        <div className="overview-phase-bar" aria-hidden="true">
          {POD_HEALTHS.map((health) => (counts[health] > 0 ? <span key={health} className={`phase-${POD_HEALTH_TONES[health] ?? 'muted'}`} style={{ flexGrow: counts[health] }} /> : null))}
        </div>
      )}
    </Panel>
  );
}

function NodeCard({ load }: { load: NodeLoad }) {
  return (
    <div className="overview-node">
      <div className="overview-node-title">
        <a href={formatRoute({ view: 'detail', kindKey: nodes.key, name: load.name })}>{load.name}</a>
        <span className={load.ready ? 'tone-ok' : 'tone-error'}>{load.ready ? 'Ready' : 'NotReady'}</span>
        {load.unschedulable && <span className="tone-warn">SchedulingDisabled</span>}
        <span className="muted overview-node-pods">
          {load.pods}
          {load.podCapacity > 0 ? ` / ${load.podCapacity}` : ''} pods
        </span>
      </div>
      <Meter label="CPU" requested={load.requested.cpu} used={load.usage?.cpu} allocatable={load.allocatable.cpu} format={formatCpu} />
      <Meter label="Memory" requested={load.requested.memory} used={load.usage?.memory} allocatable={load.allocatable.memory} format={formatMemory} />
    </div>
  );
}

function Meter({ label, requested, used, allocatable, format }: { label: string; requested: number; used?: number; allocatable: number; format(value: number): string }) {
  const requestedShare = fraction(requested, allocatable);
  const usedShare = used === undefined ? undefined : fraction(used, allocatable);
  const percent = (share: number) => `${Math.round(share * 100)}%`;
  const tone = requestedShare > 1 ? 'error' : requestedShare > 0.85 ? 'warn' : 'ok';
  return (
    <div className="overview-meter">
      <span className="overview-meter-label">{label}</span>
      <span className="overview-meter-track" aria-hidden="true" title={`requested ${format(requested)} of ${format(allocatable)} allocatable${used !== undefined ? `; using ${format(used)}` : ''}`}>
        <span className={`overview-meter-requested tone-bg-${tone}`} style={{ width: percent(Math.min(1, requestedShare)) }} />
        {usedShare !== undefined && <span className="overview-meter-used" style={{ left: percent(Math.min(1, usedShare)) }} />}
      </span>
      <span className="overview-meter-percent">{percent(requestedShare)}</span>
      <span className="overview-meter-text" data-testid={`meter-${label.toLowerCase()}`}>
        {format(requested)} of {format(allocatable)} requested{used !== undefined ? ` · ${format(used)} used` : ''}
      </span>
    </div>
  );
}

function Warnings({ warnings }: { warnings: WarningEvent[] }) {
  const kinds = useKinds();
  const now = useNow(5000);
  const linkOf = (warning: WarningEvent): string | undefined => {
    const involved = warning.involved;
    if (!involved) return undefined;
    const kind = kindOf(kinds, involved.apiVersion ?? 'v1', involved.kind);
    if (!kind) return undefined;
    const route: Route = { view: 'detail', kindKey: kind.key, name: involved.name, ...(kind.namespaced ? { namespace: involved.namespace ?? warning.namespace } : {}) };
    return formatRoute(route);
  };
  return (
    <ul className="overview-list overview-warnings" data-testid="overview-warnings">
      {warnings.map((warning) => {
        const href = linkOf(warning);
        const label = warning.involved ? `${warning.involved.kind ?? ''}/${warning.involved.name}` : warning.key;
        return (
          <li key={warning.key}>
            <span className="muted overview-age">{warning.time ? translateTimestampSince(new Date(warning.time).toISOString(), now) : ''}</span>
            <span className="tone-warn overview-reason">{warning.reason}</span>
            {href ? <a href={href}>{label}</a> : <span>{label}</span>}
            {warning.count > 1 && <span className="muted"> ×{warning.count}</span>}
            <span className="overview-message" title={warning.message}>
              {warning.message}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

function GetStarted({ namespaces }: { namespaces: string[] }) {
  const navigate = useAppState((state) => state.navigate);
  const shownContext = useShownContext();
  const own = useAppState((state) => state.cluster === '');
  return (
    <div className="overview-get-started" data-testid="overview-empty">
      <h2>Nothing running here yet{namespaces.length > 0 ? ` in ${namespaces.join(', ')}` : ''}</h2>
      <p>{own ? 'kubedesk is a Kubernetes cluster on this machine. ' : ''}Give it something to run:</p>
      <ol>
        <li>
          <button className="primary" onClick={() => navigate({ view: 'create' })} data-testid="overview-create">
            Create from YAML
          </button>{' '}
          — paste a manifest (a Deployment, a Pod…) and apply it.
        </li>
        <li>
          Or use kubectl or helm: {own ? <>kubedesk added a <code>{shownContext}</code> context to your kubeconfig. </> : null}Run <code>kubectl config use-context {shownContext}</code>, then for example <code>kubectl create deployment web --image=nginx</code>.
        </li>
      </ol>
    </div>
  );
}

/** Node usage from metrics.k8s.io, refreshed slowly; undefined while it does not answer. */
function useNodeUsage(): Map<string, ResourceAmounts> | undefined {
  const { client, store } = useServices();
  const [usage, setUsage] = useState<Map<string, ResourceAmounts> | undefined>(undefined);
  useEffect(() => {
    let stopped = false;
    const refresh = () => {
      // no requests while the cluster is gone: the connection monitor alone tries
      if (store.getState().connection.state === 'offline') return;
      client.get<unknown>(METRICS_PATH).then(
        (list) => {
          if (!stopped) setUsage(isRecord(list) ? nodeUsageOf(list.items) : undefined);
        },
        () => {
          if (!stopped) setUsage(undefined);
        },
      );
    };
    refresh();
    const timer = setInterval(refresh, METRICS_REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [client, store]);
  return usage;
}
