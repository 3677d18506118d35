// The generic components that draw a kind's detail sections (KindConfig.sections): label/value
// fields, tables whose cells may link to objects or URLs or hold hidden secrets, a data viewer per
// ConfigMap/Secret key, and the containers of a pod with their Shell and Logs buttons. The
// sections are plain data computed by the kind's pure functions from the object and the watch
// caches of the kinds it names in relatedKinds.
import { useMemo, useState } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { useAppState, useCollections, useKinds } from '../../context';
import { kindByKey } from '../../kinds';
import type { DataEntry, DetailCell, DetailSection, KindConfig, ObjectLookup } from '../../kinds/kindConfig';
import { mountText, type ContainerDetail } from '../../kinds/podDetails';
import { openExternalLink } from '../../terminals/ShellTerminal';
import { Age } from '../ResourceList';
import { usePermissions } from '../permissions/usePermissions';
import { refusal } from '../permissions/permissionsModel';
import { Card, CopyButton, FieldRow, linkHref, MiniTable, SecretValue } from './cards';

/** The related kinds' caches as an ObjectLookup (watched while the page shows). */
export function useObjectLookup(config: KindConfig): ObjectLookup {
  const kinds = useKinds();
  const keys = (config.relatedKinds ?? []).join(',');
  const related = useMemo(() => (keys ? keys.split(',') : []).flatMap((key) => kindByKey(kinds, key) ?? []), [keys, kinds]);
  const collections = useCollections(related);
  return useMemo<ObjectLookup>(
    () => ({
      get: (kindKey, namespace, name) => collections[kindKey]?.items[namespace ? `${namespace}/${name}` : name],
      items: (kindKey) => Object.values(collections[kindKey]?.items ?? {}),
      ready: (kindKey) => collections[kindKey]?.phase === 'ready',
    }),
    [collections],
  );
}

export function DetailSections({ config, object }: { config: KindConfig; object: KubeObject }) {
  const lookup = useObjectLookup(config);
  const sections = useMemo(() => config.sections?.(object, lookup) ?? [], [config, object, lookup]);
  return (
    <>
      {sections.map((section) => (
        <Section key={section.id} section={section} object={object} />
      ))}
    </>
  );
}

function Section({ section, object }: { section: DetailSection; object: KubeObject }) {
  switch (section.type) {
    case 'fields':
      return (
        <Card title={section.title} wide={section.wide} testId={`section-${section.id}`}>
          <dl className="fields">
            {section.fields.map((field, index) => (
              <FieldRow key={`${field.label}-${index}`} label={field.label} tone={field.tone} hint={field.hint}>
                {field.link ? <a href={linkHref(field.link)}>{field.value}</a> : field.value}
              </FieldRow>
            ))}
          </dl>
        </Card>
      );
    case 'table':
      return (
        <Card title={section.title} wide={section.wide} testId={`section-${section.id}`}>
          {section.rows.length === 0 ? (
            <div className="hint">{section.empty ?? 'None.'}</div>
          ) : (
            <MiniTable testId={`table-${section.id}`} columns={section.columns}>
              {section.rows.map((row, rowIndex) => (
                <tr key={rowIndex}>
                  {row.map((cell, cellIndex) => (
                    <td key={cellIndex} className={cellClass(cell)} title={cell.hint}>
                      <CellContent cell={cell} name={`${section.columns[cellIndex] ?? ''} ${row[0]?.text ?? ''}`} testId={`cell-${section.id}-${rowIndex}-${cellIndex}`} />
                    </td>
                  ))}
                </tr>
              ))}
            </MiniTable>
          )}
        </Card>
      );
    case 'data':
      return <DataSection title={section.title} id={section.id} entries={section.entries} secret={section.secret} />;
    case 'containers':
      return <ContainersSection title={section.title} pod={object} containers={section.containers} />;
  }
}

