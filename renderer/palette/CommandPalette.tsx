// PLACEHOLDER (overview engineer replaces this file): the Ctrl/Cmd+K command palette.
export function CommandPalette() {
  return null;
}
