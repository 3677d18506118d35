// The PodSecurity admission plugin (staging/src/k8s.io/pod-security-admission/admission/admission.go
// and api/helpers.go): a namespace's pod-security.kubernetes.io/{enforce,warn,audit}[-version] labels
// pick a level and version per mode. Pods that break the enforce level are refused with
// `pods "x" is forbidden: violates PodSecurity "restricted:latest": …`; the warn level adds a
// `would violate PodSecurity …` Warning to pods and to workload pod templates; changing a
// namespace's enforce level warns about its existing pods. Labels with bad values are refused on
// namespaces. kubedesk keeps no audit log, so the audit level is parsed and not acted on.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { FieldError } from '../../registry/fieldErrors';
import { fieldErrors } from '../../registry/fieldErrors';
import { ApiError } from '../apiError';
import { forbidden } from './admissionErrors';
import { evaluatePod, forbiddenDetail, forbiddenReason, LATEST_MINOR, type Level } from './podSecurityPolicy';

const LABEL_PREFIX = 'pod-security.kubernetes.io/';
const levels: Level[] = ['privileged', 'baseline', 'restricted'];

export interface LevelVersion {
  level: Level;
  /** undefined = latest */
  minor?: number;
}

export interface PodSecurityPolicy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export function levelVersionString(value: LevelVersion): string {
  return `${value.level}:${value.minor === undefined ? 'latest' : `v1.${value.minor}`}`;
}

function effectiveMinor(value: LevelVersion): number {
  return value.minor === undefined ? LATEST_MINOR : Math.min(value.minor, LATEST_MINOR);
}

function compareLevels(left: Level, right: Level): number {
  return levels.indexOf(left) - levels.indexOf(right);
}

/** api.PolicyToEvaluate: the policy of a namespace's labels, with the label errors. */
export function policyFromLabels(labels: Record<string, string> | undefined): { policy: PodSecurityPolicy; errors: FieldError[] } {
  const policy: PodSecurityPolicy = { enforce: { level: 'privileged' }, audit: { level: 'privileged' }, warn: { level: 'privileged' } };
  const errors: FieldError[] = [];
  if (!labels) return { policy, errors };
  const invalid = (label: string, value: string, detail: string) => errors.push(fieldErrors.invalid(`metadata.labels[${LABEL_PREFIX}${label}]`, value, detail));
  const parseLevel = (label: string, fallback: Level): Level | undefined => {
    const value = labels[`${LABEL_PREFIX}${label}`];
    if (value === undefined) return undefined;
    if ((levels as string[]).includes(value)) return value as Level;
    invalid(label, value, `must be one of ${levels.join(', ')}`);
    return fallback;
  };
  const parseVersion = (label: string): { present: boolean; minor?: number } => {
    const value = labels[`${LABEL_PREFIX}${label}`];
    if (value === undefined) return { present: false };
    if (value === 'latest') return { present: true };
    const match = /^v1\.(0|[1-9][0-9]*)$/.exec(value);
    if (match) return { present: true, minor: Number(match[1]) };
    invalid(label, value, 'must be "latest" or "v1.x"');
    return { present: true };
  };
  // A bad enforce level fails closed (restricted); bad audit or warn levels fail open.
  const enforceValue = labels[`${LABEL_PREFIX}enforce`];
  const enforceLevel = parseLevel('enforce', 'restricted');
  const hasEnforceLevel = enforceLevel !== undefined && (levels as string[]).includes(enforceValue ?? '');
  if (enforceLevel) policy.enforce.level = enforceLevel;
  const enforceVersion = parseVersion('enforce-version');
  if (enforceVersion.minor !== undefined) policy.enforce.minor = enforceVersion.minor;
  const auditLevel = parseLevel('audit', 'privileged');
  if (auditLevel) policy.audit.level = auditLevel;
  const auditVersion = parseVersion('audit-version');
  if (auditVersion.minor !== undefined) policy.audit.minor = auditVersion.minor;
  const warnLevel = parseLevel('warn', 'privileged');
  if (warnLevel) policy.warn.level = warnLevel;
  const warnVersion = parseVersion('warn-version');
  if (warnVersion.minor !== undefined) policy.warn.minor = warnVersion.minor;
  // Warn defaults to a stricter enforce level, so `enforce` alone also warns on workloads.
  if (!warnLevel && hasEnforceLevel && compareLevels(policy.enforce.level, policy.warn.level) > 0) {
    policy.warn.level = policy.enforce.level;
    if (!warnVersion.present) policy.warn.minor = policy.enforce.minor;
  }
  return { policy, errors };
}

function podMetadataAndSpec(obj: KubeObject): { annotations: Record<string, string>; spec: unknown } {
  return { annotations: obj.metadata.annotations ?? {}, spec: obj.spec };
}

function evaluate(value: LevelVersion, annotations: Record<string, string>, spec: unknown) {
  return evaluatePod(value.level, effectiveMinor(value), { annotations }, spec);
}

