// Light and dark themes: `system` follows the OS (prefers-color-scheme, which Electron maps to the
// OS setting); the choice sits on <html data-theme>, the CSS holds the two palettes.
import type { AppStore } from './store/store';

export function resolveTheme(preference: 'system' | 'light' | 'dark', systemDark: boolean): 'light' | 'dark' {
  return preference === 'system' ? (systemDark ? 'dark' : 'light') : preference;
}

export function applyTheme(store: AppStore): void {
  const media = window.matchMedia('(prefers-color-scheme: dark)');
  const update = () => {
    document.documentElement.dataset.theme = resolveTheme(store.getState().theme, media.matches);
  };
  media.addEventListener('change', update);
  store.subscribe((state, previous) => {
    if (state.theme !== previous.theme) update();
  });
  update();
}
