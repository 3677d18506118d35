import { describe, expect, it } from 'vitest';
import { evaluatePod, forbiddenDetail } from './podSecurityPolicy';

const restrictedSecurityContext = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
const spec = (container: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ containers: [{ name: 'c', image: 'busybox', ...container }], ...extra });

describe('evaluatePod', () => {
  it.each([
    ['baseline', spec({}), ''],
    ['baseline', spec({ securityContext: { privileged: true } }), 'privileged (container "c" must not set securityContext.privileged=true)'],
    ['baseline', spec({}, { hostNetwork: true, hostPID: true }), 'host namespaces (hostNetwork=true, hostPID=true)'],
    ['baseline', spec({ ports: [{ containerPort: 80, hostPort: 8080 }] }), 'hostPort (container "c" uses hostPort 8080)'],
    ['baseline', spec({ securityContext: { capabilities: { add: ['NET_ADMIN', 'SYS_TIME'] } } }), 'non-default capabilities (container "c" must not include "NET_ADMIN", "SYS_TIME" in securityContext.capabilities.add)'],
    ['baseline', spec({}, { volumes: [{ name: 'host', hostPath: { path: '/' } }] }), 'hostPath volumes (volume "host")'],
    ['baseline', spec({}, { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }] } }), 'forbidden sysctls (kernel.msgmax)'],
    ['restricted', spec({ securityContext: restrictedSecurityContext }), ''],
    ['restricted', spec({ securityContext: { ...restrictedSecurityContext, runAsUser: 0 } }), 'runAsUser=0 (container "c" must not set runAsUser=0)'],
    ['restricted', spec({ securityContext: restrictedSecurityContext }, { volumes: [{ name: 'host', hostPath: { path: '/' } }] }), 'restricted volume types (volume "host" uses restricted volume type "hostPath")'],
    [
      'restricted',
      spec({ securityContext: { ...restrictedSecurityContext, capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] } } }),
      'unrestricted capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
    ],
  ] as const)('at %s reports %j as upstream does', (level, podSpec, expected) => {
    expect(forbiddenDetail(evaluatePod(level, 35, {}, podSpec))).toBe(expected);
  });

  it('lets everything through at privileged', () => {
    expect(evaluatePod('privileged', 35, {}, spec({ securityContext: { privileged: true } }))).toEqual([]);
  });
});
