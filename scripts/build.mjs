// Builds dist/: the cluster (main/) bundled by esbuild into one CommonJS file run through V8's code
// cache for fast start-up, with native modules left external; the web UI (renderer/) into
// dist/renderer, which the cluster serves at /ui/.
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';

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

// dockerode and docker-modem are bundled, but what they load for transports and features kubedesk
// does not use at start — ssh2 (DOCKER_HOST=ssh://), gRPC and protobuf (BuildKit sessions), tar
// and .dockerignore handling (image builds) — is required from node_modules on first use: loading
// them eagerly cost more than the rest of the bundle. Each such import becomes a small stand-in
// that loads the package when first touched; `__kubedeskRequire` is node's require for the bundle.
const onFirstUse = {
  ssh2: 'client',
  '@grpc/grpc-js': 'object',
  '@grpc/proto-loader': 'object',
  protobufjs: 'object',
  'tar-fs': 'object',
  '@balena/dockerignore': 'function',
};
function standIn(name, shape) {
  const load = `let loaded; const load = () => (loaded ??= __kubedeskRequire(${JSON.stringify(name)}));`;
  // docker-modem reads require('ssh2').Client when it loads: a constructor that builds the real one
  if (shape === 'client') return `${load} module.exports = new Proxy({ Client: function Client(...args) { return new (load().Client)(...args); } }, { get: (target, key) => (key in target ? target[key] : load()[key]) });`;
  const target = shape === 'function' ? 'function () {}' : '{}';
  return `${load} module.exports = new Proxy(${target}, { get: (_, key) => load()[key], has: (_, key) => key in load(), apply: (_, self, args) => load().apply(self, args), construct: (_, args) => new (load())(...args) });`;
}
const loadOnFirstUse = {
  name: 'load-on-first-use',
  setup(bundle) {
    const names = Object.keys(onFirstUse).map((name) => name.replace(/[/@.-]/g, '\\$&')).join('|');
    bundle.onResolve({ filter: new RegExp(`^(${names})$`) }, (args) => ({ path: args.path, namespace: 'on-first-use' }));
    bundle.onLoad({ filter: /.*/, namespace: 'on-first-use' }, (args) => ({ contents: standIn(args.path, onFirstUse[args.path]), loader: 'js' }));
    // dockerode's BuildKit support reads .proto files beside its own sources
    bundle.onLoad({ filter: /[\\/]node_modules[\\/]dockerode[\\/]lib[\\/][^\\/]+\.js$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replaceAll('__dirname', "require('node:path').join(require('node:path').dirname(__kubedeskRequire.resolve('dockerode/package.json')), 'lib')"),
      loader: 'js',
    }));
    // docker-modem formats every request's options in depth for its debug log even when that log
    // is off (about a millisecond per Docker call): only when DEBUG enables it
    bundle.onLoad({ filter: /[\\/]node_modules[\\/]docker-modem[\\/]lib[\\/]modem\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const call = "debug('Sending: %s', util.inspect(";
      if (!source.includes(call)) throw new Error(`${args.path}: the debug call to guard is gone; check docker-modem's update`);
      return { contents: source.replace(call, `debug.enabled && ${call}`), loader: 'js' };
    });
  },
};

