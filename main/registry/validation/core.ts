// Validation for the core/v1 kinds, as upstream pkg/apis/core/validation/validation.go and
// events.go: ValidateNamespace, ValidatePodCreate/Update, ValidatePodEphemeralContainersUpdate, ValidateService(Update),
// ValidateEndpoints, ValidateConfigMap, ValidateSecret, ValidateServiceAccount, ValidateNode,
// ValidateLimitRange, ValidateResourceQuota, ValidatePodTemplate, ValidateReplicationController,
// ValidatePersistentVolumeClaim and the legacy core/v1 Event rules. Each function takes the (defaulted) object as received.
import { jsonEqual } from '../../../shared/kubernetes/json';
import { labelSetMatches } from '../../../shared/kubernetes/labelSelector';
import { compareQuantities } from '../../../shared/kubernetes/quantity';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../fieldErrors';
import {
  arrayAt, booleanAt, goValue, immutable, integerAt, intOrStringAt, invalid, invalidStringMap, nonNegative, objectAt, objectsAt,
  optionalStringAt, recordOf, stringAt, stringMapAt, type FieldRecord,
} from './fields';
import {
  byteLength, cidrErrors, ipErrors, isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, isIPv6, isValidLabelValue, isValidPortName,
  isValidPortNumber, nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain,
} from './names';
import {
  validateFinalizerName, validateLabelName, validateLabels, validateObjectMeta, validateObjectMetaUpdate, validateQualifiedName,
} from './objectMeta';
import { resourceListAt, type ResourceListEntry, validatePodSpec, validatePodTemplateSpec, validateResourceName, validateResourceQuantity } from './podSpec';

/** core.MaxSecretSize */
export const maxSecretSize = 1024 * 1024;

function specOf(obj: KubeObject, errors: FieldError[]): FieldRecord {
  return objectAt(obj.spec, 'spec', errors) ?? {};
}

// ---------------------------------------------------------------- namespaces

export function validateNamespace(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: nameIsDNSLabel });
  const spec = specOf(obj, errors);
  arrayAt(spec.finalizers, 'spec.finalizers', errors).forEach((finalizer, index) => {
    errors.push(...validateFinalizerName(stringAt(finalizer, `spec.finalizers[${index}]`, errors), 'spec.finalizers'));
  });
  return errors;
}

export function validateNamespaceUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return validateObjectMetaUpdate(obj.metadata, old.metadata);
}

// ---------------------------------------------------------------- pods

const podDeletionCostAnnotation = 'controller.kubernetes.io/pod-deletion-cost';

/** ValidatePodSpecificAnnotations */
function validatePodAnnotations(metadata: unknown, spec: FieldRecord, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const annotations = recordOf(recordOf(metadata).annotations);
  const mirror = annotations['kubernetes.io/config.mirror'];
  if (typeof mirror === 'string' && !(typeof spec.nodeName === 'string' && spec.nodeName.length > 0)) {
    errors.push(fieldErrors.invalid(`${field}[kubernetes.io/config.mirror]`, mirror, 'must set spec.nodeName if mirror pod annotation is set'));
  }
  const cost = annotations[podDeletionCostAnnotation];
  if (typeof cost === 'string') {
    const parsed = /^[+-]?\d+$/.test(cost) ? Number(cost) : Number.NaN;
    if (!Number.isInteger(parsed) || parsed < -2147483648 || parsed > 2147483647) {
      errors.push(fieldErrors.invalid(`${field}[${podDeletionCostAnnotation}]`, cost, 'must be a 32bit integer'));
    }
  }
  return errors;
}

/** validatePodMetadataAndSpec */
function validatePodMetadataAndSpec(obj: KubeObject, errors: FieldError[]): FieldRecord {
  errors.push(...validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain }));
  const spec = specOf(obj, errors);
  errors.push(...validatePodAnnotations(obj.metadata, spec, 'metadata.annotations'));
  errors.push(...validatePodSpec(obj.spec, 'spec', { resourceIsPod: true }));
  if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') {
    for (const { item: volume, path } of objectsAt(spec.volumes, 'spec.volumes', [])) {
      const projected = recordOf(volume.projected);
      for (const { item: source, path: sourcePath } of objectsAt(projected.sources, `${path}.projected.sources`, [])) {
        if (source.serviceAccountToken !== undefined && source.serviceAccountToken !== null) {
          errors.push(fieldErrors.forbidden(`${sourcePath}.serviceAccountToken`, 'must not be specified when serviceAccountName is not set'));
        }
      }
    }
  }
  return spec;
}

/** validatePodMetadataAndSpec: what every write of a pod must satisfy (create, update, status, ephemeral containers). */
export function validatePod(obj: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  validatePodMetadataAndSpec(obj, errors);
  return errors;
}

/** What ValidatePodCreate adds to validatePod: ephemeral containers come only through their subresource. */
export function validatePodCreate(obj: KubeObject): FieldError[] {
  const spec = recordOf(obj.spec);
  if (Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0) {
    return [fieldErrors.forbidden('spec.ephemeralContainers', 'cannot be set on create')];
  }
  return [];
}

const updatablePodSpecFields = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

/** A short description of which spec fields differ, standing in for upstream's cmp.Diff. */
function specDifference(oldSpec: FieldRecord, newSpec: FieldRecord): string {
  const keys = [...new Set([...Object.keys(oldSpec), ...Object.keys(newSpec)])].sort();
  const lines: string[] = [];
  for (const key of keys) {
    if (jsonEqual(oldSpec[key], newSpec[key])) continue;
    lines.push(`-\t${key}: ${JSON.stringify(goValue(oldSpec[key]))}`, `+\t${key}: ${JSON.stringify(goValue(newSpec[key]))}`);
  }
  return `  core.PodSpec{\n${lines.join('\n')}\n  }\n`;
}

function withImagesFrom(containers: unknown, oldContainers: unknown): unknown {
  if (!Array.isArray(containers) || !Array.isArray(oldContainers) || containers.length !== oldContainers.length) return containers;
  return containers.map((container, index) => {
    const previous = oldContainers[index];
    if (typeof container !== 'object' || container === null || Array.isArray(container)) return container;
    return { ...container, image: recordOf(previous).image };
  });
}

