// Validation for certificates.k8s.io/v1 CertificateSigningRequests (pkg/apis/certificates/validation):
// a PEM `CERTIFICATE REQUEST` in spec.request, known key usages without duplicates, a
// `domain/path` signer name, at least ten minutes of requested duration, consistent conditions,
// and updates that never drop an Approved/Denied/Failed condition or rewrite an issued certificate.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { arrayAt, integerAt, objectAt, objectsAt, optionalStringAt, recordOf, stringAt } from './fields';
import { isDNS1123Subdomain } from './names';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectMeta';

/** certificates.KeyUsage values, in upstream's declaration order (NotSupported lists them so). */
export const keyUsages = [
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment',
  'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing',
  'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing',
  'microsoft sgc', 'netscape sgc',
];

const conditionStatuses = ['False', 'True', 'Unknown'];
const exclusiveConditionTypes = ['Approved', 'Denied', 'Failed'];

/** The PEM text of a `[]byte` field (base64 in JSON), or undefined when it is not base64. */
export function decodeBytes(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value.replace(/\s/g, ''))) return undefined;
  return Buffer.from(value, 'base64').toString('latin1');
}

/** PEM blocks of a text, as encoding/pem finds them. */
export function pemBlocks(text: string): Array<{ type: string; body: string }> {
  const blocks: Array<{ type: string; body: string }> = [];
  for (const match of text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g)) blocks.push({ type: match[1], body: match[2].replace(/\s/g, '') });
  return blocks;
}

/** certificates.ParseCSR's checks that need no crypto: one PEM block of the right type. */
function requestProblem(request: unknown): string | undefined {
  const text = decodeBytes(request);
  if (text === undefined) return 'PEM block type must be CERTIFICATE REQUEST';
  const block = pemBlocks(text)[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  if (block.body.length === 0) return 'x509: malformed certificate request';
  return undefined;
}

/** ValidateSignerName */
export function validateSignerName(field: string, signerName: string): FieldError[] {
  if (signerName.length === 0) return [fieldErrors.required(field, '')];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [fieldErrors.invalid(field, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const errors: FieldError[] = [];
  const [domain, path] = segments;
  if (domain.length > 253) errors.push(fieldErrors.tooLong(field, 253));
  for (const message of isDNS1123Subdomain(domain)) errors.push(fieldErrors.invalid(field, domain, message));
  if (path.length === 0) errors.push(fieldErrors.invalid(field, signerName, 'validating path segment: must not be empty'));
  else if (path.length > 317) errors.push(fieldErrors.tooLong(field, 317));
  else for (const message of isDNS1123Subdomain(path.toLowerCase())) errors.push(fieldErrors.invalid(field, signerName, `validating path segment: ${message}`));
  return errors;
}

function validateConditions(status: Record<string, unknown>, errors: FieldError[]): void {
  const seen = new Set<string>();
  for (const { item, path } of objectsAt(status.conditions, 'status.conditions', errors)) {
    const type = stringAt(item.type, `${path}.type`, errors);
    const conditionStatus = stringAt(item.status, `${path}.status`, errors);
    if (type === '') errors.push(fieldErrors.required(`${path}.type`, ''));
    if (conditionStatus === '') errors.push(fieldErrors.required(`${path}.status`, ''));
    else if (!conditionStatuses.includes(conditionStatus)) errors.push(fieldErrors.notSupported(`${path}.status`, conditionStatus, conditionStatuses));
    if (exclusiveConditionTypes.includes(type)) {
      if (seen.has(type)) errors.push(fieldErrors.duplicate(`${path}.type`, type));
      if ((type === 'Approved' || type === 'Denied') && conditionStatus !== '' && conditionStatus !== 'True') errors.push(fieldErrors.notSupported(`${path}.status`, conditionStatus, ['True']));
    }
    seen.add(type);
  }
  if (seen.has('Approved') && seen.has('Denied')) errors.push(fieldErrors.invalid('status.conditions', 'Approved', 'Approved and Denied conditions are mutually exclusive'));
}

export function validateCertificateSigningRequest(obj: KubeObject): FieldError[] {
  // "We don't care what you call your certificate requests": any name passes the name check.
  const errors = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: () => [] });
  const spec = objectAt(obj.spec, 'spec', errors) ?? {};
  const problem = requestProblem(spec.request);
  if (problem) errors.push(fieldErrors.invalid('spec.request', spec.request ?? '', problem));
  const usages = arrayAt(spec.usages, 'spec.usages', errors).map((usage, index) => stringAt(usage, `spec.usages[${index}]`, errors));
  if (usages.length === 0) errors.push(fieldErrors.required('spec.usages', ''));
  const seen = new Set<string>();
  usages.forEach((usage, index) => {
    if (!keyUsages.includes(usage)) errors.push(fieldErrors.notSupported(`spec.usages[${index}]`, usage, keyUsages));
    if (seen.has(usage)) errors.push(fieldErrors.duplicate(`spec.usages[${index}]`, usage));
    seen.add(usage);
  });
  errors.push(...validateSignerName('spec.signerName', stringAt(spec.signerName, 'spec.signerName', errors)));
  const expirationSeconds = integerAt(spec.expirationSeconds, 'spec.expirationSeconds', errors);
  if (expirationSeconds !== undefined && expirationSeconds < 600) errors.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  const status = objectAt(obj.status, 'status', errors) ?? {};
  validateConditions(status, errors);
  const certificate = optionalStringAt(status.certificate, 'status.certificate', errors);
  if (certificate !== undefined && certificate !== '') {
    const blocks = pemBlocks(decodeBytes(certificate) ?? '');
    if (blocks.length === 0 || blocks.some((block) => block.type !== 'CERTIFICATE')) {
      errors.push(fieldErrors.invalid('status.certificate', '<certificate data>', 'must contain at least one CERTIFICATE PEM block'));
    }
  }
  return errors;
}

function conditionCount(obj: KubeObject, type: string): number {
  return arrayAt(recordOf(obj.status).conditions, 'status.conditions', []).filter((condition) => recordOf(condition).type === type).length;
}

export function validateCertificateSigningRequestUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateCertificateSigningRequest(obj).filter((error) => !error.field.startsWith('metadata.'))];
  for (const type of exclusiveConditionTypes) {
    if (conditionCount(obj, type) < conditionCount(old, type)) errors.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type "${type}"`));
  }
  const oldCertificate = recordOf(old.status).certificate;
  const newCertificate = recordOf(obj.status).certificate;
  if (typeof oldCertificate === 'string' && oldCertificate !== '' && newCertificate !== oldCertificate) {
    errors.push(fieldErrors.invalid('status.certificate', '[]byte{...}', 'updates may not modify existing certificate content'));
  }
  return errors;
}
