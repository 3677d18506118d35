// The YAML a list's Create button starts from: a small, valid object of that kind (what
// `kubectl create <kind> --dry-run=client -o yaml` gives, plus the fields people add next), in the
// namespace the list shows. Kinds without a template here — custom resources — get apiVersion,
// kind, metadata and an empty spec. Pure.
import { apiVersionOf, type KindConfig } from '../../kinds/kindConfig';

const IMAGE = 'busybox:1.36';

function podSpec(indent: string, command = "['sh', '-c', 'echo started; exec sleep 3600']"): string {
  return [
    `${indent}containers:`,
    `${indent}  - name: main`,
    `${indent}    image: ${IMAGE}`,
    `${indent}    command: ${command}`,
    `${indent}    resources:`,
    `${indent}      requests: { cpu: 10m, memory: 16Mi }`,
  ].join('\n');
}

const BODIES: Record<string, (name: string) => string> = {
  pods: () => `spec:\n${podSpec('  ')}\n`,
  'deployments.apps': (name) => `spec:\n  replicas: 1\n  selector:\n    matchLabels: { app: ${name} }\n  template:\n    metadata:\n      labels: { app: ${name} }\n    spec:\n${podSpec('      ')}\n`,
  'statefulsets.apps': (name) => `spec:\n  replicas: 1\n  serviceName: ${name}\n  selector:\n    matchLabels: { app: ${name} }\n  template:\n    metadata:\n      labels: { app: ${name} }\n    spec:\n${podSpec('      ')}\n`,
  'daemonsets.apps': (name) => `spec:\n  selector:\n    matchLabels: { app: ${name} }\n  template:\n    metadata:\n      labels: { app: ${name} }\n    spec:\n${podSpec('      ')}\n`,
  'replicasets.apps': (name) => `spec:\n  replicas: 1\n  selector:\n    matchLabels: { app: ${name} }\n  template:\n    metadata:\n      labels: { app: ${name} }\n    spec:\n${podSpec('      ')}\n`,
  replicationcontrollers: (name) => `spec:\n  replicas: 1\n  selector: { app: ${name} }\n  template:\n    metadata:\n      labels: { app: ${name} }\n    spec:\n${podSpec('      ')}\n`,
  'jobs.batch': () => `spec:\n  backoffLimit: 2\n  template:\n    spec:\n      restartPolicy: Never\n${podSpec('      ', "['sh', '-c', 'echo done']")}\n`,
  'cronjobs.batch': () => `spec:\n  schedule: '*/5 * * * *'\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n${podSpec('          ', "['sh', '-c', 'date']")}\n`,
  services: (name) => `spec:\n  type: ClusterIP\n  selector: { app: ${name} }\n  ports:\n    - name: http\n      port: 80\n      targetPort: 8080\n`,
  'ingresses.networking.k8s.io': (name) => `spec:\n  rules:\n    - host: ${name}.localhost\n      http:\n        paths:\n          - path: /\n            pathType: Prefix\n            backend:\n              service:\n                name: ${name}\n                port: { number: 80 }\n`,
  configmaps: () => `data:\n  color: blue\n  settings.conf: |\n    key=value\n`,
  secrets: () => `type: Opaque\nstringData:\n  username: admin\n  password: change-me\n`,
  persistentvolumeclaims: () => `spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests: { storage: 1Gi }\n`,
  persistentvolumes: (name) => `spec:\n  capacity: { storage: 1Gi }\n  accessModes: [ReadWriteOnce]\n  persistentVolumeReclaimPolicy: Retain\n  hostPath: { path: /tmp/${name} }\n`,
  'storageclasses.storage.k8s.io': () => `provisioner: kubedesk.io/local-path\nreclaimPolicy: Delete\nvolumeBindingMode: Immediate\n`,
  namespaces: () => '',
  nodes: () => '',
  endpoints: () => `subsets:\n  - addresses:\n      - ip: 10.0.0.10\n    ports:\n      - port: 80\n`,
  events: () => `involvedObject:\n  kind: Pod\n  name: some-pod\n  namespace: default\nreason: Noted\nmessage: a note by hand\ntype: Normal\n`,
  'portforwards.kubedesk.dev': () => `spec:\n  target: { kind: Service, name: web }\n  port: 80\n`,
  'customresourcedefinitions.apiextensions.k8s.io': () =>
    `spec:\n  group: example.com\n  names: { plural: widgets, singular: widget, kind: Widget }\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n`,
};

/** A starter name for a new object of the kind (`new-deployment`; CRDs need `<plural>.<group>`). */
export function templateName(config: KindConfig): string {
  if (config.key === 'customresourcedefinitions.apiextensions.k8s.io') return 'widgets.example.com';
  return `new-${config.kind.toLowerCase()}`;
}

/** The starter YAML of a kind, in `namespace` when the kind is namespaced. */
export function templateFor(config: KindConfig, namespace: string): string {
  const name = templateName(config);
  const metadata = config.namespaced ? `metadata:\n  name: ${name}\n  namespace: ${namespace}\n` : `metadata:\n  name: ${name}\n`;
  const body = BODIES[config.key]?.(name) ?? 'spec: {}\n';
  return `apiVersion: ${apiVersionOf(config)}\nkind: ${config.kind}\n${metadata}${body}`;
}

/** Whether the kind has a template of its own (custom kinds get the generic one). */
export function hasOwnTemplate(config: KindConfig): boolean {
  return config.key in BODIES;
}
