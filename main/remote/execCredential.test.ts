// client-go's interactiveFunc: whether an exec plugin runs interactively, by interactiveMode and
// whether the caller has a terminal whose stdin is one; and KUBERNETES_EXEC_INFO saying so.
import { describe, expect, it } from 'vitest';
import { CredentialError } from './clusterConnection';
import { execInfo, execInteractive } from './execCredential';
import type { ExecConfig } from './kubeconfig';

const plugin = (interactiveMode: string): ExecConfig => ({ userName: 'u', apiVersion: 'client.authentication.k8s.io/v1', command: 'p', args: [], env: [], interactiveMode, provideClusterInfo: false });
const terminal = (stdinIsTerminal: boolean) => ({ stdinIsTerminal, stderr: () => undefined });

describe('execInteractive', () => {
  it.each([
    ['Never', undefined, false],
    ['IfAvailable', undefined, false],
    ['Never', terminal(true), false],
    ['IfAvailable', terminal(false), false],
    ['IfAvailable', terminal(true), true],
    ['Always', terminal(true), true],
  ])('runs a %s plugin with terminal %j interactively: %s', (mode, caller, expected) => {
    expect(execInteractive(plugin(mode), caller)).toBe(expected);
  });

  it('refuses Always when stdin is not a terminal, in client-go’s words', () => {
    expect(() => execInteractive(plugin('Always'), terminal(false))).toThrow(new CredentialError('exec-interactive', 'exec plugin cannot support interactive mode: standard input is not a terminal'));
  });

  it('tells the plugin whether it is interactive', () => {
    expect(JSON.parse(execInfo(plugin('IfAvailable'), { server: 'https://x', insecureSkipTlsVerify: false }, true))).toEqual({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: true } });
    expect(JSON.parse(execInfo(plugin('IfAvailable'), { server: 'https://x', insecureSkipTlsVerify: false })).spec.interactive).toBe(false);
  });
});
