// The Ctrl/Cmd+K command palette: one input over places, kinds (`deploy`, `po`, every kind
// discovery lists), every object of every kind — from the watch caches, and for kinds no view
// watches listed when the palette opens (searchIndex.ts) —, the current object's actions, themes
// and namespaces. Entries are built when the palette opens or a listing arrives (object entries
// are cached per object version); each keystroke is one linear scan of precomputed lowercase keys
// (fuzzy.ts) keeping the best MAX_RESULTS.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { actionsFor } from '../actions/actions';
import { useDialogs } from '../components/Modal';
import { useAppState, useCollection, useKinds, useServices } from '../context';
import { namespaces as namespacesKind } from '../kinds';
import type { KubeClient } from '../api/kubeClient';
import { rank } from './fuzzy';
import { actionEntries, clusterEntries, entryBoost, kindEntries, kindsToIndex, namespaceEntries, navigationEntries, objectEntries, themeEntries, type PaletteEntry } from './paletteModel';
import { PaletteSearchIndex } from './searchIndex';
import { usePermissions } from '../views/permissions/usePermissions';

const MAX_RESULTS = 50;

// one index per client, kept while the page lives, so reopening the palette reuses fresh listings
const searchIndexes = new WeakMap<KubeClient, PaletteSearchIndex>();

function searchIndexFor(client: KubeClient): PaletteSearchIndex {
  let index = searchIndexes.get(client);
  if (!index) searchIndexes.set(client, (index = new PaletteSearchIndex(client)));
  return index;
}

export function CommandPalette() {
  const open = useAppState((state) => state.paletteOpen);
  const dialogs = useDialogs();
  return (
    <>
      {open && <PaletteDialog confirm={dialogs.confirm} prompt={dialogs.prompt} />}
      {dialogs.element}
    </>
  );
}

