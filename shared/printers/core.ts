// `kubectl get` tables for core/v1 kinds other than pods and events, following upstream
// pkg/printers/internalversion/printers.go (printPodTemplate, printService, printEndpoints,
// printConfigMap, printSecret, printServiceAccount, printNode, printNamespace, printResourceQuota,
// printPersistentVolumeClaim, printPersistentVolume, printReplicationController).
import { getCondition } from '../kubernetes/conditions';
import type { KubeObject } from '../kubernetes/types';
import type { TableDef } from './table';
import { ageColumn, column, containerColumns, nameColumn } from './columns';
import { arrayAt, booleanAt, hasValue, numberAt, quantityAt, recordAt, stringAt, stringMapAt, valueAt } from './fields';
import { age, annotation, compareStrings, formatLabels, isDeleting, joinHostPort, layoutContainerCells, name } from './format';

export const podTemplateTable: TableDef = {
  columns: [
    nameColumn(),
    column('Containers', 'string', 'Names of each container in the template.'),
    column('Images', 'string', 'Images referenced by each container in the template.'),
    column('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  row(object) {
    const { names, images } = layoutContainerCells(valueAt(object, 'template', 'spec'));
    return [name(object), names, images, formatLabels(stringMapAt(object, 'template', 'metadata', 'labels'))];
  },
};

export const replicationControllerTable: TableDef = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', 'Replicas is the number of desired replicas.'),
    column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
    column('Ready', 'integer', 'The number of ready replicas for this replication controller.'),
    ageColumn(),
    ...containerColumns(),
    column('Selector', 'string', 'Selector is a label query over pods that should match the Replicas count.', { priority: 1 }),
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
      formatLabels(stringMapAt(object, 'spec', 'selector')),
    ];
  },
};

/** loadBalancerStatusStringer with wide=true (the server always prints wide): sorted unique IPs or hostnames. */
function loadBalancerIngress(status: unknown): string[] {
  const result = new Set<string>();
  for (const ingress of arrayAt(status, 'ingress')) {
    const ip = stringAt(ingress, 'ip');
    const hostname = stringAt(ingress, 'hostname');
    if (ip !== '') result.add(ip);
    else if (hostname !== '') result.add(hostname);
  }
  return [...result].sort(compareStrings);
}

/** getServiceExternalIP: `<none>` for ClusterIP/NodePort without externalIPs, `<pending>` for a load balancer without ingress. */
export function serviceExternalIP(service: unknown): string {
  const externalIPs = arrayAt(service, 'spec', 'externalIPs').filter((ip): ip is string => typeof ip === 'string');
  switch (stringAt(service, 'spec', 'type')) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = loadBalancerIngress(valueAt(service, 'status', 'loadBalancer'));
      if (externalIPs.length > 0) return [...ingress, ...externalIPs].join(',');
      return ingress.length > 0 ? ingress.join(',') : '<pending>';
    }
    case 'ExternalName':
      return stringAt(service, 'spec', 'externalName');
    default:
      return '<unknown>';
  }
}

/** makePortString: `80/TCP`, or `80:30080/TCP` when a node port is allocated. */
export function servicePorts(service: unknown): string {
  const pieces = arrayAt(service, 'spec', 'ports').map((port) => {
    const protocol = stringAt(port, 'protocol');
    const nodePort = numberAt(port, 'nodePort');
    const number = numberAt(port, 'port');
    return nodePort > 0 ? `${number}:${nodePort}/${protocol}` : `${number}/${protocol}`;
  });
  return pieces.length === 0 ? '<none>' : pieces.join(',');
}

