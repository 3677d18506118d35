// Manifests the registry accepts and what they reference, as the OCI image spec (manifest.md,
// image-index.md) and Docker's image manifest v2 schema 2 define them: an image manifest names
// its config and layers (blobs), an index or manifest list names other manifests. The media type
// comes from the Content-Type of the PUT or the body's `mediaType`, which must agree when both are
// given (distribution-spec "Pushing Manifests"); schema 1 is long gone from Docker and refused.
import { isRecord } from '../../shared/kubernetes/types';
import { parseDigest, type Digest } from './references';

export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
const IMAGE_MANIFESTS = new Set([DOCKER_MANIFEST, OCI_MANIFEST]);
const INDEXES = new Set([DOCKER_MANIFEST_LIST, OCI_INDEX]);
export const MANIFEST_MEDIA_TYPES = [DOCKER_MANIFEST, DOCKER_MANIFEST_LIST, OCI_MANIFEST, OCI_INDEX];

export interface Descriptor {
  mediaType: string;
  digest: Digest;
  size: number;
}

export interface ParsedManifest {
  mediaType: string;
  /** config and layers that must be in the registry (layers with `urls` are fetched from elsewhere) */
  blobs: Descriptor[];
  /** every layer, non-distributable ones too, for sizes */
  layers: Descriptor[];
  config?: Descriptor;
  /** the manifests an index names */
  manifests: Descriptor[];
  subject?: Descriptor;
  /** OCI 1.1: the artifact's type (a manifest without one is typed by its config's media type) */
  artifactType?: string;
  annotations?: Record<string, string>;
}

export class ManifestError extends Error {}

/** The base media type of a Content-Type header (parameters and case dropped), or undefined. */
export function baseMediaType(contentType: string | undefined): string | undefined {
  const base = contentType?.split(';')[0].trim().toLowerCase();
  return base ? base : undefined;
}

/** Parses a manifest body; throws ManifestError with the reason when the registry cannot accept it. */
export function parseManifest(body: Buffer, contentType: string | undefined): ParsedManifest {
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ManifestError('the manifest is not valid JSON');
  }
  if (!isRecord(document)) throw new ManifestError('the manifest is not a JSON object');
  if (document.schemaVersion !== 2) throw new ManifestError('schemaVersion must be 2 (schema 1 manifests are not supported)');
  const declared = typeof document.mediaType === 'string' ? document.mediaType : undefined;
  if (document.mediaType !== undefined && declared === undefined) throw new ManifestError('mediaType must be a string');
  let header = baseMediaType(contentType);
  // a client that names no type (or a generic one) lets the body decide
  if (header === 'application/json' || header === 'application/octet-stream') header = undefined;
  if (header !== undefined && declared !== undefined && header !== declared) {
    throw new ManifestError(`the Content-Type "${header}" does not match the manifest's mediaType "${declared}"`);
  }
  const mediaType = header ?? declared ?? (Array.isArray(document.manifests) ? OCI_INDEX : OCI_MANIFEST);
  const subject = document.subject === undefined ? undefined : descriptorOf(document.subject, 'subject');
  const artifactType = typeof document.artifactType === 'string' ? document.artifactType : undefined;
  const annotations = annotationsOf(document.annotations);
  if (IMAGE_MANIFESTS.has(mediaType)) {
    if (!Array.isArray(document.layers)) throw new ManifestError('layers must be an array');
    const config = descriptorOf(document.config, 'config');
    const layers = document.layers.map((layer, index) => descriptorOf(layer, `layers[${index}]`));
    const distributable = document.layers.filter((layer) => !(isRecord(layer) && Array.isArray(layer.urls) && layer.urls.length > 0));
    const blobs = [config, ...distributable.map((layer, index) => descriptorOf(layer, `layers[${index}]`))];
    return { mediaType, blobs, layers, config, manifests: [], subject, artifactType: artifactType ?? config.mediaType, annotations };
  }
  if (INDEXES.has(mediaType)) {
    if (!Array.isArray(document.manifests)) throw new ManifestError('manifests must be an array');
    const manifests = document.manifests.map((entry, index) => descriptorOf(entry, `manifests[${index}]`));
    return { mediaType, blobs: [], layers: [], manifests, subject, artifactType, annotations };
  }
  throw new ManifestError(`unsupported manifest media type "${mediaType}"`);
}

function annotationsOf(value: unknown): Record<string, string> | undefined {
  if (!isRecord(value)) return undefined;
  const annotations: Record<string, string> = {};
  for (const [key, text] of Object.entries(value)) if (typeof text === 'string') annotations[key] = text;
  return annotations;
}

function descriptorOf(value: unknown, field: string): Descriptor {
  if (!isRecord(value)) throw new ManifestError(`${field} must be a descriptor object`);
  const { mediaType, digest, size } = value;
  if (typeof mediaType !== 'string' || mediaType === '') throw new ManifestError(`${field}.mediaType must be a non-empty string`);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) throw new ManifestError(`${field}.size must be a non-negative integer`);
  const parsed = typeof digest === 'string' ? parseDigest(digest) : undefined;
  if (parsed === undefined || parsed === 'unsupported') throw new ManifestError(`${field}.digest is not a valid sha256 or sha512 digest`);
  return { mediaType, digest: parsed, size };
}

/** The bytes an image manifest's content takes: its config and layers (what a pull downloads). */
export function imageSize(manifest: ParsedManifest): number {
  return (manifest.config?.size ?? 0) + manifest.layers.reduce((sum, layer) => sum + layer.size, 0);
}
