// A popup menu of actions (a list row's ⋯ button and its right-click menu), following the WAI-ARIA
// menu pattern: role="menu" with a label, role="menuitem" entries, focus on the first entry when it
// opens, ↑/↓/Home/End to move, Enter/Space to run, Escape or Tab or a click outside to close (focus
// goes back to where it was). Disabled entries stay in the list with their reason as a hint.
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';

export interface MenuItem {
  id: string;
  title: string;
  danger?: boolean;
  /** why the entry cannot run now */
  disabled?: string;
  run(): void;
}

export function ActionMenu({ label, items, x, y, onClose, testId }: { label: string; items: MenuItem[]; x: number; y: number; onClose(): void; testId?: string }) {
  const menuRef = useRef<HTMLDivElement>(null);
  const [position, setPosition] = useState({ left: x, top: y });
  const returnFocus = useRef<Element | null>(typeof document === 'undefined' ? null : document.activeElement);

  // keep the menu inside the window
  useLayoutEffect(() => {
    const menu = menuRef.current;
    if (!menu) return;
    const { width, height } = menu.getBoundingClientRect();
    setPosition({ left: Math.max(4, Math.min(x, window.innerWidth - width - 4)), top: Math.max(4, Math.min(y, window.innerHeight - height - 4)) });
    menu.querySelector<HTMLButtonElement>('[role="menuitem"]:not([aria-disabled="true"])')?.focus();
  }, [x, y]);

  useEffect(() => {
    const close = (event: MouseEvent) => {
      if (menuRef.current && !menuRef.current.contains(event.target as Node)) onClose();
    };
    document.addEventListener('mousedown', close);
    window.addEventListener('blur', onClose);
    const previous = returnFocus.current;
    return () => {
      document.removeEventListener('mousedown', close);
      window.removeEventListener('blur', onClose);
      if (previous instanceof HTMLElement && document.contains(previous)) previous.focus();
    };
  }, [onClose]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const entries = [...(menuRef.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])];
    const index = entries.indexOf(document.activeElement as HTMLButtonElement);
    const move = (next: number) => {
      event.preventDefault();
      entries[(next + entries.length) % entries.length]?.focus();
    };
    if (event.key === 'ArrowDown') move(index + 1);
    else if (event.key === 'ArrowUp') move(index - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(entries.length - 1);
    else if (event.key === 'Escape' || event.key === 'Tab') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
    }
  };

  return (
    <div ref={menuRef} className="action-menu" role="menu" aria-label={label} style={{ left: position.left, top: position.top }} onKeyDown={onKeyDown} data-testid={testId}>
      {items.map((item) => (
        <button
          key={item.id}
          role="menuitem"
          className={item.danger ? 'danger-text' : ''}
          aria-disabled={item.disabled !== undefined}
          title={item.disabled}
          data-testid={`menu-${item.id}`}
          onClick={() => {
            if (item.disabled !== undefined) return;
            onClose();
            item.run();
          }}
        >
          {item.title}
          {item.disabled !== undefined && <span className="hint menu-reason">{item.disabled}</span>}
        </button>
      ))}
    </div>
  );
}
