// Field errors as upstream staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go:
// the same types and message texts, so `kubectl` prints what it prints against a real cluster.

/** A field error, as upstream field.Error: type is the cause reason, e.g. FieldValueRequired. */
export interface FieldError {
  type: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueNotSupported' | 'FieldValueDuplicate' | 'FieldValueForbidden' | 'FieldValueTooLong' | 'FieldValueTooMany' | 'FieldValueTypeInvalid' | 'FieldValueNotFound';
  field: string;
  /** The full upstream message, e.g. `Required value` or `Invalid value: "Bad_Name": a lowercase RFC 1123 …`. */
  detail: string;
  badValue?: unknown;
}

/** Upstream field.Error messages. */
export const fieldErrors = {
  required(field: string, detail = ''): FieldError {
    return { type: 'FieldValueRequired', field, detail: detail ? `Required value: ${detail}` : 'Required value' };
  },
  invalid(field: string, value: unknown, detail: string): FieldError {
    return { type: 'FieldValueInvalid', field, badValue: value, detail: `Invalid value: ${formatBadValue(value)}${detail ? ': ' + detail : ''}` };
  },
  notSupported(field: string, value: unknown, supported: string[]): FieldError {
    return { type: 'FieldValueNotSupported', field, badValue: value, detail: `Unsupported value: ${formatBadValue(value)}: supported values: ${supported.map((s) => `"${s}"`).join(', ')}` };
  },
  notFound(field: string, value: unknown): FieldError {
    return { type: 'FieldValueNotFound', field, badValue: value, detail: `Not found: ${formatBadValue(value)}` };
  },
  duplicate(field: string, value: unknown): FieldError {
    return { type: 'FieldValueDuplicate', field, badValue: value, detail: `Duplicate value: ${formatBadValue(value)}` };
  },
  forbidden(field: string, detail: string): FieldError {
    return { type: 'FieldValueForbidden', field, detail: `Forbidden: ${detail}` };
  },
  tooLong(field: string, max: number): FieldError {
    return { type: 'FieldValueTooLong', field, detail: `Too long: may not be more than ${max} bytes` };
  },
};

function formatBadValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'null';
  // Go's %#v of a []string, as upstream prints e.g. spec.clusterIPs
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return `[]string{${value.map((item) => JSON.stringify(item)).join(', ')}}`;
  return JSON.stringify(value);
}
