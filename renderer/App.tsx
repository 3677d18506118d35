// The page: sidebar of kinds, top bar (namespaces, command palette, theme), the routed view, the
// terminal dock and notices. Shown only when signed in; otherwise the sign-in form.
import { useEffect, useState } from 'react';
import { useAppState, useDiscoveryLoader, useKind, useKinds } from './context';
import { ResourceList } from './views/ResourceList';
import { ResourceDetail } from './views/detail/ResourceDetail';
import { CreateFromYaml } from './views/create/CreateFromYaml';
import { Overview } from './views/overview/Overview';
import { PortForwards } from './views/portforwards/PortForwards';
import { Settings } from './views/settings/Settings';
import { ChangesPage } from './views/history/ChangesPage';
import { RecentlyDeleted } from './views/history/RecentlyDeleted';
import { HelmReleases } from './views/helm/HelmReleases';
import { HelmReleaseView } from './views/helm/HelmRelease';
import { Images } from './views/images/Images';
import { Snapshots } from './views/snapshots/Snapshots';
import { Dock } from './terminals/Dock';
import { CommandPalette } from './palette/CommandPalette';
import { NamespacePicker } from './components/NamespacePicker';
import { PullProgress } from './components/PullProgress';
import { Notices } from './components/Notices';
import { ConnectionBanner } from './components/ConnectionBanner';
import { SignIn } from './components/SignIn';
import { PermissionsStatus } from './views/permissions/PermissionsStatus';
import { ShortcutHelp } from './components/ShortcutHelp';
import { ClusterPicker } from './views/clusters/ClusterPicker';
import { KubedeskOnly, useKubedeskFeatures } from './views/clusters/KubedeskOnly';
import { opensShortcutHelp } from './components/shortcuts';
import { formatRoute, type Route } from './store/routes';
import type { KindConfig, Section } from './kinds/kindConfig';
import { SNAPSHOT_KIND_KEY } from '../shared/snapshots';

const SECTIONS: Section[] = ['Workloads', 'Network', 'Config', 'Storage', 'Cluster', 'Custom resources'];

export function App() {
  const session = useAppState((state) => state.session);
  const setPaletteOpen = useAppState((state) => state.setPaletteOpen);
  const [help, setHelp] = useState(false);
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setPaletteOpen(true);
      }
      const target = event.target instanceof Element ? event.target : null;
      const typing = target?.closest('input, textarea, select, [contenteditable="true"], .xterm, [role="dialog"]') != null;
      if (opensShortcutHelp(event, typing)) {
        event.preventDefault();
        setHelp(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setPaletteOpen]);
  if (session === 'unknown') return <div className="splash">kubedesk</div>;
  if (session === 'signed-out') return <SignIn />;
  return <SignedInOnCluster help={help} setHelp={setHelp} />;
}

/** Another cluster is a fresh page: every view's own state starts anew (the store dropped the caches). */
function SignedInOnCluster(props: { help: boolean; setHelp: (open: boolean) => void }) {
  const cluster = useAppState((state) => state.cluster);
  return <SignedIn key={cluster} {...props} />;
}

function SignedIn({ help, setHelp }: { help: boolean; setHelp: (open: boolean) => void }) {
  useDiscoveryLoader();
  return (
    <div className="app">
      <Sidebar />
      <div className="main">
        <TopBar onHelp={() => setHelp(true)} />
        <ConnectionBanner />
        <Content />
        <Dock />
      </div>
      <CommandPalette />
      <Notices />
      {help && <ShortcutHelp onClose={() => setHelp(false)} />}
    </div>
  );
}

/** The routed view, greyed and marked stale while the cluster does not answer. */
function Content() {
  const offline = useAppState((state) => state.connection.state === 'offline');
  return (
    <main className={`content${offline ? ' stale' : ''}`} data-stale={offline ? 'true' : undefined} aria-busy={offline || undefined}>
      <RouteView />
    </main>
  );
}

function RouteView() {
  const route = useAppState((state) => state.route);
  switch (route.view) {
    case 'overview':
      return <Overview />;
    case 'create':
      return <CreateFromYaml key={route.kindKey ?? ''} kindKey={route.kindKey} />;
    case 'portforwards':
      return <PortForwards />;
    case 'settings':
      return <Settings />;
    case 'changes':
      return (
        <KubedeskOnly feature="History">
          <ChangesPage />
        </KubedeskOnly>
      );
    case 'deleted':
      return (
        <KubedeskOnly feature="History">
          <RecentlyDeleted />
        </KubedeskOnly>
      );
    case 'helm':
      return <HelmReleases />;
    case 'helmRelease':
      return <HelmReleaseView key={`${route.namespace}/${route.name}`} namespace={route.namespace} name={route.name} tab={route.tab} />;
    case 'images':
      return (
        <KubedeskOnly feature="Images">
          <Images />
        </KubedeskOnly>
      );
    case 'snapshots':
      return <SnapshotsPage />;
    // a link to the Snapshot kind itself (the palette's kinds): it has no watch, its page is Snapshots
    case 'list':
      return route.kindKey === SNAPSHOT_KIND_KEY ? <SnapshotsPage /> : <KindList kindKey={route.kindKey} />;
    case 'detail':
      return route.kindKey === SNAPSHOT_KIND_KEY ? <SnapshotsPage /> : <KindDetail route={route} />;
  }
}

