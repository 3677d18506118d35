// The namespace picker: all namespaces, one, or several (checkboxes); the choice is remembered.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useAppState, useCollection } from '../context';
import { namespaces as namespacesKind } from '../kinds';

export function NamespacePicker() {
  const collection = useCollection(namespacesKind);
  const selected = useAppState((state) => state.selectedNamespaces);
  const setNamespaces = useAppState((state) => state.setNamespaces);
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const root = useRef<HTMLDivElement>(null);
  const names = useMemo(() => Object.values(collection.items).map((namespace) => namespace.metadata.name ?? '').sort(), [collection.items]);
  useEffect(() => {
    if (!open) return;
    const close = (event: MouseEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [open]);
  const label = selected.length === 0 ? 'All namespaces' : selected.length === 1 ? selected[0] : `${selected.length} namespaces`;
  const toggle = (name: string) => setNamespaces(selected.includes(name) ? selected.filter((item) => item !== name) : [...selected, name]);
  const shown = names.filter((name) => name.includes(query));
  return (
    <div className="namespace-picker" ref={root}>
      <button className="picker-button" onClick={() => setOpen(!open)} aria-haspopup="listbox" aria-expanded={open} data-testid="namespace-picker">
        {label} ▾
      </button>
      {open && (
        <div className="picker-menu" role="listbox" aria-multiselectable>
          <input autoFocus placeholder="Find namespace" value={query} onChange={(event) => setQuery(event.target.value)} onKeyDown={(event) => event.key === 'Escape' && setOpen(false)} />
          <button
            className={selected.length === 0 ? 'option checked' : 'option'}
            onClick={() => {
              setNamespaces([]);
              setOpen(false);
            }}
          >
            All namespaces
          </button>
          {shown.map((name) => (
            <label key={name} className="option">
              <input type="checkbox" checked={selected.includes(name)} onChange={() => toggle(name)} />
              <span
                onClick={(event) => {
                  // clicking the name picks only this namespace; the box adds to the selection
                  event.preventDefault();
                  setNamespaces([name]);
                  setOpen(false);
                }}
              >
                {name}
              </span>
            </label>
          ))}
        </div>
      )}
    </div>
  );
}
