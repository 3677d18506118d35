// Two projects: fast unit tests beside the code (plus the tests of the test doubles and fixtures
// in test/doubles and test/fixtures, and of the import rules in test/lint), and end-to-end suites
// in test/ that start a real `kubedesk serve` against real Docker with the real kubectl.
import { configDefaults, defineConfig } from 'vitest/config';

const unitInTest = ['test/doubles/**/*.test.ts', 'test/fixtures/**/*.test.ts', 'test/lint/**/*.test.ts'];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['main/**/*.test.ts', 'shared/**/*.test.ts', 'renderer/**/*.test.ts', 'preload/**/*.test.ts', ...unitInTest],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...unitInTest],
          environment: 'node',
          globalSetup: ['test/globalSetup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
