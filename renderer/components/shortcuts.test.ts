import { describe, expect, it } from 'vitest';
import { listKeyOf } from '../views/listModel';
import { opensShortcutHelp, SHORTCUTS } from './shortcuts';

describe('the shortcut list', () => {
  it('opens on ? outside text fields only', () => {
    const key = (value: string, modifiers: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({ key: value, ctrlKey: false, metaKey: false, altKey: false, ...modifiers });
    expect(opensShortcutHelp(key('?'), false)).toBe(true);
    expect(opensShortcutHelp(key('?'), true)).toBe(false);
    expect(opensShortcutHelp(key('?', { ctrlKey: true }), false)).toBe(false);
    expect(opensShortcutHelp(key('/'), false)).toBe(false);
  });

  it('lists only list keys the list really handles', () => {
    const names: Record<string, { key: string; ctrlKey?: boolean; shiftKey?: boolean }> = {
      '↓': { key: 'ArrowDown' },
      '↑': { key: 'ArrowUp' },
      j: { key: 'j' },
      k: { key: 'k' },
      'Page Down': { key: 'PageDown' },
      'Page Up': { key: 'PageUp' },
      Home: { key: 'Home' },
      End: { key: 'End' },
      Enter: { key: 'Enter' },
      '/': { key: '/' },
      Space: { key: ' ' },
      x: { key: 'x' },
      'Ctrl A': { key: 'a', ctrlKey: true },
      Esc: { key: 'Escape' },
      Delete: { key: 'Delete' },
      'Shift F10': { key: 'F10', shiftKey: true },
      Menu: { key: 'ContextMenu' },
      s: { key: 's' },
      S: { key: 'S', shiftKey: true },
    };
    const lists = SHORTCUTS.find((group) => group.title.startsWith('Lists'));
    for (const shortcut of lists?.shortcuts ?? []) {
      for (const name of shortcut.keys) {
        const press = names[name];
        expect(press, name).toBeDefined();
        expect(listKeyOf({ ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...press }), name).toBeDefined();
      }
    }
  });
});
