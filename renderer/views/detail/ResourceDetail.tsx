// The generic detail page of one object, for any kind (per-kind data comes from its KindConfig):
// a header with the status and actions, why it is not ready (views/diagnosis), and tabs — Summary (metadata, the kind's summary,
// conditions, owners and owned objects, related pods, containers of a pod), YAML, Events and
// History (views/history) — all live from watches, as `kubectl describe` shows them but updating.
// A deleted object stays on screen with a banner; the History tab of an object that no longer
// exists still opens, to undelete it.
import { useMemo, useRef, type ReactNode } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { actionsFor, type Action, type ActionContext } from '../../actions/actions';
import { useDialogs } from '../../components/Modal';
import { useAppState, useCachedObject, useCollection, useKinds, useServices } from '../../context';
import { events as eventKind, kindByKey, pods as podKind } from '../../kinds';
import { objectKey, type KindConfig } from '../../kinds/kindConfig';
import { formatRoute } from '../../store/routes';
import { stringField } from '../../kinds/tones';
import { Age } from '../ResourceList';
import { PortForwardButtons } from '../portforwards/PortForwardButtons';
import { chipsOf, childKindKeys, conditionsOf, eventsAbout, isWorkload, ownedBy, ownersOf, podsMatching } from './detailModel';
import { Card, FieldRow, linkHref, MiniTable } from './cards';
import { DetailSections } from './DetailSections';
import { UsageCard } from '../usage/UsageCharts';
import { DiagnosisBanner } from '../diagnosis/DiagnosisBanner';
import { YamlTab } from './YamlTab';
import { HistoryTab } from '../history/HistoryTab';
import { usePermissions } from '../permissions/usePermissions';
import { refusal } from '../permissions/permissionsModel';
import { KubedeskOnly } from '../clusters/KubedeskOnly';

const TABS = ['summary', 'yaml', 'events', 'history'] as const;
type Tab = (typeof TABS)[number];

export function ResourceDetail({ config, namespace, name, tab }: { config: KindConfig; namespace?: string; name: string; tab?: string }) {
  const key = config.namespaced && namespace ? `${namespace}/${name}` : name;
  const { object: live, ...collection } = useCachedObject(config, key);
  // the last version seen, kept on screen after a deletion
  const lastSeen = useRef<KubeObject | undefined>(undefined);
  if (live) lastSeen.current = live;
  const object = live ?? lastSeen.current;
  const deleted = !live && lastSeen.current !== undefined;
  const currentTab: Tab = TABS.find((candidate) => candidate === tab) ?? 'summary';

  if (!object) {
    if (collection.phase === 'error') return <div className="banner error">Cannot read {config.title}: {collection.error}</div>;
    if (collection.phase !== 'ready') return <div className="empty">Loading {config.kind} {name}…</div>;
    if (currentTab === 'history') {
      return (
        <section className="detail" aria-label={`History of ${config.kind} ${name}`}>
          <header className="view-header detail-header">
            <span className="detail-kind">{config.kind}</span>
            <h1 data-testid="detail-name">{name}</h1>
            {namespace && <span className="chip">{namespace}</span>}
            <span className="status-pill tone-muted">Does not exist now</span>
          </header>
          <div className="detail-body">
            <KubedeskOnly feature="History">
              <HistoryTab config={config} namespace={namespace} name={name} />
            </KubedeskOnly>
          </div>
        </section>
      );
    }
    return (
      <div className="empty" data-testid="detail-not-found">
        {config.kind} “{namespace ? `${namespace}/` : ''}
        {name}” does not exist. <a href={formatRoute({ view: 'list', kindKey: config.key })}>All {config.title}</a>
      </div>
    );
  }
  return (
    <section className="detail" aria-label={`${config.kind} ${name}`}>
      <DetailHeader config={config} object={object} deleted={deleted} />
      {deleted && (
        <div className="banner error" data-testid="detail-deleted">
          This object was deleted.
        </div>
      )}
      {!deleted && <DiagnosisBanner key={object.metadata.uid} config={config} object={object} />}
      <nav className="detail-tabs" role="tablist">
        {TABS.map((candidate) => (
          <a
            key={candidate}
            role="tab"
            aria-selected={candidate === currentTab}
            className={candidate === currentTab ? 'active' : ''}
            href={formatRoute({ view: 'detail', kindKey: config.key, namespace, name, tab: candidate === 'summary' ? undefined : candidate })}
            data-testid={`detail-tab-${candidate}`}
          >
            {candidate === 'yaml' ? 'YAML' : candidate[0].toUpperCase() + candidate.slice(1)}
          </a>
        ))}
      </nav>
      <div className="detail-body">
        {currentTab === 'summary' && <SummaryTab config={config} object={object} />}
        {currentTab === 'yaml' && <YamlTab key={object.metadata.uid} config={config} object={object} deleted={deleted} />}
        {currentTab === 'events' && <EventsSection object={object} />}
        {currentTab === 'history' && (
          <KubedeskOnly feature="History">
            <HistoryTab config={config} namespace={namespace} name={name} version={live?.metadata.resourceVersion} />
          </KubedeskOnly>
        )}
      </div>
    </section>
  );
}

