// Defaults for rbac.authorization.k8s.io/v1 bindings (pkg/apis/rbac/v1/defaults.go): a roleRef
// without apiGroup is in the RBAC group, as are User and Group subjects (ServiceAccount subjects
// stay in the core group).
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function defaultRbacBinding(obj: KubeObject): void {
  if (isRecord(obj.roleRef) && !obj.roleRef.apiGroup) obj.roleRef.apiGroup = RBAC_GROUP;
  if (!Array.isArray(obj.subjects)) return;
  for (const subject of obj.subjects) {
    if (!isRecord(subject) || subject.apiGroup) continue;
    // a ServiceAccount's core group is "", which the wire form omits
    if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = RBAC_GROUP;
  }
}
