// Names, tags and digests of the OCI distribution spec ("Pulling manifests" and "Definitions" in
// opencontainers/distribution-spec spec.md): a repository name is path components of lowercase
// alphanumerics joined by `.`, `_`, `__` or dashes, separated by `/`; a tag is up to 128 of
// [a-zA-Z0-9_.-] not starting with `.` or `-`; a digest is `algorithm:encoded` (image-spec
// descriptor.md), of which the registry stores sha256 and sha512.

const NAME_COMPONENT = '[a-z0-9]+(?:(?:\\.|_|__|-+)[a-z0-9]+)*';
const NAME = new RegExp(`^${NAME_COMPONENT}(?:/${NAME_COMPONENT})*$`);
const TAG = /^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
/** Docker's reference grammar caps the whole name at 255 characters. */
export const MAX_NAME_LENGTH = 255;

export type DigestAlgorithm = 'sha256' | 'sha512';
const ENCODED_LENGTH: Record<DigestAlgorithm, number> = { sha256: 64, sha512: 128 };

export interface Digest {
  algorithm: DigestAlgorithm;
  /** lowercase hex */
  encoded: string;
  /** `algorithm:encoded` */
  text: string;
}

export function isRepositoryName(name: string): boolean {
  return name.length <= MAX_NAME_LENGTH && NAME.test(name);
}

export function isTag(reference: string): boolean {
  return TAG.test(reference);
}

/** The digest, `unsupported` for a well-formed digest of another algorithm, or undefined when malformed. */
export function parseDigest(text: string): Digest | 'unsupported' | undefined {
  if (!DIGEST.test(text)) return undefined;
  const colon = text.indexOf(':');
  const algorithm = text.slice(0, colon);
  const encoded = text.slice(colon + 1);
  if (algorithm !== 'sha256' && algorithm !== 'sha512') return 'unsupported';
  if (encoded.length !== ENCODED_LENGTH[algorithm] || !/^[0-9a-f]+$/.test(encoded)) return undefined;
  return { algorithm, encoded, text };
}

/** Whether a string looks like a digest at all (a manifest reference is a tag or a digest). */
export function looksLikeDigest(reference: string): boolean {
  return reference.includes(':');
}
