// Entry point of the web UI: creates the store and the chosen cluster's services (client,
// connection monitor, watch manager — replaced when the window switches clusters), checks the
// session, follows the URL hash and the OS theme, and renders the app.
import { useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { AppContext } from './context';
import { ClusterServicesHolder } from './clusterServices';
import { parseClusters, setChosenCluster, setClusters } from './views/permissions/clusters';
import { createAppStore } from './store/store';
import { formatLocation, parseLocation } from './store/routes';
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
const services = new ClusterServicesHolder(store, window.location.origin);

window.addEventListener('hashchange', () => {
  store.getState().routeChanged(window.location.hash);
  // a plain link (`#/pods`) on a window showing another context keeps the context in the address
  const { cluster, route } = store.getState();
  if (cluster !== '' && parseLocation(window.location.hash).cluster === undefined) window.history.replaceState(null, '', formatLocation(route, cluster));
});
// a reload or a link may name the cluster the window had chosen before: the address says so
if (store.getState().cluster !== '' && parseLocation(window.location.hash).cluster === undefined) window.history.replaceState(null, '', formatLocation(store.getState().route, store.getState().cluster));
applyTheme(store);
// the tab says so too when the cluster is gone
// the permissions (read-only switch, RBAC reasons) follow the window's cluster and the clusters list
setChosenCluster(store.getState().cluster);
store.subscribe((state, previous) => {
  if (state.cluster !== previous.cluster) setChosenCluster(state.cluster);
  if (state.clusterList && state.clusterList !== previous.clusterList) setClusters(parseClusters(state.clusterList));
});
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

/** The context's value follows the window's cluster. */
function Root() {
  const current = useSyncExternalStore(
    (listener) => services.subscribe(listener),
    () => services.services,
  );
  return (
    <AppContext.Provider value={current}>
      <App />
    </AppContext.Provider>
  );
}

const root = document.getElementById('root');
if (root) createRoot(root).render(<Root />);
