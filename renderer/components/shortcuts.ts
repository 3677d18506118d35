// The keyboard shortcuts the `?` help lists, by where they work. The list keys are those of
// views/listModel.ts listKeyOf; the others are handled by their components.

export interface Shortcut {
  keys: string[];
  does: string;
}

export interface ShortcutGroup {
  title: string;
  shortcuts: Shortcut[];
}

export const SHORTCUTS: ShortcutGroup[] = [
  {
    title: 'Anywhere',
    shortcuts: [
      { keys: ['Ctrl K', '⌘ K'], does: 'Search kinds, objects, actions and namespaces' },
      { keys: ['?'], does: 'Show these shortcuts' },
      { keys: ['Esc'], does: 'Close a dialog, menu or this list' },
    ],
  },
  {
    title: 'Lists (no need to click the table first)',
    shortcuts: [
      { keys: ['↓', 'j'], does: 'Next row' },
      { keys: ['↑', 'k'], does: 'Previous row' },
      { keys: ['Page Down', 'Page Up'], does: 'A page down or up' },
      { keys: ['Home', 'End'], does: 'First or last row' },
      { keys: ['Enter'], does: 'Open the row' },
      { keys: ['/'], does: 'Filter the list' },
      { keys: ['Space', 'x'], does: 'Select or unselect the row' },
      { keys: ['Ctrl A'], does: 'Select every row shown' },
      { keys: ['Esc'], does: 'Clear the selection' },
      { keys: ['Delete'], does: 'Delete the selected rows (or the current one), after asking' },
      { keys: ['Shift F10', 'Menu'], does: "The row's actions menu (also right-click or ⋯)" },
      { keys: ['s', 'S'], does: 'Sort by the next column; reverse the sort' },
    ],
  },
  {
    title: 'Namespace picker',
    shortcuts: [
      { keys: ['↓', '↑'], does: 'Move through the namespaces (type to filter)' },
      { keys: ['Enter'], does: 'Show only this namespace' },
      { keys: ['Space'], does: 'Add or remove this namespace' },
    ],
  },
  {
    title: 'Logs and shells',
    shortcuts: [
      { keys: ['Enter', 'Shift Enter'], does: 'Next or previous match of the log search' },
      { keys: ['Ctrl Shift F'], does: "Search a shell's scrollback" },
      { keys: ['Ctrl Shift C', 'Ctrl Shift V'], does: 'Copy and paste in a shell' },
      { keys: ['Delete'], does: 'Close the focused shell or log tab of the dock' },
    ],
  },
];

/** Whether a key press should open the help: `?` typed outside a text field. */
export function opensShortcutHelp(event: { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean }, typing: boolean): boolean {
  return event.key === '?' && !event.ctrlKey && !event.metaKey && !event.altKey && !typing;
}
