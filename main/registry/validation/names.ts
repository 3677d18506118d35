// String-format checks with upstream's exact messages and regexes: apimachinery
// pkg/util/validation/validation.go, pkg/api/validate/content (label keys/values) and
// pkg/api/validation/generic.go (per-kind name functions, trailing-dash masking for generateName).
// Each check returns a list of messages; an empty list means the value is valid.

const dns1123LabelFormat = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFormat = `${dns1123LabelFormat}(\\.${dns1123LabelFormat})*`;
const dns1035LabelFormat = '[a-z]([-a-z0-9]*[a-z0-9])?';
const labelKeyFormat = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelValueFormat = `(${labelKeyFormat})?`;
const configMapKeyFormat = '[-._a-zA-Z0-9]+';
const percentFormat = '[0-9]+%';
const httpHeaderNameFormat = '[-A-Za-z0-9]+';

const dns1123LabelPattern = new RegExp(`^${dns1123LabelFormat}$`);
const dns1123SubdomainPattern = new RegExp(`^${dns1123SubdomainFormat}$`);
const dns1035LabelPattern = new RegExp(`^${dns1035LabelFormat}$`);
const labelKeyPattern = new RegExp(`^${labelKeyFormat}$`);
const labelValuePattern = new RegExp(`^${labelValueFormat}$`);
const configMapKeyPattern = new RegExp(`^${configMapKeyFormat}$`);
const percentPattern = new RegExp(`^${percentFormat}$`);
const httpHeaderNamePattern = new RegExp(`^${httpHeaderNameFormat}$`);

/**
 * Upstream measures len() in bytes, not UTF-16 code units: the UTF-8 length, counted without
 * encoding (names and labels are checked on every write). A lone surrogate counts as the three
 * bytes of U+FFFD, as TextEncoder writes it.
 */
export function byteLength(value: string): number {
  let bytes = value.length;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
      continue;
    }
    const next = index + 1 < value.length ? value.charCodeAt(index + 1) : 0;
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      // a surrogate pair: two code units, four bytes
      bytes += 2;
      index++;
      continue;
    }
    bytes += 2;
  }
  return bytes;
}

/** validation.MaxLenError (the DNS family still says "characters" in v1.35). */
export function maxLengthError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** content.MaxLenError, used by label keys and values since v1.35. */
function contentMaxLengthError(length: number): string {
  return `must be no more than ${length} bytes`;
}

export function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  // Upstream appends "'x', " per example joined by " or ", hence the double space before "or".
  return `${message} (e.g. ${examples.map((example) => `'${example}', `).join(' or ')}regex used for validation is '${format}')`;
}

export function inclusiveRangeError(low: number, high: number): string {
  return `must be between ${low} and ${high}, inclusive`;
}

export function isDNS1123Label(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(maxLengthError(63));
  if (!dns1123LabelPattern.test(value)) {
    if (dns1123SubdomainPattern.test(value)) errors.push('must not contain dots');
    else errors.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", dns1123LabelFormat, 'my-name', '123-abc'));
  }
  return errors;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 253) errors.push(maxLengthError(253));
  if (!dns1123SubdomainPattern.test(value)) {
    errors.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", dns1123SubdomainFormat, 'example.com'));
  }
  return errors;
}

export function isDNS1035Label(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(maxLengthError(63));
  if (!dns1035LabelPattern.test(value)) {
    errors.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035LabelFormat, 'my-name', 'abc-123'));
  }
  return errors;
}