function PaletteDialog({ confirm, prompt }: { confirm(message: string, detail?: string): Promise<boolean>; prompt(message: string, initial: string): Promise<string | undefined> }) {
  const services = useServices();
  const kinds = useKinds();
  const namespaceCollection = useCollection(namespacesKind);
  const collections = useAppState((state) => state.collections);
  const route = useAppState((state) => state.route);
  const theme = useAppState((state) => state.theme);
  const selectedNamespaces = useAppState((state) => state.selectedNamespaces);
  const clusterList = useAppState((state) => state.clusterList);
  const cluster = useAppState((state) => state.cluster);
  const discovered = useAppState((state) => state.discovered);
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState(0);
  const listRef = useRef<HTMLDivElement>(null);
  const index = searchIndexFor(services.client);
  // every kind is needed now, not in a moment
  useEffect(() => services.store.getState().wantDiscovery(), [services.store]);
  const [indexVersion, setIndexVersion] = useState(0);
  useEffect(() => index.subscribe(() => setIndexVersion((version) => version + 1)), [index]);
  // list the kinds no view watches, once when the palette opens (and when discovery adds kinds)
  const toIndex = useMemo(() => kindsToIndex(kinds, discovered, services.store.getState().collections), [kinds, discovered, services.store]);
  useEffect(() => index.refresh(toIndex), [index, toIndex]);

  const close = () => services.store.getState().setPaletteOpen(false);

  const can = usePermissions();
  const currentObject = useMemo(() => {
    if (route.view !== 'detail') return undefined;
    const kind = kinds.find((candidate) => candidate.key === route.kindKey);
    const object = collections[route.kindKey]?.items[route.namespace ? `${route.namespace}/${route.name}` : route.name];
    return kind && object ? { kind, object } : undefined;
  }, [route, kinds, collections]);

  const entries = useMemo<PaletteEntry[]>(() => {
    let actions: PaletteEntry[] = [];
    if (currentObject) {
      try {
        actions = actionEntries(actionsFor(currentObject.kind, currentObject.object, can), currentObject.object.metadata.name ?? '');
      } catch {
        actions = [];
      }
    }
    const namespaceNames = Object.values(namespaceCollection.items).map((namespace) => namespace.metadata.name ?? '');
    return [...actions, ...navigationEntries(), ...kindEntries(kinds), ...namespaceEntries(namespaceNames, selectedNamespaces), ...clusterEntries(clusterList?.clusters ?? [], cluster), ...themeEntries(theme), ...objectEntries(collections, kinds, (kindKey) => index.get(kindKey)?.items)];
    // indexVersion: a listing arrived
  }, [currentObject, can, namespaceCollection.items, kinds, selectedNamespaces, theme, collections, index, indexVersion, clusterList, cluster]);

  const results = useMemo(() => rank(entries, query, (entry) => entry.key, MAX_RESULTS, (entry) => entryBoost(entry, query)), [entries, query]);
  const truncated = useMemo(() => toIndex.filter((kind) => index.get(kind.key)?.truncated).map((kind) => kind.title), [toIndex, index, indexVersion]);

  useEffect(() => setSelected(0), [query]);
  useEffect(() => {
    listRef.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  const run = (entry: PaletteEntry | undefined) => {
    if (!entry || entry.disabled) return;
    const state = services.store.getState();
    close();
    const command = entry.command;
    switch (command.type) {
      case 'navigate':
        state.navigate(command.route);
        return;
      case 'theme':
        state.setTheme(command.theme);
        return;
      case 'namespaces':
        state.setNamespaces(command.namespaces);
        return;
      case 'cluster':
        state.switchCluster(command.cluster);
        return;
      case 'action':
        command.action.run({ ...services, confirm, prompt }).catch((error: unknown) => state.notify('error', `${command.action.title}: ${error instanceof Error ? error.message : String(error)}`));
        return;
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const last = results.length - 1;
    if (event.key === 'ArrowDown') setSelected((index) => (index >= last ? 0 : index + 1));
    else if (event.key === 'ArrowUp') setSelected((index) => (index <= 0 ? Math.max(0, last) : index - 1));
    else if (event.key === 'PageDown') setSelected((index) => Math.min(last, index + 8));
    else if (event.key === 'PageUp') setSelected((index) => Math.max(0, index - 8));
    else if (event.key === 'Enter') run(results[selected]?.item);
    else if (event.key === 'Escape') close();
    else return;
    event.preventDefault();
  };

  return (
    <div className="palette-backdrop" onMouseDown={(event) => event.target === event.currentTarget && close()}>
      <div className="palette" role="dialog" aria-modal="true" aria-label="Command palette">
        <input
          autoFocus
          className="palette-input"
          placeholder="Go to a kind (deploy, po…), an object, an action, ns: kube-system, theme…"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={onKeyDown}
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-results"
          aria-activedescendant={results[selected] ? `palette-${selected}` : undefined}
          data-testid="palette-input"
        />
        <div className="palette-results" id="palette-results" role="listbox" ref={listRef}>
          {results.length === 0 && <div className="palette-empty">Nothing matches “{query}”.</div>}
          {results.map(({ item }, index) => (
            <div
              key={item.id}
              id={`palette-${index}`}
              role="option"
              aria-selected={index === selected}
              aria-disabled={item.disabled ? true : undefined}
              title={item.disabled}
              className={`palette-item${index === selected ? ' selected' : ''}${item.disabled ? ' disabled' : ''}`}
              onMouseMove={() => index !== selected && setSelected(index)}
              onClick={() => run(item)}
              data-testid="palette-item"
              data-id={item.id}
            >
              <span className={`palette-group group-${item.group.replace(/\s+/g, '-').toLowerCase()}`}>{item.group}</span>
              <span className="palette-title">{item.title}</span>
              {item.detail && <span className="palette-detail">{item.detail}</span>}
            </div>
          ))}
        </div>
        <div className="palette-footer hint">
          <kbd>↑</kbd> <kbd>↓</kbd> to move · <kbd>Enter</kbd> to open · <kbd>Esc</kbd> to close
          {index.pending > 0 && (
            <span className="palette-searching" data-testid="palette-searching">
              {' '}
              · <span className="spinner" /> searching {index.pending} more kind{index.pending === 1 ? '' : 's'}…
            </span>
          )}
          {truncated.length > 0 && <span title={truncated.join(', ')}> · only the first 500 {truncated.length === 1 ? `${truncated[0]} objects are` : 'objects of some kinds are'} searched; open the list for all</span>}
        </div>
      </div>
    </div>
  );
}