function useActionContext(): { context: ActionContext; element: ReactNode } {
  const services = useServices();
  const dialogs = useDialogs();
  const can = usePermissions();
  const context = useMemo<ActionContext>(() => ({ ...services, confirm: dialogs.confirm, prompt: dialogs.prompt, can }), [services, dialogs.confirm, dialogs.prompt, can]);
  return { context, element: dialogs.element };
}

function DetailHeader({ config, object, deleted }: { config: KindConfig; object: KubeObject; deleted: boolean }) {
  const { context, element } = useActionContext();
  const can = usePermissions();
  const actions = useMemo(() => actionsFor(config, object, can), [config, object, can]);
  const tone = config.tone?.(object);
  const statusField = config.summary?.(object).find((field) => field.tone !== undefined);
  const run = (action: Action) => void action.run(context);
  return (
    <header className="view-header detail-header">
      <span className="detail-kind">{config.kind}</span>
      <h1 data-testid="detail-name">{object.metadata.name}</h1>
      {object.metadata.namespace && (
        <a className="chip" href={formatRoute({ view: 'detail', kindKey: 'namespaces', name: object.metadata.namespace })} title="Namespace">
          {object.metadata.namespace}
        </a>
      )}
      {statusField && <span className={`status-pill tone-${statusField.tone ?? tone ?? 'muted'}`}>{statusField.value}</span>}
      {object.metadata.deletionTimestamp && <span className="status-pill tone-muted">Terminating</span>}
      <div className="detail-actions">
        {config.podSelector && isWorkload(config.key) && !deleted && <WorkloadLogsButton config={config} object={object} />}
        {!deleted &&
          actions.map((action) => (
            <button key={action.id} className={action.danger ? 'danger-outline' : ''} disabled={action.disabled !== undefined} title={action.disabled} onClick={() => run(action)} data-testid={`action-${action.id}`}>
              {action.title}
            </button>
          ))}
      </div>
      {element}
    </header>
  );
}

/** "Logs" of a workload: one dock tab merging the logs of all its pods. */
function WorkloadLogsButton({ config, object }: { config: KindConfig; object: KubeObject }) {
  const podCollection = useCollection(podKind);
  const openDockTab = useAppState((state) => state.openDockTab);
  const selector = config.podSelector?.(object);
  const podNames = useMemo(() => podsMatching(Object.values(podCollection.items), object.metadata.namespace, config.podSelector?.(object)).map((pod) => pod.metadata.name ?? ''), [podCollection.items, config, object]);
  const can = usePermissions();
  const refused = refusal(can, [{ verb: 'get', group: '', resource: 'pods', subresource: 'log', namespace: object.metadata.namespace }]);
  return (
    <button
      disabled={podNames.length === 0 || refused !== undefined}
      title={refused ?? (podNames.length === 0 ? 'No pods yet' : `Logs of ${podNames.length} pod(s), merged`)}
      onClick={() => openDockTab({ id: `logs:${config.key}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`, type: 'logs', namespace: object.metadata.namespace ?? 'default', pods: podNames, selector, title: `logs ${config.kind.toLowerCase()}/${object.metadata.name ?? ''}` })}
      data-testid="action-logs"
    >
      Logs
    </button>
  );
}

