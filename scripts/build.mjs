// Builds dist/: the cluster (main/) bundled by esbuild into one ESM file for fast start-up, with
// native and Docker modules left external. The UI bundle joins here when the renderer lands.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const schemas = 'main/apiserver/openapi/schemas.generated.json';
if (!existsSync(schemas)) execFileSync(process.execPath, ['scripts/generateOpenapiSchemas.mjs'], { stdio: 'inherit' });

// kd-netd, the in-network service proxy (C, static): built with the system compiler, which
// better-sqlite3's native build needs anyway.
execFileSync(process.execPath, ['scripts/buildNetd.mjs'], { stdio: 'inherit' });

await build({
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
  logLevel: 'warning',
});

// The Electron shell and its preload script are CommonJS, as Electron's main process loads them.
await build({
  entryPoints: { electronMain: 'main/app/electronMain.ts', preload: 'preload/preload.ts' },
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
  logLevel: 'warning',
});
