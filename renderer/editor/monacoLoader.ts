// Loads Monaco's AMD build (copied by the build to dist/renderer/monaco/vs) once, on first use: a
// <script> for its loader, then the editor module through the loader's require. Scripts come from
// the page's own origin, so the UI's CSP (script-src 'self', worker-src 'self' blob:) allows them;
// the editor worker is the build's workerMain.js, also same-origin.
import type * as MonacoApi from 'monaco-editor';

export type Monaco = typeof MonacoApi;

const BASE = 'monaco/vs';

interface AmdRequire {
  (modules: string[], onLoad: (...loaded: unknown[]) => void, onError?: (error: unknown) => void): void;
  config(options: { paths: Record<string, string> }): void;
}

let loading: Promise<Monaco> | undefined;

function amdRequire(): AmdRequire | undefined {
  const candidate: unknown = Reflect.get(window, 'require');
  return typeof candidate === 'function' && typeof Reflect.get(candidate, 'config') === 'function' ? (candidate as AmdRequire) : undefined;
}

export function loadMonaco(): Promise<Monaco> {
  loading ??= new Promise<Monaco>((resolve, reject) => {
    Reflect.set(window, 'MonacoEnvironment', { getWorkerUrl: () => `${BASE}/base/worker/workerMain.js` });
    const start = () => {
      const require = amdRequire();
      if (!require) return reject(new Error('Monaco loader did not define require'));
      require.config({ paths: { vs: BASE } });
      require(['vs/editor/editor.main'], () => {
        const monaco: unknown = Reflect.get(window, 'monaco');
        if (typeof monaco === 'object' && monaco !== null) resolve(monaco as Monaco);
        else reject(new Error('Monaco did not load'));
      }, reject);
    };
    if (amdRequire()) return start();
    const script = document.createElement('script');
    script.src = `${BASE}/loader.js`;
    script.onload = start;
    script.onerror = () => reject(new Error(`cannot load ${script.src}`));
    document.head.appendChild(script);
  });
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}
