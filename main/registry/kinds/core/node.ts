// Node (core/v1), after pkg/registry/core/node/strategy.go: allocatable defaults to capacity; the
// kubelet writes status through /status; `spec.unschedulable` is selectable; /proxy is listed as
// upstream serves it (kubedesk has no node proxy yet).
import { nodeTable } from '../../../../shared/printers/core';
import { defaultNode } from '../../defaults/core';
import { validateNode, validateNodeUpdate } from '../../validation/core';
import { defineKind, statusSubresource, valueAt } from '../../strategy';

export const nodeStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'nodes',
  kind: 'Node',
  namespaced: false,
  shortNames: ['no'],
  subresources: [
    { name: 'proxy', type: 'connect', provider: 'nodeProxy', kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
    statusSubresource(),
  ],
  defaults: defaultNode,
  validateCreate: validateNode,
  validateUpdate: validateNodeUpdate,
  printer: nodeTable,
  selectableFields: (node) => ({ 'spec.unschedulable': valueAt(node, 'spec', 'unschedulable') === true ? 'true' : 'false' }),
});