function cellClass(cell: DetailCell): string {
  return [cell.tone ? `tone-${cell.tone}` : '', cell.mono ? 'mono' : '', cell.hint ? 'has-hint' : ''].filter(Boolean).join(' ');
}

function CellContent({ cell, name, testId }: { cell: DetailCell; name: string; testId: string }) {
  if (cell.secret) return <SecretValue value={cell.text} name={name.trim()} testId={testId} />;
  if (cell.link) return <a href={linkHref(cell.link)}>{cell.text}</a>;
  if (cell.href) {
    const href = cell.href;
    return (
      <a
        href={href}
        target="_blank"
        rel="noopener noreferrer"
        onClick={(event) => {
          event.preventDefault();
          openExternalLink(href);
        }}
      >
        {cell.text}
      </a>
    );
  }
  return <>{cell.text}</>;
}

/** Each key of a ConfigMap or Secret: size, a viewer (ConfigMaps) or Reveal (Secrets), and Copy. */
function DataSection({ title, id, entries, secret }: { title: string; id: string; entries: DataEntry[]; secret: boolean }) {
  // small ConfigMaps open every key at once; Secrets never do
  const [open, setOpen] = useState<Set<string>>(() => new Set(!secret && entries.length <= 4 ? entries.map((entry) => entry.key) : []));
  const toggle = (key: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  return (
    <Card title={`${title} (${entries.length})`} wide testId={`section-${id}`}>
      {entries.length === 0 ? (
        <div className="hint">No keys.</div>
      ) : (
        <ul className="data-keys">
          {entries.map((entry) => {
            const shown = open.has(entry.key);
            const lines = entry.value.replace(/\n$/, '').split('\n').length;
            return (
              <li key={entry.key} className="data-key" data-testid={`data-key-${entry.key}`}>
                <div className="data-key-head">
                  <span className="mono data-key-name">{entry.key}</span>
                  <span className="hint">
                    {entry.binary ? `binary, ${entry.size} bytes` : `${entry.size} bytes${lines > 1 ? `, ${lines} lines` : ''}`}
                  </span>
                  {!entry.binary && (
                    <span className="data-key-actions">
                      <button className="ghost small" aria-expanded={shown} aria-label={`${shown ? 'Hide' : secret ? 'Reveal' : 'View'} ${entry.key}`} onClick={() => toggle(entry.key)} data-testid={`data-toggle-${entry.key}`}>
                        {shown ? 'Hide' : secret ? 'Reveal' : 'View'}
                      </button>
                      <CopyButton text={entry.value} label={`Copy ${entry.key}`} testId={`data-copy-${entry.key}`} />
                    </span>
                  )}
                </div>
                {!entry.binary && (shown ? <pre className="data-value" data-testid={`data-value-${entry.key}`}>{entry.value}</pre> : secret ? <div className="mono hint" data-testid={`data-value-${entry.key}`}>••••••••</div> : null)}
              </li>
            );
          })}
        </ul>
      )}
    </Card>
  );
}

/** A pod's containers: state, restarts and last termination, image, ports, resources, probes, mounts and environment. */
function ContainersSection({ title, pod, containers }: { title: string; pod: KubeObject; containers: ContainerDetail[] }) {
  const openDockTab = useAppState((state) => state.openDockTab);
  const namespace = pod.metadata.namespace ?? 'default';
  const name = pod.metadata.name ?? '';
  const can = usePermissions();
  const shellRefused = refusal(can, [{ verb: 'create', group: '', resource: 'pods', subresource: 'exec', namespace, name }]);
  const logsRefused = refusal(can, [{ verb: 'get', group: '', resource: 'pods', subresource: 'log', namespace, name }]);
  return (
    <Card title={title} wide testId="detail-containers">
      {containers.map((container) => (
        <div key={`${container.init ? 'init:' : ''}${container.name}`} className="container-block" data-container={container.name}>
          <div className="container-head">
            <strong className="mono">{container.name}</strong>
            {container.init && <span className="hint">init container</span>}
            <span className={`status-pill tone-${container.tone ?? 'muted'}`} data-testid={`container-state-${container.name}`}>
              {container.state}
            </span>
            <span className={container.ready ? 'tone-ok' : 'hint'}>{container.ready ? 'ready' : 'not ready'}</span>
            <span className={container.restarts > 0 ? 'tone-warn' : 'hint'} data-testid={`container-restarts-${container.name}`}>
              {container.restarts} restart{container.restarts === 1 ? '' : 's'}
            </span>
            <span className="container-actions">
              <button
                disabled={!container.exec.enabled || shellRefused !== undefined}
                title={!container.exec.enabled ? container.exec.reason : (shellRefused ?? `Open a shell in ${container.name}`)}
                onClick={() => openDockTab({ id: `shell:${namespace}/${name}/${container.name}`, type: 'shell', namespace, pod: name, container: container.name, title: `sh ${name}/${container.name}` })}
                data-testid={`container-shell-${container.name}`}
              >
                Shell
              </button>
              <button disabled={logsRefused !== undefined} title={logsRefused} onClick={() => openDockTab({ id: `logs:${namespace}/${name}/${container.name}`, type: 'logs', namespace, pods: [name], container: container.name, title: `logs ${name}/${container.name}` })} data-testid={`container-logs-${container.name}`}>
                Logs
              </button>
            </span>
          </div>
          <dl className="fields">
            <dt>Image</dt>
            <dd className="mono">{container.image}</dd>
            {container.command && (
              <>
                <dt>Command</dt>
                <dd className="mono">{container.command}</dd>
              </>
            )}
            {container.lastTermination && (
              <>
                <dt>Last termination</dt>
                <dd className={container.lastTermination.exitCode === 0 ? '' : 'tone-error'} data-testid={`container-last-termination-${container.name}`} title={container.lastTermination.message}>
                  {container.lastTermination.reason}
                  {container.lastTermination.exitCode !== undefined ? `, exit code ${container.lastTermination.exitCode}` : ''}
                  {container.lastTermination.finishedAt && (
                    <span className="hint" title={container.lastTermination.finishedAt}>
                      {' '}
                      · finished <Age timestamp={container.lastTermination.finishedAt} /> ago
                    </span>
                  )}
                </dd>
              </>
            )}
            <dt>Ports</dt>
            <dd className="mono">{container.ports.join(', ') || <span className="hint">none</span>}</dd>
            <dt>Requests</dt>
            <dd className="mono">{container.requests || <span className="hint">none</span>}</dd>
            <dt>Limits</dt>
            <dd className="mono">{container.limits || <span className="hint">none</span>}</dd>
            {container.probes.map((probe) => (
              <FieldRow key={probe.kind} label={probe.kind}>
                <span className="mono">{probe.text}</span>
              </FieldRow>
            ))}
            <dt>Mounts</dt>
            <dd className="mono" data-testid={`container-mounts-${container.name}`}>
              {container.mounts.length === 0 ? <span className="hint">none</span> : container.mounts.map((mount) => <div key={`${mount.path}-${mount.volume}`}>{mountText(mount)}</div>)}
            </dd>
          </dl>
          {container.env.length > 0 && (
            <MiniTable testId={`container-env-${container.name}`} className="env-table" columns={['Variable', 'Value', 'From']}>
              {container.env.map((row, index) => (
                <tr key={`${row.name}-${index}`} data-env={row.name}>
                  <td className="mono">{row.name}</td>
                  <td className={`mono${row.problem ? ' tone-error' : ''}`}>{row.secret ? <SecretValue value={row.value} name={`value of ${row.name}`} testId={`env-${container.name}-${row.name}`} /> : row.value}</td>
                  <td>{row.link ? <a href={linkHref(row.link)}>{row.source}</a> : <span className="hint">{row.source}</span>}</td>
                </tr>
              ))}
            </MiniTable>
          )}
        </div>
      ))}
    </Card>
  );
}
