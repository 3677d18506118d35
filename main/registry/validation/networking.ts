// Validation for networking.k8s.io/v1 Ingresses, IngressClasses and NetworkPolicies
// (pkg/apis/networking/validation/validation.go): host rules (DNS names or `*.` wildcards, never
// IPs), path types and absolute paths, service-or-resource backends, TLS hosts and secrets, class
// controllers as domain-prefixed paths, and network policy ports, peers and IP blocks.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../fieldErrors';
import {
  arrayAt, immutable, intOrStringAt, integerAt, invalid, objectAt, objectsAt, optionalStringAt, recordOf, stringAt, type FieldRecord,
} from './fields';
import {
  cidrErrors, isDNS1035Label, isDNS1123Subdomain, isIPv4, isIPv6, isValidPortName, isValidPortNumber, maxLengthError, nameIsDNSSubdomain, regexError,
} from './names';
import { validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from './objectMeta';

const dns1123LabelFormat = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const wildcardSubdomainFormat = `\\*\\.${dns1123LabelFormat}(\\.${dns1123LabelFormat})*`;
const wildcardSubdomainPattern = new RegExp(`^${wildcardSubdomainFormat}$`);
const pathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const invalidPathSequences = ['//', '/./', '/../', '%2f', '%2F'];
const invalidPathSuffixes = ['/..', '/.'];
const ingressClassAnnotation = 'kubernetes.io/ingress.class';
const domainPrefixedPathPattern = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/** validation.IsWildcardDNS1123Subdomain */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push(maxLengthError(253));
  if (!wildcardSubdomainPattern.test(value)) {
    errors.push(regexError("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character", wildcardSubdomainFormat, '*.example.com'));
  }
  return errors;
}

function validateHost(host: string, field: string, errors: FieldError[]): void {
  const messages = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
  for (const message of messages) errors.push(fieldErrors.invalid(field, host, message));
}

