// Layering: storage ← {registry} ← apiserver ← client ← {controllers, scheduler, kubelet, network} ← app,
// with docker/ implementing what the kubelet and the network define, and shared/ below everything.
// Each folder lists what it MAY import (kubedesk/import-restrictions, after kubernetes'
// import-restrictions.yaml): repository folders or files, and packages (`node:*` is Node's
// built-ins). A file is judged by the most specific entry naming its folder or itself; a unit test
// beside the code may also import the test doubles and fixtures. scripts/lint/importRestrictions.mjs
// resolves every import to a repository path or a package name before judging it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';
import { rule as importRestrictions } from './scripts/lint/importRestrictions.mjs';

const root = path.dirname(fileURLToPath(import.meta.url));
const node = 'node:*';

/** What each folder may import, and why. */
export const importAllowLists = [
  { files: ['main/storage'], allow: ['main/storage', 'shared', node], testsAlsoAllow: ['esbuild'], reason: 'storage is the bottom layer' },
  { files: ['main/storage/sqliteStore.ts'], allow: ['main/storage', 'shared', node, 'better-sqlite3'], reason: 'only sqliteStore.ts talks to SQLite' },
  { files: ['main/storage/sqliteHistory.ts'], allow: ['main/storage', 'shared', node, 'better-sqlite3'], reason: 'the history table lives in the store\'s SQLite file' },
  { files: ['main/storage/sqliteSnapshot.ts', 'main/storage/sqliteSnapshot.test.ts'], allow: ['main/storage', 'shared', node, 'better-sqlite3'], reason: 'a snapshot is a copy of the store\'s SQLite file' },
  { files: ['main/registry'], allow: ['main/registry', 'shared', node], reason: 'the registry holds pure per-kind rules; it imports only shared/' },
  {
    files: ['main/apiserver'],
    allow: ['main/apiserver', 'main/registry', 'main/storage', 'shared', node, 'ws', 'pako', 'yaml'],
    testsAlsoAllow: ['@peculiar/x509'],
    reason: 'the API server sees only storage and the registry',
  },
  { files: ['main/client'], allow: ['main/client', 'shared', node], testsAlsoAllow: ['@peculiar/x509'], reason: 'the client speaks the API; it never touches storage' },
  { files: ['main/componentHelpers'], allow: ['main/componentHelpers', 'shared'], reason: 'component helpers are pure functions over API objects' },
  {
    files: ['main/controllers'],
    // The quota controller evaluates usage with the same code as quota admission (upstream's pkg/quota).
    allow: ['main/controllers', 'main/client', 'main/componentHelpers', 'main/registry/resourceQuotaUsage', 'shared', node],
    testsAlsoAllow: ['main/registry/validation'],
    reason: 'controllers see only the client (as upstream sees only client-go) and the component helpers',
  },
  { files: ['main/scheduler'], allow: ['main/scheduler', 'main/client', 'main/componentHelpers', 'shared', node], reason: 'the scheduler sees only the client and the component helpers' },
  { files: ['main/kubelet'], allow: ['main/kubelet', 'main/client', 'shared', node], reason: 'the kubelet sees only the client and its ContainerRuntime interface; Docker is main/docker' },
  {
    files: ['main/network'],
    allow: ['main/network', 'main/client', 'shared', node, '@peculiar/x509'],
    testsAlsoAllow: ['ws'],
    reason: 'the network sees only the client; its Docker container is main/docker',
  },
  // The PortForward kind (kubedesk's own API) is defined beside its controller.
  { files: ['main/network/portForwards/portForwardResource.ts'], allow: ['main/network', 'main/client', 'main/registry', 'shared', node], reason: 'the PortForward kind definition' },
  {
    files: ['main/docker'],
    allow: ['main/docker', 'main/kubelet/runtime/containerRuntime', 'main/network/netd/netdImage', 'shared', node, 'dockerode'],
    testsAlsoAllow: ['test/support/images'],
    reason: 'main/docker is the only folder that talks to Docker; it implements what the kubelet and the network define',
  },
  { files: ['main/ociRegistry'], allow: ['main/ociRegistry', 'shared', node], reason: 'the image registry is a server of its own over the data dir; app/ wires it to the cluster' },
  {
    files: ['main/cli'],
    allow: ['main/cli', 'main/client', 'main/remote', 'shared', node, 'yaml'],
    reason: 'client commands reach a cluster only through the client, over a kubeconfig context\'s connection (main/remote), as kubectl does through client-go',
  },
  {
    files: ['main/remote'],
    allow: ['main/remote', 'shared', node, 'yaml'],
    reason: 'the kubeconfig and the credentials of its contexts (client-go\'s clientcmd and transport): node\'s TLS, never the app, the commands or the cluster layers',
  },
  { files: ['main/app'], allow: ['main', 'shared', node, 'yaml', 'ws'], reason: 'the composition root may use every layer, but not Electron outside the desktop shell' },
  { files: ['main/app/electronMain.ts'], allow: ['main', 'shared', node, 'electron'], reason: 'only electronMain.ts imports Electron' },
  { files: ['shared'], allow: ['shared', node, '@peculiar/x509'], reason: 'shared/ imports nothing from main/ or renderer/' },
  {
    files: ['renderer'],
    allow: ['renderer', 'shared', 'react', 'react-dom', 'zustand', 'monaco-editor', 'yaml', '@xterm/xterm', '@xterm/addon-fit', '@xterm/addon-search', '@xterm/addon-web-links'],
    reason: 'the renderer is a Kubernetes client; it reaches the cluster only over HTTP',
  },
  { files: ['preload'], allow: ['preload', 'shared', 'electron'], reason: 'the preload bridges only what a web page cannot do' },
  {
    files: ['test'],
    allow: ['main', 'shared', 'renderer', 'test', node, 'vitest', 'yaml', 'ws', 'dockerode', 'playwright-core', 'axe-core', '@peculiar/x509'],
    reason: 'end-to-end suites drive the real server from outside; only sqliteStore.ts opens SQLite',
  },
  { files: ['test/lint'], allow: ['test/lint', node, 'vitest', 'eslint'], reason: 'the import rules are tested by running ESLint' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'out/**', '.tools/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['main/**/*.ts', 'shared/**/*.ts', 'renderer/**/*.{ts,tsx}', 'preload/**/*.ts', 'test/**/*.ts'],
    plugins: { kubedesk: { rules: { 'import-restrictions': importRestrictions } } },
    rules: { 'kubedesk/import-restrictions': ['error', { root, entries: importAllowLists, unitTests: ['test/doubles', 'test/fixtures', 'vitest'] }] },
  },
);
