// PodSpec and PodTemplateSpec validation as upstream pkg/apis/core/validation/validation.go
// (ValidatePodSpec, validateContainers, validateInitContainers, validateEphemeralContainers, ValidateVolumes, ValidateEnv,
// validateContainerPorts, validateProbe, ValidateTolerations, validateResourceRequirements …),
// with the same field paths and messages. Expects defaults already applied, as upstream does.
import { compareQuantities, parseQuantity, quantityFormatError, quantityText, type Quantity } from '../../../shared/kubernetes/quantity';
import { fieldErrors, type FieldError } from '../fieldErrors';
import {
  arrayAt, booleanAt, integerAt, intOrStringAt, invalid, nonNegative, notFound, objectAt, objectsAt,
  optionalStringAt, stringAt, stringMapAt, type FieldRecord,
} from './fields';
import {
  inclusiveRangeError, ipErrors, isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, isHTTPHeaderName,
  isQualifiedName, isRelaxedEnvVarName, isValidLabelValue, isValidPortName, isValidPortNumber, nameIsDNSSubdomain,
} from './names';
import { validateAnnotations, validateLabelName, validateLabels, validateLabelSelector, validateQualifiedName } from './objectMeta';

export interface PodSpecOptions {
  /** true when the spec belongs to a Pod rather than a template (hostNetwork port rules, image whitespace). */
  resourceIsPod?: boolean;
}

const supportedPortProtocols = ['SCTP', 'TCP', 'UDP'];
const maximumInt32 = 2147483647;

const volumeSourceKeys = [
  'emptyDir', 'hostPath', 'gitRepo', 'gcePersistentDisk', 'awsElasticBlockStore', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'flocker', 'persistentVolumeClaim', 'rbd', 'cinder', 'cephfs', 'quobyte', 'downwardAPI', 'fc', 'flexVolume', 'configMap',
  'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'storageos', 'projected', 'scaleIO',
  'csi', 'ephemeral', 'image',
];

const fileModeError = 'must be a number between 0 and 0777 (octal), both inclusive';

function dns1123LabelErrors(value: string, field: string): FieldError[] {
  return isDNS1123Label(value).map((message) => fieldErrors.invalid(field, value, message));
}

function dns1123SubdomainErrors(value: string, field: string): FieldError[] {
  return isDNS1123Subdomain(value).map((message) => fieldErrors.invalid(field, value, message));
}

function validateFileMode(value: unknown, field: string, errors: FieldError[]): void {
  const mode = integerAt(value, field, errors);
  if (mode !== undefined && (mode < 0 || mode > 0o777)) errors.push(fieldErrors.invalid(field, mode, fileModeError));
}

/** validatePathNoBacksteps + validateLocalDescendingPath */
function validateLocalDescendingPath(path: string, field: string, errors: FieldError[]): void {
  if (path.startsWith('/')) errors.push(fieldErrors.invalid(field, path, 'must be a relative path'));
  if (path.split(/[\\/]/).includes('..')) errors.push(fieldErrors.invalid(field, path, "must not contain '..'"));
}

function validateKeyToPaths(value: unknown, field: string, errors: FieldError[]): void {
  for (const { item, path } of objectsAt(value, field, errors)) {
    const key = stringAt(item.key, `${path}.key`, errors);
    const itemPath = stringAt(item.path, `${path}.path`, errors);
    if (key.length === 0) errors.push(fieldErrors.required(`${path}.key`, ''));
    if (itemPath.length === 0) errors.push(fieldErrors.required(`${path}.path`, ''));
    else validateLocalDescendingPath(itemPath, `${path}.path`, errors);
    validateFileMode(item.mode, `${path}.mode`, errors);
  }
}

