// Self-test of the end-to-end toolchain: the real kubectl and helm run, and the locally built
// busybox image runs on Docker without a registry.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { busyboxImage } from '../support/images';

const run = promisify(execFile);

describe('end-to-end toolchain', () => {
  it('runs kubectl v1.35', async () => {
    const { stdout } = await run(inject('kubectl'), ['version', '--client']);
    expect(stdout).toMatch(/Client Version: v1\.35\./);
  });

  it('runs helm', async () => {
    const { stdout } = await run(inject('helm'), ['version', '--short']);
    expect(stdout).toMatch(/^v\d+\.\d+\.\d+/);
  });

  it('exports the tool paths to the environment of the test workers', () => {
    expect(process.env.KUBECTL).toBe(inject('kubectl'));
    expect(process.env.HELM).toBe(inject('helm'));
  });

  it('runs a command in the locally built busybox image', async () => {
    expect(inject('busyboxImage')).toBe(busyboxImage);
    const { stdout } = await run('docker', ['run', '--rm', busyboxImage, 'echo', 'hi']);
    expect(stdout).toBe('hi\n');
  });

  it('gives the busybox image a shell as its default command and a passwd file', async () => {
    const inspected = await run('docker', ['image', 'inspect', '--format', '{{json .Config.Cmd}}', busyboxImage]);
    expect(JSON.parse(inspected.stdout)).toEqual(['sh']);
    const { stdout } = await run('docker', ['run', '--rm', busyboxImage, 'sh', '-c', 'id -un; ls -d /tmp; readlink /bin/sh']);
    expect(stdout.split('\n').slice(0, 3)).toEqual(['root', '/tmp', '/bin/busybox']);
  });
});