/** ValidatePod: enforce (throws 403) and warn (pushes to `warnings`) for a pod create or update. */
export function admitPodSecurity(pod: KubeObject, old: KubeObject | undefined, namespaceLabels: Record<string, string> | undefined, warnings: string[]): void {
  const { policy } = policyFromLabels(namespaceLabels);
  if (policy.enforce.level === 'privileged' && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return;
  if (old && !isSignificantPodUpdate(pod, old)) return;
  const { annotations, spec } = podMetadataAndSpec(pod);
  const enforced = evaluate(policy.enforce, annotations, spec);
  if (enforced.length) {
    throw forbidden({ group: '', resource: 'pods' }, pod.metadata.name ?? '', [`violates PodSecurity "${levelVersionString(policy.enforce)}": ${forbiddenDetail(enforced)}`]);
  }
  const warned = evaluate(policy.warn, annotations, spec);
  if (warned.length) warnings.push(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${forbiddenDetail(warned)}`);
}

/** The pod template of a workload kind, or undefined when the kind has none (upstream DefaultPodSpecExtractor). */
export function podTemplateOf(group: string, resource: string, obj: KubeObject): { annotations: Record<string, string>; spec: unknown } | undefined {
  let template: unknown;
  const spec = isRecord(obj.spec) ? obj.spec : {};
  if (group === '' && resource === 'podtemplates') template = (obj as Record<string, unknown>).template;
  else if ((group === '' && resource === 'replicationcontrollers') || (group === 'apps' && ['replicasets', 'deployments', 'statefulsets', 'daemonsets'].includes(resource)) || (group === 'batch' && resource === 'jobs')) template = spec.template;
  else if (group === 'batch' && resource === 'cronjobs') template = isRecord(spec.jobTemplate) && isRecord(spec.jobTemplate.spec) ? spec.jobTemplate.spec.template : undefined;
  else return undefined;
  if (!isRecord(template)) return undefined;
  const metadata = isRecord(template.metadata) ? template.metadata : {};
  const annotations = isRecord(metadata.annotations) ? (Object.fromEntries(Object.entries(metadata.annotations).map(([key, value]) => [key, String(value)])) as Record<string, string>) : {};
  return { annotations, spec: template.spec };
}

/** ValidatePodController: workloads are never refused, only warned about (warn level). */
export function admitPodControllerSecurity(group: string, resource: string, obj: KubeObject, namespaceLabels: Record<string, string> | undefined, warnings: string[]): void {
  const template = podTemplateOf(group, resource, obj);
  if (!template || !isRecord(template.spec)) return;
  const { policy } = policyFromLabels(namespaceLabels);
  if (policy.warn.level === 'privileged') return;
  const warned = evaluate(policy.warn, template.annotations, template.spec);
  if (warned.length) warnings.push(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${forbiddenDetail(warned)}`);
}

/**
 * ValidateNamespace: bad labels are refused (on update only when they changed); a stricter enforce
 * level warns about the namespace's existing pods that break it.
 */
export function admitNamespaceSecurity(namespace: KubeObject, old: KubeObject | undefined, listPods: () => KubeObject[], warnings: string[]): void {
  const { policy, errors } = policyFromLabels(namespace.metadata.labels);
  const name = namespace.metadata.name ?? '';
  if (!old) {
    if (errors.length) throw ApiError.invalid('Namespace', '', name, errors);
    return;
  }
  const previous = policyFromLabels(old.metadata.labels);
  if (errors.length && (previous.errors.length === 0 || JSON.stringify(errors) !== JSON.stringify(previous.errors))) throw ApiError.invalid('Namespace', '', name, errors);
  const before = previous.policy.enforce;
  const after = policy.enforce;
  if (after.level === before.level && after.minor === before.minor) return;
  if (after.level === 'privileged') return;
  if (after.minor === before.minor && compareLevels(after.level, before.level) < 1) return;
  warnings.push(...existingPodWarnings(name, after, listPods()));
}

/** EvaluatePodsInNamespace: one warning per distinct violation, naming the first pod. */
export function existingPodWarnings(namespace: string, enforce: LevelVersion, pods: KubeObject[]): string[] {
  const counts = new Map<string, { podName: string; count: number }>();
  const order: string[] = [];
  for (const pod of pods) {
    const results = evaluate(enforce, pod.metadata.annotations ?? {}, pod.spec);
    if (results.length === 0) continue;
    const warning = forbiddenReason(results);
    const podName = pod.metadata.name ?? '';
    const entry = counts.get(warning);
    if (!entry) {
      counts.set(warning, { podName, count: 1 });
      order.push(warning);
    } else {
      entry.count++;
      if (podName < entry.podName) entry.podName = podName;
    }
  }
  if (order.length === 0) return [];
  const decorated = order.map((warning) => {
    const { podName, count } = counts.get(warning) ?? { podName: '', count: 0 };
    if (count === 1) return `${podName}: ${warning}`;
    if (count === 2) return `${podName} (and 1 other pod): ${warning}`;
    return `${podName} (and ${count - 1} other pods): ${warning}`;
  });
  decorated.sort();
  return [`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(enforce)}"`, ...decorated];
}

/** isSignificantPodUpdate: only image, container-count and seccomp-annotation changes are re-checked. */
function isSignificantPodUpdate(pod: KubeObject, old: KubeObject): boolean {
  const annotations = pod.metadata.annotations ?? {};
  const oldAnnotations = old.metadata.annotations ?? {};
  if (annotations['seccomp.security.alpha.kubernetes.io/pod'] !== oldAnnotations['seccomp.security.alpha.kubernetes.io/pod']) return true;
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const oldSpec = isRecord(old.spec) ? old.spec : {};
  for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
    const list = Array.isArray(spec[key]) ? spec[key] : [];
    const oldList = Array.isArray(oldSpec[key]) ? oldSpec[key] : [];
    if (list.length !== oldList.length) return true;
    for (let index = 0; index < list.length; index++) {
      const container = isRecord(list[index]) ? list[index] : {};
      const oldContainer = isRecord(oldList[index]) ? oldList[index] : {};
      if (container.image !== oldContainer.image) return true;
      const key = `container.seccomp.security.alpha.kubernetes.io/${String(container.name ?? '')}`;
      if (annotations[key] !== oldAnnotations[key]) return true;
    }
  }
  return false;
}