export const serviceTable: TableDef = {
  columns: [
    nameColumn(),
    column('Type', 'string', 'type determines how the Service is exposed.'),
    column('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
    column('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
    column('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
    ageColumn(),
    column('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.', { priority: 1 }),
  ],
  row(object, now) {
    // The v1→internal conversion fills clusterIPs from clusterIP when only the latter is set.
    const clusterIP = stringAt(object, 'spec', 'clusterIPs', 0) || stringAt(object, 'spec', 'clusterIP') || '<none>';
    return [
      name(object),
      stringAt(object, 'spec', 'type'),
      clusterIP,
      serviceExternalIP(object),
      servicePorts(object),
      age(object, now),
      formatLabels(stringMapAt(object, 'spec', 'selector')),
    ];
  },
};

/** formatEndpoints: up to three `ip:port` entries, then ` + N more...`; `<none>` without subsets. */
export function formatEndpoints(endpoints: unknown): string {
  const subsets = arrayAt(endpoints, 'subsets');
  if (subsets.length === 0) return '<none>';
  const maximum = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const subset of subsets) {
    const addresses = arrayAt(subset, 'addresses');
    const ports = arrayAt(subset, 'ports');
    if (ports.length === 0) {
      // Headless services may have addresses without ports.
      count += addresses.length;
      for (const address of addresses) {
        if (list.length === maximum) {
          more = true;
          break;
        }
        list.push(stringAt(address, 'ip'));
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const address of addresses) {
        if (list.length === maximum) {
          more = true;
          break;
        }
        list.push(joinHostPort(stringAt(address, 'ip'), numberAt(port, 'port')));
      }
    }
  }
  const text = list.join(',');
  return more ? `${text} + ${count - maximum} more...` : text;
}

export const endpointsTable: TableDef = {
  columns: [
    nameColumn(),
    column('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.'),
    ageColumn(),
  ],
  row(object, now) {
    return [name(object), formatEndpoints(object), age(object, now)];
  },
};

export const configMapTable: TableDef = {
  columns: [
    nameColumn(),
    column('Data', 'string', 'Data contains the configuration data.'),
    ageColumn(),
  ],
  row(object, now) {
    const count = Object.keys(recordAt(object, 'data')).length + Object.keys(recordAt(object, 'binaryData')).length;
    return [name(object), count, age(object, now)];
  },
};

export const secretTable: TableDef = {
  columns: [
    nameColumn(),
    column('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
    column('Data', 'string', 'Data contains the secret data.'),
    ageColumn(),
  ],
  row(object, now) {
    return [name(object), stringAt(object, 'type'), Object.keys(recordAt(object, 'data')).length, age(object, now)];
  },
};

export const serviceAccountTable: TableDef = {
  columns: [
    nameColumn(),
    column('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'),
    ageColumn(),
  ],
  row(object, now) {
    return [name(object), arrayAt(object, 'secrets').length, age(object, now)];
  },
};

const nodeRolePrefix = 'node-role.kubernetes.io/';
const nodeRoleLabel = 'kubernetes.io/role';

/** findNodeRoles: `node-role.kubernetes.io/<role>` label keys and `kubernetes.io/role=<role>` values, sorted. */
export function nodeRoles(node: KubeObject): string[] {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith(nodeRolePrefix)) {
      const role = key.slice(nodeRolePrefix.length);
      if (role !== '') roles.add(role);
    } else if (key === nodeRoleLabel && value !== '') {
      roles.add(value);
    }
  }
  return [...roles].sort(compareStrings);
}

/** printNode's Status: `Ready`/`NotReady`/`Unknown`, plus `SchedulingDisabled` when cordoned. */
export function nodeStatus(node: unknown): string {
  const status: string[] = [];
  const ready = getCondition(node, 'Ready');
  if (ready !== undefined) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  if (status.length === 0) status.push('Unknown');
  if (booleanAt(node, 'spec', 'unschedulable')) status.push('SchedulingDisabled');
  return status.join(',');
}

function nodeAddress(node: unknown, type: string): string {
  const address = arrayAt(node, 'status', 'addresses').find((entry) => stringAt(entry, 'type') === type);
  return address === undefined ? '<none>' : stringAt(address, 'address');
}

export const nodeTable: TableDef = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    ageColumn(),
    column('Version', 'string', 'Kubelet Version reported by the node.'),
    column('Internal-IP', 'string', 'List of addresses reachable to the node.', { priority: 1 }),
    column('External-IP', 'string', 'List of addresses reachable to the node.', { priority: 1 }),
    column('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', { priority: 1 }),
    column('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", { priority: 1 }),
    column('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', { priority: 1 }),
  ],
  row(object, now) {
    const roles = nodeRoles(object).join(',');
    return [
      name(object),
      nodeStatus(object),
      roles === '' ? '<none>' : roles,
      age(object, now),
      stringAt(object, 'status', 'nodeInfo', 'kubeletVersion'),
      nodeAddress(object, 'InternalIP'),
      nodeAddress(object, 'ExternalIP'),
      stringAt(object, 'status', 'nodeInfo', 'osImage') || '<unknown>',
      stringAt(object, 'status', 'nodeInfo', 'kernelVersion') || '<unknown>',
      stringAt(object, 'status', 'nodeInfo', 'containerRuntimeVersion') || '<unknown>',
    ];
  },
};

