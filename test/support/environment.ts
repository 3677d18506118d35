// Everything the end-to-end suites need on the machine before the first test: Docker, kubectl and
// helm, the locally built test images. Used by test/globalSetup.ts and by scripts/ci-setup.sh.
import { ensureDocker } from './docker';
import { ensureTestImages, type TestImages } from './images';
import { ensureKubectl, type ToolPaths } from './tools';

export interface TestEnvironment extends ToolPaths {
  dockerVersion: string;
  images: TestImages;
}

export async function prepareTestEnvironment(): Promise<TestEnvironment> {
  const dockerVersion = await ensureDocker();
  const [tools, images] = await Promise.all([ensureKubectl(), ensureTestImages()]);
  return { ...tools, dockerVersion, images };
}
