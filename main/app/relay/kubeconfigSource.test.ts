import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeconfigSource } from './kubeconfigSource';

function config(contexts: string[]): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
    'users: [{name: u, user: {token: t}}]',
    `contexts: [${contexts.map((name) => `{name: ${name}, context: {cluster: c, user: u}}`).join(', ')}]`,
    '',
  ].join('\n');
}

describe('KubeconfigSource', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it('reads the files again only when one of them changed, appeared or went away', () => {
    const directory = mkdtempSync(join(tmpdir(), 'relay-kubeconfig-'));
    directories.push(directory);
    const first = join(directory, 'a');
    const second = join(directory, 'b');
    writeFileSync(first, config(['one']));
    const source = new KubeconfigSource([first, second]);
    const reading = source.read();
    expect([...reading.merged.contexts.keys()]).toEqual(['one']);
    expect(source.read()).toBe(reading);
    writeFileSync(second, config(['two']));
    expect([...source.read().merged.contexts.keys()]).toEqual(['one', 'two']);
    writeFileSync(first, config(['one', 'three']));
    utimesSync(first, new Date(), new Date(Date.now() + 5000));
    expect([...source.read().merged.contexts.keys()]).toEqual(['one', 'three', 'two']);
    rmSync(second);
    expect([...source.read().merged.contexts.keys()]).toEqual(['one', 'three']);
  });

  it('keeps the last good reading and says why when a file cannot be parsed', () => {
    const directory = mkdtempSync(join(tmpdir(), 'relay-kubeconfig-'));
    directories.push(directory);
    const file = join(directory, 'config');
    writeFileSync(file, config(['one']));
    const source = new KubeconfigSource([file]);
    expect(source.read().error).toBeUndefined();
    writeFileSync(file, 'clusters: [unclosed\n');
    const broken = source.read();
    expect(broken.error).toMatch(/^kubeconfig could not be read: error loading config file/);
    expect([...broken.merged.contexts.keys()]).toEqual(['one']);
  });
});