export const namespaceTable: TableDef = {
  columns: [nameColumn(), column('Status', 'string', 'The status of the namespace'), ageColumn()],
  row(object, now) {
    return [name(object), stringAt(object, 'status', 'phase'), age(object, now)];
  },
};

/** printResourceQuota: `resource: used/hard` pairs in name order, `limits.*` in the Limit column. */
export function resourceQuotaCells(quota: unknown): { request: string; limit: string } {
  const hard = recordAt(quota, 'status', 'hard');
  const request: string[] = [];
  const limit: string[] = [];
  for (const resource of Object.keys(hard).sort(compareStrings)) {
    const pieces = resource.split('.');
    const target = pieces.length > 1 && pieces[0] === 'limits' ? limit : request;
    target.push(`${resource}: ${quantityAt(quota, 'status', 'used', resource)}/${quantityAt(hard, resource)}`);
  }
  return { request: request.join(', '), limit: limit.join(', ') };
}

export const resourceQuotaTable: TableDef = {
  columns: [
    nameColumn(),
    column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    ageColumn(),
  ],
  row(object, now) {
    const { request, limit } = resourceQuotaCells(object);
    return [name(object), request, limit, age(object, now)];
  },
};

/** helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that fixed order. */
export function accessModesText(modes: unknown[]): string {
  const abbreviations: [string, string][] = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return abbreviations
    .filter(([mode]) => modes.includes(mode))
    .map(([, abbreviation]) => abbreviation)
    .join(',');
}

/** GetPersistentVolume(Claim)Class: the beta annotation wins over spec.storageClassName. */
function storageClassName(object: unknown): string {
  return annotation(object, 'volume.beta.kubernetes.io/storage-class') || stringAt(object, 'spec', 'storageClassName');
}

function optionalText(object: unknown, ...path: string[]): string {
  return hasValue(object, ...path) ? stringAt(object, ...path) : '<unset>';
}

export const persistentVolumeClaimTable: TableDef = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
    column('Volume', 'string', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    column('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
    column('Access Modes', 'string', 'accessModes contains the actual access modes the volume backing the PVC has.'),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    ageColumn(),
    column('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.', { priority: 1 }),
  ],
  row(object, now) {
    const volumeName = stringAt(object, 'spec', 'volumeName');
    const bound = volumeName !== '';
    return [
      name(object),
      isDeleting(object) ? 'Terminating' : stringAt(object, 'status', 'phase'),
      volumeName,
      bound ? quantityAt(object, 'status', 'capacity', 'storage') : '',
      bound ? accessModesText(arrayAt(object, 'status', 'accessModes')) : '',
      storageClassName(object),
      optionalText(object, 'spec', 'volumeAttributesClassName'),
      age(object, now),
      optionalText(object, 'spec', 'volumeMode'),
    ];
  },
};

export const persistentVolumeTable: TableDef = {
  columns: [
    nameColumn(),
    column('Capacity', 'string', "capacity is the description of the persistent volume's resources and capacity."),
    column('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
    column('Reclaim Policy', 'string', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
    column('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
    column('Claim', 'string', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
    column('StorageClass', 'string', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    column('Reason', 'string', 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
    ageColumn(),
    column('VolumeMode', 'string', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.', { priority: 1 }),
  ],
  row(object, now) {
    const claim = hasValue(object, 'spec', 'claimRef')
      ? `${stringAt(object, 'spec', 'claimRef', 'namespace')}/${stringAt(object, 'spec', 'claimRef', 'name')}`
      : '';
    return [
      name(object),
      quantityAt(object, 'spec', 'capacity', 'storage'),
      accessModesText(arrayAt(object, 'spec', 'accessModes')),
      stringAt(object, 'spec', 'persistentVolumeReclaimPolicy'),
      isDeleting(object) ? 'Terminating' : stringAt(object, 'status', 'phase'),
      claim,
      storageClassName(object),
      optionalText(object, 'spec', 'volumeAttributesClassName'),
      stringAt(object, 'status', 'reason'),
      age(object, now),
      optionalText(object, 'spec', 'volumeMode'),
    ];
  },
};