function SummaryTab({ config, object }: { config: KindConfig; object: KubeObject }) {
  const summary = config.summary?.(object) ?? [];
  const conditions = conditionsOf(object);
  return (
    <div className="summary-grid">
      <Card title="Metadata">
        <dl className="fields">
          <dt>Name</dt>
          <dd className="mono">{object.metadata.name}</dd>
          {object.metadata.namespace && (
            <>
              <dt>Namespace</dt>
              <dd>
                <a href={linkHref({ kindKey: 'namespaces', name: object.metadata.namespace })}>{object.metadata.namespace}</a>
              </dd>
            </>
          )}
          <dt>Created</dt>
          <dd title={object.metadata.creationTimestamp}>
            <Age timestamp={object.metadata.creationTimestamp} /> ago <span className="hint">{object.metadata.creationTimestamp}</span>
          </dd>
          <dt>UID</dt>
          <dd className="mono">{object.metadata.uid}</dd>
          <dt>Labels</dt>
          <dd>
            <Chips record={object.metadata.labels} />
          </dd>
          <dt>Annotations</dt>
          <dd>
            <Chips record={object.metadata.annotations} long />
          </dd>
          {(object.metadata.finalizers?.length ?? 0) > 0 && (
            <>
              <dt>Finalizers</dt>
              <dd>{object.metadata.finalizers?.map((finalizer) => <span key={finalizer} className="chip mono">{finalizer}</span>)}</dd>
            </>
          )}
        </dl>
      </Card>
      {summary.length > 0 && (
        <Card title={config.kind}>
          <dl className="fields" data-testid="detail-summary">
            {summary.map((field, index) => (
              <FieldRow key={`${field.label}-${index}`} label={field.label} tone={field.tone} hint={field.hint}>
                {field.link ? <a href={linkHref(field.link)}>{field.value}</a> : field.value}
              </FieldRow>
            ))}
          </dl>
        </Card>
      )}
      {config.usage && !object.metadata.deletionTimestamp && (
        <KubedeskOnly feature="Usage history" compact>
          <UsageCard target={config.usage} object={object} selector={config.podSelector?.(object)} />
        </KubedeskOnly>
      )}
      <DetailSections config={config} object={object} />
      {(config.key === 'pods' || config.key === 'services') && (
        <Card title="Port forwarding">
          <PortForwardButtons config={config} object={object} />
        </Card>
      )}
      {conditions.length > 0 && (
        <Card title="Conditions" wide>
          <MiniTable testId="detail-conditions" columns={['Type', 'Status', 'Reason', 'Message', 'Last transition']}>
            {conditions.map((condition) => (
              <tr key={condition.type}>
                <td>{condition.type}</td>
                <td className={condition.tone ? `tone-${condition.tone}` : ''}>{condition.status}</td>
                <td>{condition.reason}</td>
                <td className="message">{condition.message}</td>
                <td title={condition.lastTransitionTime}>{condition.lastTransitionTime ? <><Age timestamp={condition.lastTransitionTime} /> ago</> : ''}</td>
              </tr>
            ))}
          </MiniTable>
        </Card>
      )}
      <RelationsCard config={config} object={object} />
      {config.podSelector && config.key !== 'pods' && <RelatedPods config={config} object={object} />}
      <Card title="Recent events" wide>
        <EventsSection object={object} limit={8} />
      </Card>
    </div>
  );
}

function Chips({ record, long }: { record: Record<string, string> | undefined; long?: boolean }) {
  const chips = chipsOf(record);
  if (chips.length === 0) return <span className="hint">none</span>;
  return (
    <div className="chips">
      {chips.map((chip) => (
        <span key={chip.key} className="chip mono" title={`${chip.key}=${chip.value}`}>
          {chip.key}={long && chip.value.length > 80 ? `${chip.value.slice(0, 80)}…` : chip.value}
        </span>
      ))}
    </div>
  );
}