/** ValidatePodUpdate: only images, activeDeadlineSeconds, added tolerations and removed scheduling gates may change. */
export function validatePodUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  validatePodMetadataAndSpec(obj, errors);
  const spec = recordOf(obj.spec);
  const oldSpec = recordOf(old.spec);
  const deadline = typeof spec.activeDeadlineSeconds === 'number' ? spec.activeDeadlineSeconds : undefined;
  const oldDeadline = typeof oldSpec.activeDeadlineSeconds === 'number' ? oldSpec.activeDeadlineSeconds : undefined;
  if (deadline !== undefined) {
    if (deadline < 0 || deadline > 2147483647) {
      errors.push(fieldErrors.invalid('spec.activeDeadlineSeconds', deadline, 'must be between 0 and 2147483647, inclusive'));
      return errors;
    }
    if (oldDeadline !== undefined && oldDeadline < deadline) {
      errors.push(fieldErrors.invalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value'));
      return errors;
    }
  } else if (oldDeadline !== undefined) {
    errors.push(fieldErrors.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }

  // Existing tolerations may only change tolerationSeconds; new ones may be added.
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  const oldTolerations = Array.isArray(oldSpec.tolerations) ? oldSpec.tolerations : [];
  for (const previous of oldTolerations) {
    const found = tolerations.some((current) => jsonEqual({ ...recordOf(previous), tolerationSeconds: undefined }, { ...recordOf(current), tolerationSeconds: undefined }));
    if (!found) {
      errors.push(fieldErrors.forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'));
      break;
    }
  }
  // Scheduling gates may only be removed.
  const oldGates = new Set((Array.isArray(oldSpec.schedulingGates) ? oldSpec.schedulingGates : []).map((gate) => recordOf(gate).name));
  (Array.isArray(spec.schedulingGates) ? spec.schedulingGates : []).forEach((gate, index) => {
    const name = recordOf(gate).name;
    if (!oldGates.has(name)) errors.push(fieldErrors.forbidden(`spec.schedulingGates[${index}].name`, `only deletion is allowed, but found new scheduling gate '${String(name)}'`));
  });

  const mutated: FieldRecord = {
    ...spec,
    containers: withImagesFrom(spec.containers, oldSpec.containers),
    initContainers: withImagesFrom(spec.initContainers, oldSpec.initContainers),
    activeDeadlineSeconds: oldSpec.activeDeadlineSeconds,
    tolerations: oldSpec.tolerations,
    schedulingGates: oldSpec.schedulingGates,
  };
  const oldGrace = typeof oldSpec.terminationGracePeriodSeconds === 'number' ? oldSpec.terminationGracePeriodSeconds : undefined;
  if (oldGrace !== undefined && oldGrace < 0 && spec.terminationGracePeriodSeconds === 1) mutated.terminationGracePeriodSeconds = oldGrace;
  // Gated pods may gain node constraints before they are scheduled.
  if (oldGates.size > 0) {
    mutated.nodeSelector = oldSpec.nodeSelector;
    mutated.affinity = oldSpec.affinity;
  }
  for (const key of Object.keys(mutated)) if (mutated[key] === undefined) delete mutated[key];
  if (!jsonEqual(mutated, oldSpec)) {
    errors.push(fieldErrors.forbidden('spec', `pod updates may not change fields other than ${updatablePodSpecFields.join(',')}\n${specDifference(oldSpec, mutated)}`));
  }
  return errors;
}

const mirrorPodAnnotation = 'kubernetes.io/config.mirror';

/** A short description of how an ephemeral container differs, standing in for upstream's cmp.Diff. */
function containerDifference(old: FieldRecord, changed: FieldRecord): string {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(changed)])].sort();
  const lines: string[] = [];
  for (const key of keys) {
    if (jsonEqual(old[key], changed[key])) continue;
    lines.push(`-\t${key}: ${JSON.stringify(goValue(old[key]))}`, `+\t${key}: ${JSON.stringify(goValue(changed[key]))}`);
  }
  return `  core.EphemeralContainer{\n${lines.join('\n')}\n  }\n`;
}

/**
 * ValidatePodEphemeralContainersUpdate, for writes through pods/ephemeralcontainers (whose
 * strategy already kept everything but spec.ephemeralContainers): metadata and spec as on every pod
 * write, no static (mirror) pod, and existing ephemeral containers neither removed nor changed —
 * matched by name, since a patch need not keep their order.
 */
export function validatePodEphemeralContainersUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  validatePodMetadataAndSpec(obj, errors);
  if (old.metadata.annotations?.[mirrorPodAnnotation] !== undefined) return [fieldErrors.forbidden('', 'static pods do not support ephemeral containers')];
  const current = new Map<string, FieldRecord>();
  for (const container of arrayOf(recordOf(obj.spec).ephemeralContainers)) current.set(String(recordOf(container).name), recordOf(container));
  for (const container of arrayOf(recordOf(old.spec).ephemeralContainers)) {
    const previous = recordOf(container);
    const name = String(previous.name);
    const now = current.get(name);
    if (!now) errors.push(fieldErrors.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!jsonEqual(previous, now)) errors.push(fieldErrors.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n${containerDifference(previous, now)}`));
  }
  return errors;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

// ---------------------------------------------------------------- podtemplates

export function validatePodTemplate(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  errors.push(...validatePodTemplateSpec(obj.template, 'template'));
  return errors;
}

export function validatePodTemplateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  errors.push(...validatePodTemplateSpec(obj.template, 'template'));
  return errors;
}

// ---------------------------------------------------------------- replicationcontrollers

/**
 * ValidatePodTemplateSpecForRC: the template is required, the selector (when not empty) must match
 * its labels, and its pods must restart Always and have no activeDeadlineSeconds.
 */
function validateTemplateForReplicationController(template: unknown, selector: Record<string, string>, errors: FieldError[]): void {
  if (template === undefined || template === null) {
    errors.push(fieldErrors.required('spec.template', ''));
    return;
  }
  const record = recordOf(template);
  const metadata = recordOf(record.metadata);
  const labels = stringMapAt(metadata.labels, 'spec.template.metadata.labels', []);
  const matches = labelSetMatches(selector, labels);
  if (Object.keys(selector).length > 0 && !matches) {
    const badValue = metadata.labels === undefined || metadata.labels === null ? null : labels;
    errors.push(invalidStringMap('spec.template.metadata.labels', badValue, '`selector` does not match template `labels`'));
  }
  errors.push(...validatePodTemplateSpec(template, 'spec.template'));
  const spec = recordOf(record.spec);
  const restartPolicy = typeof spec.restartPolicy === 'string' ? spec.restartPolicy : '';
  if (restartPolicy !== 'Always') errors.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    errors.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
}

/** ValidateReplicationControllerSpec: spec.selector is a plain label map here, required and non-empty. */
function validateReplicationControllerSpec(obj: KubeObject, errors: FieldError[]): void {
  const spec = specOf(obj, errors);
  nonNegative(integerAt(spec.minReadySeconds, 'spec.minReadySeconds', errors), 'spec.minReadySeconds', errors);
  const selector = stringMapAt(spec.selector, 'spec.selector', errors);
  if (Object.keys(selector).length === 0) errors.push(fieldErrors.required('spec.selector', ''));
  nonNegative(integerAt(spec.replicas, 'spec.replicas', errors), 'spec.replicas', errors);
  validateTemplateForReplicationController(spec.template, selector, errors);
}

/** ValidateReplicationController. Unlike a ReplicaSet's, the selector may change on update. */
export function validateReplicationController(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  validateReplicationControllerSpec(obj, errors);
  return errors;
}

export function validateReplicationControllerUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  validateReplicationControllerSpec(obj, errors);
  return errors;
}

/** ValidateReplicationControllerStatus, for writes through /status. */
export function validateReplicationControllerStatus(obj: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const status = objectAt(obj.status, 'status', errors) ?? {};
  const count = (name: string) => {
    const value = integerAt(status[name], `status.${name}`, errors) ?? 0;
    nonNegative(value, `status.${name}`, errors);
    return value;
  };
  const replicas = count('replicas');
  const fullyLabeled = count('fullyLabeledReplicas');
  const ready = count('readyReplicas');
  const available = count('availableReplicas');
  count('observedGeneration');
  const most = 'cannot be greater than status.replicas';
  if (fullyLabeled > replicas) errors.push(invalid('status.fullyLabeledReplicas', fullyLabeled, most));
  if (ready > replicas) errors.push(invalid('status.readyReplicas', ready, most));
  if (available > replicas) errors.push(invalid('status.availableReplicas', available, most));
  if (available > ready) errors.push(invalid('status.availableReplicas', available, 'cannot be greater than readyReplicas'));
  return errors;
}

// ---------------------------------------------------------------- services

function clusterIPsOf(spec: FieldRecord): string[] {
  if (Array.isArray(spec.clusterIPs)) return spec.clusterIPs.filter((ip): ip is string => typeof ip === 'string');
  return typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? [spec.clusterIP] : [];
}

function isHeadless(spec: FieldRecord): boolean {
  const ips = clusterIPsOf(spec);
  return ips.length === 1 && ips[0] === 'None';
}

function validateServicePort(port: FieldRecord, requireName: boolean, names: Set<string>, path: string, errors: FieldError[]): void {
  const name = stringAt(port.name, `${path}.name`, errors);
  if (requireName && name.length === 0) {
    errors.push(fieldErrors.required(`${path}.name`, ''));
  } else if (name.length > 0) {
    errors.push(...isDNS1123Label(name).map((message) => fieldErrors.invalid(`${path}.name`, name, message)));
    if (names.has(name)) errors.push(fieldErrors.duplicate(`${path}.name`, name));
    else names.add(name);
  }
  const number = integerAt(port.port, `${path}.port`, errors) ?? 0;
  for (const message of isValidPortNumber(number)) errors.push(fieldErrors.invalid(`${path}.port`, number, message));
  const protocol = stringAt(port.protocol, `${path}.protocol`, errors);
  if (protocol.length === 0) errors.push(fieldErrors.required(`${path}.protocol`, ''));
  else if (!['SCTP', 'TCP', 'UDP'].includes(protocol)) errors.push(fieldErrors.notSupported(`${path}.protocol`, protocol, ['SCTP', 'TCP', 'UDP']));
  const target = intOrStringAt(port.targetPort, `${path}.targetPort`, errors) ?? 0;
  if (typeof target === 'number') for (const message of isValidPortNumber(target)) errors.push(fieldErrors.invalid(`${path}.targetPort`, target, message));
  else for (const message of isValidPortName(target)) errors.push(fieldErrors.invalid(`${path}.targetPort`, target, message));
  const appProtocol = optionalStringAt(port.appProtocol, `${path}.appProtocol`, errors);
  if (appProtocol !== undefined) errors.push(...validateQualifiedName(appProtocol, `${path}.appProtocol`));
  integerAt(port.nodePort, `${path}.nodePort`, errors);
}

/** ValidateServiceClusterIPsRelatedFields */
function validateClusterIPs(spec: FieldRecord, type: string, errors: FieldError[]): void {
  if (type === 'ExternalName') return;
  const clusterIP = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
  const clusterIPs = arrayAt(spec.clusterIPs, 'spec.clusterIPs', errors).map((item, index) => stringAt(item, `spec.clusterIPs[${index}]`, errors));
  if (clusterIP.length !== 0) {
    if (clusterIPs.length === 0) errors.push(fieldErrors.required('spec.clusterIPs', ''));
    else if (clusterIPs[0] !== clusterIP) errors.push(invalid('spec.clusterIPs', clusterIPs, 'first value must match `clusterIP`'));
  } else if (clusterIPs.length !== 0) {
    errors.push(invalid('spec.clusterIPs', clusterIPs, 'must be empty when `clusterIP` is not specified'));
  }
  const families = arrayAt(spec.ipFamilies, 'spec.ipFamilies', errors).map((item, index) => stringAt(item, `spec.ipFamilies[${index}]`, errors));
  const seen = new Set<string>();
  families.forEach((family, index) => {
    if (family !== 'IPv4' && family !== 'IPv6') errors.push(fieldErrors.notSupported(`spec.ipFamilies[${index}]`, family, ['IPv4', 'IPv6']));
    if (seen.has(family)) errors.push(fieldErrors.duplicate(`spec.ipFamilies[${index}]`, family));
    seen.add(family);
  });
  const policy = optionalStringAt(spec.ipFamilyPolicy, 'spec.ipFamilyPolicy', errors);
  const policies = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
  if (policy !== undefined && !policies.includes(policy)) errors.push(fieldErrors.notSupported('spec.ipFamilyPolicy', policy, policies));
  let invalidIPs = false;
  clusterIPs.forEach((ip, index) => {
    if (index === 0 && ip === 'None') {
      if (clusterIPs.length > 1) {
        invalidIPs = true;
        errors.push(invalid('spec.clusterIPs', clusterIPs, "'None' must be the first and only value"));
      }
      return;
    }
    const messages = ipErrors(ip);
    if (messages.length > 0) invalidIPs = true;
    for (const message of messages) errors.push(fieldErrors.invalid(`spec.clusterIPs[${index}]`, ip, message));
  });
  if (clusterIPs.length > 2) errors.push(invalid('spec.clusterIPs', clusterIPs, 'may only hold up to 2 values'));
  if (invalidIPs) return;
  if (clusterIPs.length > 1 && isIPv6(clusterIPs[0]) === isIPv6(clusterIPs[1])) {
    errors.push(invalid('spec.clusterIPs', clusterIPs, 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(spec) && clusterIPs.length > 0) {
    clusterIPs.forEach((ip, index) => {
      if (index >= families.length) return;
      if (families[index] === 'IPv4' && isIPv6(ip)) errors.push(fieldErrors.invalid(`spec.clusterIPs[${index}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${index}]\``));
      if (families[index] === 'IPv6' && !isIPv6(ip)) errors.push(fieldErrors.invalid(`spec.clusterIPs[${index}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${index}]\``));
    });
  }
}