function SnapshotsPage() {
  return (
    <KubedeskOnly feature="Snapshots">
      <Snapshots />
    </KubedeskOnly>
  );
}

/** A route to a kind without a configuration asks for discovery at once (it may be a kind only discovery knows). */
function useDiscoveryFor(config: KindConfig | undefined): boolean {
  const discoveryLoaded = useAppState((state) => state.discoveryLoaded);
  const wantDiscovery = useAppState((state) => state.wantDiscovery);
  useEffect(() => {
    if (!config) wantDiscovery();
  }, [config, wantDiscovery]);
  return discoveryLoaded;
}

function KindList({ kindKey }: { kindKey: string }) {
  const config = useKind(kindKey);
  const discoveryLoaded = useDiscoveryFor(config);
  if (!config && !discoveryLoaded) return <div className="empty">Loading the cluster’s kinds…</div>;
  if (!config) return <div className="empty">Unknown kind “{kindKey}”. Its CustomResourceDefinition may not be established yet.</div>;
  return <ResourceList key={config.key} config={config} />;
}

function KindDetail({ route }: { route: Extract<Route, { view: 'detail' }> }) {
  const config = useKind(route.kindKey);
  const discoveryLoaded = useDiscoveryFor(config);
  if (!config && !discoveryLoaded) return <div className="empty">Loading the cluster’s kinds…</div>;
  if (!config) return <div className="empty">Unknown kind “{route.kindKey}”.</div>;
  return <ResourceDetail key={`${config.key}/${route.namespace ?? ''}/${route.name}`} config={config} namespace={route.namespace} name={route.name} tab={route.tab} />;
}

function Sidebar() {
  const kinds = useKinds();
  const route = useAppState((state) => state.route);
  const current = formatRoute(route.view === 'detail' ? { view: 'list', kindKey: route.kindKey } : route.view === 'deleted' ? { view: 'changes' } : route.view === 'helmRelease' ? { view: 'helm' } : route);
  const link = (target: Route, label: string, testId?: string) => {
    const href = formatRoute(target);
    return (
      <a key={href} href={href} className={href === current ? 'active' : ''} data-testid={testId}>
        {label}
      </a>
    );
  };
  const bySection = (section: Section): KindConfig[] => kinds.filter((kind) => kind.section === section && kind.inSidebar !== false);
  // on a cluster that is not a kubedesk its own pages are left out (their routes say why)
  const kubedesk = useKubedeskFeatures() !== 'absent';
  return (
    <nav className="sidebar" aria-label="Kinds">
      <div className="brand">
        <img src="icon.svg" alt="" width={22} height={22} /> kubedesk
      </div>
      {link({ view: 'overview' }, 'Overview', 'nav-overview')}
      {link({ view: 'create' }, 'Create from YAML', 'nav-create')}
      {link({ view: 'portforwards' }, 'Port forwards', 'nav-portforwards')}
      {kubedesk && link({ view: 'changes' }, 'History', 'nav-history')}
      {link({ view: 'helm' }, 'Helm releases', 'nav-helm')}
      {kubedesk && link({ view: 'images' }, 'Images', 'nav-images')}
      {kubedesk && link({ view: 'snapshots' }, 'Snapshots', 'nav-snapshots')}
      {SECTIONS.map((section) => {
        const sectionKinds = bySection(section);
        if (sectionKinds.length === 0) return null;
        return (
          <div className="nav-section" key={section}>
            <h2>{section}</h2>
            {sectionKinds.map((kind) => link({ view: 'list', kindKey: kind.key }, kind.title, `nav-${kind.key}`))}
          </div>
        );
      })}
    </nav>
  );
}

function TopBar({ onHelp }: { onHelp(): void }) {
  const setPaletteOpen = useAppState((state) => state.setPaletteOpen);
  const theme = useAppState((state) => state.theme);
  const setTheme = useAppState((state) => state.setTheme);
  const tasks = useAppState((state) => state.tasks);
  const next = theme === 'system' ? 'light' : theme === 'light' ? 'dark' : 'system';
  return (
    <header className="topbar">
      <ClusterPicker />
      <NamespacePicker />
      <button className="palette-button" onClick={() => setPaletteOpen(true)} data-testid="open-palette">
        Search or jump to… <kbd>Ctrl K</kbd>
      </button>
      <div className="spacer" />
      <PermissionsStatus />
      <div className="tasks" role="status">
        <PullProgress />
        {tasks.map((task) => (
          <span key={task.id} className="task">
            <span className="spinner" /> {task.title}
            {task.progress !== undefined ? ` ${Math.round(task.progress * 100)}%` : ''}
          </span>
        ))}
      </div>
      <button className="ghost" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" onClick={onHelp} data-testid="shortcuts-button">
        ?
      </button>
      <button className="ghost" title={`Theme: ${theme} (click for ${next})`} onClick={() => setTheme(next)} data-testid="theme-toggle">
        {theme === 'system' ? '◐ System' : theme === 'light' ? '☀ Light' : '☾ Dark'}
      </button>
      <a className="topbar-link" href={formatRoute({ view: 'settings' })} title="Settings and sign-out" data-testid="open-settings">
        ⚙ Settings
      </a>
    </header>
  );
}
