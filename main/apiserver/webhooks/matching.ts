// Which admission webhooks and policies see a request, as upstream's
// staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/predicates does: a rule matches by
// operation, API group, version, resource (`*`, `pods/status`, `*/scale`, `pods/*`) and scope
// (Namespace objects count as cluster-scoped); the namespace selector reads the namespace's labels
// (a Namespace request uses its own, cluster-scoped resources always pass); the object selector
// passes when the new or the old object's labels match. Admission configuration kinds themselves
// are exempt (upstream IsExemptAdmissionConfigurationResource), so a broken webhook cannot lock
// the cluster out of removing it.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { selectorIsEmpty, selectorMatches as labelSelectorMatches } from '../../../shared/kubernetes/labelSelector';
import { isRecord } from '../../../shared/kubernetes/types';
import type { GroupVersionKind, KindStrategy } from '../../registry/strategy';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionUser {
  name: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** One request as admission sees it (upstream admission.Attributes). */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  def: KindStrategy;
  namespace: string;
  name: string;
  /** '' for the main resource */
  subresource: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  user?: AdmissionUser;
  /** CreateOptions / UpdateOptions / DeleteOptions as the request carried them */
  options?: Record<string, unknown>;
  /** the kind of `object` when it is not the resource's own (a subresource's Scale, Eviction, Binding…) */
  kind?: GroupVersionKind;
  /** the resource the client addressed, when admission sees it as another version (requestResource) */
  requestDef?: KindStrategy;
  /** the kind the client sent, when admission sees another (requestKind) */
  requestKind?: GroupVersionKind;
}

/** The kind admission reports for the request's object (AdmissionRequest.kind). */
export function kindOf(attributes: Pick<AdmissionAttributes, 'def' | 'kind'>): GroupVersionKind {
  return attributes.kind ?? { group: attributes.def.group, version: attributes.def.version, kind: attributes.def.kind };
}

export interface LabelSelectorLike {
  matchLabels?: unknown;
  matchExpressions?: unknown;
}

const admissionConfigurationResources = new Set(['validatingwebhookconfigurations', 'mutatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']);

export function isExemptResource(def: Pick<KindStrategy, 'group' | 'resource'>): boolean {
  return def.group === 'admissionregistration.k8s.io' && admissionConfigurationResources.has(def.resource);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function listed(values: string[], value: string): boolean {
  return values.includes('*') || values.includes(value);
}

/** RuleWithOperations against the request (upstream rules.Matcher.Matches). */
export function ruleMatches(rule: unknown, attributes: Pick<AdmissionAttributes, 'operation' | 'def' | 'namespace' | 'subresource'>): boolean {
  if (!isRecord(rule)) return false;
  const { def } = attributes;
  if (!listed(strings(rule.operations), attributes.operation)) return false;
  if (!listed(strings(rule.apiGroups), def.group)) return false;
  if (!listed(strings(rule.apiVersions), def.version)) return false;
  const resourceMatches = strings(rule.resources).some((entry) => {
    const slash = entry.indexOf('/');
    const resource = slash < 0 ? entry : entry.slice(0, slash);
    const subresource = slash < 0 ? '' : entry.slice(slash + 1);
    return (resource === '*' || resource === def.resource) && (subresource === '*' || subresource === attributes.subresource);
  });
  if (!resourceMatches) return false;
  const isNamespaceObject = def.group === '' && def.resource === 'namespaces';
  switch (rule.scope) {
    case 'Namespaced':
      return !isNamespaceObject && attributes.namespace !== '';
    case 'Cluster':
      return isNamespaceObject || attributes.namespace === '';
    default:
      return true;
  }
}

export function labelsOf(obj: KubeObject | undefined): Record<string, string> {
  const labels = obj?.metadata.labels;
  return isRecord(labels) ? Object.fromEntries(Object.entries(labels).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) : {};
}

/** A webhook's or policy's label selector: absent or empty matches everything (unlike a workload's). */
export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  return !isRecord(selector) || labelSelectorMatches(selector, labels);
}

/**
 * The namespace selector (upstream namespace.Matcher.MatchNamespaceSelector): cluster-scoped
 * requests other than Namespaces always match; `namespaceLabels` is asked for the namespace's labels.
 */
export function namespaceSelectorMatches(selector: unknown, attributes: AdmissionAttributes, namespaceLabels: (name: string) => Record<string, string> | undefined): boolean {
  const isNamespaceObject = attributes.def.group === '' && attributes.def.resource === 'namespaces';
  if (!isNamespaceObject && attributes.namespace === '') return true;
  if (!isRecord(selector) || selectorIsEmpty(selector)) return true;
  let labels: Record<string, string>;
  if (isNamespaceObject) labels = labelsOf(attributes.object ?? attributes.oldObject);
  else labels = namespaceLabels(attributes.namespace) ?? {};
  return selectorMatches(selector, labels);
}

/** The object selector (upstream object.Matcher): the new or the old object's labels must match. */
export function objectSelectorMatches(selector: unknown, attributes: AdmissionAttributes): boolean {
  if (!isRecord(selector) || selectorIsEmpty(selector)) return true;
  return (attributes.object !== undefined && selectorMatches(selector, labelsOf(attributes.object))) || (attributes.oldObject !== undefined && selectorMatches(selector, labelsOf(attributes.oldObject)));
}
