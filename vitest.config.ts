// Two projects: fast unit tests beside the code, and end-to-end suites in test/ that start a
// real `kubedesk serve` against real Docker with the real kubectl.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['main/**/*.test.ts', 'shared/**/*.test.ts', 'renderer/**/*.test.ts', 'preload/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
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
