// The bottom dock: tabs of pod shells and log views, several at once, resizable by dragging its
// top edge (or with the arrow keys on it) and collapsible to its tab strip; its height, its tabs
// and whether it is expanded are remembered across reloads (store.ts, per the settings). Every
// tab's content stays mounted while another tab is shown or the dock is collapsed, so a shell
// keeps its session and a log keeps streaming. The tab strip follows the WAI-ARIA tabs pattern:
// each tab is one control (a tab holding a close button would nest controls), Delete closes the
// focused tab and the × inside it does the same for the mouse.
import { useCallback, useId, useRef, type KeyboardEvent as ReactKeyboardEvent, type PointerEvent as ReactPointerEvent } from 'react';
import { useAppState } from '../context';
import { MIN_DOCK_HEIGHT, type DockTab } from '../store/store';
import { LogViewer } from './LogViewer';
import { ShellTerminal } from './ShellTerminal';

const KEY_STEP = 24;

/** The tallest the dock may be: the page keeps at least 120 px above it. */
function maximumHeight(): number {
  return Math.max(MIN_DOCK_HEIGHT, window.innerHeight - 120);
}

export function Dock() {
  const tabs = useAppState((state) => state.dockTabs);
  const active = useAppState((state) => state.activeDockTab);
  const open = useAppState((state) => state.dockOpen);
  const setActive = useAppState((state) => state.setActiveDockTab);
  const closeTab = useAppState((state) => state.closeDockTab);
  const setOpen = useAppState((state) => state.setDockOpen);
  const storedHeight = useAppState((state) => state.dockHeight);
  const setHeight = useAppState((state) => state.setDockHeight);
  const height = Math.min(storedHeight, maximumHeight());
  const drag = useRef<{ startY: number; startHeight: number } | undefined>(undefined);
  const idPrefix = useId();

  const resizeTo = useCallback((next: number) => setHeight(Math.min(maximumHeight(), Math.max(MIN_DOCK_HEIGHT, next))), [setHeight]);
  const onPointerDown = useCallback(
    (event: ReactPointerEvent<HTMLDivElement>) => {
      event.currentTarget.setPointerCapture(event.pointerId);
      drag.current = { startY: event.clientY, startHeight: height };
    },
    [height],
  );
  const onPointerMove = useCallback(
    (event: ReactPointerEvent<HTMLDivElement>) => {
      const current = drag.current;
      if (current) resizeTo(current.startHeight + current.startY - event.clientY);
    },
    [resizeTo],
  );
  const onPointerUp = useCallback(() => {
    drag.current = undefined;
  }, []);
  const onResizeKey = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    const steps: Record<string, number> = { ArrowUp: KEY_STEP, ArrowDown: -KEY_STEP, PageUp: KEY_STEP * 4, PageDown: -KEY_STEP * 4 };
    if (event.key in steps) resizeTo(height + steps[event.key]);
    else if (event.key === 'Home') resizeTo(maximumHeight());
    else if (event.key === 'End') resizeTo(MIN_DOCK_HEIGHT);
    else if (event.key === 'Enter' || event.key === 'Escape') setOpen(false);
    else return;
    event.preventDefault();
  };

  if (tabs.length === 0) return null;
  return (
    <section className={`dock${open ? ' open' : ' collapsed'}`} style={open ? { height } : undefined} data-testid="dock" aria-label="Terminals and logs">
      {open && (
        <div
          className="dock-resize"
          role="separator"
          tabIndex={0}
          aria-orientation="horizontal"
          aria-label="Resize the dock (arrow keys; Enter collapses it)"
          aria-valuemin={MIN_DOCK_HEIGHT}
          aria-valuemax={maximumHeight()}
          aria-valuenow={Math.round(height)}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onDoubleClick={() => setOpen(false)}
          onKeyDown={onResizeKey}
          data-testid="dock-resize"
        />
      )}
      <div className="dock-tabs">
        <div className="dock-tablist" role="tablist" aria-label="Shells and logs">
          {tabs.map((tab, index) => (
            <button
              key={tab.id}
              id={`${idPrefix}-tab-${index}`}
              className={`dock-tab${tab.id === active ? ' active' : ''}`}
              role="tab"
              aria-selected={tab.id === active}
              aria-controls={`${idPrefix}-pane-${index}`}
              aria-keyshortcuts="Delete"
              title={`${tab.title} (Delete closes it)`}
              onClick={() => setActive(tab.id)}
              onKeyDown={(event) => {
                if (event.key !== 'Delete') return;
                event.preventDefault();
                closeTab(tab.id);
              }}
              data-testid="dock-tab"
            >
              <span className="dock-tab-icon" aria-hidden="true">
                {tab.type === 'shell' ? '❯_' : '≡'}
              </span>
              <span className="dock-tab-title">{tab.title}</span>
              <span
                className="dock-tab-close"
                aria-hidden="true"
                title="Close"
                onClick={(event) => {
                  event.stopPropagation();
                  closeTab(tab.id);
                }}
                data-testid="dock-tab-close"
              >
                ×
              </span>
            </button>
          ))}
        </div>
        <div className="dock-spacer" />
        <button className="ghost dock-toggle" onClick={() => setOpen(!open)} title={open ? 'Collapse the dock' : 'Expand the dock'} aria-label={open ? 'Collapse the dock' : 'Expand the dock'} aria-expanded={open} data-testid="dock-toggle">
          {open ? '▾' : '▴'}
        </button>
      </div>
      <div className="dock-body" hidden={!open}>
        {tabs.map((tab, index) => (
          <div key={tab.id} id={`${idPrefix}-pane-${index}`} className="dock-pane" role="tabpanel" aria-labelledby={`${idPrefix}-tab-${index}`} hidden={tab.id !== active} data-testid={`dock-pane-${tab.type}`}>
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
