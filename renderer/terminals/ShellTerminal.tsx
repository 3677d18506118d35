// A pod shell in the dock: xterm.js (DOM renderer, so the screen text is in `.xterm-rows`) on the
// exec WebSocket, speaking the channel protocol of execChannels.ts as kubectl exec -it does: stdin
// from keystrokes, stdout written to the terminal, a resize message whenever the terminal is fitted
// to its pane, and the exit status from the final Status. Ctrl+Shift+C/V copy and paste,
// Ctrl+Shift+F searches the scrollback, links open in the user's browser.
import { useCallback, useEffect, useRef, useState } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { desktopBridge } from '../../shared/desktopBridge';
import { StreamChannel } from '../../shared/kubernetes/streamChannels';
import { useServices } from '../context';
import { decodeChannelFrame, encodeResize, encodeStdin, encodeStdinBinary, EXEC_PROTOCOLS, execPath, execQuery, parseExitStatus, SHELL_COMMAND, type ExitResult } from './execChannels';
import { ContainerSelect } from './ContainerSelect';
import { usePodContainers } from './usePodContainers';

type Connection = { phase: 'connecting' } | { phase: 'open' } | { phase: 'exited'; result: ExitResult } | { phase: 'dropped'; message: string };

export function openExternalLink(url: string): void {
  const bridge = desktopBridge();
  if (bridge) void bridge.openExternal(url);
  else window.open(url, '_blank', 'noopener,noreferrer');
}

function themeColors(): { background: string; foreground: string; cursor: string; selectionBackground: string } {
  const style = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return { background: read('--code-bg', '#1e1e1e'), foreground: read('--text', '#e0e0e0'), cursor: read('--accent', '#5b8def'), selectionBackground: read('--selected', '#26395c') };
}