// The OpenAPI schemas (generated JSON, ~0.8 MB) are copied beside the bundle and parsed from the
// file when the bundle loads: JSON.parse is several times faster than the same data as an object
// literal in the source, and the text is garbage once parsed (a string literal in the bundle would
// stay in memory with its code). The bundles live in dist/ and dist/app/.
const generatedJson = {
  name: 'generated-json-from-file',
  setup(bundle) {
    bundle.onLoad({ filter: /\.generated\.json$/ }, (args) => {
      const name = basename(args.path);
      mkdirSync('dist/data', { recursive: true });
      cpSync(args.path, `dist/data/${name}`);
      const candidates = [`./data/${name}`, `../data/${name}`].map((relative) => `new URL(${JSON.stringify(relative)}, import.meta.url)`).join(', ');
      return {
        contents: `import { existsSync, readFileSync } from 'node:fs'; const file = [${candidates}].find((url) => existsSync(url)); export default JSON.parse(readFileSync(file, 'utf8'));`,
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

/**
 * Writes esbuild's output files with every non-ASCII character escaped. esbuild escapes strings and
 * identifiers but leaves comments and regular expressions as they are, and one such character makes
 * V8 keep the whole source (megabytes, kept for the life of the process) as a two-byte string.
 */
function writeAscii(outputFiles) {
  for (const file of outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    const text = file.path.endsWith('.map') ? file.text : file.text.replace(/[^\x00-\x7f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
    writeFileSync(file.path, text);
  }
}

// The cluster: one CommonJS file, dist/kubedesk.cjs, run by dist/kubedesk.mjs (main/app/bundleLoader.ts)
// through V8's code cache (main/app/codeCache.ts), which Node 20 offers only to scripts, not to ES
// modules. Code reached only through import() (the command line, the components that start after
// readiness, the relay, certificate parsing, …) stays inside functions that run when first
// imported, so its top-level code costs nothing until then; with a warm cache neither does compiling it.
rmSync('dist/chunks', { recursive: true, force: true });
// What both CommonJS bundles of main/ (the cluster, the Electron shell) are built with.
const mainCommonJs = {
  write: false,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // import.meta.url (the UI's files, kd-netd's binary and the generated JSON are found next to the bundle) from the file's own path
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href; const __kubedeskRequire = require;" },
  external: ['better-sqlite3', 'electron', 'cpu-features'],
  plugins: [loadOnFirstUse, generatedJson],
  metafile: true,
  logLevel: 'warning',
};
const cluster = await build({ ...mainCommonJs, entryPoints: { kubedesk: 'main/app/cliMain.ts' }, outdir: 'dist', sourcemap: 'linked' });
assertNoTestCode(cluster, 'dist/kubedesk.cjs');
// The bundle runs as a vm.Script (the code cache), where a real import() of a module esbuild did
// not bundle (`import('node:fs')`, an external package) fails at run time with "A dynamic import
// callback was not specified": such imports must be static imports or require().
const externalDynamicImports = Object.entries(cluster.metafile.inputs).flatMap(([input, { imports }]) => imports.filter((entry) => entry.kind === 'dynamic-import' && entry.external).map((entry) => `${input} → import('${entry.path}')`));
if (externalDynamicImports.length > 0) throw new Error(`dist/kubedesk.cjs would import() modules it does not bundle:\n${externalDynamicImports.join('\n')}`);
// The file holds the function node's CommonJS loader would wrap the module in, so the loader
// compiles the file's text as it is, without a second multi-megabyte copy to add the wrapper.
for (const file of cluster.outputFiles) {
  if (file.path.endsWith('.cjs')) file.contents = Buffer.from(`(function (exports, require, module, __filename, __dirname) {${file.text}\n})`);
}
writeAscii(cluster.outputFiles);
const bundleText = readFileSync('dist/kubedesk.cjs');
const bundleHash = createHash('sha256').update(bundleText).digest('hex').slice(0, 16);
await build({
  entryPoints: { kubedesk: 'main/app/bundleLoader.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  define: { KUBEDESK_BUNDLE_HASH: JSON.stringify(bundleHash) },
  logLevel: 'warning',
});
rmSync('dist/kubedesk.mjs.map', { force: true });

// The Electron shell and its preload script are CommonJS, as Electron's main process loads them.
const shell = await build({ ...mainCommonJs, entryPoints: { electronMain: 'main/app/electronMain.ts' }, outdir: 'dist/app' });
assertNoTestCode(shell, 'dist/app/electronMain.cjs');
writeAscii(shell.outputFiles);

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