function validateVolumeSource(volume: FieldRecord, path: string, errors: FieldError[]): void {
  let count = 0;
  for (const key of volumeSourceKeys) {
    const value = volume[key];
    if (value === undefined || value === null) continue;
    const sourcePath = `${path}.${key}`;
    if (count > 0) {
      errors.push(fieldErrors.forbidden(sourcePath, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    const source = objectAt(value, sourcePath, errors);
    if (!source) continue;
    switch (key) {
      case 'hostPath': {
        const hostPath = stringAt(source.path, `${sourcePath}.path`, errors);
        if (hostPath.length === 0) errors.push(fieldErrors.required(`${sourcePath}.path`, ''));
        else if (hostPath.split('/').includes('..')) errors.push(fieldErrors.invalid(`${sourcePath}.path`, hostPath, "must not contain '..'"));
        const type = optionalStringAt(source.type, `${sourcePath}.type`, errors);
        const types = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
        if (type !== undefined && !types.includes(type)) errors.push(fieldErrors.notSupported(`${sourcePath}.type`, type, types));
        break;
      }
      case 'secret':
        if (stringAt(source.secretName, `${sourcePath}.secretName`, errors).length === 0) errors.push(fieldErrors.required(`${sourcePath}.secretName`, ''));
        validateFileMode(source.defaultMode, `${sourcePath}.defaultMode`, errors);
        validateKeyToPaths(source.items, `${sourcePath}.items`, errors);
        break;
      case 'configMap': {
        const name = stringAt(source.name, `${sourcePath}.name`, errors);
        if (name.length === 0) errors.push(fieldErrors.required(`${sourcePath}.name`, ''));
        else for (const message of nameIsDNSSubdomain(name, false)) errors.push(fieldErrors.invalid(`${sourcePath}.name`, name, message));
        validateFileMode(source.defaultMode, `${sourcePath}.defaultMode`, errors);
        validateKeyToPaths(source.items, `${sourcePath}.items`, errors);
        break;
      }
      case 'persistentVolumeClaim':
        if (stringAt(source.claimName, `${sourcePath}.claimName`, errors).length === 0) errors.push(fieldErrors.required(`${sourcePath}.claimName`, ''));
        break;
      case 'emptyDir': {
        const medium = optionalStringAt(source.medium, `${sourcePath}.medium`, errors);
        if (medium !== undefined && !['', 'Memory'].includes(medium) && !medium.startsWith('HugePages')) {
          errors.push(fieldErrors.notSupported(`${sourcePath}.medium`, medium, ['', 'Memory', 'HugePages']));
        }
        if (source.sizeLimit !== undefined && source.sizeLimit !== null) {
          const size = parseQuantity(source.sizeLimit)?.nanos;
          if (size === undefined) errors.push(invalid(`${sourcePath}.sizeLimit`, source.sizeLimit, quantityFormatError));
          else if (size < 0n) errors.push(fieldErrors.forbidden(`${sourcePath}.sizeLimit`, 'SizeLimit field must be a valid resource quantity'));
        }
        break;
      }
      case 'downwardAPI':
        validateFileMode(source.defaultMode, `${sourcePath}.defaultMode`, errors);
        for (const { item, path: itemPath } of objectsAt(source.items, `${sourcePath}.items`, errors)) {
          const filePath = stringAt(item.path, `${itemPath}.path`, errors);
          if (filePath.length === 0) errors.push(fieldErrors.required(`${itemPath}.path`, ''));
          else validateLocalDescendingPath(filePath, `${itemPath}.path`, errors);
          validateFileMode(item.mode, `${itemPath}.mode`, errors);
        }
        break;
      case 'projected':
        validateFileMode(source.defaultMode, `${sourcePath}.defaultMode`, errors);
        for (const { item, path: projectionPath } of objectsAt(source.sources, `${sourcePath}.sources`, errors)) {
          const kinds = ['secret', 'configMap', 'downwardAPI', 'serviceAccountToken', 'clusterTrustBundle', 'podCertificate']
            .filter((kind) => item[kind] !== undefined && item[kind] !== null);
          if (kinds.length > 1) {
            for (const kind of kinds.slice(1)) errors.push(fieldErrors.forbidden(`${projectionPath}.${kind}`, 'may not specify more than 1 volume type per source'));
          }
          const token = objectAt(item.serviceAccountToken, `${projectionPath}.serviceAccountToken`, errors);
          if (token) {
            const seconds = integerAt(token.expirationSeconds, `${projectionPath}.serviceAccountToken.expirationSeconds`, errors);
            if (seconds !== undefined && seconds < 600) errors.push(fieldErrors.invalid(`${projectionPath}.serviceAccountToken.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
            if (seconds !== undefined && seconds > 2 ** 32) errors.push(fieldErrors.invalid(`${projectionPath}.serviceAccountToken.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
            if (stringAt(token.path, `${projectionPath}.serviceAccountToken.path`, errors).length === 0) errors.push(fieldErrors.required(`${projectionPath}.serviceAccountToken.path`, ''));
          }
        }
        break;
      case 'nfs':
        if (stringAt(source.server, `${sourcePath}.server`, errors).length === 0) errors.push(fieldErrors.required(`${sourcePath}.server`, ''));
        if (stringAt(source.path, `${sourcePath}.path`, errors).length === 0) errors.push(fieldErrors.required(`${sourcePath}.path`, ''));
        break;
      case 'image':
        if (stringAt(source.reference, `${sourcePath}.reference`, errors).length === 0) errors.push(fieldErrors.required(`${sourcePath}.reference`, ''));
        break;
      case 'csi':
        if (stringAt(source.driver, `${sourcePath}.driver`, errors).length === 0) errors.push(fieldErrors.required(`${sourcePath}.driver`, ''));
        break;
      default:
        break;
    }
  }
  if (count === 0) errors.push(fieldErrors.required(path, 'must specify a volume type'));
}

/** ValidateVolumes: returns the names of the valid volumes, which mounts may refer to. */
function validateVolumes(value: unknown, field: string, errors: FieldError[]): Map<string, FieldRecord> {
  const volumes = new Map<string, FieldRecord>();
  for (const { item, path } of objectsAt(value, field, errors)) {
    const volumeErrors: FieldError[] = [];
    validateVolumeSource(item, path, volumeErrors);
    const name = stringAt(item.name, `${path}.name`, volumeErrors);
    if (name.length === 0) volumeErrors.push(fieldErrors.required(`${path}.name`, ''));
    else volumeErrors.push(...dns1123LabelErrors(name, `${path}.name`));
    if (volumes.has(name)) volumeErrors.push(fieldErrors.duplicate(`${path}.name`, name));
    if (volumeErrors.length === 0) volumes.set(name, item);
    else errors.push(...volumeErrors);
  }
  return volumes;
}

function validateContainerPorts(value: unknown, field: string, errors: FieldError[]): void {
  const names = new Set<string>();
  for (const { item, path } of objectsAt(value, field, errors)) {
    const name = stringAt(item.name, `${path}.name`, errors);
    if (name.length > 0) {
      const messages = isValidPortName(name);
      if (messages.length > 0) for (const message of messages) errors.push(fieldErrors.invalid(`${path}.name`, name, message));
      else if (names.has(name)) errors.push(fieldErrors.duplicate(`${path}.name`, name));
      else names.add(name);
    }
    const containerPort = integerAt(item.containerPort, `${path}.containerPort`, errors);
    if (containerPort === undefined || containerPort === 0) {
      if (item.containerPort === undefined || item.containerPort === null || containerPort === 0) errors.push(fieldErrors.required(`${path}.containerPort`, ''));
    } else {
      for (const message of isValidPortNumber(containerPort)) errors.push(fieldErrors.invalid(`${path}.containerPort`, containerPort, message));
    }
    const hostPort = integerAt(item.hostPort, `${path}.hostPort`, errors);
    if (hostPort !== undefined && hostPort !== 0) {
      for (const message of isValidPortNumber(hostPort)) errors.push(fieldErrors.invalid(`${path}.hostPort`, hostPort, message));
    }
    const protocol = stringAt(item.protocol, `${path}.protocol`, errors);
    if (protocol.length === 0) errors.push(fieldErrors.required(`${path}.protocol`, ''));
    else if (!supportedPortProtocols.includes(protocol)) errors.push(fieldErrors.notSupported(`${path}.protocol`, protocol, supportedPortProtocols));
  }
}

const downwardEnvFieldPaths = [
  'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName',
  'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs',
];
const containerResourceFieldPaths = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

function validateObjectFieldSelector(selector: FieldRecord, field: string, errors: FieldError[]): void {
  const apiVersion = stringAt(selector.apiVersion, `${field}.apiVersion`, errors);
  const fieldPath = stringAt(selector.fieldPath, `${field}.fieldPath`, errors);
  if (apiVersion.length === 0) {
    errors.push(fieldErrors.required(`${field}.apiVersion`, ''));
    return;
  }
  if (fieldPath.length === 0) {
    errors.push(fieldErrors.required(`${field}.fieldPath`, ''));
    return;
  }
  const subscript = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(fieldPath);
  if (subscript) {
    const key = subscript[1] === 'metadata.annotations' ? subscript[2].toLowerCase() : subscript[2];
    errors.push(...validateQualifiedName(key, field));
    return;
  }
  if (!downwardEnvFieldPaths.includes(fieldPath)) errors.push(fieldErrors.notSupported(`${field}.fieldPath`, fieldPath, downwardEnvFieldPaths));
}

function validateKeySelector(selector: FieldRecord, field: string, errors: FieldError[]): void {
  const name = stringAt(selector.name, `${field}.name`, errors);
  for (const message of nameIsDNSSubdomain(name, false)) errors.push(fieldErrors.invalid(`${field}.name`, name, message));
  const key = stringAt(selector.key, `${field}.key`, errors);
  if (key.length === 0) errors.push(fieldErrors.required(`${field}.key`, ''));
  else for (const message of isConfigMapKey(key)) errors.push(fieldErrors.invalid(`${field}.key`, key, message));
}

function validateEnv(value: unknown, field: string, errors: FieldError[]): void {
  for (const { item, path } of objectsAt(value, field, errors)) {
    const name = stringAt(item.name, `${path}.name`, errors);
    if (name.length === 0) errors.push(fieldErrors.required(`${path}.name`, ''));
    else for (const message of isRelaxedEnvVarName(name)) errors.push(fieldErrors.invalid(`${path}.name`, name, message));
    const valueFrom = objectAt(item.valueFrom, `${path}.valueFrom`, errors);
    if (!valueFrom) continue;
    const fromPath = `${path}.valueFrom`;
    let sources = 0;
    const fieldRef = objectAt(valueFrom.fieldRef, `${fromPath}.fieldRef`, errors);
    if (fieldRef) {
      sources++;
      validateObjectFieldSelector(fieldRef, `${fromPath}.fieldRef`, errors);
    }
    const resourceFieldRef = objectAt(valueFrom.resourceFieldRef, `${fromPath}.resourceFieldRef`, errors);
    if (resourceFieldRef) {
      sources++;
      const resource = stringAt(resourceFieldRef.resource, `${fromPath}.resourceFieldRef.resource`, errors);
      if (resource.length === 0) errors.push(fieldErrors.required(`${fromPath}.resourceFieldRef.resource`, ''));
      else if (!containerResourceFieldPaths.includes(resource) && !resource.startsWith('requests.hugepages-') && !resource.startsWith('limits.hugepages-')) {
        errors.push(fieldErrors.notSupported(`${fromPath}.resourceFieldRef.resource`, resource, containerResourceFieldPaths));
      }
    }
    for (const kind of ['configMapKeyRef', 'secretKeyRef']) {
      const selector = objectAt(valueFrom[kind], `${fromPath}.${kind}`, errors);
      if (selector) {
        sources++;
        validateKeySelector(selector, `${fromPath}.${kind}`, errors);
      }
    }
    const plainValue = typeof item.value === 'string' ? item.value : '';
    if (sources === 0) errors.push(fieldErrors.invalid(fromPath, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (plainValue.length !== 0) errors.push(fieldErrors.invalid(fromPath, '', 'may not be specified when `value` is not empty'));
    else if (sources > 1) errors.push(fieldErrors.invalid(fromPath, '', 'may not have more than one field specified at a time'));
  }
}

function validateEnvFrom(value: unknown, field: string, errors: FieldError[]): void {
  for (const { item, path } of objectsAt(value, field, errors)) {
    const prefix = stringAt(item.prefix, `${path}.prefix`, errors);
    if (prefix.length > 0) for (const message of isRelaxedEnvVarName(prefix)) errors.push(fieldErrors.invalid(`${path}.prefix`, prefix, message));
    let sources = 0;
    for (const kind of ['configMapRef', 'secretRef']) {
      const reference = objectAt(item[kind], `${path}.${kind}`, errors);
      if (!reference) continue;
      sources++;
      const name = stringAt(reference.name, `${path}.${kind}.name`, errors);
      if (name.length === 0) errors.push(fieldErrors.required(`${path}.${kind}.name`, ''));
      else for (const message of nameIsDNSSubdomain(name, true)) errors.push(fieldErrors.invalid(`${path}.${kind}.name`, name, message));
    }
    if (sources === 0) errors.push(fieldErrors.invalid(field, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errors.push(fieldErrors.invalid(field, '', 'may not have more than one field specified at a time'));
  }
}

function validateVolumeMounts(value: unknown, volumes: Map<string, FieldRecord>, field: string, errors: FieldError[]): void {
  const mountPaths = new Set<string>();
  for (const { item, path } of objectsAt(value, field, errors)) {
    const name = stringAt(item.name, `${path}.name`, errors);
    if (name.length === 0) errors.push(fieldErrors.required(`${path}.name`, ''));
    if (!volumes.has(name)) errors.push(notFound(`${path}.name`, name));
    const mountPath = stringAt(item.mountPath, `${path}.mountPath`, errors);
    if (mountPath.length === 0) errors.push(fieldErrors.required(`${path}.mountPath`, ''));
    if (mountPaths.has(mountPath)) errors.push(fieldErrors.invalid(`${path}.mountPath`, mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    const subPath = stringAt(item.subPath, `${path}.subPath`, errors);
    const subPathExpr = stringAt(item.subPathExpr, `${path}.subPathExpr`, errors);
    if (subPath.length > 0) validateLocalDescendingPath(subPath, `${field}.subPath`, errors);
    if (subPathExpr.length > 0) {
      if (subPath.length > 0) errors.push(fieldErrors.invalid(`${path}.subPathExpr`, subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      validateLocalDescendingPath(subPathExpr, `${field}.subPathExpr`, errors);
    }
    const propagation = optionalStringAt(item.mountPropagation, `${field}.mountPropagation`, errors);
    const propagations = ['Bidirectional', 'HostToContainer', 'None'];
    if (propagation !== undefined && !propagations.includes(propagation)) errors.push(fieldErrors.notSupported(`${field}.mountPropagation`, propagation, propagations));
    booleanAt(item.readOnly, `${path}.readOnly`, errors);
  }
}

const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);
const standardResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets',
  'configmaps', 'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);

function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

function isHugePages(name: string): boolean {
  return name.startsWith('hugepages-') || name.startsWith('requests.hugepages-') || name.startsWith('limits.hugepages-');
}

/** helper.IsOvercommitAllowed: native, non-hugepages resources may have requests below limits. */
export function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePages(name);
}

/** validateResourceName: a qualified name, and standard when unprefixed. */
export function validateResourceName(name: string, field: string): FieldError[] {
  const errors = isQualifiedName(name).map((message) => fieldErrors.invalid(field, name, message));
  if (errors.length > 0) return errors;
  if (!name.includes('/') && !standardResources.has(name) && !isHugePages(name)) {
    errors.push(fieldErrors.invalid(field, name, 'must be a standard resource type or fully qualified'));
  }
  return errors;
}

function validateContainerResourceName(name: string, field: string): FieldError[] {
  const errors = validateResourceName(name, field);
  if (!name.includes('/')) {
    if (!standardContainerResources.has(name) && !name.startsWith('hugepages-')) {
      errors.push(fieldErrors.invalid(field, name, 'must be a standard resource for containers'));
    }
  } else if (!isNativeResource(name) && name.startsWith('requests.')) {
    errors.push(fieldErrors.invalid(field, name, "doesn't follow extended resource name standard"));
  }
  return errors;
}

/** One entry of a resource list: the parsed quantity (exact nano-units) and its text as written. */
export interface ResourceListEntry {
  quantity: Quantity;
  text: string;
}

/** A resource list's quantities, with unparsable ones reported. */
export function resourceListAt(value: unknown, field: string, errors: FieldError[]): Map<string, ResourceListEntry> {
  const list = new Map<string, ResourceListEntry>();
  const record = objectAt(value, field, errors);
  if (!record) return list;
  for (const [name, raw] of Object.entries(record)) {
    const quantity = parseQuantity(raw);
    if (quantity === undefined) {
      errors.push(invalid(`${field}[${name}]`, raw, quantityFormatError));
      continue;
    }
    list.set(name, { quantity, text: quantityText(raw) });
  }
  return list;
}

/** ValidateResourceQuantityValue: not negative; integer resources must be whole. */
export function validateResourceQuantity(name: string, quantity: Quantity, text: string, field: string, errors: FieldError[]): void {
  if (quantity.nanos < 0n) errors.push(fieldErrors.invalid(field, text, 'must be greater than or equal to 0'));
  const integerResource = !isNativeResource(name) || name.startsWith('count/') ||
    ['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers'].includes(name);
  if (integerResource && quantity.nanos % 1_000_000_000n !== 0n) errors.push(fieldErrors.invalid(field, text, 'must be an integer'));
}

function validateResourceRequirements(value: unknown, field: string, errors: FieldError[]): void {
  const resources = objectAt(value, field, errors);
  if (!resources) return;
  const limitsPath = `${field}.limits`;
  const requestsPath = `${field}.requests`;
  const limits = resourceListAt(resources.limits, limitsPath, errors);
  const requests = resourceListAt(resources.requests, requestsPath, errors);
  let hasCpuOrMemory = false;
  let hasHugePages = false;
  for (const [name, { quantity, text }] of limits) {
    const path = `${limitsPath}[${name}]`;
    errors.push(...validateContainerResourceName(name, path));
    validateResourceQuantity(name, quantity, text, path, errors);
    if (name === 'cpu' || name === 'memory') hasCpuOrMemory = true;
    if (isHugePages(name)) hasHugePages = true;
  }
  for (const [name, { quantity, text }] of requests) {
    const path = `${requestsPath}[${name}]`;
    errors.push(...validateContainerResourceName(name, path));
    validateResourceQuantity(name, quantity, text, path, errors);
    const limit = limits.get(name);
    if (limit) {
      if (compareQuantities(quantity, limit.quantity) !== 0 && !isOvercommitAllowed(name)) {
        errors.push(fieldErrors.invalid(requestsPath, text, `must be equal to ${name} limit of ${limit.text}`));
      } else if (compareQuantities(quantity, limit.quantity) > 0) {
        errors.push(fieldErrors.invalid(requestsPath, text, `must be less than or equal to ${name} limit of ${limit.text}`));
      }
    } else if (!isOvercommitAllowed(name)) {
      errors.push(fieldErrors.required(limitsPath, 'Limit must be set for non overcommitable resources'));
    }
    if (name === 'cpu' || name === 'memory') hasCpuOrMemory = true;
    if (isHugePages(name)) hasHugePages = true;
  }
  if (!hasCpuOrMemory && hasHugePages) errors.push(fieldErrors.forbidden(field, 'HugePages require cpu or memory'));
}

function validatePortNumberOrName(value: unknown, field: string, errors: FieldError[]): void {
  const port = intOrStringAt(value, field, errors);
  if (typeof port === 'number') for (const message of isValidPortNumber(port)) errors.push(fieldErrors.invalid(field, port, message));
  else if (typeof port === 'string') for (const message of isValidPortName(port)) errors.push(fieldErrors.invalid(field, port, message));
  else if (value === undefined || value === null) for (const message of isValidPortNumber(0)) errors.push(fieldErrors.invalid(field, 0, message));
}

/** validateHandler: exactly one handler kind. `kinds` lists the ones allowed (probes vs lifecycle hooks). */
function validateHandler(handler: FieldRecord, kinds: string[], gracePeriod: number | undefined, field: string, errors: FieldError[]): void {
  let count = 0;
  for (const kind of kinds) {
    const value = handler[kind];
    if (value === undefined || value === null) continue;
    const path = `${field}.${kind}`;
    if (count > 0) {
      errors.push(fieldErrors.forbidden(path, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    const action = objectAt(value, path, errors);
    if (!action) continue;
    switch (kind) {
      case 'exec':
        if (arrayAt(action.command, `${path}.command`, errors).length === 0) errors.push(fieldErrors.required(`${path}.command`, ''));
        break;
      case 'httpGet': {
        if (stringAt(action.path, `${path}.path`, errors).length === 0) errors.push(fieldErrors.required(`${path}.path`, ''));
        validatePortNumberOrName(action.port, `${path}.port`, errors);
        const scheme = stringAt(action.scheme, `${path}.scheme`, errors);
        if (scheme !== 'HTTP' && scheme !== 'HTTPS') errors.push(fieldErrors.notSupported(`${path}.scheme`, scheme, ['HTTP', 'HTTPS']));
        for (const { item } of objectsAt(action.httpHeaders, `${path}.httpHeaders`, errors)) {
          const name = stringAt(item.name, `${path}.httpHeaders`, errors);
          for (const message of isHTTPHeaderName(name)) errors.push(fieldErrors.invalid(`${path}.httpHeaders`, name, message));
        }
        break;
      }
      case 'tcpSocket':
        validatePortNumberOrName(action.port, `${path}.port`, errors);
        break;
      case 'grpc': {
        const port = integerAt(action.port, `${path}.port`, errors) ?? 0;
        for (const message of isValidPortNumber(port)) errors.push(fieldErrors.invalid(`${path}.port`, port, message));
        break;
      }
      case 'sleep': {
        const seconds = integerAt(action.seconds, `${path}.seconds`, errors) ?? 0;
        if (gracePeriod !== undefined && (seconds < 0 || seconds > gracePeriod)) {
          errors.push(fieldErrors.invalid(path, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`));
        }
        break;
      }
    }
  }
  if (count === 0) errors.push(fieldErrors.required(field, 'must specify a handler type'));
}

const probeHandlerKinds = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const lifecycleHandlerKinds = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

function validateProbe(value: unknown, kind: 'liveness' | 'readiness' | 'startup', gracePeriod: number | undefined, field: string, errors: FieldError[]): void {
  const probe = objectAt(value, field, errors);
  if (!probe) return;
  validateHandler(probe, probeHandlerKinds, gracePeriod, field, errors);
  for (const key of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    nonNegative(integerAt(probe[key], `${field}.${key}`, errors), `${field}.${key}`, errors);
  }
  const probeGrace = integerAt(probe.terminationGracePeriodSeconds, `${field}.terminationGracePeriodSeconds`, errors);
  if (probeGrace !== undefined && probeGrace <= 0) errors.push(fieldErrors.invalid(`${field}.terminationGracePeriodSeconds`, probeGrace, 'must be greater than 0'));
  if (kind === 'readiness') {
    if (probeGrace !== undefined) errors.push(fieldErrors.invalid(`${field}.terminationGracePeriodSeconds`, probeGrace, 'must not be set for readinessProbes'));
  } else {
    const success = typeof probe.successThreshold === 'number' ? probe.successThreshold : 0;
    if (success !== 1) errors.push(fieldErrors.invalid(`${field}.successThreshold`, success, 'must be 1'));
  }
}

function validateLifecycle(value: unknown, gracePeriod: number | undefined, field: string, errors: FieldError[]): void {
  const lifecycle = objectAt(value, field, errors);
  if (!lifecycle) return;
  for (const hook of ['postStart', 'preStop']) {
    const handler = objectAt(lifecycle[hook], `${field}.${hook}`, errors);
    if (handler) validateHandler(handler, lifecycleHandlerKinds, gracePeriod, `${field}.${hook}`, errors);
  }
}

function validateIdRange(value: unknown, field: string, errors: FieldError[]): void {
  const id = integerAt(value, field, errors);
  if (id !== undefined && (id < 0 || id > maximumInt32)) errors.push(fieldErrors.invalid(field, id, inclusiveRangeError(0, maximumInt32)));
}

function validateContainerSecurityContext(value: unknown, field: string, errors: FieldError[]): void {
  const context = objectAt(value, field, errors);
  if (!context) return;
  validateIdRange(context.runAsUser, `${field}.runAsUser`, errors);
  validateIdRange(context.runAsGroup, `${field}.runAsGroup`, errors);
  const privileged = booleanAt(context.privileged, `${field}.privileged`, errors);
  const escalation = booleanAt(context.allowPrivilegeEscalation, `${field}.allowPrivilegeEscalation`, errors);
  if (privileged === true && escalation === false) {
    errors.push(fieldErrors.invalid(field, context, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
  }
  const capabilities = objectAt(context.capabilities, `${field}.capabilities`, errors);
  if (capabilities && escalation === false && Array.isArray(capabilities.add) && capabilities.add.includes('CAP_SYS_ADMIN')) {
    errors.push(fieldErrors.invalid(field, context, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  }
}

/** validateContainerCommon */
function validateContainerCommon(container: FieldRecord, volumes: Map<string, FieldRecord>, field: string, errors: FieldError[]): string {
  const name = stringAt(container.name, `${field}.name`, errors);
  if (name.length === 0) errors.push(fieldErrors.required(`${field}.name`, ''));
  else errors.push(...dns1123LabelErrors(name, `${field}.name`));
  const image = stringAt(container.image, `${field}.image`, errors);
  if (image.length === 0) errors.push(fieldErrors.required(`${field}.image`, ''));
  const policy = stringAt(container.terminationMessagePolicy, `${field}.terminationMessagePolicy`, errors);
  if (policy.length === 0) errors.push(fieldErrors.required(`${field}.terminationMessagePolicy`, ''));
  else if (policy !== 'File' && policy !== 'FallbackToLogsOnError') errors.push(fieldErrors.notSupported(`${field}.terminationMessagePolicy`, policy, ['File', 'FallbackToLogsOnError']));
  arrayAt(container.command, `${field}.command`, errors);
  arrayAt(container.args, `${field}.args`, errors);
  validateContainerPorts(container.ports, `${field}.ports`, errors);
  validateEnv(container.env, `${field}.env`, errors);
  validateEnvFrom(container.envFrom, `${field}.envFrom`, errors);
  validateVolumeMounts(container.volumeMounts, volumes, `${field}.volumeMounts`, errors);
  const pullPolicy = stringAt(container.imagePullPolicy, `${field}.imagePullPolicy`, errors);
  if (pullPolicy.length === 0) errors.push(fieldErrors.required(`${field}.imagePullPolicy`, ''));
  else if (!['Always', 'IfNotPresent', 'Never'].includes(pullPolicy)) errors.push(fieldErrors.notSupported(`${field}.imagePullPolicy`, pullPolicy, ['Always', 'IfNotPresent', 'Never']));
  validateResourceRequirements(container.resources, `${field}.resources`, errors);
  validateContainerSecurityContext(container.securityContext, `${field}.securityContext`, errors);
  return name;
}

interface HostPortKey { protocol: string; hostIP: string; hostPort: number }

function hostPortsOf(container: FieldRecord): HostPortKey[] {
  const ports = Array.isArray(container.ports) ? container.ports : [];
  return ports.map((port) => {
    const record = typeof port === 'object' && port !== null && !Array.isArray(port) ? port as FieldRecord : {};
    return {
      protocol: typeof record.protocol === 'string' ? record.protocol : '',
      hostIP: typeof record.hostIP === 'string' ? record.hostIP : '',
      hostPort: typeof record.hostPort === 'number' ? record.hostPort : 0,
    };
  });
}

/** checkHostPortConflicts over a list of containers. */
function checkHostPortConflicts(containers: Array<{ item: FieldRecord; path: string }>, errors: FieldError[]): void {
  const seen = new Set<string>();
  for (const { item, path } of containers) {
    hostPortsOf(item).forEach((port, index) => {
      if (port.hostPort === 0) return;
      const key = `${port.protocol}/${port.hostIP}/${port.hostPort}`;
      if (seen.has(key)) errors.push(fieldErrors.duplicate(`${path}.ports[${index}].hostPort`, key));
      else seen.add(key);
    });
  }
}

function validateTolerations(value: unknown, field: string, errors: FieldError[]): void {
  for (const { item, path } of objectsAt(value, field, errors)) {
    const key = stringAt(item.key, `${path}.key`, errors);
    const operator = stringAt(item.operator, `${path}.operator`, errors);
    const tolerationValue = stringAt(item.value, `${path}.value`, errors);
    const effect = stringAt(item.effect, `${path}.effect`, errors);
    const seconds = integerAt(item.tolerationSeconds, `${path}.tolerationSeconds`, errors);
    if (key.length > 0) errors.push(...validateLabelName(key, `${path}.key`));
    if (key.length === 0 && operator !== 'Exists') {
      errors.push(fieldErrors.invalid(`${path}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (seconds !== undefined && effect !== 'NoExecute') {
      errors.push(fieldErrors.invalid(`${path}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (operator) {
      case 'Equal':
      case '': {
        const messages = isValidLabelValue(tolerationValue);
        if (messages.length > 0) errors.push(fieldErrors.invalid(`${path}.operator`, tolerationValue, messages.join(';')));
        break;
      }
      case 'Exists':
        if (tolerationValue.length > 0) errors.push(fieldErrors.invalid(`${path}.operator`, tolerationValue, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errors.push(fieldErrors.notSupported(`${path}.operator`, operator, ['Equal', 'Exists']));
    }
    if (effect.length > 0 && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) {
      errors.push(fieldErrors.notSupported(`${path}.effect`, effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  }
}

function validateNodeSelectorTerm(term: FieldRecord, field: string, errors: FieldError[]): void {
  for (const { item, path } of objectsAt(term.matchExpressions, `${field}.matchExpressions`, errors)) {
    const key = stringAt(item.key, `${path}.key`, errors);
    const operator = stringAt(item.operator, `${path}.operator`, errors);
    const values = arrayAt(item.values, `${path}.values`, errors).map((entry, index) => stringAt(entry, `${path}.values[${index}]`, errors));
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errors.push(fieldErrors.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errors.push(fieldErrors.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      case 'Gt':
      case 'Lt':
        if (values.length !== 1) errors.push(fieldErrors.required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
        break;
      default:
        errors.push(fieldErrors.invalid(`${path}.operator`, operator, 'not a valid selector operator'));
    }
    errors.push(...validateLabelName(key, `${path}.key`));
    values.forEach((entry, index) => {
      for (const message of isValidLabelValue(entry)) errors.push(fieldErrors.invalid(`${path}.values[${index}]`, entry, message));
    });
  }
  for (const { item, path } of objectsAt(term.matchFields, `${field}.matchFields`, errors)) {
    const key = stringAt(item.key, `${path}.key`, errors);
    const operator = stringAt(item.operator, `${path}.operator`, errors);
    const values = arrayAt(item.values, `${path}.values`, errors);
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length !== 1) errors.push(fieldErrors.required(`${path}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    } else {
      errors.push(fieldErrors.invalid(`${path}.operator`, operator, 'not a valid selector operator'));
    }
    if (key !== 'metadata.name') errors.push(fieldErrors.invalid(`${path}.key`, key, 'not a valid field selector key'));
  }
}

function validateWeight(value: unknown, field: string, errors: FieldError[]): void {
  const weight = integerAt(value, field, errors) ?? 0;
  if (weight <= 0 || weight > 100) errors.push(fieldErrors.invalid(field, weight, 'must be in the range 1-100'));
}

function validatePodAffinityTerm(term: FieldRecord, field: string, errors: FieldError[]): void {
  validateLabelSelector(term.labelSelector, `${field}.labelSelector`, errors);
  validateLabelSelector(term.namespaceSelector, `${field}.namespaceSelector`, errors);
  for (const namespace of arrayAt(term.namespaces, `${field}.namespaces`, errors)) {
    const name = stringAt(namespace, `${field}.namespace`, errors);
    for (const message of isDNS1123Label(name)) errors.push(fieldErrors.invalid(`${field}.namespace`, name, message));
  }
  const topologyKey = stringAt(term.topologyKey, `${field}.topologyKey`, errors);
  if (topologyKey.length === 0) errors.push(fieldErrors.required(`${field}.topologyKey`, 'can not be empty'));
  else errors.push(...validateLabelName(topologyKey, `${field}.topologyKey`));
}

function validateAffinity(value: unknown, field: string, errors: FieldError[]): void {
  const affinity = objectAt(value, field, errors);
  if (!affinity) return;
  const nodeAffinity = objectAt(affinity.nodeAffinity, `${field}.nodeAffinity`, errors);
  if (nodeAffinity) {
    const path = `${field}.nodeAffinity`;
    const required = objectAt(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, `${path}.requiredDuringSchedulingIgnoredDuringExecution`, errors);
    if (required) {
      const termsPath = `${path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
      const terms = objectsAt(required.nodeSelectorTerms, termsPath, errors);
      if (terms.length === 0) errors.push(fieldErrors.required(termsPath, 'must have at least one node selector term'));
      for (const { item, path: termPath } of terms) validateNodeSelectorTerm(item, termPath, errors);
    }
    for (const { item, path: preferredPath } of objectsAt(nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution, `${path}.preferredDuringSchedulingIgnoredDuringExecution`, errors)) {
      validateWeight(item.weight, `${preferredPath}.weight`, errors);
      const preference = objectAt(item.preference, `${preferredPath}.preference`, errors);
      if (preference) validateNodeSelectorTerm(preference, `${preferredPath}.preference`, errors);
    }
  }
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const podAffinity = objectAt(affinity[kind], `${field}.${kind}`, errors);
    if (!podAffinity) continue;
    const path = `${field}.${kind}`;
    for (const { item, path: termPath } of objectsAt(podAffinity.requiredDuringSchedulingIgnoredDuringExecution, `${path}.requiredDuringSchedulingIgnoredDuringExecution`, errors)) {
      validatePodAffinityTerm(item, termPath, errors);
    }
    for (const { item, path: preferredPath } of objectsAt(podAffinity.preferredDuringSchedulingIgnoredDuringExecution, `${path}.preferredDuringSchedulingIgnoredDuringExecution`, errors)) {
      validateWeight(item.weight, `${preferredPath}.weight`, errors);
      const term = objectAt(item.podAffinityTerm, `${preferredPath}.podAffinityTerm`, errors);
      if (term) validatePodAffinityTerm(term, `${preferredPath}.podAffinityTerm`, errors);
    }
  }
}

function validateTopologySpreadConstraints(value: unknown, field: string, errors: FieldError[]): void {
  const seen = new Set<string>();
  for (const { item, path } of objectsAt(value, field, errors)) {
    const maxSkew = integerAt(item.maxSkew, `${path}.maxSkew`, errors) ?? 0;
    if (maxSkew <= 0) errors.push(fieldErrors.invalid(`${path}.maxSkew`, maxSkew, 'must be greater than zero'));
    const topologyKey = stringAt(item.topologyKey, `${path}.topologyKey`, errors);
    if (topologyKey.length === 0) errors.push(fieldErrors.required(`${path}.topologyKey`, 'can not be empty'));
    else errors.push(...validateLabelName(topologyKey, `${path}.topologyKey`));
    const action = stringAt(item.whenUnsatisfiable, `${path}.whenUnsatisfiable`, errors);
    if (action.length === 0) errors.push(fieldErrors.required(`${path}.whenUnsatisfiable`, 'can not be empty'));
    else if (action !== 'DoNotSchedule' && action !== 'ScheduleAnyway') errors.push(fieldErrors.notSupported(`${path}.whenUnsatisfiable`, action, ['DoNotSchedule', 'ScheduleAnyway']));
    const key = `${topologyKey}/${action}`;
    if (seen.has(key)) errors.push(fieldErrors.duplicate(path, `{${topologyKey}, ${action}}`));
    seen.add(key);
    const minDomains = integerAt(item.minDomains, `${path}.minDomains`, errors);
    if (minDomains !== undefined && minDomains <= 0) errors.push(fieldErrors.invalid(`${path}.minDomains`, minDomains, 'must be greater than 0'));
    validateLabelSelector(item.labelSelector, `${path}.labelSelector`, errors);
  }
}

function validateDNSConfig(value: unknown, dnsPolicy: string, field: string, errors: FieldError[]): void {
  const config = objectAt(value, field, errors);
  if (dnsPolicy === 'None') {
    if (!config) {
      errors.push(fieldErrors.required(field, 'must provide `dnsConfig` when `dnsPolicy` is None'));
      return;
    }
    if (arrayAt(config.nameservers, `${field}.nameservers`, []).length === 0) {
      errors.push(fieldErrors.required(`${field}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None'));
      return;
    }
  }
  if (!config) return;
  const nameservers = arrayAt(config.nameservers, `${field}.nameservers`, errors).map((item, index) => stringAt(item, `${field}.nameservers[${index}]`, errors));
  if (nameservers.length > 3) errors.push(invalid(`${field}.nameservers`, nameservers, 'must not have more than 3 nameservers'));
  nameservers.forEach((server, index) => {
    for (const message of ipErrors(server)) errors.push(fieldErrors.invalid(`${field}.nameservers[${index}]`, server, message));
  });
  const searches = arrayAt(config.searches, `${field}.searches`, errors).map((item, index) => stringAt(item, `${field}.searches[${index}]`, errors));
  if (searches.length > 32) errors.push(invalid(`${field}.searches`, searches, 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) errors.push(invalid(`${field}.searches`, searches, 'must not have more than 2048 characters (including spaces) in the search list'));
  searches.forEach((search, index) => {
    if (search === '.') return;
    const trimmed = search.endsWith('.') ? search.slice(0, -1) : search;
    // AllowRelaxedDNSSearchValidation (GA) permits underscores.
    if (!/^_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*$/.test(trimmed) || trimmed.length > 253) {
      errors.push(fieldErrors.invalid(`${field}.searches[${index}]`, trimmed, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')"));
    }
  });
  for (const { item, path } of objectsAt(config.options, `${field}.options`, errors)) {
    if (stringAt(item.name, `${path}.name`, errors).length === 0) errors.push(fieldErrors.required(path, 'must not be empty'));
  }
}

function validatePodSecurityContext(value: unknown, field: string, errors: FieldError[]): void {
  const context = objectAt(value, field, errors);
  if (!context) return;
  for (const key of ['runAsUser', 'runAsGroup', 'fsGroup']) validateIdRange(context[key], `${field}.${key}`, errors);
  arrayAt(context.supplementalGroups, `${field}.supplementalGroups`, errors).forEach((group, index) => validateIdRange(group, `${field}.supplementalGroups[${index}]`, errors));
  const policy = optionalStringAt(context.fsGroupChangePolicy, `${field}.fsGroupChangePolicy`, errors);
  if (policy !== undefined && policy !== 'OnRootMismatch' && policy !== 'Always') errors.push(fieldErrors.notSupported(`${field}.fsGroupChangePolicy`, policy, ['Always', 'OnRootMismatch']));
  for (const { item, path } of objectsAt(context.sysctls, `${field}.sysctls`, errors)) {
    const name = stringAt(item.name, `${path}.name`, errors);
    if (name.length === 0) errors.push(fieldErrors.required(`${path}.name`, ''));
  }
}

/** ValidatePodSpec. `path` is where the spec sits, e.g. `spec` or `spec.template.spec`. */
export function validatePodSpec(spec: unknown, path: string, options: PodSpecOptions = {}): FieldError[] {
  const errors: FieldError[] = [];
  const record = objectAt(spec, path, errors) ?? {};
  const gracePeriod = integerAt(record.terminationGracePeriodSeconds, `${path}.terminationGracePeriodSeconds`, errors);
  if (record.terminationGracePeriodSeconds === undefined || record.terminationGracePeriodSeconds === null) {
    errors.push(fieldErrors.required(`${path}.terminationGracePeriodSeconds`, ''));
  }
  const volumes = validateVolumes(record.volumes, `${path}.volumes`, errors);

  const containersPath = `${path}.containers`;
  const containers = objectsAt(record.containers, containersPath, errors);
  const regularNames = new Set<string>();
  if (containers.length === 0 && !(Array.isArray(record.containers) && record.containers.length > 0)) {
    errors.push(fieldErrors.required(containersPath, ''));
  }
  for (const { item, path: containerPath } of containers) {
    const name = validateContainerCommon(item, volumes, containerPath, errors);
    if (regularNames.has(name)) errors.push(fieldErrors.duplicate(`${containerPath}.name`, name));
    else regularNames.add(name);
    if (item.lifecycle !== undefined && item.lifecycle !== null) validateLifecycle(item.lifecycle, gracePeriod, `${containerPath}.lifecycle`, errors);
    validateProbe(item.livenessProbe, 'liveness', gracePeriod, `${containerPath}.livenessProbe`, errors);
    validateProbe(item.readinessProbe, 'readiness', gracePeriod, `${containerPath}.readinessProbe`, errors);
    validateProbe(item.startupProbe, 'startup', gracePeriod, `${containerPath}.startupProbe`, errors);
    if (item.restartPolicy !== undefined && item.restartPolicy !== null) errors.push(fieldErrors.forbidden(`${containerPath}.restartPolicy`, 'may not be set for non-init containers'));
  }
  checkHostPortConflicts(containers, errors);

  const allNames = new Set(regularNames);
  for (const { item, path: containerPath } of objectsAt(record.initContainers, `${path}.initContainers`, errors)) {
    const name = validateContainerCommon(item, volumes, containerPath, errors);
    const restartPolicy = optionalStringAt(item.restartPolicy, `${containerPath}.restartPolicy`, errors);
    if (restartPolicy !== undefined && restartPolicy !== 'Always') errors.push(fieldErrors.notSupported(`${containerPath}.restartPolicy`, restartPolicy, ['Always']));
    if (allNames.has(name)) errors.push(fieldErrors.duplicate(`${containerPath}.name`, name));
    else if (name.length > 0) allNames.add(name);
    checkHostPortConflicts([{ item, path: containerPath }], errors);
    if (restartPolicy === 'Always') {
      if (item.lifecycle !== undefined && item.lifecycle !== null) validateLifecycle(item.lifecycle, gracePeriod, `${containerPath}.lifecycle`, errors);
      validateProbe(item.livenessProbe, 'liveness', gracePeriod, `${containerPath}.livenessProbe`, errors);
      validateProbe(item.readinessProbe, 'readiness', gracePeriod, `${containerPath}.readinessProbe`, errors);
      validateProbe(item.startupProbe, 'startup', gracePeriod, `${containerPath}.startupProbe`, errors);
    } else {
      for (const key of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (item[key] !== undefined && item[key] !== null) errors.push(fieldErrors.forbidden(`${containerPath}.${key}`, 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  }

  validateEphemeralContainers(record.ephemeralContainers, allNames, volumes, `${path}.ephemeralContainers`, errors);

  const securityContext = objectAt(record.securityContext, `${path}.securityContext`, []);
  const hostNetwork = record.hostNetwork === true || securityContext?.hostNetwork === true;
  if (hostNetwork) {
    for (const { item, path: containerPath } of containers) {
      hostPortsOf(item).forEach((port, index) => {
        const ports = Array.isArray(item.ports) ? item.ports : [];
        const entry = ports[index];
        const containerPort = typeof entry === 'object' && entry !== null && 'containerPort' in entry ? (entry as FieldRecord).containerPort : 0;
        if ((options.resourceIsPod || port.hostPort !== 0) && port.hostPort !== containerPort) {
          errors.push(fieldErrors.invalid(`${containerPath}.ports[${index}].hostPort`, port.hostPort, 'must match `containerPort` when `hostNetwork` is true'));
        }
      });
    }
  }

  const restartPolicy = stringAt(record.restartPolicy, `${path}.restartPolicy`, errors);
  if (restartPolicy.length === 0) errors.push(fieldErrors.required(`${path}.restartPolicy`, ''));
  else if (!['Always', 'OnFailure', 'Never'].includes(restartPolicy)) errors.push(fieldErrors.notSupported(`${path}.restartPolicy`, restartPolicy, ['Always', 'OnFailure', 'Never']));
  const dnsPolicies = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
  const dnsPolicy = stringAt(record.dnsPolicy, `${path}.dnsPolicy`, errors);
  if (dnsPolicy.length === 0) errors.push(fieldErrors.required(`${path}.dnsPolicy`, ''));
  else if (!dnsPolicies.includes(dnsPolicy)) errors.push(fieldErrors.notSupported(`${path}.dnsPolicy`, dnsPolicy, dnsPolicies));
  errors.push(...validateLabels(record.nodeSelector, `${path}.nodeSelector`));
  validatePodSecurityContext(record.securityContext, `${path}.securityContext`, errors);
  for (const { item, path: secretPath } of objectsAt(record.imagePullSecrets, `${path}.imagePullSecrets`, errors)) {
    if (Object.keys(item).some((key) => key !== 'name')) errors.push(invalid(secretPath, item, 'only name may be set'));
  }
  validateAffinity(record.affinity, `${path}.affinity`, errors);
  validateDNSConfig(record.dnsConfig, dnsPolicy, `${path}.dnsConfig`, errors);
  for (const { item, path: gatePath } of objectsAt(record.readinessGates, `${path}.readinessGates`, errors)) {
    errors.push(...validateQualifiedName(stringAt(item.conditionType, `${gatePath}.conditionType`, errors), `${gatePath}.conditionType`));
  }
  const gates = new Set<string>();
  for (const { item, path: gatePath } of objectsAt(record.schedulingGates, `${path}.schedulingGates`, errors)) {
    const name = stringAt(item.name, `${gatePath}.name`, errors);
    errors.push(...validateQualifiedName(name, gatePath));
    if (gates.has(name)) errors.push(fieldErrors.duplicate(gatePath, name));
    gates.add(name);
  }
  validateTopologySpreadConstraints(record.topologySpreadConstraints, `${path}.topologySpreadConstraints`, errors);
  for (const key of ['serviceAccountName', 'nodeName', 'priorityClassName']) {
    const value = stringAt(record[key], `${path}.${key}`, errors);
    if (value.length > 0) for (const message of nameIsDNSSubdomain(value, false)) errors.push(fieldErrors.invalid(`${path}.${key}`, value, message));
  }
  const deadline = integerAt(record.activeDeadlineSeconds, `${path}.activeDeadlineSeconds`, errors);
  if (deadline !== undefined && (deadline < 1 || deadline > maximumInt32)) errors.push(fieldErrors.invalid(`${path}.activeDeadlineSeconds`, deadline, inclusiveRangeError(1, maximumInt32)));
  for (const key of ['hostname', 'subdomain']) {
    const value = stringAt(record[key], `${path}.${key}`, errors);
    if (value.length > 0) errors.push(...dns1123LabelErrors(value, `${path}.${key}`));
  }
  validateTolerations(record.tolerations, `${path}.tolerations`, errors);
  for (const { item, path: aliasPath } of objectsAt(record.hostAliases, `${path}.hostAliases`, errors)) {
    const ip = stringAt(item.ip, `${aliasPath}.ip`, errors);
    for (const message of ipErrors(ip)) errors.push(fieldErrors.invalid(`${aliasPath}.ip`, ip, message));
    arrayAt(item.hostnames, `${aliasPath}.hostnames`, errors).forEach((hostname, index) => {
      errors.push(...dns1123SubdomainErrors(stringAt(hostname, `${aliasPath}.hostnames[${index}]`, errors), `${aliasPath}.hostnames[${index}]`));
    });
  }
  const runtimeClassName = optionalStringAt(record.runtimeClassName, `${path}.runtimeClassName`, errors);
  if (runtimeClassName !== undefined) errors.push(...dns1123SubdomainErrors(runtimeClassName, `${path}.runtimeClassName`));
  const preemptionPolicy = optionalStringAt(record.preemptionPolicy, `${path}.preemptionPolicy`, errors);
  if (preemptionPolicy !== undefined) {
    if (preemptionPolicy === '') errors.push(fieldErrors.required(`${path}.preemptionPolicy`, ''));
    else if (preemptionPolicy !== 'PreemptLowerPriority' && preemptionPolicy !== 'Never') errors.push(fieldErrors.notSupported(`${path}.preemptionPolicy`, preemptionPolicy, ['PreemptLowerPriority', 'Never']));
  }
  const os = objectAt(record.os, `${path}.os`, errors);
  if (os) {
    const name = stringAt(os.name, `${path}.os.name`, errors);
    if (name.length === 0) errors.push(fieldErrors.required(`${path}.os.name`, ''));
    else if (name !== 'linux' && name !== 'windows') errors.push(fieldErrors.notSupported(`${path}.os.name`, name, ['linux', 'windows']));
  }
  for (const key of ['hostNetwork', 'hostPID', 'hostIPC', 'shareProcessNamespace', 'automountServiceAccountToken', 'enableServiceLinks', 'hostUsers']) {
    booleanAt(record[key], `${path}.${key}`, errors);
  }
  integerAt(record.priority, `${path}.priority`, errors);
  stringMapAt(record.overhead, `${path}.overhead`, errors);
  if (options.resourceIsPod) {
    const validateImageWhitespace = (list: unknown, listPath: string): void => {
      for (const { item, path: containerPath } of objectsAt(list, listPath, [])) {
        const image = typeof item.image === 'string' ? item.image : '';
        if (image.length !== image.trim().length) errors.push(fieldErrors.invalid(`${containerPath}.image`, image, 'must not have leading or trailing whitespace'));
      }
    };
    validateImageWhitespace(record.containers, containersPath);
    validateImageWhitespace(record.initContainers, `${path}.initContainers`);
  }
  return errors;
}

/**
 * The fields of EphemeralContainerCommon that an ephemeral container may not set (upstream
 * allowedEphemeralContainerFields, in the struct's field order): an ephemeral container must not be
 * relied on for the pod's own service, so no ports, resources, probes, lifecycle or restart rules.
 */
const ephemeralContainerForbiddenFields = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'restartPolicyRules', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

/**
 * Whether a field holds Go's zero value after decoding: absent or null; `resources` also when none
 * of its lists is set (kubectl sends `resources: {}`). An empty list or map is set, as in Go.
 */
function isZeroField(key: string, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (key === 'resources' && typeof value === 'object' && !Array.isArray(value)) return Object.values(value).every((item) => item === undefined || item === null);
  return false;
}

/**
 * validateEphemeralContainers: each as a container (validateContainerCommon, image whitespace), a
 * name unique across every container of the pod, a targetContainerName naming a regular or init
 * container, only the allowed fields, and no subPath mounts.
 */
function validateEphemeralContainers(value: unknown, otherNames: ReadonlySet<string>, volumes: Map<string, FieldRecord>, field: string, errors: FieldError[]): void {
  const allNames = new Set(otherNames);
  for (const { item, path } of objectsAt(value, field, errors)) {
    const name = validateContainerCommon(item, volumes, path, errors);
    const image = typeof item.image === 'string' ? item.image : '';
    if (image.length !== image.trim().length) errors.push(fieldErrors.invalid(`${path}.image`, image, 'must not have leading or trailing whitespace'));
    if (allNames.has(name)) errors.push(fieldErrors.duplicate(`${path}.name`, name));
    else allNames.add(name);
    const target = stringAt(item.targetContainerName, `${path}.targetContainerName`, errors);
    if (target !== '' && !otherNames.has(target)) errors.push(notFound(`${path}.targetContainerName`, target));
    for (const key of ephemeralContainerForbiddenFields) {
      if (!isZeroField(key, item[key])) errors.push(fieldErrors.forbidden(`${path}.${key}`, 'cannot be set for an Ephemeral Container'));
    }
    for (const { item: mount, path: mountPath } of objectsAt(item.volumeMounts, `${path}.volumeMounts`, [])) {
      if (typeof mount.subPath === 'string' && mount.subPath !== '') errors.push(fieldErrors.forbidden(`${mountPath}.subPath`, 'cannot be set for an Ephemeral Container'));
      if (typeof mount.subPathExpr === 'string' && mount.subPathExpr !== '') errors.push(fieldErrors.forbidden(`${mountPath}.subPathExpr`, 'cannot be set for an Ephemeral Container'));
    }
  }
}

/** ValidatePodTemplateSpec: template labels/annotations and the pod spec; no ephemeral containers. */
export function validatePodTemplateSpec(template: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const record = objectAt(template, path, errors) ?? {};
  const metadata = objectAt(record.metadata, `${path}.metadata`, errors) ?? {};
  errors.push(...validateLabels(metadata.labels, `${path}.labels`));
  errors.push(...validateAnnotations(metadata.annotations, `${path}.annotations`));
  errors.push(...validatePodSpec(record.spec, `${path}.spec`));
  const spec = objectAt(record.spec, `${path}.spec`, []);
  if (spec && Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0) {
    errors.push(fieldErrors.forbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  }
  return errors;
}

