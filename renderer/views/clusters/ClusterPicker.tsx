// The cluster picker in the top bar: the serving cluster first ("This cluster"), then the local
// kubedesk clusters (contexts kubedesk-*), then every other context of the kubeconfig with its
// server's host:port; a context that skips TLS verification is marked. A combobox like the
// namespace picker (typing filters, ↑/↓, Enter picks, Escape closes). The list is read when the
// page signs in and again each time the picker opens (the relay re-reads a changed kubeconfig).
import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useAppState, useServices } from '../../context';
import { PickerButton, useActiveOptionInView, useCloseOnOutsidePress } from '../../components/pickerMenu';
import { choiceName, clusterDescription, clusterGroup, clusterLabel, orderClusters, parseClusterList, type ClusterEntry, type ClusterGroup } from '../../api/clusters';
import type { AppStore } from '../../store/store';

const GROUP_TITLES: Record<ClusterGroup, string> = { self: 'This cluster', local: 'Local kubedesk clusters', kubeconfig: 'Kubeconfig contexts' };

/** Reads GET /ui/clusters into the store; a server without the relay (404) leaves the list empty. */
export async function loadClusterList(store: AppStore): Promise<void> {
  try {
    const response = await fetch('/ui/clusters', { credentials: 'same-origin', cache: 'no-store' });
    if (!response.ok) return;
    store.getState().setClusterList(parseClusterList((await response.json()) as unknown));
  } catch {
    // unreachable: the connection monitor speaks about that
  }
}

export function ClusterPicker() {
  const { store } = useServices();
  const list = useAppState((state) => state.clusterList);
  const cluster = useAppState((state) => state.cluster);
  const switchCluster = useAppState((state) => state.switchCluster);
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const id = useId();

  useEffect(() => {
    void loadClusterList(store);
  }, [store]);
  useEffect(() => {
    if (open) void loadClusterList(store);
  }, [open, store]);
  useCloseOnOutsidePress(root, open, useCallback(() => setOpen(false), []));

  const ordered = useMemo(() => orderClusters(list?.clusters ?? []), [list]);
  const typed = query.trim().toLowerCase();
  const shown = ordered.filter((entry) => !typed || `${entry.name} ${entry.server}`.toLowerCase().includes(typed));
  useEffect(() => setActive(0), [query]);
  useActiveOptionInView(listRef, active);

  const currentEntry = ordered.find((entry) => choiceName(entry) === cluster);
  const label = clusterLabel(cluster, list);
  const close = (refocus: boolean) => {
    setOpen(false);
    setQuery('');
    if (refocus) button.current?.focus();
  };
  const pick = (entry: ClusterEntry | undefined) => {
    if (entry) switchCluster(choiceName(entry));
    close(true);
  };
  const optionId = (index: number) => `${id}-option-${index}`;
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const count = Math.max(1, shown.length);
    const move = (next: number) => {
      event.preventDefault();
      setActive((next + count) % count);
    };
    if (event.key === 'ArrowDown') move(active + 1);
    else if (event.key === 'ArrowUp') move(active - 1);
    else if (event.key === 'Enter') {
      event.preventDefault();
      pick(shown[active]);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close(true);
    } else if (event.key === 'Tab') close(false);
  };

  let previousGroup: ClusterGroup | undefined;
  return (
    <div className="namespace-picker cluster-picker" ref={root}>
      <PickerButton buttonRef={button} open={open} setOpen={setOpen} label={`Cluster: ${label}`} title={currentEntry ? clusterDescription(currentEntry) : undefined} testId="cluster-picker">
        {currentEntry?.insecure && <span className="tone-warn" aria-hidden="true">⚠ </span>}
        {label} ▾
      </PickerButton>
      {open && (
        <div className="picker-menu cluster-menu">
          <input
            autoFocus
            role="combobox"
            aria-label="Find cluster"
            aria-expanded="true"
            aria-controls={`${id}-list`}
            aria-activedescendant={shown.length ? optionId(active) : undefined}
            aria-autocomplete="list"
            placeholder="Find cluster"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            onKeyDown={onKeyDown}
            data-testid="cluster-query"
          />
          {list?.error && <div className="hint tone-warn" data-testid="cluster-list-error">{list.error}</div>}
          {!list && <div className="hint">This server lists no other clusters.</div>}
          <ul id={`${id}-list`} ref={listRef} className="picker-options" role="listbox" aria-label="Clusters">
            {shown.map((entry, index) => {
              const group = clusterGroup(entry);
              const heading = group !== previousGroup ? GROUP_TITLES[group] : undefined;
              previousGroup = group;
              const checked = choiceName(entry) === cluster;
              return [
                heading && (
                  <li key={`group-${group}`} role="presentation" className="picker-group">
                    {heading}
                  </li>
                ),
                <li
                  key={entry.name}
                  id={optionId(index)}
                  data-index={index}
                  role="option"
                  aria-selected={checked}
                  className={`option cluster-option${checked ? ' checked' : ''}${active === index ? ' active' : ''}`}
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => pick(entry)}
                  title={entry.insecure ? 'insecure-skip-tls-verify: the server’s certificate is not checked' : undefined}
                  data-testid={`cluster-option-${entry.name}`}
                  data-group={group}
                >
                  <span className="cluster-option-name">
                    {entry.self ? `This cluster (${entry.name})` : entry.name}
                    {entry.insecure && <span className="tone-warn"> ⚠ insecure</span>}
                  </span>
                  <span className="hint">{clusterDescription(entry).replace(/^This cluster — /, '')}</span>
                </li>,
              ];
            })}
          </ul>
          <div className="hint picker-keys">Enter: switch · Esc: close · Settings → Clusters for local clusters</div>
        </div>
      )}
    </div>
  );
}
