import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { containerConfig, containerNamespaces, sandboxConfig, verifyRunAsNonRoot, type ContainerSpec } from './containerConfig';

function pod(spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: 'u-1' }, spec: { containers: [{ name: 'app', image: 'busybox' }], ...spec } };
}

const app: ContainerSpec = { name: 'app', image: 'busybox' };

describe('containerNamespaces (namespacesForPod)', () => {
  it.each([
    ['a plain pod: processes of its own, the sandbox IPC', {}, undefined, { pid: 'container', ipc: 'pod' }],
    ['shareProcessNamespace: the sandbox processes', { shareProcessNamespace: true }, undefined, { pid: 'pod', ipc: 'pod' }],
    ['hostPID and hostIPC: the host namespaces', { hostPID: true, hostIPC: true }, undefined, { pid: 'node', ipc: 'node' }],
    ['an ephemeral container with a target: the target processes', {}, 'c-9', { pid: 'target', targetId: 'c-9', ipc: 'pod' }],
    ['a target in a pod that shares processes: the pod wins, as CONTAINER alone turns into TARGET', { shareProcessNamespace: true }, 'c-9', { pid: 'pod', ipc: 'pod' }],
    ['a target in a hostPID pod: the host', { hostPID: true }, 'c-9', { pid: 'node', ipc: 'pod' }],
  ])('%s', (_name, spec, targetId, expected) => {
    expect(containerNamespaces(pod(spec), targetId)).toEqual(expected);
  });
});

describe('verifyRunAsNonRoot', () => {
  const podRef = '"web_default(u-1)"';
  it.each([
    ['no runAsNonRoot', {}, {}, '', undefined],
    ['runAsNonRoot with an image that sets no user (root)', {}, { runAsNonRoot: true }, '', `container has runAsNonRoot and image will run as root (pod: ${podRef}, container: app)`],
    ['runAsNonRoot with an image user 0:0', {}, { runAsNonRoot: true }, '0:0', `container has runAsNonRoot and image will run as root (pod: ${podRef}, container: app)`],
    ['runAsNonRoot with an image user 1000', {}, { runAsNonRoot: true }, '1000', undefined],
    ['runAsNonRoot with a named image user', {}, { runAsNonRoot: true }, 'nobody', `container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (pod: ${podRef}, container: app)`],
    ['runAsNonRoot with runAsUser 0', {}, { runAsNonRoot: true, runAsUser: 0 }, '1000', `container's runAsUser breaks non-root policy (pod: ${podRef}, container: app)`],
    ['runAsNonRoot with runAsUser 1000 over a root image', {}, { runAsNonRoot: true, runAsUser: 1000 }, '', undefined],
    ['the pod sets runAsNonRoot, the container runAsUser', { runAsNonRoot: true }, { runAsUser: 1000 }, '', undefined],
    ['the pod sets runAsNonRoot, the container turns it off', { runAsNonRoot: true }, { runAsNonRoot: false }, '', undefined],
  ])('%s', (_name, podSecurity, security, imageUser, expected) => {
    expect(verifyRunAsNonRoot(pod({ securityContext: podSecurity }), { ...app, securityContext: security }, imageUser)).toBe(expected);
  });
});

describe('containerConfig', () => {
  it('maps what the debugging profiles set: capabilities, privileged, no_new_privs, seccomp and the target', () => {
    const debug: ContainerSpec = {
      name: 'debugger',
      image: 'busybox',
      stdin: true,
      tty: true,
      targetContainerName: 'app',
      securityContext: { privileged: true, allowPrivilegeEscalation: false, capabilities: { add: ['NET_ADMIN', 'NET_RAW'], drop: ['ALL'] }, seccompProfile: { type: 'Unconfined' } },
    };
    const config = containerConfig({ pod: pod(), container: debug, init: false, targetId: 'c-9', restartCount: 0, env: [], mounts: [] });
    expect(config.security).toMatchObject({ privileged: true, noNewPrivileges: true, capabilitiesAdd: ['NET_ADMIN', 'NET_RAW'], capabilitiesDrop: ['ALL'], seccomp: 'Unconfined' });
    expect(config.namespaces).toEqual({ pid: 'target', targetId: 'c-9', ipc: 'pod' });
    expect(config).toMatchObject({ stdin: true, tty: true, init: false });
  });

  it('takes the seccomp profile from the pod when the container sets none', () => {
    const config = containerConfig({ pod: pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }), container: app, init: false, restartCount: 0, env: [], mounts: [] });
    expect(config.security.seccomp).toBe('RuntimeDefault');
    expect(config.security.noNewPrivileges).toBe(false);
  });
});

describe('sandboxConfig', () => {
  it('asks for the host namespaces of a node debugging pod', () => {
    const config = sandboxConfig(pod({ hostNetwork: true, hostPID: true, hostIPC: true }), 0, undefined);
    expect(config).toMatchObject({ hostNetwork: true, hostPID: true, hostIPC: true });
    expect(sandboxConfig(pod(), 0, undefined)).toMatchObject({ hostNetwork: false, hostPID: false, hostIPC: false });
  });
});
