// Layering: storage ← apiserver ← client ← {controllers, scheduler, kubelet, network} ← app.
// Each folder may import only from the layers below it; shared/ imports nothing from main/ or renderer/.
import tseslint from 'typescript-eslint';

const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: patterns.map((group) => ({ group: [group], message })) }],
});

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
    files: ['main/**/*.ts', 'shared/**/*.ts', 'renderer/**/*.{ts,tsx}', 'preload/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    ignores: ['main/storage/sqliteStore.ts'],
    rules: restrict(['better-sqlite3'], 'only main/storage/sqliteStore.ts talks to SQLite'),
  },
  {
    files: ['main/storage/**/*.ts'],
    rules: restrict(['**/apiserver/**', '**/registry/**', '**/client/**', '**/scheduler/**', '**/controllers/**', '**/kubelet/**', '**/network/**', '**/app/**', 'electron', 'dockerode'], 'storage is the bottom layer'),
  },
  {
    files: ['main/registry/**/*.ts'],
    rules: restrict(['**/apiserver/**', '**/storage/**', '**/client/**', '**/scheduler/**', '**/controllers/**', '**/kubelet/**', '**/network/**', '**/app/**', 'electron', 'dockerode'], 'registry holds pure per-kind rules; it imports only shared/'),
  },
  {
    files: ['main/apiserver/**/*.ts'],
    rules: restrict(['**/client/**', '**/scheduler/**', '**/controllers/**', '**/kubelet/**', '**/network/**', '**/app/**', 'electron', 'dockerode'], 'the API server sees only storage and registry'),
  },
  {
    files: ['main/client/**/*.ts'],
    rules: restrict(['**/storage/**', '**/scheduler/**', '**/controllers/**', '**/kubelet/**', '**/network/**', '**/app/**', 'electron', 'dockerode'], 'the client speaks the API; it never touches storage'),
  },
  {
    files: ['main/{scheduler,controllers,kubelet,network}/**/*.ts'],
    rules: restrict(['**/storage/**', '**/apiserver/**', '**/app/**', 'electron'], 'components see only the client (as upstream sees only client-go)'),
  },
  {
    files: ['shared/**/*.ts'],
    rules: restrict(['**/main/**', '**/renderer/**', 'electron', 'dockerode'], 'shared/ imports nothing from main/ or renderer/'),
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: restrict(['**/main/**', 'electron', 'dockerode'], 'the renderer is a Kubernetes client; it reaches the cluster only over HTTP'),
  },
);