export function validateService(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNS1035Label });
  const spec = specOf(obj, errors);
  const type = stringAt(spec.type, 'spec.type', errors);
  const ports = objectsAt(spec.ports, 'spec.ports', errors);
  const headless = isHeadless(spec);
  if (ports.length === 0 && !headless && type !== 'ExternalName') errors.push(fieldErrors.required('spec.ports', ''));
  const clusterIPs = clusterIPsOf(spec);
  if (type === 'LoadBalancer' && headless) errors.push(fieldErrors.invalid('spec.clusterIPs[0]', clusterIPs[0], "may not be set to 'None' for LoadBalancer services"));
  if (type === 'NodePort' && headless) errors.push(fieldErrors.invalid('spec.clusterIPs[0]', clusterIPs[0], "may not be set to 'None' for NodePort services"));
  if (type === 'ExternalName') {
    if (clusterIPs.length > 0) errors.push(fieldErrors.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (Array.isArray(spec.ipFamilies) && spec.ipFamilies.length > 0) errors.push(fieldErrors.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) errors.push(fieldErrors.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const externalName = stringAt(spec.externalName, 'spec.externalName', errors);
    const cname = externalName.endsWith('.') ? externalName.slice(0, -1) : externalName;
    if (cname.length > 0) errors.push(...isDNS1123Subdomain(cname).map((message) => fieldErrors.invalid('spec.externalName', cname, message)));
    else errors.push(fieldErrors.required('spec.externalName', ''));
  }
  const portNames = new Set<string>();
  for (const { item, path } of ports) validateServicePort(item, ports.length > 1, portNames, path, errors);
  if (spec.selector !== undefined && spec.selector !== null) errors.push(...validateLabels(spec.selector, 'spec.selector'));

  const affinity = stringAt(spec.sessionAffinity, 'spec.sessionAffinity', errors);
  if (affinity.length === 0) errors.push(fieldErrors.required('spec.sessionAffinity', ''));
  else if (affinity !== 'ClientIP' && affinity !== 'None') errors.push(fieldErrors.notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  const affinityConfig = objectAt(spec.sessionAffinityConfig, 'spec.sessionAffinityConfig', errors);
  if (affinity === 'ClientIP') {
    const clientIP = affinityConfig ? objectAt(affinityConfig.clientIP, 'spec.sessionAffinityConfig.clientIP', errors) : undefined;
    if (!affinityConfig) errors.push(fieldErrors.required('spec.sessionAffinityConfig', 'when session affinity type is ClientIP'));
    else if (!clientIP) errors.push(fieldErrors.required('spec.sessionAffinityConfig.clientIP', 'when session affinity type is ClientIP'));
    else {
      const timeout = integerAt(clientIP.timeoutSeconds, 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', errors);
      if (timeout === undefined) errors.push(fieldErrors.required('spec.sessionAffinityConfig.clientIP.timeoutSeconds', 'when session affinity type is ClientIP'));
      else if (timeout <= 0 || timeout > 86400) errors.push(fieldErrors.invalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', timeout, 'must be greater than 0 and less than 86400'));
    }
  } else if (affinity === 'None' && affinityConfig) {
    errors.push(fieldErrors.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }

  validateClusterIPs(spec, type, errors);
  const externalIPs = arrayAt(spec.externalIPs, 'spec.externalIPs', errors);
  externalIPs.forEach((entry, index) => {
    const ip = stringAt(entry, `spec.externalIPs[${index}]`, errors);
    const messages = ipErrors(ip);
    if (messages.length > 0) for (const message of messages) errors.push(fieldErrors.invalid(`spec.externalIPs[${index}]`, ip, message));
    else errors.push(...nonSpecialIPErrors(ip, `spec.externalIPs[${index}]`));
  });
  const types = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
  if (type.length === 0) errors.push(fieldErrors.required('spec.type', ''));
  else if (!types.includes(type)) errors.push(fieldErrors.notSupported('spec.type', type, types));
  if (type === 'ClusterIP') {
    for (const { item, path } of ports) {
      if (typeof item.nodePort === 'number' && item.nodePort !== 0) errors.push(fieldErrors.forbidden(`${path}.nodePort`, "may not be used when `type` is 'ClusterIP'"));
    }
  }
  const nodePorts = new Set<string>();
  const portKeys = new Set<string>();
  for (const { item, path } of ports) {
    const protocol = typeof item.protocol === 'string' ? item.protocol : '';
    const nodePort = typeof item.nodePort === 'number' ? item.nodePort : 0;
    if (nodePort !== 0) {
      const key = `${protocol}/${nodePort}`;
      if (nodePorts.has(key)) errors.push(fieldErrors.duplicate(`${path}.nodePort`, nodePort));
      nodePorts.add(key);
    }
    const port = typeof item.port === 'number' ? item.port : 0;
    const key = `${protocol}/${port}`;
    if (portKeys.has(key)) errors.push(fieldErrors.duplicate(path, { name: '', protocol, port, targetPort: 0, nodePort: 0 }));
    portKeys.add(key);
  }
  const sourceRanges = arrayAt(spec.loadBalancerSourceRanges, 'spec.loadBalancerSourceRanges', errors);
  if (sourceRanges.length > 0) {
    if (type !== 'LoadBalancer') errors.push(fieldErrors.forbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
    sourceRanges.forEach((entry, index) => {
      const range = stringAt(entry, `spec.LoadBalancerSourceRanges[${index}]`, errors).trim();
      for (const message of cidrErrors(range)) errors.push(fieldErrors.invalid(`spec.LoadBalancerSourceRanges[${index}]`, range, message));
    });
  }
  const allocate = booleanAt(spec.allocateLoadBalancerNodePorts, 'spec.allocateLoadBalancerNodePorts', errors);
  if (allocate !== undefined && type !== 'LoadBalancer') errors.push(fieldErrors.forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  // Upstream reports this one without the `spec.` prefix.
  if (type === 'LoadBalancer' && allocate === undefined) errors.push(fieldErrors.required('allocateLoadBalancerNodePorts', ''));
  const loadBalancerClass = optionalStringAt(spec.loadBalancerClass, 'spec.loadBalancerClass', errors);
  if (loadBalancerClass !== undefined) {
    if (type !== 'LoadBalancer') errors.push(fieldErrors.forbidden('spec.loadBalancerClass', 'may only be used when service type is \'LoadBalancer\''));
    else errors.push(...validateQualifiedName(loadBalancerClass, 'spec.loadBalancerClass'));
  }

  const externallyAccessible = type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && externalIPs.length > 0);
  const externalPolicy = stringAt(spec.externalTrafficPolicy, 'spec.externalTrafficPolicy', errors);
  if (!externallyAccessible) {
    if (externalPolicy !== '') errors.push(fieldErrors.invalid('spec.externalTrafficPolicy', externalPolicy, 'may only be set for externally-accessible services'));
  } else if (externalPolicy === '') {
    errors.push(fieldErrors.required('spec.externalTrafficPolicy', ''));
  } else if (externalPolicy !== 'Cluster' && externalPolicy !== 'Local') {
    errors.push(fieldErrors.notSupported('spec.externalTrafficPolicy', externalPolicy, ['Cluster', 'Local']));
  }
  const healthCheckNodePort = integerAt(spec.healthCheckNodePort, 'spec.healthCheckNodePort', errors) ?? 0;
  const needsHealthCheck = type === 'LoadBalancer' && externalPolicy === 'Local';
  if (!needsHealthCheck && healthCheckNodePort !== 0) {
    errors.push(fieldErrors.invalid('spec.healthCheckNodePort', healthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  } else if (needsHealthCheck && healthCheckNodePort !== 0) {
    for (const message of isValidPortNumber(healthCheckNodePort)) errors.push(fieldErrors.invalid('spec.healthCheckNodePort', healthCheckNodePort, message));
  }
  const internalPolicy = optionalStringAt(spec.internalTrafficPolicy, 'spec.internalTrafficPolicy', errors);
  if (internalPolicy === undefined && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(type)) errors.push(fieldErrors.required('spec.internalTrafficPolicy', ''));
  if (internalPolicy !== undefined && internalPolicy !== 'Cluster' && internalPolicy !== 'Local') errors.push(fieldErrors.notSupported('spec.internalTrafficPolicy', internalPolicy, ['Cluster', 'Local']));
  const distribution = optionalStringAt(spec.trafficDistribution, 'spec.trafficDistribution', errors);
  const distributions = ['PreferClose', 'PreferSameZone', 'PreferSameNode'];
  if (distribution !== undefined && !distributions.includes(distribution)) errors.push(fieldErrors.notSupported('spec.trafficDistribution', distribution, distributions));
  return errors;
}

/** ValidateServiceUpdate. An update that omits clusterIP keeps the allocated one (the REST layer copies it). */
export function validateServiceUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  const spec = recordOf(obj.spec);
  const oldSpec = recordOf(old.spec);
  const type = spec.type;
  const oldType = oldSpec.type;
  const newIPs = clusterIPsOf(spec);
  const oldIPs = clusterIPsOf(oldSpec);
  const bothHeadless = isHeadless(spec) && isHeadless(oldSpec);
  if (type !== 'ExternalName' && oldType !== 'ExternalName' && !bothHeadless && newIPs.length > 0) {
    if (oldIPs.length === newIPs.length) {
      oldIPs.forEach((ip, index) => {
        if (ip !== newIPs[index]) errors.push(invalid(`spec.clusterIPs[${index}]`, newIPs, 'may not change once set'));
      });
    } else if (oldIPs.length > 0 && newIPs[0] !== oldIPs[0]) {
      errors.push(invalid('spec.clusterIPs[0]', newIPs, 'may not change once set'));
    }
  }
  const families = Array.isArray(spec.ipFamilies) ? spec.ipFamilies : [];
  const oldFamilies = Array.isArray(oldSpec.ipFamilies) ? oldSpec.ipFamilies : [];
  if (type !== 'ExternalName' && oldType !== 'ExternalName' && !isHeadless(spec) && !isHeadless(oldSpec) && families.length > 0 && oldFamilies.length > 0 && families[0] !== oldFamilies[0]) {
    errors.push(invalid('spec.ipFamilies[0]', families, 'may not change once set'));
  }
  if (type === 'LoadBalancer' && oldType === 'LoadBalancer' && oldSpec.loadBalancerClass !== undefined && !jsonEqual(spec.loadBalancerClass, oldSpec.loadBalancerClass)) {
    errors.push(fieldErrors.invalid('spec.loadBalancerClass', spec.loadBalancerClass ?? null, 'may not change once set'));
  }
  if (oldType === 'LoadBalancer' && oldSpec.externalTrafficPolicy === 'Local' && type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local' &&
    spec.healthCheckNodePort !== undefined && spec.healthCheckNodePort !== oldSpec.healthCheckNodePort) {
    errors.push(fieldErrors.forbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  const withCarriedIPs: KubeObject = newIPs.length === 0 && oldIPs.length > 0 && type !== 'ExternalName'
    ? { ...obj, spec: { ...spec, clusterIP: oldSpec.clusterIP, clusterIPs: oldSpec.clusterIPs, ipFamilies: spec.ipFamilies ?? oldSpec.ipFamilies, ipFamilyPolicy: spec.ipFamilyPolicy ?? oldSpec.ipFamilyPolicy } }
    : obj;
  errors.push(...validateService(withCarriedIPs).filter((error) => !error.field.startsWith('metadata.')));
  return errors;
}

// ---------------------------------------------------------------- endpoints

/** ValidateNonSpecialIP: no unspecified, loopback, link-local or link-local multicast addresses. */
export function nonSpecialIPErrors(ip: string, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const lower = ip.toLowerCase();
  if (ip === '0.0.0.0' || lower === '::') errors.push(fieldErrors.invalid(field, ip, `may not be unspecified (${ip})`));
  if (ip.startsWith('127.') || lower === '::1') errors.push(fieldErrors.invalid(field, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (ip.startsWith('169.254.') || /^fe[89ab]/.test(lower)) errors.push(fieldErrors.invalid(field, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (ip.startsWith('224.0.0.') || lower.startsWith('ff02:')) errors.push(fieldErrors.invalid(field, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return errors;
}

function validateEndpointAddress(address: FieldRecord, path: string, errors: FieldError[]): void {
  const ip = stringAt(address.ip, `${path}.ip`, errors);
  for (const message of ipErrors(ip)) errors.push(fieldErrors.invalid(`${path}.ip`, ip, message));
  const hostname = stringAt(address.hostname, `${path}.hostname`, errors);
  if (hostname.length > 0) errors.push(...isDNS1123Label(hostname).map((message) => fieldErrors.invalid(`${path}.hostname`, hostname, message)));
  const nodeName = optionalStringAt(address.nodeName, `${path}.nodeName`, errors);
  if (nodeName !== undefined) for (const message of nameIsDNSSubdomain(nodeName, false)) errors.push(fieldErrors.invalid(`${path}.nodeName`, nodeName, message));
  if (ipErrors(ip).length === 0) errors.push(...nonSpecialIPErrors(ip, `${path}.ip`));
  else errors.push(fieldErrors.invalid(`${path}.ip`, ip, 'must be a valid IP address'));
}

export function validateEndpoints(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  for (const { item: subset, path } of objectsAt(obj.subsets, 'subsets', errors)) {
    const addresses = objectsAt(subset.addresses, `${path}.addresses`, errors);
    const notReady = objectsAt(subset.notReadyAddresses, `${path}.notReadyAddresses`, errors);
    if (addresses.length === 0 && notReady.length === 0) errors.push(fieldErrors.required(path, 'must specify `addresses` or `notReadyAddresses`'));
    for (const { item, path: addressPath } of [...addresses, ...notReady]) validateEndpointAddress(item, addressPath, errors);
    const ports = objectsAt(subset.ports, `${path}.ports`, errors);
    for (const { item, path: portPath } of ports) {
      const name = stringAt(item.name, `${portPath}.name`, errors);
      if (ports.length > 1 && name.length === 0) errors.push(fieldErrors.required(`${portPath}.name`, ''));
      else if (name.length > 0) errors.push(...isDNS1123Label(name).map((message) => fieldErrors.invalid(`${portPath}.name`, name, message)));
      const port = integerAt(item.port, `${portPath}.port`, errors) ?? 0;
      for (const message of isValidPortNumber(port)) errors.push(fieldErrors.invalid(`${portPath}.port`, port, message));
      const protocol = stringAt(item.protocol, `${portPath}.protocol`, errors);
      if (protocol.length === 0) errors.push(fieldErrors.required(`${portPath}.protocol`, ''));
      else if (!['SCTP', 'TCP', 'UDP'].includes(protocol)) errors.push(fieldErrors.notSupported(`${portPath}.protocol`, protocol, ['SCTP', 'TCP', 'UDP']));
      const appProtocol = optionalStringAt(item.appProtocol, `${portPath}.appProtocol`, errors);
      if (appProtocol !== undefined) errors.push(...validateQualifiedName(appProtocol, `${portPath}.appProtocol`));
    }
  }
  return errors;
}

export function validateEndpointsUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateEndpoints(obj).filter((error) => !error.field.startsWith('metadata.'))];
}

// ---------------------------------------------------------------- configmaps & secrets

/** Decoded byte length of a base64 value, or an error text like Go's encoding/base64. */
function base64Length(value: string): number | string {
  const text = value.replace(/[\r\n]/g, '');
  const match = /[^A-Za-z0-9+/=]/.exec(text);
  if (match) return `illegal base64 data at input byte ${match.index}`;
  const padding = text.indexOf('=');
  if (text.length % 4 !== 0 || (padding >= 0 && !/^=+$/.test(text.slice(padding)))) {
    return `illegal base64 data at input byte ${padding >= 0 ? padding : text.length - (text.length % 4)}`;
  }
  return (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
}

export function validateConfigMap(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const data = stringMapAt(obj.data, 'data', errors);
  const binaryData = stringMapAt(obj.binaryData, 'binaryData', errors);
  let total = 0;
  for (const key of Object.keys(data).sort()) {
    for (const message of isConfigMapKey(key)) errors.push(fieldErrors.invalid(`data[${key}]`, key, message));
    if (key in binaryData) errors.push(fieldErrors.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    total += byteLength(data[key]);
  }
  for (const key of Object.keys(binaryData).sort()) {
    for (const message of isConfigMapKey(key)) errors.push(fieldErrors.invalid(`binaryData[${key}]`, key, message));
    const length = base64Length(binaryData[key]);
    if (typeof length === 'string') errors.push(fieldErrors.invalid(`binaryData[${key}]`, '<binary>', length));
    else total += length;
  }
  if (total > maxSecretSize) errors.push(fieldErrors.tooLong('', maxSecretSize));
  booleanAt(obj.immutable, 'immutable', errors);
  return errors;
}

export function validateConfigMapUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  if (old.immutable === true) {
    if (obj.immutable !== true) errors.push(fieldErrors.forbidden('immutable', 'field is immutable when `immutable` is set'));
    if (!jsonEqual(obj.data ?? null, old.data ?? null)) errors.push(fieldErrors.forbidden('data', 'field is immutable when `immutable` is set'));
    if (!jsonEqual(obj.binaryData ?? null, old.binaryData ?? null)) errors.push(fieldErrors.forbidden('binaryData', 'field is immutable when `immutable` is set'));
  }
  errors.push(...validateConfigMap(obj).filter((error) => !error.field.startsWith('metadata.')));
  return errors;
}

function decodeBase64Text(value: string): string | undefined {
  try {
    return Buffer.from(value, 'base64').toString('utf8');
  } catch {
    return undefined;
  }
}

export function validateSecret(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const data = stringMapAt(obj.data, 'data', errors);
  let total = 0;
  for (const key of Object.keys(data).sort()) {
    for (const message of isConfigMapKey(key)) errors.push(fieldErrors.invalid(`data[${key}]`, key, message));
    const length = base64Length(data[key]);
    if (typeof length === 'string') errors.push(fieldErrors.invalid(`data[${key}]`, '<secret contents redacted>', length));
    else total += length;
  }
  if (total > maxSecretSize) errors.push(fieldErrors.tooLong('data', maxSecretSize));
  const type = stringAt(obj.type, 'type', errors);
  const annotations = recordOf(obj.metadata?.annotations);
  const requireKey = (key: string): void => {
    if (!(key in data)) errors.push(fieldErrors.required(`data[${key}]`, ''));
  };
  const requireJson = (key: string): void => {
    if (!(key in data)) {
      errors.push(fieldErrors.required(`data[${key}]`, ''));
      return;
    }
    const text = decodeBase64Text(data[key]) ?? '';
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('json: cannot unmarshal into Go value of type map[string]interface {}');
    } catch (error) {
      errors.push(fieldErrors.invalid(`data[${key}]`, '<secret contents redacted>', error instanceof Error ? error.message : String(error)));
    }
  };
  switch (type) {
    case 'kubernetes.io/service-account-token': {
      const name = annotations['kubernetes.io/service-account.name'];
      if (typeof name !== 'string' || name.length === 0) errors.push(fieldErrors.required('metadata.annotations[kubernetes.io/service-account.name]', ''));
      break;
    }
    case 'kubernetes.io/dockercfg':
      requireJson('.dockercfg');
      break;
    case 'kubernetes.io/dockerconfigjson':
      requireJson('.dockerconfigjson');
      break;
    case 'kubernetes.io/basic-auth':
      if (!('username' in data) && !('password' in data)) {
        errors.push(fieldErrors.required('data[username]', ''), fieldErrors.required('data[password]', ''));
      }
      break;
    case 'kubernetes.io/ssh-auth':
      if (!data['ssh-privatekey']) errors.push(fieldErrors.required('data[ssh-privatekey]', ''));
      break;
    case 'kubernetes.io/tls':
      requireKey('tls.crt');
      requireKey('tls.key');
      break;
    default:
      break;
  }
  booleanAt(obj.immutable, 'immutable', errors);
  return errors;
}

export function validateSecretUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  if ((obj.type ?? '') !== (old.type ?? '')) errors.push(immutable('type', obj.type ?? ''));
  if (old.immutable === true) {
    if (obj.immutable !== true) errors.push(fieldErrors.forbidden('immutable', 'field is immutable when `immutable` is set'));
    if (!jsonEqual(obj.data ?? null, old.data ?? null)) errors.push(fieldErrors.forbidden('data', 'field is immutable when `immutable` is set'));
  }
  errors.push(...validateSecret(obj).filter((error) => !error.field.startsWith('metadata.')));
  return errors;
}

// ---------------------------------------------------------------- serviceaccounts

export function validateServiceAccount(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  for (const { item, path } of objectsAt(obj.secrets, 'secrets', errors)) stringAt(item.name, `${path}.name`, errors);
  for (const { item, path } of objectsAt(obj.imagePullSecrets, 'imagePullSecrets', errors)) stringAt(item.name, `${path}.name`, errors);
  booleanAt(obj.automountServiceAccountToken, 'automountServiceAccountToken', errors);
  return errors;
}

export function validateServiceAccountUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateServiceAccount(obj).filter((error) => !error.field.startsWith('metadata.'))];
}

// ---------------------------------------------------------------- events (core/v1)

const reportingInstanceLimit = 128;
const actionLimit = 128;
const reasonLimit = 128;
const noteLimit = 1024;

/** legacyValidateEvent for requests through the core/v1 API, which keeps the loose rules. */
export function validateEvent(obj: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const metadata = recordOf(obj.metadata);
  const name = stringAt(metadata.name, 'metadata.name', errors);
  if (name.length === 0) errors.push(fieldErrors.required('metadata.name', 'name or generateName is required'));
  const namespace = stringAt(metadata.namespace, 'metadata.namespace', errors);
  const involved = objectAt(obj.involvedObject, 'involvedObject', errors) ?? {};
  const involvedNamespace = stringAt(involved.namespace, 'involvedObject.namespace', errors);
  const eventTime = obj.eventTime;
  if (eventTime === undefined || eventTime === null || eventTime === '') {
    if (involvedNamespace.length === 0) {
      if (namespace !== '' && namespace !== 'default') errors.push(fieldErrors.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    } else if (namespace !== involvedNamespace) {
      errors.push(fieldErrors.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    }
  } else {
    validateReportedEvent(obj, namespace, involvedNamespace, 'reportingComponent', errors);
  }
  for (const message of isDNS1123Subdomain(namespace)) errors.push(fieldErrors.invalid('namespace', namespace, message));
  return errors;
}

/** The reporting-field half of legacyValidateEvent, used when eventTime is set. */
export function validateReportedEvent(obj: KubeObject, namespace: string, involvedNamespace: string, controllerField: string, errors: FieldError[]): void {
  if (involvedNamespace.length === 0 && namespace !== 'default' && namespace !== 'kube-system') {
    errors.push(fieldErrors.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
  }
  const controller = stringAt(obj[controllerField] ?? obj.reportingController, controllerField, errors);
  if (controller.length === 0) errors.push(fieldErrors.required(controllerField, ''));
  errors.push(...validateQualifiedName(controller, controllerField));
  const instance = stringAt(obj.reportingInstance, 'reportingInstance', errors);
  if (instance.length === 0) errors.push(fieldErrors.required('reportingInstance', ''));
  if (instance.length > reportingInstanceLimit) errors.push(fieldErrors.invalid('reportingInstance', '', `can have at most ${reportingInstanceLimit} characters`));
  const action = stringAt(obj.action, 'action', errors);
  if (action.length === 0) errors.push(fieldErrors.required('action', ''));
  if (action.length > actionLimit) errors.push(fieldErrors.invalid('action', '', `can have at most ${actionLimit} characters`));
  const reason = stringAt(obj.reason, 'reason', errors);
  if (reason.length === 0) errors.push(fieldErrors.required('reason', ''));
  if (reason.length > reasonLimit) errors.push(fieldErrors.invalid('reason', '', `can have at most ${reasonLimit} characters`));
  const message = stringAt(obj.message ?? obj.note, 'message', errors);
  if (message.length > noteLimit) errors.push(fieldErrors.invalid('message', '', `can have at most ${noteLimit} characters`));
}

export function validateEventUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateEvent(obj).filter((error) => !error.field.startsWith('metadata.'))];
}

// ---------------------------------------------------------------- nodes

function validateTaints(value: unknown, field: string, errors: FieldError[]): void {
  const unique = new Map<string, Set<string>>();
  for (const { item, path } of objectsAt(value, field, errors)) {
    const key = stringAt(item.key, `${path}.key`, errors);
    const taintValue = stringAt(item.value, `${path}.value`, errors);
    const effect = stringAt(item.effect, `${path}.effect`, errors);
    errors.push(...validateLabelName(key, `${path}.key`));
    const messages = isValidLabelValue(taintValue);
    if (messages.length > 0) errors.push(fieldErrors.invalid(`${path}.value`, taintValue, messages.join(';')));
    if (effect.length === 0) errors.push(fieldErrors.required(`${path}.effect`, ''));
    else if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) errors.push(fieldErrors.notSupported(`${path}.effect`, effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    const keys = unique.get(effect) ?? new Set<string>();
    if (keys.has(key)) {
      errors.push({ type: 'FieldValueDuplicate', field: path, badValue: item, detail: `Duplicate value: ${JSON.stringify(goValue(item))}: taints must be unique by key and effect pair` });
      continue;
    }
    keys.add(key);
    unique.set(effect, keys);
  }
}

function validateNodeResources(obj: KubeObject, errors: FieldError[]): void {
  const status = recordOf(obj.status);
  for (const key of ['capacity', 'allocatable']) {
    for (const [name, { quantity, text }] of resourceListAt(status[key], `status.${key}`, errors)) {
      validateResourceQuantity(name, quantity, text, `status.${key}.${name}`, errors);
    }
  }
}

export function validateNode(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain });
  const spec = specOf(obj, errors);
  // Upstream builds this path from `metadata`, so taint errors read metadata.taints[i].
  validateTaints(spec.taints, 'metadata.taints', errors);
  validateNodeResources(obj, errors);
  const cidrs = arrayAt(spec.podCIDRs, 'spec.podCIDRs', errors).map((item, index) => stringAt(item, `spec.podCIDRs[${index}]`, errors));
  cidrs.forEach((cidr, index) => {
    for (const message of cidrErrors(cidr)) errors.push(fieldErrors.invalid(`spec.podCIDRs[${index}]`, cidr, message));
  });
  if (cidrs.length > 2) errors.push(invalid('spec.podCIDRs', cidrs, 'may specify no more than one CIDR for each IP family'));
  booleanAt(spec.unschedulable, 'spec.unschedulable', errors);
  return errors;
}

export function validateNodeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  validateNodeResources(obj, errors);
  const spec = recordOf(obj.spec);
  const oldSpec = recordOf(old.spec);
  const addresses = new Set<string>();
  for (const { item, path } of objectsAt(recordOf(obj.status).addresses, 'status.addresses', errors)) {
    const key = JSON.stringify(goValue(item));
    if (addresses.has(key)) errors.push(fieldErrors.duplicate(path, goValue(item)));
    addresses.add(key);
  }
  const oldCIDRs = Array.isArray(oldSpec.podCIDRs) ? oldSpec.podCIDRs : [];
  if (oldCIDRs.length > 0 && !jsonEqual(oldCIDRs, spec.podCIDRs ?? [])) {
    errors.push(fieldErrors.forbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid'));
  }
  if (typeof oldSpec.providerID === 'string' && oldSpec.providerID.length > 0 && oldSpec.providerID !== spec.providerID) {
    errors.push(fieldErrors.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  validateTaints(spec.taints, 'metadata.taints', errors);
  if ((spec.externalID ?? '') !== (oldSpec.externalID ?? '')) errors.push(fieldErrors.forbidden('spec.externalID', 'may not be updated'));
  return errors;
}

// ---------------------------------------------------------------- limitranges & resourcequotas

export function validateLimitRange(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const spec = specOf(obj, errors);
  const types = new Set<string>();
  for (const { item, path } of objectsAt(spec.limits, 'spec.limits', errors)) {
    const type = stringAt(item.type, `${path}.type`, errors);
    const typeErrors = validateQualifiedName(type, `${path}.type`);
    if (typeErrors.length === 0 && !type.includes('/') && !['Pod', 'Container', 'PersistentVolumeClaim'].includes(type)) {
      typeErrors.push(fieldErrors.invalid(`${path}.type`, type, 'must be a standard limit type or fully qualified'));
    }
    errors.push(...typeErrors);
    if (types.has(type)) errors.push(fieldErrors.duplicate(`${path}.type`, type));
    types.add(type);
    const lists: Record<string, Map<string, ResourceListEntry>> = {};
    for (const key of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) {
      lists[key] = resourceListAt(item[key], `${path}.${key}`, errors);
      if (type === 'Pod' && (key === 'default' || key === 'defaultRequest') && lists[key].size > 0) {
        errors.push(fieldErrors.forbidden(`${path}.${key}`, "may not be specified when `type` is 'Pod'"));
        continue;
      }
      for (const name of lists[key].keys()) errors.push(...validateResourceName(name, `${path}.${key}[${name}]`));
    }
    if (type === 'PersistentVolumeClaim' && !lists.min.has('storage') && !lists.max.has('storage')) {
      errors.push(fieldErrors.required(`${path}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
    }
    const names = new Set([...lists.max.keys(), ...lists.min.keys(), ...lists.default.keys(), ...lists.defaultRequest.keys(), ...lists.maxLimitRequestRatio.keys()]);
    for (const name of names) {
      const minimum = lists.min.get(name);
      const maximum = lists.max.get(name);
      const defaultLimit = lists.default.get(name);
      const defaultRequest = lists.defaultRequest.get(name);
      const ratio = lists.maxLimitRequestRatio.get(name);
      if (minimum && maximum && compareQuantities(minimum.quantity, maximum.quantity) > 0) {
        errors.push(fieldErrors.invalid(`${path}.min[${name}]`, minimum.text, `min value ${minimum.text} is greater than max value ${maximum.text}`));
      }
      if (defaultRequest && minimum && compareQuantities(minimum.quantity, defaultRequest.quantity) > 0) {
        errors.push(fieldErrors.invalid(`${path}.defaultRequest[${name}]`, defaultRequest.text, `min value ${minimum.text} is greater than default request value ${defaultRequest.text}`));
      }
      if (defaultRequest && maximum && compareQuantities(defaultRequest.quantity, maximum.quantity) > 0) {
        errors.push(fieldErrors.invalid(`${path}.defaultRequest[${name}]`, defaultRequest.text, `default request value ${defaultRequest.text} is greater than max value ${maximum.text}`));
      }
      if (defaultRequest && defaultLimit && compareQuantities(defaultRequest.quantity, defaultLimit.quantity) > 0) {
        errors.push(fieldErrors.invalid(`${path}.defaultRequest[${name}]`, defaultRequest.text, `default request value ${defaultRequest.text} is greater than default limit value ${defaultLimit.text}`));
      }
      if (defaultLimit && minimum && compareQuantities(minimum.quantity, defaultLimit.quantity) > 0) {
        errors.push(fieldErrors.invalid(`${path}.default[${name}]`, minimum.text, `min value ${minimum.text} is greater than default value ${defaultLimit.text}`));
      }
      if (defaultLimit && maximum && compareQuantities(defaultLimit.quantity, maximum.quantity) > 0) {
        errors.push(fieldErrors.invalid(`${path}.default[${name}]`, maximum.text, `default value ${defaultLimit.text} is greater than max value ${maximum.text}`));
      }
      if (ratio && ratio.quantity.nanos < 1_000_000_000n) {
        errors.push(fieldErrors.invalid(`${path}.maxLimitRequestRatio[${name}]`, ratio.text, `ratio ${ratio.text} is less than 1`));
      }
    }
  }
  return errors;
}

export function validateLimitRangeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateLimitRange(obj).filter((error) => !error.field.startsWith('metadata.'))];
}

const quotaScopes = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating', 'VolumeAttributesClass'];

function validateQuotaResources(value: unknown, field: string, errors: FieldError[]): void {
  for (const [name, { quantity, text }] of resourceListAt(value, field, errors)) {
    const path = `${field}[${name}]`;
    errors.push(...validateResourceName(name, path));
    validateResourceQuantity(name, quantity, text, path, errors);
  }
}

export function validateResourceQuota(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const spec = specOf(obj, errors);
  validateQuotaResources(spec.hard, 'spec.hard', errors);
  const scopes = arrayAt(spec.scopes, 'spec.scopes', errors).map((item, index) => stringAt(item, `spec.scopes[${index}]`, errors));
  for (const scope of scopes) if (!quotaScopes.includes(scope)) errors.push(invalid('spec.scopes', scopes, 'unsupported scope'));
  if ((scopes.includes('BestEffort') && scopes.includes('NotBestEffort')) || (scopes.includes('Terminating') && scopes.includes('NotTerminating'))) {
    errors.push(invalid('spec.scopes', scopes, 'conflicting scopes'));
  }
  const selector = objectAt(spec.scopeSelector, 'spec.scopeSelector', errors);
  if (selector) {
    for (const { item, path } of objectsAt(selector.matchExpressions, 'spec.scopeSelector.matchExpressions', errors)) {
      const scopeName = stringAt(item.scopeName, `${path}.scopeName`, errors);
      const operator = stringAt(item.operator, `${path}.operator`, errors);
      const values = arrayAt(item.values, `${path}.values`, errors);
      if (!quotaScopes.includes(scopeName)) errors.push(fieldErrors.invalid('spec.scopeSelector.matchExpressions.scopeName', scopeName, 'unsupported scope'));
      if (operator === 'In' || operator === 'NotIn') {
        if (values.length === 0) errors.push(fieldErrors.required('spec.scopeSelector.matchExpressions.values', "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
      } else if (operator === 'Exists' || operator === 'DoesNotExist') {
        if (values.length !== 0) errors.push(invalid('spec.scopeSelector.matchExpressions.values', values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
      } else {
        errors.push(fieldErrors.invalid('spec.scopeSelector.matchExpressions.operator', operator, 'not a valid selector operator'));
      }
    }
  }
  const status = objectAt(obj.status, 'status', errors) ?? {};
  validateQuotaResources(status.hard, 'status.hard', errors);
  validateQuotaResources(status.used, 'status.used', errors);
  return errors;
}

export function validateResourceQuotaUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  const spec = recordOf(obj.spec);
  validateQuotaResources(spec.hard, 'spec.hard', errors);
  const scopes = new Set(Array.isArray(spec.scopes) ? spec.scopes : []);
  const oldScopes = new Set(Array.isArray(recordOf(old.spec).scopes) ? recordOf(old.spec).scopes as unknown[] : []);
  if (scopes.size !== oldScopes.size || [...scopes].some((scope) => !oldScopes.has(scope))) {
    errors.push(invalid('spec.scopes', spec.scopes ?? null, 'field is immutable'));
  }
  return errors;
}

// ---------------------------------------------------------------- persistentvolumeclaims

const accessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

/** ValidatePersistentVolumeClaimSpec */
export function validatePersistentVolumeClaimSpec(value: unknown, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const spec = objectAt(value, field, errors) ?? {};
  const modes = arrayAt(spec.accessModes, `${field}.accessModes`, errors).map((item, index) => stringAt(item, `${field}.accessModes[${index}]`, errors));
  if (modes.length === 0) errors.push(fieldErrors.required(`${field}.accessModes`, 'at least 1 access mode is required'));
  for (const mode of modes) if (!accessModes.includes(mode)) errors.push(fieldErrors.notSupported(`${field}.accessModes`, mode, accessModes));
  if (modes.includes('ReadWriteOncePod') && modes.length > 1) errors.push(fieldErrors.forbidden(`${field}.accessModes`, 'may not use ReadWriteOncePod with other access modes'));
  errors.push(...validateLabelSelectorLoose(spec.selector, `${field}.selector`));
  const resources = objectAt(spec.resources, `${field}.resources`, errors) ?? {};
  const requests = resourceListAt(resources.requests, `${field}.resources.requests`, errors);
  const storage = requests.get('storage');
  if (!storage) {
    errors.push(fieldErrors.required(`${field}.resources[storage]`, ''));
  } else {
    validateResourceQuantity('storage', storage.quantity, storage.text, `${field}.resources[storage]`, errors);
    if (storage.quantity.nanos <= 0n) errors.push(fieldErrors.invalid(`${field}.resources[storage]`, storage.text, 'must be greater than zero'));
  }
  const storageClassName = optionalStringAt(spec.storageClassName, `${field}.storageClassName`, errors);
  if (storageClassName !== undefined && storageClassName.length > 0) {
    for (const message of nameIsDNSSubdomain(storageClassName, false)) errors.push(fieldErrors.invalid(`${field}.storageClassName`, storageClassName, message));
  }
  const volumeMode = optionalStringAt(spec.volumeMode, `${field}.volumeMode`, errors);
  if (volumeMode !== undefined && volumeMode !== 'Block' && volumeMode !== 'Filesystem') errors.push(fieldErrors.notSupported(`${field}.volumeMode`, volumeMode, ['Block', 'Filesystem']));
  return errors;
}

function validateLabelSelectorLoose(value: unknown, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const record = objectAt(value, field, errors);
  if (record) errors.push(...validateLabels(record.matchLabels, `${field}.matchLabels`));
  return errors;
}

export function validatePersistentVolumeClaim(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  errors.push(...validatePersistentVolumeClaimSpec(obj.spec, 'spec'));
  return errors;
}

export function validatePersistentVolumeClaimUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  errors.push(...validatePersistentVolumeClaimSpec(obj.spec, 'spec'));
  const spec = recordOf(obj.spec);
  const oldSpec = recordOf(old.spec);
  const comparable = (value: FieldRecord, other: FieldRecord): FieldRecord => {
    const copy: FieldRecord = { ...value, resources: { ...recordOf(value.resources), requests: undefined }, volumeAttributesClassName: undefined };
    if (!other.volumeName) copy.volumeName = undefined;
    // RetroactiveDefaultStorageClass: a claim created without a class may be given one later.
    if (other.storageClassName === undefined || other.storageClassName === null) copy.storageClassName = undefined;
    return copy;
  };
  if (!jsonEqual(comparable(spec, oldSpec), comparable(oldSpec, oldSpec))) {
    errors.push(fieldErrors.forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
  }
  const size = resourceListAt(recordOf(recordOf(spec.resources).requests), 'spec.resources.requests', []).get('storage');
  const oldSize = resourceListAt(recordOf(recordOf(oldSpec.resources).requests), 'spec.resources.requests', []).get('storage');
  if (size && oldSize && compareQuantities(size.quantity, oldSize.quantity) < 0) {
    errors.push(fieldErrors.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  return errors;
}
