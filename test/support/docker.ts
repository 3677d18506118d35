// Checks that the Docker daemon the end-to-end suites run pods on is reachable, with a message that
// says how to fix it (scripts/ci-setup.sh starts dockerd).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function ensureDocker(): Promise<string> {
  try {
    const { stdout } = await run('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 30_000 });
    return stdout.trim();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`Docker is not reachable (\`docker info\` failed); run \`sudo bash scripts/ci-setup.sh\`.\n${detail}`);
  }
}
