// The bottom dock: tabs of pod shells and log views, several at once, resizable by dragging its
// top edge and collapsible to its tab strip. Every tab's content stays mounted while another tab
// is shown or the dock is collapsed, so a shell keeps its session and a log keeps streaming.
import { useCallback, useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { useAppState } from '../context';
import type { DockTab } from '../store/store';
import { LogViewer } from './LogViewer';
import { ShellTerminal } from './ShellTerminal';

const HEIGHT_KEY = 'kubedesk.dockHeight';
const MIN_HEIGHT = 120;

function initialHeight(): number {
  const stored = Number(globalThis.localStorage?.getItem(HEIGHT_KEY));
  return Number.isFinite(stored) && stored >= MIN_HEIGHT ? stored : 320;
}

export function Dock() {
  const tabs = useAppState((state) => state.dockTabs);
  const active = useAppState((state) => state.activeDockTab);
  const open = useAppState((state) => state.dockOpen);
  const setActive = useAppState((state) => state.setActiveDockTab);
  const closeTab = useAppState((state) => state.closeDockTab);
  const setOpen = useAppState((state) => state.setDockOpen);
  const [height, setHeight] = useState(initialHeight);
  const drag = useRef<{ startY: number; startHeight: number } | undefined>(undefined);

  useEffect(() => {
    globalThis.localStorage?.setItem(HEIGHT_KEY, String(Math.round(height)));
  }, [height]);

  const onPointerDown = useCallback(
    (event: ReactPointerEvent<HTMLDivElement>) => {
      event.currentTarget.setPointerCapture(event.pointerId);
      drag.current = { startY: event.clientY, startHeight: height };
    },
    [height],
  );
  const onPointerMove = useCallback((event: ReactPointerEvent<HTMLDivElement>) => {
    const current = drag.current;
    if (!current) return;
    const maximum = Math.max(MIN_HEIGHT, window.innerHeight - 120);
    setHeight(Math.min(maximum, Math.max(MIN_HEIGHT, current.startHeight + current.startY - event.clientY)));
  }, []);
  const onPointerUp = useCallback(() => {
    drag.current = undefined;
  }, []);

  if (tabs.length === 0) return null;
  return (
    <section className={`dock${open ? ' open' : ' collapsed'}`} style={open ? { height } : undefined} data-testid="dock" aria-label="Terminals and logs">
      {open && <div className="dock-resize" role="separator" aria-orientation="horizontal" aria-label="Resize the dock" onPointerDown={onPointerDown} onPointerMove={onPointerMove} onPointerUp={onPointerUp} />}
      <div className="dock-tabs" role="tablist">
        {tabs.map((tab) => (
          <div key={tab.id} className={`dock-tab${tab.id === active ? ' active' : ''}`} role="tab" aria-selected={tab.id === active} data-testid="dock-tab" title={tab.title}>
            <button className="dock-tab-title" onClick={() => setActive(tab.id)}>
              <span className="dock-tab-icon">{tab.type === 'shell' ? '❯_' : '≡'}</span>
              {tab.title}
            </button>
            <button className="dock-tab-close" aria-label={`Close ${tab.title}`} title="Close" onClick={() => closeTab(tab.id)} data-testid="dock-tab-close">
              ×
            </button>
          </div>
        ))}
        <div className="dock-spacer" />
        <button className="ghost dock-toggle" onClick={() => setOpen(!open)} title={open ? 'Collapse' : 'Expand'} data-testid="dock-toggle">
          {open ? '▾' : '▴'}
        </button>
      </div>
      <div className="dock-body" hidden={!open}>
        {tabs.map((tab) => (
          <div key={tab.id} className="dock-pane" hidden={tab.id !== active} data-testid={`dock-pane-${tab.type}`}>
            <DockContent tab={tab} visible={open && tab.id === active} />
          </div>
        ))}
      </div>
    </section>
  );
}

function DockContent({ tab, visible }: { tab: DockTab; visible: boolean }) {
  if (tab.type === 'shell') return <ShellTerminal namespace={tab.namespace} pod={tab.pod} container={tab.container} visible={visible} />;
  return <LogViewer namespace={tab.namespace} pods={tab.pods} container={tab.container} previous={tab.previous ?? false} visible={visible} title={tab.title} selector={tab.selector} />;
}
