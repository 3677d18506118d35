// The PortForward kind (kubedesk.dev/v1alpha1, plural `portforwards`, short name `pf`): a port on
// 127.0.0.1 that kubedesk keeps open and forwards to a Pod or a Service port, surviving pod
// replacement. It is served like a built-in kind rather than through a CRD, so that it has
// validation with field paths (upstream field.ErrorList, Invalid Status), `kubectl get` columns and
// a published schema for `kubectl explain`, and so that no user can delete its definition. Its
// strategy follows upstream's for kinds with a status subresource (pkg/registry/*/strategy.go):
// status is reset on create and kept on main-resource writes. Pure: imports only shared/ and the
// registry's helpers.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { portForwardTable, portForwardTargetText } from '../../../shared/printers/portForward';

export { portForwardTable };
import { fieldErrors, type FieldError } from '../../registry/fieldErrors';
import { defineKind, statusSubresource, type KindStrategy } from '../../registry/strategy';
import { isValidPortName, nameIsDNS1035Label, nameIsDNSSubdomain } from '../../registry/validation/names';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../registry/validation/objectMeta';

export const PORT_FORWARD_GROUP = 'kubedesk.dev';
export const PORT_FORWARD_VERSION = 'v1alpha1';
export const PORT_FORWARD_KIND = 'PortForward';
export const PORT_FORWARD_RESOURCE = 'portforwards';

/** How the client and informers address PortForwards (a GroupVersionResource). */
export const portForwardsResource = { group: PORT_FORWARD_GROUP, version: PORT_FORWARD_VERSION, resource: PORT_FORWARD_RESOURCE, namespaced: true, kind: PORT_FORWARD_KIND };

export type PortForwardTargetKind = 'Pod' | 'Service';
export type PortForwardPhase = 'Active' | 'Waiting' | 'Failed';

export interface PortForwardSpec {
  target: { kind: PortForwardTargetKind; name: string };
  /** a port number or a named port of the pod (container port) or of the Service */
  port: number | string;
  /** 0 or absent: any free port on 127.0.0.1 */
  localPort?: number;
}

export interface PortForwardStatus {
  phase?: PortForwardPhase;
  message?: string;
  localPort?: number;
  url?: string;
  /** the pod new connections go to now (Pod targets) */
  pod?: string;
  /** the original pod's labels without the per-revision ones; a replacement pod must match them */
  podSelector?: Record<string, string>;
}

const targetKinds: PortForwardTargetKind[] = ['Pod', 'Service'];
const phases: PortForwardPhase[] = ['Active', 'Waiting', 'Failed'];

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

/** The spec as the controller reads it; undefined when it is not a valid spec (validation refuses those). */
export function portForwardSpec(forward: KubeObject): PortForwardSpec | undefined {
  const spec = record(forward.spec);
  const target = record(spec.target);
  if (target.kind !== 'Pod' && target.kind !== 'Service') return undefined;
  if (typeof target.name !== 'string' || target.name === '') return undefined;
  if (!isInteger(spec.port) && (typeof spec.port !== 'string' || spec.port === '')) return undefined;
  const localPort = isInteger(spec.localPort) ? spec.localPort : 0;
  return { target: { kind: target.kind, name: target.name }, port: spec.port, localPort };
}

export function portForwardStatus(forward: KubeObject): PortForwardStatus {
  const status = record(forward.status);
  const result: PortForwardStatus = {};
  if (typeof status.phase === 'string' && (phases as string[]).includes(status.phase)) result.phase = status.phase as PortForwardPhase;
  if (typeof status.message === 'string') result.message = status.message;
  if (isInteger(status.localPort)) result.localPort = status.localPort;
  if (typeof status.url === 'string') result.url = status.url;
  if (typeof status.pod === 'string') result.pod = status.pod;
  if (isRecord(status.podSelector)) {
    const selector: Record<string, string> = {};
    for (const [key, value] of Object.entries(status.podSelector)) if (typeof value === 'string') selector[key] = value;
    result.podSelector = selector;
  }
  return result;
}

function validatePort(value: unknown, field: string, errors: FieldError[]): void {
  if (value === undefined || value === null || value === '') {
    errors.push(fieldErrors.required(field));
  } else if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 1 || value > 65535) errors.push(fieldErrors.invalid(field, value, 'must be between 1 and 65535, inclusive'));
  } else if (typeof value === 'string') {
    for (const message of isValidPortName(value)) errors.push(fieldErrors.invalid(field, value, message));
  } else {
    errors.push(fieldErrors.invalid(field, value, 'must be a port number or a port name'));
  }
}

function validateSpec(value: unknown, errors: FieldError[]): void {
  if (!isRecord(value)) {
    errors.push(value === undefined || value === null ? fieldErrors.required('spec') : fieldErrors.invalid('spec', value, 'must be an object'));
    return;
  }
  const target = value.target;
  if (target === undefined || target === null) {
    errors.push(fieldErrors.required('spec.target'));
  } else if (!isRecord(target)) {
    errors.push(fieldErrors.invalid('spec.target', target, 'must be an object'));
  } else {
    const kind = target.kind;
    if (kind === undefined || kind === null || kind === '') errors.push(fieldErrors.required('spec.target.kind'));
    else if (typeof kind !== 'string' || !(targetKinds as string[]).includes(kind)) errors.push(fieldErrors.notSupported('spec.target.kind', kind, targetKinds));
    const targetName = target.name;
    if (targetName === undefined || targetName === null || targetName === '') {
      errors.push(fieldErrors.required('spec.target.name'));
    } else if (typeof targetName !== 'string') {
      errors.push(fieldErrors.invalid('spec.target.name', targetName, 'must be a string'));
    } else {
      // the target's own name rules: Services are DNS-1035 labels, pods DNS subdomains
      const messages = kind === 'Service' ? nameIsDNS1035Label(targetName, false) : nameIsDNSSubdomain(targetName, false);
      for (const message of messages) errors.push(fieldErrors.invalid('spec.target.name', targetName, message));
    }
  }
  validatePort(value.port, 'spec.port', errors);
  const localPort = value.localPort;
  if (localPort !== undefined && localPort !== null && (!isInteger(localPort) || localPort < 0 || localPort > 65535)) {
    errors.push(fieldErrors.invalid('spec.localPort', localPort, 'must be between 1 and 65535, inclusive (0 or unset: any free port)'));
  }
}

