// The import allow-lists of eslint.config.mjs, proven on small sources that break each rule: ESLint
// runs with the repository's own configuration on virtual files placed in each folder.
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function restrictionErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  return result.messages.filter((message) => message.ruleId === 'kubedesk/import-restrictions').map((message) => message.message);
}

describe('import allow-lists', () => {
  it.each([
    ['better-sqlite3 outside sqliteStore.ts, in a folder that has rules of its own', 'main/apiserver/leak.ts', "import Database from 'better-sqlite3';"],
    ['better-sqlite3 in another storage file', 'main/storage/other.ts', "import Database from 'better-sqlite3';"],
    ['better-sqlite3 in an end-to-end suite', 'test/e2e/leak.test.ts', "import Database from 'better-sqlite3';"],
    ["the client's index as '../client' from the API server", 'main/apiserver/leak.ts', "import { ApiClient } from '../client';"],
    ["the client's index as '../client' from storage", 'main/storage/leak.ts', "export { ApiClient } from '../client';"],
    ['the client from the registry through a longer path', 'main/registry/leak.ts', "import type { Informer } from '../../main/client/informer';"],
    ['dockerode from a controller', 'main/controllers/leak.ts', "import Docker from 'dockerode';"],
    ['dockerode from the network', 'main/network/leak.ts', "import type Docker from 'dockerode';"],
    ['dockerode from the scheduler', 'main/scheduler/leak.ts', "const docker = await import('dockerode');"],
    ['dockerode from the kubelet', 'main/kubelet/leak.ts', "import Docker from 'dockerode';"],
    ["the kubelet's internals from the network", 'main/network/leak.ts', "import { RuntimeLabels } from '../kubelet/runtime/containerRuntime';"],
    ['the scheduler from a controller', 'main/controllers/leak.ts', "import type { Pod } from '../scheduler/api';"],
    ['storage from a controller', 'main/controllers/leak.ts', "import { SqliteStore } from '../storage/sqliteStore';"],
    ['the API server from the kubelet', 'main/kubelet/leak.ts', "import { ApiServer } from '../apiserver/apiServer';"],
    ['Electron outside electronMain.ts', 'main/app/leak.ts', "import { app } from 'electron';"],
    ['main/ from shared/', 'shared/leak.ts', "import { ApiClient } from '../main/client';"],
    ['main/ from the renderer', 'renderer/leak.ts', "import { resources } from '../main/client/resources';"],
    ['a test double from production code', 'main/client/leak.ts', "import { FakeTransport } from '../../test/doubles/fakeTransport';"],
    ['a test fixture from production code', 'main/scheduler/leak.ts', "import { makePod } from '../../test/fixtures/schedulerObjects';"],
    ['a type-only import of a forbidden module', 'main/controllers/leak.ts', "type Taint = import('../scheduler/api').Taint;"],
  ])('rejects %s', async (_name, file, source) => {
    const errors = await restrictionErrors(file, source);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/may not be imported here/);
  });

  it.each([
    ['better-sqlite3 in sqliteStore.ts', 'main/storage/sqliteStore.ts', "import Database from 'better-sqlite3';"],
    ['the client from a controller', 'main/controllers/ok.ts', "import { ApiClient } from '../client';"],
    ['the component helpers from a controller', 'main/controllers/ok.ts', "import { findUntoleratedTaint } from '../componentHelpers/scheduling/corev1';"],
    ['dockerode in main/docker', 'main/docker/ok.ts', "import Docker from 'dockerode';"],
    ["the kubelet's runtime interface in main/docker", 'main/docker/ok.ts', "import type { ContainerRuntime } from '../kubelet/runtime/containerRuntime';"],
    ['Electron in electronMain.ts', 'main/app/electronMain.ts', "import { app } from 'electron';"],
    ['shared/ and node built-ins from the kubelet', 'main/kubelet/ok.ts', "import { readFileSync } from 'node:fs';\nimport { formatTime } from '../../shared/kubernetes/time';"],
    ['a test double from a unit test beside the code', 'main/client/ok.test.ts', "import { FakeTransport } from '../../test/doubles/fakeTransport';\nimport { it } from 'vitest';"],
    ['react from the renderer', 'renderer/ok.tsx', "import { useState } from 'react';\nimport { createRoot } from 'react-dom/client';"],
  ])('allows %s', async (_name, file, source) => {
    expect(await restrictionErrors(file, source)).toEqual([]);
  });
});
