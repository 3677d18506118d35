// Defaults for batch/v1 as upstream pkg/apis/batch/v1/defaults.go (SetDefaults_Job,
// SetDefaults_CronJob) and the Job strategy's selector generation
// (pkg/registry/batch/job/strategy.go generateSelector), which needs the uid and so runs at create.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { child, existing, isRecord, setDefault, setDefaultString } from './fields';
import { defaultPodTemplateSpec } from './podSpec';

export function defaultJob(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  if (!spec) return;
  // Both unset means a non-parallel job: one pod, one completion.
  if ((spec.completions === undefined || spec.completions === null) && (spec.parallelism === undefined || spec.parallelism === null)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  setDefault(spec, 'backoffLimit', spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null ? 2147483647 : 6);
  // Job labels default to the template's labels; upstream shares the map, so labels the
  // selector generation adds to the template show up on the Job too (see prepareJobForCreate).
  const template = child(spec, 'template');
  const templateMetadata = template ? existing(template, 'metadata') : undefined;
  const templateLabels = templateMetadata && isRecord(templateMetadata.labels) ? templateMetadata.labels : undefined;
  const metadata: unknown = obj.metadata;
  if (!isRecord(metadata)) return;
  if (templateLabels && (!isRecord(metadata.labels) || Object.keys(metadata.labels).length === 0)) metadata.labels = { ...templateLabels };
  setDefaultString(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  const podFailurePolicy = existing(spec, 'podFailurePolicy');
  if (podFailurePolicy && Array.isArray(podFailurePolicy.rules)) {
    for (const rule of podFailurePolicy.rules) {
      if (!isRecord(rule) || !Array.isArray(rule.onPodConditions)) continue;
      for (const condition of rule.onPodConditions) if (isRecord(condition)) setDefaultString(condition, 'status', 'True');
    }
  }
  setDefaultString(spec, 'podReplacementPolicy', podFailurePolicy ? 'Failed' : 'TerminatingOrFailed');
  defaultPodTemplateSpec(template);
}

export const jobLabels = {
  controllerUid: 'batch.kubernetes.io/controller-uid',
  jobName: 'batch.kubernetes.io/job-name',
  legacyControllerUid: 'controller-uid',
  legacyJobName: 'job-name',
};

/**
 * Job strategy PrepareForCreate (generateSelector): unless manualSelector is true, label the
 * pod template with the job's name and uid and select on the uid. Call after the uid is set.
 */
export function prepareJobForCreate(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  const metadata: unknown = obj.metadata;
  if (!spec || spec.manualSelector === true || !isRecord(metadata)) return;
  const uid = typeof metadata.uid === 'string' ? metadata.uid : '';
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const template = child(spec, 'template');
  const templateMetadata = template ? child(template, 'metadata') : undefined;
  const labels = templateMetadata ? child(templateMetadata, 'labels') : undefined;
  if (!labels) return;
  const jobLabelsWereTemplateLabels = isRecord(metadata.labels) &&
    JSON.stringify(Object.entries(metadata.labels).sort()) === JSON.stringify(Object.entries(labels).sort());
  const generated: Record<string, string> = {
    [jobLabels.controllerUid]: uid,
    [jobLabels.jobName]: name,
    [jobLabels.legacyControllerUid]: uid,
    [jobLabels.legacyJobName]: name,
  };
  for (const [key, value] of Object.entries(generated)) if (!(key in labels)) labels[key] = value;
  if (jobLabelsWereTemplateLabels && isRecord(metadata.labels)) {
    for (const [key, value] of Object.entries(generated)) if (!(key in metadata.labels)) metadata.labels[key] = value;
  }
  const selector = child(spec, 'selector');
  const matchLabels = selector ? child(selector, 'matchLabels') : undefined;
  if (matchLabels && !(jobLabels.controllerUid in matchLabels)) matchLabels[jobLabels.controllerUid] = uid;
}

export function defaultCronJob(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  if (!spec) return;
  setDefaultString(spec, 'concurrencyPolicy', 'Allow');
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'successfulJobsHistoryLimit', 3);
  setDefault(spec, 'failedJobsHistoryLimit', 1);
  const jobTemplate = child(spec, 'jobTemplate');
  const jobSpec = jobTemplate ? child(jobTemplate, 'spec') : undefined;
  if (jobSpec) defaultPodTemplateSpec(child(jobSpec, 'template'));
}