/** content.IsLabelKey, a.k.a. IsQualifiedName. */
export function isQualifiedName(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errors.push('prefix part must be non-empty');
    else errors.push(...isDNS1123Subdomain(prefix).map((message) => `prefix part ${message}`));
  } else {
    return [`a valid label key ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelKeyFormat, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (byteLength(name) > 63) errors.push(`name part ${contentMaxLengthError(63)}`);
  if (!labelKeyPattern.test(name)) {
    errors.push(`name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelKeyFormat, 'MyName', 'my.name', '123-abc')}`);
  }
  return errors;
}

export function isValidLabelValue(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(contentMaxLengthError(63));
  if (!labelValuePattern.test(value)) {
    errors.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelValueFormat, 'MyValue', 'my_value', '12345'));
  }
  return errors;
}

function chdirPrefixErrors(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

export function isConfigMapKey(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 253) errors.push(maxLengthError(253));
  if (!configMapKeyPattern.test(value)) {
    errors.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configMapKeyFormat, 'key.name', 'KEY_NAME', 'key-name'));
  }
  errors.push(...chdirPrefixErrors(value));
  return errors;
}

export function isValidPortNumber(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

export function isValidPortName(port: string): string[] {
  const errors: string[] = [];
  if (byteLength(port) > 15) errors.push(maxLengthError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errors.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errors.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errors.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errors.push('must not begin or end with a hyphen');
  return errors;
}

export function isValidPercent(value: string): string[] {
  return percentPattern.test(value) ? [] : [regexError("a valid percent string must be a numeric string followed by an ending '%'", percentFormat, '1%', '93%')];
}

export function isHTTPHeaderName(value: string): string[] {
  return httpHeaderNamePattern.test(value) ? [] : [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", httpHeaderNameFormat, 'X-Header-Name')];
}

/** IsRelaxedEnvVarName: the RelaxedEnvironmentVariableValidation gate is GA in v1.34+. */
export function isRelaxedEnvVarName(value: string): string[] {
  const errors: string[] = [];
  if (value.length === 0) errors.push('environment variable name must be non-empty');
  for (const character of value) {
    const code = character.codePointAt(0) ?? 0;
    if (code < 0x20 || code > 0x7e || character === '=') {
      errors.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errors;
}

export function isIPv4(value: string): boolean {
  const parts = value.split('.');
  return parts.length === 4 && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

export function isIPv6(value: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(value) || !value.includes(':')) return false;
  const halves = value.split('::');
  if (halves.length > 2) return false;
  const groups = (text: string): string[] | undefined => {
    if (text === '') return [];
    const items = text.split(':');
    const last = items[items.length - 1];
    if (last.includes('.')) {
      if (!isIPv4(last)) return undefined;
      items.splice(items.length - 1, 1, '0', '0');
    }
    return items.every((item) => /^[0-9a-fA-F]{1,4}$/.test(item)) ? items : undefined;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return false;
  const count = head.length + tail.length;
  return halves.length === 2 ? count < 8 : count === 8;
}

/** validation.IsValidIP messages (leading zeros in IPv4 are rejected). */
export function ipErrors(value: string): string[] {
  if (isIPv4(value)) {
    return value.split('.').some((part) => part.length > 1 && part.startsWith('0')) ? ['must not have leading 0s'] : [];
  }
  if (isIPv6(value)) return [];
  return ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
}

export function cidrErrors(value: string): string[] {
  const slash = value.indexOf('/');
  if (slash < 0) return ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'];
  const address = value.slice(0, slash);
  const prefix = value.slice(slash + 1);
  const maximum = isIPv4(address) ? 32 : isIPv6(address) ? 128 : -1;
  if (maximum < 0 || !/^\d+$/.test(prefix) || Number(prefix) > maximum) return ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'];
  return [];
}

/** A ValidateNameFunc: `prefix` is true when checking generateName (a suffix will be appended). */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** maskTrailingDash: a generateName may end in '-' because random characters follow. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? name.slice(0, -2) + 'a' : name;
}

export function nameIsDNSSubdomain(name: string, prefix: boolean): string[] {
  return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
}

export function nameIsDNSLabel(name: string, prefix: boolean): string[] {
  return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
}

export function nameIsDNS1035Label(name: string, prefix: boolean): string[] {
  return isDNS1035Label(prefix ? maskTrailingDash(name) : name);
}
