// Entry point of the web UI: creates the store, the client, the connection monitor and the watch
// manager, checks the session, follows the URL hash and the OS theme, and renders the app.
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { HttpKubeClient } from './api/kubeClient';
import { ConnectionMonitor } from './api/connection';
import { AppContext } from './context';
import { createAppStore } from './store/store';
import { WatchManager } from './store/watchManager';
import { applyTheme } from './theme';
import { SIGNED_OUT_KEY } from './views/settings/Settings';

const preferences = {
  get: (key: string) => window.localStorage.getItem(key),
  set: (key: string, value: string) => window.localStorage.setItem(key, value),
};
const store = createAppStore({
  preferences,
  tabState: {
    get: (key: string) => window.sessionStorage.getItem(key),
    set: (key: string, value: string) => window.sessionStorage.setItem(key, value),
  },
  initialHash: window.location.hash,
  onNavigate: (hash) => {
    if (window.location.hash !== hash) window.location.hash = hash;
  },
});
const client = new HttpKubeClient(window.location.origin);
const connection = new ConnectionMonitor(store);
const watches = new WatchManager(client, store, { connection });

window.addEventListener('hashchange', () => store.getState().routeChanged(window.location.hash));
applyTheme(store);
// the tab says so too when the cluster is gone
store.subscribe((state, previous) => {
  if (state.connection.state !== previous.connection.state) document.title = state.connection.state === 'offline' ? 'Disconnected · kubedesk' : 'kubedesk';
});

// after a sign-out the sign-in page says so, once
const signedOut = window.sessionStorage.getItem(SIGNED_OUT_KEY) === '1';
window.sessionStorage.removeItem(SIGNED_OUT_KEY);
void fetch('/ui/session', { credentials: 'same-origin' }).then(
  (response) => store.getState().setSession(response.ok ? 'signed-in' : 'signed-out', !response.ok && signedOut ? 'You signed out: the cluster ended this browser’s session.' : undefined),
  () => store.getState().setSession('signed-out'),
);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <AppContext.Provider value={{ store, client, watches, connection }}>
      <App />
    </AppContext.Provider>,
  );
}
