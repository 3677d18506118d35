// The namespace picker: all namespaces, one, or several; the choice is remembered. A combobox
// (WAI-ARIA pattern): typing filters, ↑/↓ move through the options, Enter picks only the active
// one, Space adds or removes it (several namespaces), Escape closes. With the mouse, a name picks
// only that namespace and its box adds it to the selection.
import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useAppState, useCollection } from '../context';
import { namespaces as namespacesKind } from '../kinds';
import { PickerButton, useActiveOptionInView, useCloseOnOutsidePress } from './pickerMenu';

export function NamespacePicker() {
  const collection = useCollection(namespacesKind);
  const selected = useAppState((state) => state.selectedNamespaces);
  const setNamespaces = useAppState((state) => state.setNamespaces);
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const id = useId();
  const names = useMemo(() => Object.values(collection.items).map((namespace) => namespace.metadata.name ?? '').sort(), [collection.items]);
  const shown = names.filter((name) => name.includes(query.trim()));
  // option 0 is "All namespaces", then the names shown
  const optionCount = shown.length + 1;

  useCloseOnOutsidePress(root, open, useCallback(() => setOpen(false), []));
  // typing moves to the first match
  useEffect(() => setActive(query.trim() && shown.length > 0 ? 1 : 0), [query]);
  useActiveOptionInView(listRef, active);

  const label = selected.length === 0 ? 'All namespaces' : selected.length === 1 ? selected[0] : `${selected.length} namespaces`;
  const toggle = (name: string) => setNamespaces(selected.includes(name) ? selected.filter((item) => item !== name) : [...selected, name]);
  const close = (refocus: boolean) => {
    setOpen(false);
    setQuery('');
    if (refocus) button.current?.focus();
  };
  const only = (name: string | undefined) => {
    setNamespaces(name === undefined ? [] : [name]);
    close(true);
  };
  const optionId = (index: number) => `${id}-option-${index}`;

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const move = (next: number) => {
      event.preventDefault();
      setActive((next + optionCount) % optionCount);
    };
    if (event.key === 'ArrowDown') move(active + 1);
    else if (event.key === 'ArrowUp') move(active - 1);
    else if (event.key === 'PageDown') move(Math.min(optionCount - 1, active + 10));
    else if (event.key === 'PageUp') move(Math.max(0, active - 10));
    else if (event.key === 'Enter') {
      event.preventDefault();
      only(active === 0 ? undefined : shown[active - 1]);
    } else if (event.key === ' ') {
      // namespace names have no spaces: Space toggles the active option instead of typing
      event.preventDefault();
      if (active === 0) setNamespaces([]);
      else if (shown[active - 1]) toggle(shown[active - 1]);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close(true);
    } else if (event.key === 'Tab') close(false);
  };

  return (
    <div className="namespace-picker" ref={root}>
      <PickerButton buttonRef={button} open={open} setOpen={setOpen} label={`Namespaces: ${label}`} testId="namespace-picker">
        {label} ▾
      </PickerButton>
      {open && (
        <div className="picker-menu">
          <input
            autoFocus
            role="combobox"
            aria-label="Find namespace"
            aria-expanded="true"
            aria-controls={`${id}-list`}
            aria-activedescendant={optionId(active)}
            aria-autocomplete="list"
            placeholder="Find namespace"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            onKeyDown={onKeyDown}
            data-testid="namespace-query"
          />
          <ul id={`${id}-list`} ref={listRef} className="picker-options" role="listbox" aria-multiselectable="true" aria-label="Namespaces">
            <li id={optionId(0)} data-index={0} role="option" aria-selected={selected.length === 0} className={`option${selected.length === 0 ? ' checked' : ''}${active === 0 ? ' active' : ''}`} onMouseDown={(event) => event.preventDefault()} onClick={() => only(undefined)} data-testid="namespace-option-all">
              <span className="option-box" aria-hidden="true" />
              All namespaces
            </li>
            {shown.map((name, index) => {
              const checked = selected.includes(name);
              return (
                <li
                  key={name}
                  id={optionId(index + 1)}
                  data-index={index + 1}
                  role="option"
                  aria-selected={checked}
                  className={`option${checked ? ' checked' : ''}${active === index + 1 ? ' active' : ''}`}
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => only(name)}
                  data-testid={`namespace-option-${name}`}
                >
                  <span
                    className="option-box"
                    aria-hidden="true"
                    title="Add to the selection"
                    onClick={(event) => {
                      event.stopPropagation();
                      toggle(name);
                    }}
                  >
                    {checked ? '✓' : ''}
                  </span>
                  {name}
                </li>
              );
            })}
          </ul>
          <div className="hint picker-keys">Enter: only this · Space: add or remove · Esc: close</div>
        </div>
      )}
    </div>
  );
}