function validateStatus(value: unknown, errors: FieldError[]): void {
  if (value === undefined || value === null) return;
  if (!isRecord(value)) {
    errors.push(fieldErrors.invalid('status', value, 'must be an object'));
    return;
  }
  if (value.phase !== undefined && value.phase !== '' && !(phases as unknown[]).includes(value.phase)) errors.push(fieldErrors.notSupported('status.phase', value.phase, phases));
  const localPort = value.localPort;
  if (localPort !== undefined && localPort !== null && (!isInteger(localPort) || localPort < 0 || localPort > 65535)) {
    errors.push(fieldErrors.invalid('status.localPort', localPort, 'must be between 0 and 65535, inclusive'));
  }
}

/** Validation of a PortForward on create (and of every update's new object). */
export function validatePortForward(forward: KubeObject): FieldError[] {
  const errors = validateObjectMeta(forward.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  validateSpec(forward.spec, errors);
  validateStatus(forward.status, errors);
  return errors;
}

export function validatePortForwardUpdate(forward: KubeObject, old: KubeObject): FieldError[] {
  return validateObjectMetaUpdate(forward.metadata, old.metadata);
}

/** `pod/web-abc` or `service/web`, as kubectl names objects. */
export const targetText = portForwardTargetText;

const description = (text: string) => ({ description: text });

/** The schema `kubectl explain` shows (published like a custom resource's openAPIV3Schema). */
export const portForwardSchema = {
  type: 'object',
  description: 'PortForward keeps a port on 127.0.0.1 open and forwards every connection to a Pod or a Service port of this namespace. Each new connection picks its pod afresh, so a forward to a pod of a Deployment follows the pod that replaces it.',
  properties: {
    spec: {
      type: 'object',
      ...description('What to forward to, and where to listen.'),
      required: ['target', 'port'],
      properties: {
        target: {
          type: 'object',
          ...description('The Pod or Service in the PortForward\'s namespace.'),
          required: ['kind', 'name'],
          properties: {
            kind: { type: 'string', enum: targetKinds, ...description('Pod or Service.') },
            name: { type: 'string', ...description('The name of the Pod or Service.') },
          },
        },
        port: { 'x-kubernetes-int-or-string': true, ...description('The port to reach: a container port of the pod (number or name), or a port of the Service (its port number or name).') },
        localPort: { type: 'integer', format: 'int32', ...description('The port on 127.0.0.1 to listen on, 1-65535. Unset or 0: any free port, kept across restarts.') },
      },
    },
    status: {
      type: 'object',
      ...description('What kubedesk is doing for this forward.'),
      properties: {
        phase: { type: 'string', enum: phases, ...description('Active: listening with a ready target. Waiting: listening, but no ready pod is behind the target (connections are closed at once). Failed: the local port cannot be opened.') },
        message: { type: 'string', ...description('Why the forward is Waiting or Failed.') },
        localPort: { type: 'integer', format: 'int32', ...description('The port on 127.0.0.1 kubedesk listens on.') },
        url: { type: 'string', ...description('http://127.0.0.1:<localPort>') },
        pod: { type: 'string', ...description('The pod new connections go to (Pod targets).') },
        podSelector: { type: 'object', additionalProperties: { type: 'string' }, ...description('The labels of the pod first targeted, without pod-template-hash, controller-revision-hash and statefulset.kubernetes.io/pod-name: a ready pod with these labels replaces the named pod when it is gone.') },
      },
    },
  },
};

function resetStatus(forward: KubeObject): void {
  forward.status = {};
}

function keepStatus(forward: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete forward.status;
  else forward.status = structuredClone(old.status);
}

/** The strategy the API server serves PortForwards with; it carries its OpenAPI schema. */
export function portForwardResourceDef(): KindStrategy & { openAPIV3Schema: unknown } {
  const strategy = defineKind({
    group: PORT_FORWARD_GROUP,
    version: PORT_FORWARD_VERSION,
    resource: PORT_FORWARD_RESOURCE,
    kind: PORT_FORWARD_KIND,
    namespaced: true,
    shortNames: ['pf'],
    subresources: [statusSubresource()],
    hasGeneration: true,
    validateCreate: validatePortForward,
    validateUpdate: validatePortForwardUpdate,
    prepareForCreate: resetStatus,
    prepareForUpdate: keepStatus,
    printer: portForwardTable,
    selectableFields: (forward) => {
      const target = record(record(forward.spec).target);
      return {
        'spec.target.kind': typeof target.kind === 'string' ? target.kind : '',
        'spec.target.name': typeof target.name === 'string' ? target.name : '',
        'status.phase': typeof record(forward.status).phase === 'string' ? String(record(forward.status).phase) : '',
      };
    },
  });
  return { ...strategy, openAPIV3Schema: portForwardSchema };
}
