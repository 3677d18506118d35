// Builds dist/: the cluster (main/) bundled by esbuild into one ESM file for fast start-up, with
// native and Docker modules left external; the web UI (renderer/) into dist/renderer, which the
// cluster serves at /ui/.
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const schemas = 'main/apiserver/openapi/schemas.generated.json';
if (!existsSync(schemas)) execFileSync(process.execPath, ['scripts/generateOpenapiSchemas.mjs'], { stdio: 'inherit' });

// kd-netd, the in-network service proxy (C, static): built with the system compiler, which
// better-sqlite3's native build needs anyway.
execFileSync(process.execPath, ['scripts/buildNetd.mjs'], { stdio: 'inherit' });

// Test doubles and fixtures (test/) are for unit tests only; a production bundle that pulls one in fails the build.
function assertNoTestCode(result, bundle) {
  const leaked = Object.keys(result.metafile.inputs).filter((input) => input.startsWith('test/'));
  if (leaked.length > 0) throw new Error(`${bundle} includes test code: ${leaked.join(', ')}`);
}

const cluster = await build({
  entryPoints: { kubedesk: 'main/app/cliMain.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  external: ['better-sqlite3', 'dockerode', 'electron', 'cpu-features', 'ssh2'],
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
});
assertNoTestCode(cluster, 'dist/kubedesk.mjs');

// The Electron shell and its preload script are CommonJS, as Electron's main process loads them.
const shell = await build({
  entryPoints: { electronMain: 'main/app/electronMain.ts' },
  outdir: 'dist/app',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // import.meta.url (kd-netd's binary is found next to the bundle) from the CommonJS file's own path
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  external: ['better-sqlite3', 'dockerode', 'electron', 'cpu-features', 'ssh2'],
  metafile: true,
  logLevel: 'warning',
});
assertNoTestCode(shell, 'dist/app/electronMain.cjs');

// The preload runs in Electron's sandbox: no __filename, `require` only for 'electron' — so it gets
// no banner and no import.meta.url shim.
await build({ entryPoints: { preload: 'preload/preload.ts' }, outdir: 'dist/app', outExtension: { '.js': '.cjs' }, bundle: true, platform: 'node', target: 'node20', format: 'cjs', external: ['electron'], logLevel: 'warning' });

// The web UI: React app and stylesheet (xterm's CSS inlined), the page, the icon, and Monaco's
// AMD build (loaded on demand by the YAML editor; copied once per Monaco version).
const ui = await build({
  entryPoints: { app: 'renderer/main.tsx' },
  outdir: 'dist/renderer',
  bundle: true,
  platform: 'browser',
  target: ['chrome120'],
  format: 'esm',
  sourcemap: 'linked',
  minify: true,
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  metafile: true,
  logLevel: 'warning',
});
assertNoTestCode(ui, 'dist/renderer/app.js');
await build({ entryPoints: { app: 'renderer/styles.css' }, outdir: 'dist/renderer', bundle: true, minify: true, loader: { '.woff': 'file', '.woff2': 'file', '.ttf': 'file' }, logLevel: 'warning' });
cpSync('renderer/index.html', 'dist/renderer/index.html');
cpSync('assets/icon.svg', 'dist/renderer/icon.svg');
const monacoVersion = JSON.parse(readFileSync('node_modules/monaco-editor/package.json', 'utf8')).version;
const monacoTarget = 'dist/renderer/monaco';
if (!existsSync(`${monacoTarget}/${monacoVersion}`)) {
  mkdirSync(monacoTarget, { recursive: true });
  cpSync('node_modules/monaco-editor/min/vs', `${monacoTarget}/vs`, { recursive: true });
  cpSync('node_modules/monaco-editor/package.json', `${monacoTarget}/${monacoVersion}`);
}
