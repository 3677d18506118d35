// Four projects: fast unit tests beside the code (plus the tests of the test doubles and fixtures
// in test/doubles and test/fixtures, and of the import rules in test/lint), and end-to-end suites
// in test/ that start a real `kubedesk serve` against real Docker with the real kubectl, in three
// groups that run one after another:
//   e2e          two files at a time: every suite starts its own cluster (own data dir, API port 0,
//                own Docker network and containers) and asks for free host ports, so two clusters
//                never share a port or a container;
//   ui           the Chromium suites, one file at a time (a browser under a second cluster's load
//                times out on animations and navigations);
//   docker-restart  the suite that restarts dockerd, alone: it would stop every other suite's pods.
import { configDefaults, defineConfig } from 'vitest/config';

const unitInTest = ['test/doubles/**/*.test.ts', 'test/fixtures/**/*.test.ts', 'test/lint/**/*.test.ts'];
const uiSuites = ['test/e2e/ui*.test.ts'];
const dockerRestartSuites = ['test/e2e/resilience.test.ts'];

const endToEnd = {
  environment: 'node',
  globalSetup: ['test/globalSetup.ts'],
  testTimeout: 120_000,
  hookTimeout: 120_000,
} as const;

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['main/**/*.test.ts', 'shared/**/*.test.ts', 'renderer/**/*.test.ts', 'preload/**/*.test.ts', ...unitInTest],
          environment: 'node',
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...endToEnd,
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...unitInTest, ...uiSuites, ...dockerRestartSuites],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...endToEnd,
          name: 'ui',
          include: uiSuites,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          ...endToEnd,
          name: 'docker-restart',
          include: dockerRestartSuites,
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
