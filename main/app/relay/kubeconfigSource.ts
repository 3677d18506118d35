// The user's kubeconfig as the relay sees it: the files kubectl would read, merged as kubectl
// merges them (main/remote/kubeconfig.ts), read again whenever one of them changed (mtime, size or
// presence), so a context added with `kubectl config set-context` or by `kubedesk cluster create`
// shows up in the UI's cluster picker without a restart. A file that cannot be parsed leaves the
// last good reading in place and is reported as `error`.
import { statSync } from 'node:fs';
import { loadKubeconfig, type MergedKubeconfig } from '../../remote/kubeconfig';

export interface KubeconfigReading {
  merged: MergedKubeconfig;
  /** changes whenever any file changed (a new reading was made) */
  version: number;
  /** why the files could not be read, when they could not */
  error?: string;
}

export class KubeconfigSource {
  private stamp = '';
  private reading: KubeconfigReading = { merged: emptyKubeconfig(), version: 0 };

  constructor(readonly files: readonly string[]) {}

  /** The current reading, re-read when a file changed since the last call. */
  read(): KubeconfigReading {
    const stamp = this.files.map(fileStamp).join('|');
    if (stamp === this.stamp && this.reading.version > 0) return this.reading;
    this.stamp = stamp;
    try {
      this.reading = { merged: loadKubeconfig([...this.files], false), version: this.reading.version + 1 };
    } catch (error) {
      this.reading = { merged: this.reading.merged, version: this.reading.version + 1, error: `kubeconfig could not be read: ${error instanceof Error ? error.message : String(error)}` };
    }
    return this.reading;
  }
}

function fileStamp(file: string): string {
  try {
    const stats = statSync(file);
    return `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
  } catch {
    return 'missing';
  }
}

function emptyKubeconfig(): MergedKubeconfig {
  return { files: [], currentContext: '', clusters: new Map(), users: new Map(), contexts: new Map() };
}
