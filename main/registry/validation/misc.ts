// Validation for coordination.k8s.io/v1 Leases (pkg/apis/coordination/validation),
// discovery.k8s.io/v1 EndpointSlices (pkg/apis/discovery/validation) and events.k8s.io/v1
// Events (the strict half of pkg/apis/core/validation/events.go). Field paths for events use
// the internal core.Event names, as upstream reports them.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { jsonEqual } from '../../../shared/kubernetes/json';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { arrayAt, booleanAt, immutable, integerAt, objectAt, objectsAt, optionalStringAt, recordOf, stringAt, tooMany } from './fields';
import { ipErrors, isDNS1123Label, isDNS1123Subdomain, isIPv4, isIPv6, isValidPortNumber, nameIsDNSSubdomain } from './names';
import { validateLabelName, validateObjectMeta, validateObjectMetaUpdate, validateQualifiedName } from './objectMeta';
import { nonSpecialIPErrors, validateReportedEvent } from './core';

// ---------------------------------------------------------------- leases

export function validateLease(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const spec = objectAt(obj.spec, 'spec', errors) ?? {};
  const duration = integerAt(spec.leaseDurationSeconds, 'spec.leaseDurationSeconds', errors);
  if (duration !== undefined && duration <= 0) errors.push(fieldErrors.invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = integerAt(spec.leaseTransitions, 'spec.leaseTransitions', errors);
  if (transitions !== undefined && transitions < 0) errors.push(fieldErrors.invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  optionalStringAt(spec.holderIdentity, 'spec.holderIdentity', errors);
  optionalStringAt(spec.acquireTime, 'spec.acquireTime', errors);
  optionalStringAt(spec.renewTime, 'spec.renewTime', errors);
  const strategy = optionalStringAt(spec.strategy, 'spec.strategy', errors);
  if (strategy !== undefined) {
    if (strategy !== 'OldestEmulationVersion') errors.push(fieldErrors.notSupported('spec.strategy', strategy, ['OldestEmulationVersion']));
  }
  const preferredHolder = optionalStringAt(spec.preferredHolder, 'spec.preferredHolder', errors);
  if (preferredHolder !== undefined && preferredHolder !== '' && strategy === undefined) {
    errors.push(fieldErrors.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return errors;
}

export function validateLeaseUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateLease(obj).filter((error) => !error.field.startsWith('metadata.'))];
}

// ---------------------------------------------------------------- endpointslices

const addressTypes = ['FQDN', 'IPv4', 'IPv6'];
const maximumEndpoints = 1000;
const maximumAddresses = 100;
const maximumPorts = 20000;

export function validateEndpointSlice(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const addressType = stringAt(obj.addressType, 'addressType', errors);
  if (addressType.length === 0) errors.push(fieldErrors.required('addressType', ''));
  else if (!addressTypes.includes(addressType)) errors.push(fieldErrors.notSupported('addressType', addressType, addressTypes));
  const endpoints = objectsAt(obj.endpoints, 'endpoints', errors);
  if (endpoints.length > maximumEndpoints) errors.push(tooMany('endpoints', endpoints.length, maximumEndpoints));
  for (const { item, path } of endpoints) {
    const addresses = arrayAt(item.addresses, `${path}.addresses`, errors).map((address, index) => stringAt(address, `${path}.addresses[${index}]`, errors));
    if (addresses.length === 0) errors.push(fieldErrors.required(`${path}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > maximumAddresses) errors.push(tooMany(`${path}.addresses`, addresses.length, maximumAddresses));
    addresses.forEach((address, index) => {
      const addressPath = `${path}.addresses[${index}]`;
      if (addressType === 'IPv4') {
        if (!isIPv4(address)) errors.push(fieldErrors.invalid(addressPath, address, 'must be a valid IPv4 address'));
        else errors.push(...ipErrors(address).map((message) => fieldErrors.invalid(addressPath, address, message)), ...nonSpecialIPErrors(address, addressPath));
      } else if (addressType === 'IPv6') {
        if (!isIPv6(address)) errors.push(fieldErrors.invalid(addressPath, address, 'must be a valid IPv6 address'));
        else errors.push(...nonSpecialIPErrors(address, addressPath));
      } else if (addressType === 'FQDN') {
        const name = address.endsWith('.') ? address.slice(0, -1) : address;
        for (const message of isDNS1123Subdomain(name)) errors.push(fieldErrors.invalid(addressPath, name, message));
      }
    });
    const conditions = objectAt(item.conditions, `${path}.conditions`, errors);
    if (conditions) for (const key of ['ready', 'serving', 'terminating']) booleanAt(conditions[key], `${path}.conditions.${key}`, errors);
    const hostname = optionalStringAt(item.hostname, `${path}.hostname`, errors);
    if (hostname !== undefined) for (const message of isDNS1123Label(hostname)) errors.push(fieldErrors.invalid(`${path}.hostname`, hostname, message));
    const nodeName = optionalStringAt(item.nodeName, `${path}.nodeName`, errors);
    if (nodeName !== undefined) for (const message of nameIsDNSSubdomain(nodeName, false)) errors.push(fieldErrors.invalid(`${path}.nodeName`, nodeName, message));
    const targetRef = objectAt(item.targetRef, `${path}.targetRef`, errors);
    if (targetRef) stringAt(targetRef.name, `${path}.targetRef.name`, errors);
    const deprecatedTopology = objectAt(item.deprecatedTopology, `${path}.deprecatedTopology`, errors) ?? {};
    for (const key of Object.keys(deprecatedTopology)) errors.push(...validateLabelName(key, `${path}.deprecatedTopology`));
  }
  const ports = objectsAt(obj.ports, 'ports', errors);
  if (ports.length > maximumPorts) errors.push(tooMany('ports', ports.length, maximumPorts));
  const names = new Set<string>();
  for (const { item, path } of ports) {
    const name = typeof item.name === 'string' ? item.name : '';
    if (name.length > 0) for (const message of isDNS1123Label(name)) errors.push(fieldErrors.invalid(`${path}.name`, name, message));
    if (names.has(name)) errors.push(fieldErrors.duplicate(`${path}.name`, name));
    names.add(name);
    const protocol = optionalStringAt(item.protocol, `${path}.protocol`, errors);
    if (protocol === undefined) errors.push(fieldErrors.required(`${path}.protocol`, ''));
    else if (!['SCTP', 'TCP', 'UDP'].includes(protocol)) errors.push(fieldErrors.notSupported(`${path}.protocol`, protocol, ['SCTP', 'TCP', 'UDP']));
    const port = integerAt(item.port, `${path}.port`, errors);
    if (port !== undefined) for (const message of isValidPortNumber(port)) errors.push(fieldErrors.invalid(`${path}.port`, port, message));
    const appProtocol = optionalStringAt(item.appProtocol, `${path}.appProtocol`, errors);
    if (appProtocol !== undefined) errors.push(...validateQualifiedName(appProtocol, `${path}.appProtocol`));
  }
  return errors;
}

export function validateEndpointSliceUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateEndpointSlice(obj).filter((error) => !error.field.startsWith('metadata.'))];
  if ((obj.addressType ?? '') !== (old.addressType ?? '')) errors.push(immutable('addressType', obj.addressType ?? ''));
  return errors;
}

// ---------------------------------------------------------------- events.k8s.io/v1 events

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '' && value !== 0;
}

/** ValidateEventCreate for the events.k8s.io/v1 API: the legacy rules plus the strict ones. */
export function validateEventsV1Event(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const namespace = typeof recordOf(obj.metadata).namespace === 'string' ? String(recordOf(obj.metadata).namespace) : '';
  const regarding = objectAt(obj.regarding, 'regarding', errors) ?? {};
  const regardingNamespace = typeof regarding.namespace === 'string' ? regarding.namespace : '';
  const eventTime = obj.eventTime;
  if (!isSet(eventTime)) {
    if (regardingNamespace.length === 0) {
      if (namespace !== '' && namespace !== 'default') errors.push(fieldErrors.invalid('involvedObject.namespace', regardingNamespace, 'does not match event.namespace'));
    } else if (namespace !== regardingNamespace) {
      errors.push(fieldErrors.invalid('involvedObject.namespace', regardingNamespace, 'does not match event.namespace'));
    }
    errors.push(fieldErrors.required('eventTime', ''));
  } else {
    validateReportedEvent(obj, namespace, regardingNamespace, 'reportingController', errors);
  }
  for (const message of isDNS1123Subdomain(namespace)) errors.push(fieldErrors.invalid('namespace', namespace, message));
  const series = objectAt(obj.series, 'series', errors);
  if (series) {
    const count = integerAt(series.count, 'series.count', errors) ?? 0;
    if (count < 2) errors.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
    if (!isSet(series.lastObservedTime)) errors.push(fieldErrors.required('series.lastObservedTime', ''));
  }
  const type = typeof obj.type === 'string' ? obj.type : '';
  if (type !== 'Normal' && type !== 'Warning') errors.push(fieldErrors.invalid('type', '', `has invalid value: ${type}`));
  if (isSet(obj.deprecatedFirstTimestamp)) errors.push(fieldErrors.invalid('firstTimestamp', '', 'needs to be unset'));
  if (isSet(obj.deprecatedLastTimestamp)) errors.push(fieldErrors.invalid('lastTimestamp', '', 'needs to be unset'));
  if (isSet(obj.deprecatedCount)) errors.push(fieldErrors.invalid('count', '', 'needs to be unset'));
  const source = recordOf(obj.deprecatedSource);
  if (isSet(source.component) || isSet(source.host)) errors.push(fieldErrors.invalid('source', '', 'needs to be unset'));
  return errors;
}

export function validateEventsV1EventUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateEventsV1Event(obj).filter((error) => !error.field.startsWith('metadata.'))];
  const pairs: Array<[string, string]> = [
    ['regarding', 'involvedObject'], ['reason', 'reason'], ['note', 'message'], ['deprecatedSource', 'source'],
    ['deprecatedFirstTimestamp', 'firstTimestamp'], ['deprecatedLastTimestamp', 'lastTimestamp'], ['deprecatedCount', 'count'],
    ['type', 'type'], ['action', 'action'], ['related', 'related'], ['reportingController', 'reportingController'],
    ['reportingInstance', 'reportingInstance'],
  ];
  for (const [key, field] of pairs) {
    if (!jsonEqual(obj[key] ?? null, old[key] ?? null)) errors.push(immutable(field, obj[key] ?? null));
  }
  return errors;
}