export function ShellTerminal({ namespace, pod, container: initialContainer, visible }: { namespace: string; pod: string; container?: string; visible: boolean }) {
  const { client } = useServices();
  const containers = usePodContainers(namespace, [pod]);
  const [container, setContainer] = useState<string | undefined>(initialContainer);
  const [connection, setConnection] = useState<Connection>({ phase: 'connecting' });
  const [attempt, setAttempt] = useState(0);
  const [searchOpen, setSearchOpen] = useState(false);
  const [searchText, setSearchText] = useState('');
  const hostRef = useRef<HTMLDivElement>(null);
  const terminalRef = useRef<Terminal | undefined>(undefined);
  const fitRef = useRef<FitAddon | undefined>(undefined);
  const searchRef = useRef<SearchAddon | undefined>(undefined);
  const socketRef = useRef<WebSocket | undefined>(undefined);
  const searchInputRef = useRef<HTMLInputElement>(null);

  const chosen = container ?? containers?.defaultName;
  const ready = initialContainer !== undefined || containers !== undefined;

  // the terminal lives as long as the tab; connections come and go inside it
  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const terminal = new Terminal({ cursorBlink: true, fontFamily: "ui-monospace, 'SFMono-Regular', Menlo, Consolas, 'DejaVu Sans Mono', monospace", fontSize: 13, scrollback: 5000, theme: themeColors(), allowProposedApi: true });
    const fit = new FitAddon();
    const search = new SearchAddon();
    terminal.loadAddon(fit);
    terminal.loadAddon(search);
    terminal.loadAddon(new WebLinksAddon((_event, uri) => openExternalLink(uri)));
    terminal.open(host);
    terminal.attachCustomKeyEventHandler((event) => {
      if (event.type !== 'keydown' || !event.ctrlKey || !event.shiftKey) return true;
      const key = event.key.toLowerCase();
      if (key === 'c') {
        const selection = terminal.getSelection();
        if (selection) void navigator.clipboard?.writeText(selection).catch(() => undefined);
        return false;
      }
      if (key === 'v') {
        void navigator.clipboard
          ?.readText()
          .then((text) => terminal.paste(text))
          .catch(() => undefined);
        return false;
      }
      if (key === 'f') {
        setSearchOpen(true);
        requestAnimationFrame(() => searchInputRef.current?.focus());
        return false;
      }
      return true;
    });
    terminal.onData((data) => {
      const socket = socketRef.current;
      if (socket?.readyState === WebSocket.OPEN) socket.send(encodeStdin(data));
    });
    terminal.onBinary((data) => {
      const socket = socketRef.current;
      if (socket?.readyState === WebSocket.OPEN) socket.send(encodeStdinBinary(data));
    });
    terminal.onResize(({ cols, rows }) => {
      const socket = socketRef.current;
      if (socket?.readyState === WebSocket.OPEN) socket.send(encodeResize(cols, rows));
    });
    terminalRef.current = terminal;
    fitRef.current = fit;
    searchRef.current = search;
    const observer = new ResizeObserver(() => {
      // a hidden pane measures 0×0; fitting then would shrink the remote terminal to nothing
      if (host.clientWidth > 0 && host.clientHeight > 0) fit.fit();
    });
    observer.observe(host);
    return () => {
      observer.disconnect();
      terminal.dispose();
      terminalRef.current = undefined;
    };
  }, []);

  useEffect(() => {
    if (visible) {
      const host = hostRef.current;
      if (host && host.clientWidth > 0) fitRef.current?.fit();
      terminalRef.current?.focus();
    }
  }, [visible]);

  useEffect(() => {
    if (!ready) return;
    const terminal = terminalRef.current;
    if (!terminal) return;
    const socket = client.openSocket(execPath(namespace, pod), execQuery({ command: SHELL_COMMAND, container: chosen, tty: true }), EXEC_PROTOCOLS);
    socket.binaryType = 'arraybuffer';
    socketRef.current = socket;
    let finished = false;
    setConnection({ phase: 'connecting' });
    socket.onopen = () => {
      setConnection({ phase: 'open' });
      socket.send(encodeResize(terminal.cols, terminal.rows));
      terminal.focus();
    };
    socket.onmessage = (event: MessageEvent) => {
      if (!(event.data instanceof ArrayBuffer)) return;
      const frame = decodeChannelFrame(event.data);
      if (!frame) return;
      if (frame.channel === StreamChannel.stdout || frame.channel === StreamChannel.stderr) {
        terminal.write(frame.data);
      } else if (frame.channel === StreamChannel.error) {
        finished = true;
        const result = parseExitStatus(frame.data);
        setConnection({ phase: 'exited', result });
        terminal.write(`\r\n\x1b[2m[${result.success ? 'session ended' : result.message}]\x1b[0m\r\n`);
      }
    };
    socket.onclose = (event: CloseEvent) => {
      if (socketRef.current === socket) socketRef.current = undefined;
      if (finished) return;
      const message = event.code === 1006 ? 'could not connect (is the pod running, and does its image have sh?)' : `connection closed (${event.code}${event.reason ? `: ${event.reason}` : ''})`;
      setConnection({ phase: 'dropped', message });
      terminal.write(`\r\n\x1b[2m[${message}]\x1b[0m\r\n`);
    };
    return () => {
      finished = true;
      socket.onclose = null;
      socket.onmessage = null;
      socket.close();
      if (socketRef.current === socket) socketRef.current = undefined;
    };
  }, [client, namespace, pod, chosen, ready, attempt]);

  const reconnect = useCallback(() => {
    terminalRef.current?.write('\r\n');
    setAttempt((value) => value + 1);
  }, []);

  const find = (direction: 1 | -1) => {
    const search = searchRef.current;
    if (!search || !searchText) return;
    if (direction === 1) search.findNext(searchText);
    else search.findPrevious(searchText);
  };

  const names = containers?.names ?? (initialContainer ? [initialContainer] : []);
  return (
    <div className="shell-view" data-testid="shell">
      <div className="dock-toolbar">
        <span className="mono dock-subject">
          {namespace}/{pod}
        </span>
        <ContainerSelect names={names} value={chosen} onChange={setContainer} testId="shell-container" />
        <span className={`shell-state ${connection.phase}`} data-testid="shell-state">
          {connection.phase === 'connecting' && 'connecting…'}
          {connection.phase === 'open' && 'connected'}
          {connection.phase === 'exited' && (connection.result.exitCode !== undefined ? `exited (code ${connection.result.exitCode})` : connection.result.message)}
          {connection.phase === 'dropped' && connection.message}
        </span>
        {(connection.phase === 'exited' || connection.phase === 'dropped') && (
          <button className="primary" onClick={reconnect} data-testid="shell-reconnect">
            Reconnect
          </button>
        )}
        <div className="dock-spacer" />
        {searchOpen ? (
          <span className="dock-search">
            <input
              ref={searchInputRef}
              value={searchText}
              placeholder="Search"
              aria-label="Search the terminal"
              data-testid="shell-search"
              onChange={(event) => setSearchText(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') find(event.shiftKey ? -1 : 1);
                if (event.key === 'Escape') {
                  setSearchOpen(false);
                  searchRef.current?.clearDecorations();
                  terminalRef.current?.focus();
                }
              }}
            />
            <button className="ghost" onClick={() => find(-1)} title="Previous (Shift+Enter)">
              ↑
            </button>
            <button className="ghost" onClick={() => find(1)} title="Next (Enter)">
              ↓
            </button>
          </span>
        ) : (
          <span className="hint">Ctrl+Shift+C copy · Ctrl+Shift+V paste · Ctrl+Shift+F search</span>
        )}
      </div>
      <div className="shell-host" ref={hostRef} data-testid="shell-screen" />
    </div>
  );
}