function RelationsCard({ config, object }: { config: KindConfig; object: KubeObject }) {
  const kinds = useKinds();
  const owners = ownersOf(object, kinds);
  const childConfig = kindByKey(kinds, childKindKeys(config.key)[0] ?? '');
  const children = useCollection(childConfig);
  const owned = useMemo(() => ownedBy(Object.values(children.items), object.metadata.uid), [children.items, object.metadata.uid]);
  if (owners.length === 0 && !childConfig) return null;
  return (
    <Card title="Owners and owned objects">
      <dl className="fields" data-testid="detail-relations">
        <dt>Owned by</dt>
        <dd>
          {owners.length === 0 ? (
            <span className="hint">none</span>
          ) : (
            owners.map((owner) => (
              <div key={`${owner.kind}/${owner.name}`}>
                {owner.kind}{' '}
                {owner.link ? <a href={linkHref(owner.link)}>{owner.name}</a> : owner.name}
                {owner.controller && <span className="hint"> (controller)</span>}
              </div>
            ))
          )}
        </dd>
        {childConfig && (
          <>
            <dt>{childConfig.title}</dt>
            <dd>
              {owned.length === 0 ? (
                <span className="hint">{children.phase === 'ready' ? 'none' : 'loading…'}</span>
              ) : (
                owned.map((child) => (
                  <div key={child.metadata.uid ?? objectKey(child)}>
                    <a href={linkHref({ kindKey: childConfig.key, namespace: child.metadata.namespace, name: child.metadata.name ?? '' })}>{child.metadata.name}</a>{' '}
                    <ToneText config={childConfig} object={child} />
                  </div>
                ))
              )}
            </dd>
          </>
        )}
      </dl>
    </Card>
  );
}

function ToneText({ config, object }: { config: KindConfig; object: KubeObject }) {
  const field = config.summary?.(object).find((candidate) => candidate.tone !== undefined);
  if (!field) return null;
  return <span className={`hint tone-${field.tone ?? 'muted'}`}>{field.value}</span>;
}

function RelatedPods({ config, object }: { config: KindConfig; object: KubeObject }) {
  const podCollection = useCollection(podKind);
  const selector = config.podSelector?.(object);
  const matching = useMemo(() => podsMatching(Object.values(podCollection.items), object.metadata.namespace, selector), [podCollection.items, object.metadata.namespace, JSON.stringify(selector)]);
  return (
    <Card title={`Pods (${matching.length})`} wide>
      {matching.length === 0 ? (
        <div className="hint">{podCollection.phase === 'ready' ? 'No pods match the selector.' : 'loading…'}</div>
      ) : (
        <MiniTable testId="detail-pods" columns={['Name', 'Status', 'Node', 'Age']}>
          {matching.map((pod) => {
            const status = podKind.summary?.(pod)[0];
            return (
              <tr key={pod.metadata.uid ?? pod.metadata.name}>
                <td>
                  <a href={linkHref({ kindKey: 'pods', namespace: pod.metadata.namespace, name: pod.metadata.name ?? '' })}>{pod.metadata.name}</a>
                </td>
                <td className={status?.tone ? `tone-${status.tone}` : ''}>{status?.value}</td>
                <td>{stringField(pod, 'spec', 'nodeName')}</td>
                <td>
                  <Age timestamp={pod.metadata.creationTimestamp} />
                </td>
              </tr>
            );
          })}
        </MiniTable>
      )}
    </Card>
  );
}

function EventsSection({ object, limit }: { object: KubeObject; limit?: number }) {
  const eventCollection = useCollection(eventKind);
  const rows = useMemo(() => eventsAbout(Object.values(eventCollection.items), object.metadata.uid), [eventCollection.items, object.metadata.uid]);
  const shown = limit ? rows.slice(0, limit) : rows;
  if (rows.length === 0) return <div className="hint" data-testid="detail-events">{eventCollection.phase === 'ready' ? 'No events.' : 'loading…'}</div>;
  return (
    <MiniTable testId="detail-events" className="events" columns={['Type', 'Reason', 'Age', 'From', 'Message']}>
      {shown.map((event) => (
        <tr key={event.uid} className={event.type === 'Warning' ? 'warning' : ''} data-uid={event.uid} data-reason={event.reason}>
          <td className={event.type === 'Warning' ? 'tone-warn' : 'tone-muted'}>{event.type}</td>
          <td>{event.reason}</td>
          <td title={event.time}>
            <Age timestamp={event.time} />
            {event.count > 1 ? ` (x${event.count})` : ''}
          </td>
          <td>{event.source}</td>
          <td className="message">{event.message}</td>
        </tr>
      ))}
      {limit && rows.length > limit && (
        <tr>
          <td colSpan={5} className="hint">
            {rows.length - limit} older event(s) in the Events tab
          </td>
        </tr>
      )}
    </MiniTable>
  );
}
