// What the top bar's pickers (namespaces, clusters) share, as the WAI-ARIA combobox pattern has
// it: a button that opens the menu (click, or ↓ on the button), the menu closing on a click
// outside it, and the active option kept in view while ↑/↓ move through the list.
import { useEffect, type ReactNode, type RefObject } from 'react';

/** Calls `onOutside` on a mouse press outside `root` while `open`. */
export function useCloseOnOutsidePress(root: RefObject<HTMLElement | null>, open: boolean, onOutside: () => void): void {
  useEffect(() => {
    if (!open) return;
    const press = (event: MouseEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) onOutside();
    };
    document.addEventListener('mousedown', press);
    return () => document.removeEventListener('mousedown', press);
  }, [root, open, onOutside]);
}

/** Scrolls the option with `data-index={active}` into view. */
export function useActiveOptionInView(list: RefObject<HTMLElement | null>, active: number): void {
  useEffect(() => {
    list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [list, active]);
}

/** The button that opens a picker's listbox. */
export function PickerButton({ buttonRef, open, setOpen, label, title, testId, children }: { buttonRef: RefObject<HTMLButtonElement | null>; open: boolean; setOpen(open: boolean): void; label: string; title?: string; testId: string; children: ReactNode }) {
  return (
    <button
      ref={buttonRef}
      className="picker-button"
      onClick={() => setOpen(!open)}
      onKeyDown={(event) => {
        if (event.key === 'ArrowDown' && !open) {
          event.preventDefault();
          setOpen(true);
        }
      }}
      aria-haspopup="listbox"
      aria-expanded={open}
      aria-label={label}
      title={title}
      data-testid={testId}
    >
      {children}
    </button>
  );
}
