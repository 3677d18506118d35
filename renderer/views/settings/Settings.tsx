// Settings (#/settings): the theme, how the bottom dock behaves (remember its tabs across reloads,
// expand when a shell or log opens, its height), which namespaces the UI opens with, and signing
// out — which ends the session on the server (DELETE /ui/session revokes it), not only in this page.
import { useMemo, useState } from 'react';
import { useAppState, useCollection } from '../../context';
import { namespaces as namespacesKind } from '../../kinds';
import { DEFAULT_DOCK_HEIGHT, type ThemePreference } from '../../store/store';
import { ClusterSettings } from '../clusters/ClusterSettings';

/** sessionStorage key: the next sign-in page says that the user signed out. */
export const SIGNED_OUT_KEY = 'kubedesk.signedOut';

const THEMES: { value: ThemePreference; label: string }[] = [
  { value: 'system', label: 'Follow the system' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

export function Settings() {
  const theme = useAppState((state) => state.theme);
  const setTheme = useAppState((state) => state.setTheme);
  const settings = useAppState((state) => state.settings);
  const updateSettings = useAppState((state) => state.updateSettings);
  const dockHeight = useAppState((state) => state.dockHeight);
  const setDockHeight = useAppState((state) => state.setDockHeight);
  const namespaceCollection = useCollection(namespacesKind);
  const names = useMemo(() => Object.values(namespaceCollection.items).map((namespace) => namespace.metadata.name ?? '').sort(), [namespaceCollection.items]);
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState('');

  const signOut = async () => {
    setSigningOut(true);
    setSignOutError('');
    try {
      const response = await fetch('/ui/session', { method: 'DELETE', credentials: 'same-origin' });
      if (!response.ok && response.status !== 401) throw new Error(`the server answered ${response.status}`);
      sessionStorage.setItem(SIGNED_OUT_KEY, '1');
      // a fresh page: every watch, shell and log socket of this session closes with it
      window.location.replace('/ui/');
    } catch (error) {
      setSignOutError(`Sign-out failed: ${error instanceof Error ? error.message : String(error)}`);
      setSigningOut(false);
    }
  };

  const namespaceChoices = settings.defaultNamespace !== '' && settings.defaultNamespace !== '*' && !names.includes(settings.defaultNamespace) ? [...names, settings.defaultNamespace] : names;

  return (
    <section className="settings" aria-label="Settings">
      <header className="view-header">
        <h1>Settings</h1>
        <span className="count">kept in this browser, for this cluster</span>
      </header>

      <fieldset className="settings-group">
        <legend>Theme</legend>
        {THEMES.map((option) => (
          <label key={option.value} className="settings-choice">
            <input type="radio" name="theme" value={option.value} checked={theme === option.value} onChange={() => setTheme(option.value)} data-testid={`settings-theme-${option.value}`} /> {option.label}
          </label>
        ))}
      </fieldset>

      <fieldset className="settings-group">
        <legend>Terminals and logs dock</legend>
        <label className="settings-choice">
          <input type="checkbox" checked={settings.restoreDock} onChange={(event) => updateSettings({ restoreDock: event.target.checked })} data-testid="settings-restore-dock" /> Reopen its tabs after a reload (shells reconnect, logs stream again)
        </label>
        <label className="settings-choice">
          <input type="checkbox" checked={settings.expandDockOnOpen} onChange={(event) => updateSettings({ expandDockOnOpen: event.target.checked })} data-testid="settings-expand-dock" /> Expand it when a shell or log opens (otherwise only its tab is added)
        </label>
        <div className="settings-choice">
          Height: {dockHeight} px (drag its top edge, or focus the edge and use the arrow keys){' '}
          <button onClick={() => setDockHeight(DEFAULT_DOCK_HEIGHT)} disabled={dockHeight === DEFAULT_DOCK_HEIGHT} data-testid="settings-reset-dock">
            Reset to {DEFAULT_DOCK_HEIGHT} px
          </button>
        </div>
      </fieldset>

      <fieldset className="settings-group">
        <legend>Namespaces</legend>
        <label className="settings-choice">
          When the UI opens, show{' '}
          <select value={settings.defaultNamespace} onChange={(event) => updateSettings({ defaultNamespace: event.target.value })} data-testid="settings-default-namespace">
            <option value="">the namespaces selected last time</option>
            <option value="*">all namespaces</option>
            {namespaceChoices.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </fieldset>

      <ClusterSettings />

      <fieldset className="settings-group">
        <legend>Session</legend>
        <p className="settings-text">
          Signed in as <b>kubedesk-admin</b> (the kubeconfig’s user) on <code>{window.location.host}</code>. Signing out ends this browser’s session on the cluster; other
          browsers and kubectl are not affected.
        </p>
        <button className="danger" onClick={() => void signOut()} disabled={signingOut} data-testid="settings-sign-out">
          {signingOut ? 'Signing out…' : 'Sign out'}
        </button>
        {signOutError && (
          <p className="error-text" role="alert">
            {signOutError}
          </p>
        )}
      </fieldset>
    </section>
  );
}