/** validation.IsDomainPrefixedPath */
export function validateDomainPrefixedPath(field: string, value: string): FieldError[] {
  if (value.length === 0) return [fieldErrors.required(field, '')];
  const slash = value.indexOf('/');
  if (slash < 0) return [fieldErrors.invalid(field, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const host = value.slice(0, slash);
  const path = value.slice(slash + 1);
  const errors = isDNS1123Subdomain(host).map((message) => fieldErrors.invalid(field, host, message));
  if (!domainPrefixedPathPattern.test(path)) {
    errors.push(fieldErrors.invalid(field, path, regexError('segment of a path must consist of valid path characters', "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+")));
  }
  return errors;
}

function validateTypedLocalObjectReference(reference: FieldRecord, field: string, errors: FieldError[]): void {
  const apiGroup = optionalStringAt(reference.apiGroup, `${field}.apiGroup`, errors);
  if (apiGroup !== undefined && apiGroup !== '') for (const message of isDNS1123Subdomain(apiGroup)) errors.push(fieldErrors.invalid(`${field}.apiGroup`, apiGroup, message));
  if (stringAt(reference.kind, `${field}.kind`, errors) === '') errors.push(fieldErrors.required(`${field}.kind`, ''));
  if (stringAt(reference.name, `${field}.name`, errors) === '') errors.push(fieldErrors.required(`${field}.name`, ''));
}

/** validateIngressBackend */
function validateIngressBackend(backend: FieldRecord, field: string, errors: FieldError[]): void {
  const resource = objectAt(backend.resource, `${field}.resource`, errors);
  const service = objectAt(backend.service, `${field}.service`, errors);
  if (resource && service) {
    errors.push(fieldErrors.invalid(field, '', 'cannot set both resource and service backends'));
    return;
  }
  if (resource) {
    validateTypedLocalObjectReference(resource, `${field}.resource`, errors);
    return;
  }
  if (!service) {
    errors.push(fieldErrors.invalid(field, '', 'resource or service backend is required'));
    return;
  }
  const serviceName = stringAt(service.name, `${field}.service.name`, errors);
  if (serviceName === '') errors.push(fieldErrors.required(`${field}.service.name`, ''));
  else for (const message of isDNS1035Label(serviceName)) errors.push(fieldErrors.invalid(`${field}.service.name`, serviceName, message));
  const port = objectAt(service.port, `${field}.service.port`, errors) ?? {};
  const portName = stringAt(port.name, `${field}.service.port.name`, errors);
  const portNumber = integerAt(port.number, `${field}.service.port.number`, errors) ?? 0;
  if (portName !== '' && portNumber !== 0) errors.push(fieldErrors.invalid(field, '', 'cannot set both port name & port number'));
  else if (portName !== '') for (const message of isValidPortName(portName)) errors.push(fieldErrors.invalid(`${field}.service.port.name`, portName, message));
  else if (portNumber !== 0) for (const message of isValidPortNumber(portNumber)) errors.push(fieldErrors.invalid(`${field}.service.port.number`, portNumber, message));
  else errors.push(fieldErrors.required(`${field}.service.port`, 'port name or number is required'));
}

function validateHttpIngressPath(path: FieldRecord, field: string, errors: FieldError[]): void {
  const pathType = optionalStringAt(path.pathType, `${field}.pathType`, errors);
  const value = stringAt(path.path, `${field}.path`, errors);
  if (pathType === undefined) {
    errors.push(fieldErrors.required(`${field}.pathType`, 'pathType must be specified'));
  } else if (!pathTypes.includes(pathType)) {
    errors.push(fieldErrors.notSupported(`${field}.pathType`, pathType, pathTypes));
  } else if (pathType === 'Exact' || pathType === 'Prefix') {
    if (!value.startsWith('/')) errors.push(fieldErrors.invalid(`${field}.path`, value, 'must be an absolute path'));
    for (const sequence of invalidPathSequences) if (value.includes(sequence)) errors.push(fieldErrors.invalid(`${field}.path`, value, `must not contain '${sequence}'`));
    for (const suffix of invalidPathSuffixes) if (value.endsWith(suffix)) errors.push(fieldErrors.invalid(`${field}.path`, value, `cannot end with '${suffix}'`));
  } else if (value.length > 0 && !value.startsWith('/')) {
    errors.push(fieldErrors.invalid(`${field}.path`, value, 'must be an absolute path'));
  }
  const backend = objectAt(path.backend, `${field}.backend`, errors);
  validateIngressBackend(backend ?? {}, `${field}.backend`, errors);
}

function validateIngressSpec(spec: FieldRecord, errors: FieldError[]): void {
  const rules = objectsAt(spec.rules, 'spec.rules', errors);
  const defaultBackend = objectAt(spec.defaultBackend, 'spec.defaultBackend', errors);
  if (rules.length === 0 && !defaultBackend) {
    errors.push({ type: 'FieldValueInvalid', field: 'spec', badValue: null, detail: 'Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified' });
  }
  if (defaultBackend) validateIngressBackend(defaultBackend, 'spec.defaultBackend', errors);
  for (const { item, path } of rules) {
    const host = stringAt(item.host, `${path}.host`, errors);
    if (host !== '') {
      if (isIPv4(host) || isIPv6(host)) errors.push(fieldErrors.invalid(`${path}.host`, host, 'must be a DNS name, not an IP address'));
      validateHost(host, `${path}.host`, errors);
    }
    const http = objectAt(item.http, `${path}.http`, errors);
    if (http) {
      const paths = objectsAt(http.paths, `${path}.http.paths`, errors);
      if (paths.length === 0) errors.push(fieldErrors.required(`${path}.http.paths`, ''));
      for (const entry of paths) validateHttpIngressPath(entry.item, entry.path, errors);
    }
  }
  for (const { item, path } of objectsAt(spec.tls, 'spec.tls', errors)) {
    arrayAt(item.hosts, `${path}.hosts`, errors).forEach((entry, index) => {
      const host = stringAt(entry, `${path}.hosts[${index}]`, errors);
      validateHost(host, `${path}.hosts[${index}]`, errors);
    });
    const secretName = optionalStringAt(item.secretName, `${path}.secretName`, errors);
    if (secretName) for (const message of isDNS1123Subdomain(secretName)) errors.push(fieldErrors.invalid(`${path}.secretName`, secretName, message));
  }
  const className = optionalStringAt(spec.ingressClassName, 'spec.ingressClassName', errors);
  if (className !== undefined) for (const message of nameIsDNSSubdomain(className, false)) errors.push(fieldErrors.invalid('spec.ingressClassName', className, message));
}

export function validateIngress(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const spec = objectAt(obj.spec, 'spec', errors) ?? {};
  validateIngressSpec(spec, errors);
  const annotations = recordOf(recordOf(obj.metadata).annotations);
  const annotated = annotations[ingressClassAnnotation];
  if (typeof annotated === 'string' && typeof spec.ingressClassName === 'string' && annotated !== spec.ingressClassName) {
    errors.push(fieldErrors.invalid(`annotations.${ingressClassAnnotation}`, annotated, 'must match `ingressClassName` when both are specified'));
  }
  for (const { item, path } of objectsAt(recordOf(recordOf(obj.status).loadBalancer).ingress, 'status.loadBalancer.ingress', errors)) {
    const ip = optionalStringAt(item.ip, `${path}.ip`, errors);
    if (ip && !isIPv4(ip) && !isIPv6(ip)) errors.push(fieldErrors.invalid(`${path}.ip`, ip, 'must be a valid IP address'));
    const hostname = optionalStringAt(item.hostname, `${path}.hostname`, errors);
    if (hostname) {
      for (const message of isDNS1123Subdomain(hostname)) errors.push(fieldErrors.invalid(`${path}.hostname`, hostname, message));
      if (isIPv4(hostname) || isIPv6(hostname)) errors.push(fieldErrors.invalid(`${path}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  }
  return errors;
}

export function validateIngressUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateIngress(obj).filter((error) => !error.field.startsWith('metadata.'))];
}

// ---------------------------------------------------------------- ingressclasses

export function validateIngressClass(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain });
  const spec = objectAt(obj.spec, 'spec', errors) ?? {};
  const controller = stringAt(spec.controller, 'spec.controller', errors);
  if (controller.length > 250) errors.push(fieldErrors.tooLong('spec.controller', 250));
  errors.push(...validateDomainPrefixedPath('spec.controller', controller));
  const parameters = objectAt(spec.parameters, 'spec.parameters', errors);
  if (parameters) {
    validateTypedLocalObjectReference(parameters, 'spec.parameters', errors);
    const scope = optionalStringAt(parameters.scope, 'spec.parameters.scope', errors);
    const namespace = optionalStringAt(parameters.namespace, 'spec.parameters.namespace', errors);
    if (scope === undefined) {
      errors.push(fieldErrors.required('spec.parameters.scope', ''));
    } else if (scope !== 'Cluster' && scope !== 'Namespace') {
      errors.push(fieldErrors.notSupported('spec.parameters.scope', scope, ['Cluster', 'Namespace']));
    } else if (scope === 'Namespace') {
      if (namespace === undefined) errors.push(fieldErrors.required('spec.parameters.namespace', '`parameters.scope` is set to \'Namespace\''));
      else for (const message of isDNS1123Subdomain(namespace)) errors.push(fieldErrors.invalid('spec.parameters.namespace', namespace, message));
    } else if (namespace !== undefined) {
      errors.push(fieldErrors.forbidden('spec.parameters.namespace', '`parameters.scope` is set to \'Cluster\''));
    }
  }
  return errors;
}

export function validateIngressClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateIngressClass(obj).filter((error) => !error.field.startsWith('metadata.'))];
  const controller = recordOf(obj.spec).controller ?? '';
  if (controller !== (recordOf(old.spec).controller ?? '')) errors.push(immutable('spec.controller', controller));
  return errors;
}

// ---------------------------------------------------------------- networkpolicies

const protocols = ['SCTP', 'TCP', 'UDP'];
const policyTypes = ['Egress', 'Ingress'];

function validateNetworkPolicyPort(port: FieldRecord, field: string, errors: FieldError[]): void {
  const protocol = optionalStringAt(port.protocol, `${field}.protocol`, errors);
  if (protocol !== undefined && !protocols.includes(protocol)) errors.push(fieldErrors.notSupported(`${field}.protocol`, protocol, protocols));
  const value = intOrStringAt(port.port, `${field}.port`, errors);
  const endPort = integerAt(port.endPort, `${field}.endPort`, errors);
  if (typeof value === 'number') {
    for (const message of isValidPortNumber(value)) errors.push(fieldErrors.invalid(`${field}.port`, value, message));
    if (endPort !== undefined) {
      if (endPort < value) errors.push(fieldErrors.invalid(`${field}.endPort`, endPort, 'must be greater than or equal to `port`'));
      for (const message of isValidPortNumber(endPort)) errors.push(fieldErrors.invalid(`${field}.endPort`, endPort, message));
    }
  } else if (typeof value === 'string') {
    if (endPort !== undefined) errors.push(fieldErrors.invalid(`${field}.endPort`, endPort, 'may not be specified when `port` is non-numeric'));
    for (const message of isValidPortName(value)) errors.push(fieldErrors.invalid(`${field}.port`, value, message));
  } else if (endPort !== undefined) {
    errors.push(fieldErrors.invalid(`${field}.endPort`, endPort, 'may not be specified when `port` is not specified'));
  }
}

function validateIPBlock(block: FieldRecord, field: string, errors: FieldError[]): void {
  const cidr = stringAt(block.cidr, `${field}.cidr`, errors);
  if (cidr === '') {
    errors.push(fieldErrors.required(`${field}.cidr`, ''));
    return;
  }
  const cidrMessages = cidrErrors(cidr);
  for (const message of cidrMessages) errors.push(fieldErrors.invalid(`${field}.cidr`, cidr, message));
  arrayAt(block.except, `${field}.except`, errors).forEach((entry, index) => {
    const except = stringAt(entry, `${field}.except[${index}]`, errors);
    const messages = cidrErrors(except);
    for (const message of messages) errors.push(fieldErrors.invalid(`${field}.except[${index}]`, except, message));
    if (messages.length === 0 && cidrMessages.length === 0 && !strictSubset(except, cidr)) {
      errors.push(fieldErrors.invalid(`${field}.except[${index}]`, except, 'must be a strict subset of `cidr`'));
    }
  });
}

/** Whether `inner` lies inside `outer` with a longer prefix (IPv4 only is checked exactly; IPv6 by prefix length and text). */
function strictSubset(inner: string, outer: string): boolean {
  const [innerAddress, innerBits] = inner.split('/');
  const [outerAddress, outerBits] = outer.split('/');
  if (Number(innerBits) <= Number(outerBits)) return false;
  if (!isIPv4(innerAddress) || !isIPv4(outerAddress)) return isIPv6(innerAddress) === isIPv6(outerAddress);
  const toNumber = (address: string) => address.split('.').reduce((total, part) => total * 256 + Number(part), 0);
  const blockSize = Math.pow(2, 32 - Number(outerBits));
  return Math.floor(toNumber(innerAddress) / blockSize) === Math.floor(toNumber(outerAddress) / blockSize);
}

function validatePeers(value: unknown, field: string, errors: FieldError[]): void {
  for (const { item, path } of objectsAt(value, field, errors)) {
    let peers = 0;
    if (item.podSelector !== undefined && item.podSelector !== null) {
      peers++;
      validateLabelSelector(item.podSelector, `${path}.podSelector`, errors);
    }
    if (item.namespaceSelector !== undefined && item.namespaceSelector !== null) {
      peers++;
      validateLabelSelector(item.namespaceSelector, `${path}.namespaceSelector`, errors);
    }
    const block = objectAt(item.ipBlock, `${path}.ipBlock`, errors);
    if (block) {
      peers++;
      validateIPBlock(block, `${path}.ipBlock`, errors);
    }
    if (peers === 0) errors.push(fieldErrors.required(path, 'must specify a peer'));
    else if (peers > 1 && block) errors.push(fieldErrors.forbidden(path, 'may not specify both ipBlock and another peer'));
  }
}

export function validateNetworkPolicy(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const spec = objectAt(obj.spec, 'spec', errors) ?? {};
  validateLabelSelector(spec.podSelector ?? {}, 'spec.podSelector', errors);
  for (const [direction, peerKey] of [['ingress', 'from'], ['egress', 'to']] as const) {
    for (const { item, path } of objectsAt(spec[direction], `spec.${direction}`, errors)) {
      for (const port of objectsAt(item.ports, `${path}.ports`, errors)) validateNetworkPolicyPort(port.item, port.path, errors);
      validatePeers(item[peerKey], `${path}.${peerKey}`, errors);
    }
  }
  const types = arrayAt(spec.policyTypes, 'spec.policyTypes', errors);
  types.forEach((entry, index) => {
    const type = stringAt(entry, `spec.policyTypes[${index}]`, errors);
    if (!policyTypes.includes(type)) errors.push(fieldErrors.notSupported(`spec.policyTypes[${index}]`, type, ['Ingress', 'Egress']));
  });
  if (types.length > 2) errors.push(invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
  return errors;
}

export function validateNetworkPolicyUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateNetworkPolicy(obj).filter((error) => !error.field.startsWith('metadata.'))];
}
