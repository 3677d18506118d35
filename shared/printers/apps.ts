// `kubectl get` tables for apps/v1 kinds, following upstream pkg/printers/internalversion/printers.go
// (printDeployment, printReplicaSet, printStatefulSet, printDaemonSet, printControllerRevision).
import type { TableDef } from './table';
import { ageColumn, column, containerColumns, nameColumn, selectorDescription } from './columns';
import { numberAt, stringAt, stringMapAt, valueAt } from './fields';
import { age, controllerOf, formatLabelSelector, formatLabels, labelSelectorString, layoutContainerCells, name } from './format';

export const deploymentTable: TableDef = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    ageColumn(),
    ...containerColumns(),
    column('Selector', 'string', 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.', { priority: 1 }),
  ],
  row(object, now) {
    const { names, images } = layoutContainerCells(valueAt(object, 'spec', 'template', 'spec'));
    // printDeployment prints the selector as-is (empty stays empty), unlike FormatLabelSelector.
    const selector = labelSelectorString(valueAt(object, 'spec', 'selector'));
    return [
      name(object),
      `${numberAt(object, 'status', 'readyReplicas')}/${numberAt(object, 'spec', 'replicas')}`,
      numberAt(object, 'status', 'updatedReplicas'),
      numberAt(object, 'status', 'availableReplicas'),
      age(object, now),
      names,
      images,
      selector ?? '<invalid>',
    ];
  },
};

export const replicaSetTable: TableDef = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', 'Replicas is the number of desired replicas.'),
    column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
    column('Ready', 'integer', 'The number of ready replicas for this replica set.'),
    ageColumn(),
    ...containerColumns(),
    column('Selector', 'string', selectorDescription, { priority: 1 }),
  ],
  row(object, now) {
    const { names, images } = layoutContainerCells(valueAt(object, 'spec', 'template', 'spec'));
    return [
      name(object),
      numberAt(object, 'spec', 'replicas'),
      numberAt(object, 'status', 'replicas'),
      numberAt(object, 'status', 'readyReplicas'),
      age(object, now),
      names,
      images,
      formatLabelSelector(valueAt(object, 'spec', 'selector')),
    ];
  },
};

export const statefulSetTable: TableDef = {
  columns: [nameColumn(), column('Ready', 'string', 'Number of the pod with ready state'), ageColumn(), ...containerColumns()],
  row(object, now) {
    const { names, images } = layoutContainerCells(valueAt(object, 'spec', 'template', 'spec'));
    return [
      name(object),
      `${numberAt(object, 'status', 'readyReplicas')}/${numberAt(object, 'spec', 'replicas')}`,
      age(object, now),
      names,
      images,
    ];
  },
};

export const daemonSetTable: TableDef = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod).'),
    column('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
    column('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
    column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    column('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)'),
    column('Node Selector', 'string', "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node."),
    ageColumn(),
    ...containerColumns(),
    column('Selector', 'string', 'A label query over pods that are managed by the daemon set.', { priority: 1 }),
  ],
  row(object, now) {
    const podSpec = valueAt(object, 'spec', 'template', 'spec');
    const { names, images } = layoutContainerCells(podSpec);
    return [
      name(object),
      numberAt(object, 'status', 'desiredNumberScheduled'),
      numberAt(object, 'status', 'currentNumberScheduled'),
      numberAt(object, 'status', 'numberReady'),
      numberAt(object, 'status', 'updatedNumberScheduled'),
      numberAt(object, 'status', 'numberAvailable'),
      formatLabels(stringMapAt(podSpec, 'nodeSelector')),
      age(object, now),
      names,
      images,
      formatLabelSelector(valueAt(object, 'spec', 'selector')),
    ];
  },
};

/** The group of an apiVersion (`apps/v1` → `apps`, `v1` → ``). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** printControllerRevision's Controller cell: `kind.group/name` in lower case, or `<none>`. */
export function controllerCell(metadata: unknown): string {
  const reference = controllerOf(metadata);
  if (reference === undefined) return '<none>';
  const kind = stringAt(reference, 'kind');
  const group = groupOf(stringAt(reference, 'apiVersion'));
  const referenceName = stringAt(reference, 'name');
  if (kind === '' && group === '') return referenceName;
  const groupKind = group === '' ? kind : `${kind}.${group}`;
  return `${groupKind.toLowerCase()}/${referenceName}`;
}

export const controllerRevisionTable: TableDef = {
  columns: [
    nameColumn(),
    column('Controller', 'string', 'Controller of the object'),
    column('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'),
    ageColumn(),
  ],
  row(object, now) {
    return [name(object), controllerCell(object.metadata), numberAt(object, 'revision'), age(object, now)];
  },
};
