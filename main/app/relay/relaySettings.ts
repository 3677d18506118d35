// The UI's per-cluster settings (today: the read-only switch), kept in <data dir>/ui-clusters.json
// so they survive restarts: `{"clusters": {"<context>": {"readOnly": true}}}`. Written atomically
// (temp file + rename), mode 0600 like the rest of the data dir's private files. A missing or
// unreadable file means no settings.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isRecord } from '../../../shared/kubernetes/types';

export interface ClusterSettings {
  readOnly: boolean;
}

export const SETTINGS_FILE = 'ui-clusters.json';

export class RelaySettings {
  private readonly settings = new Map<string, ClusterSettings>();
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, SETTINGS_FILE);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch {
      return;
    }
    if (!isRecord(parsed) || !isRecord(parsed.clusters)) return;
    for (const [name, value] of Object.entries(parsed.clusters)) {
      if (isRecord(value) && typeof value.readOnly === 'boolean') this.settings.set(name, { readOnly: value.readOnly });
    }
  }

  readOnly(context: string): boolean {
    return this.settings.get(context)?.readOnly ?? false;
  }

  setReadOnly(context: string, readOnly: boolean): void {
    if (readOnly) this.settings.set(context, { readOnly });
    else this.settings.delete(context);
    const clusters: Record<string, ClusterSettings> = {};
    for (const [name, value] of [...this.settings].sort(([a], [b]) => a.localeCompare(b))) clusters[name] = value;
    mkdirSync(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ clusters }, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}
