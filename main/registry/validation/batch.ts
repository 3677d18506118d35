// Validation for batch/v1 Jobs and CronJobs as upstream pkg/apis/batch/validation/validation.go:
// generated selectors, completion modes, pod template restart policy OnFailure/Never,
// immutable template/selector/completions on update, cron schedules and time zones.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { selectorMatches } from '../../../shared/kubernetes/labelSelector';
import { jsonEqual } from '../../../shared/kubernetes/json';
import { cronScheduleError, isKnownTimeZone } from '../../../shared/kubernetes/cronSchedule';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { booleanAt, goValue, immutable, integerAt, invalid, nonNegative, objectAt, objectsAt, optionalStringAt, recordOf, stringAt, type FieldRecord } from './fields';
import { nameIsDNSSubdomain } from './names';
import { labelsOf, validateAnnotations, validateLabels, validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from './objectMeta';
import { validatePodTemplateSpec } from './podSpec';

export const jobControllerUidLabel = 'batch.kubernetes.io/controller-uid';
export const jobNameLabel = 'batch.kubernetes.io/job-name';
export const legacyJobControllerUidLabel = 'controller-uid';
export const legacyJobNameLabel = 'job-name';

const maximumParallelismForIndexedJob = 100000;

/** validateJobSpec: everything but the selector, shared by Jobs and CronJob job templates. */
function validateJobSpecCommon(spec: FieldRecord, path: string, errors: FieldError[]): void {
  const parallelism = integerAt(spec.parallelism, `${path}.parallelism`, errors);
  nonNegative(parallelism, `${path}.parallelism`, errors);
  const completions = integerAt(spec.completions, `${path}.completions`, errors);
  nonNegative(completions, `${path}.completions`, errors);
  for (const key of ['activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    nonNegative(integerAt(spec[key], `${path}.${key}`, errors), `${path}.${key}`, errors);
  }
  booleanAt(spec.suspend, `${path}.suspend`, errors);
  booleanAt(spec.manualSelector, `${path}.manualSelector`, errors);
  const completionMode = optionalStringAt(spec.completionMode, `${path}.completionMode`, errors);
  if (completionMode !== undefined && completionMode !== 'NonIndexed' && completionMode !== 'Indexed') {
    errors.push(fieldErrors.notSupported(`${path}.completionMode`, completionMode, ['NonIndexed', 'Indexed']));
  }
  if (completionMode === 'Indexed') {
    if (completions === undefined) errors.push(fieldErrors.required(`${path}.completions`, 'when completion mode is Indexed'));
    if (parallelism !== undefined && parallelism > maximumParallelismForIndexedJob) {
      errors.push(fieldErrors.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${maximumParallelismForIndexedJob} when completion mode is Indexed`));
    }
  } else {
    if (spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null) {
      errors.push(fieldErrors.forbidden(`${path}.backoffLimitPerIndex`, 'requires indexed completion mode'));
    }
    if (spec.successPolicy !== undefined && spec.successPolicy !== null) {
      errors.push(fieldErrors.invalid(`${path}.successPolicy`, goValue(spec.successPolicy), 'requires indexed completion mode'));
    }
  }
  const template = recordOf(spec.template);
  const restartPolicy = typeof recordOf(template.spec).restartPolicy === 'string' ? String(recordOf(template.spec).restartPolicy) : '';
  const podFailurePolicy = objectAt(spec.podFailurePolicy, `${path}.podFailurePolicy`, errors);
  if (podFailurePolicy) {
    if (restartPolicy !== 'Never') errors.push(fieldErrors.invalid(`${path}.template.spec.restartPolicy`, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
    for (const { item, path: rulePath } of objectsAt(podFailurePolicy.rules, `${path}.podFailurePolicy.rules`, errors)) {
      const action = stringAt(item.action, `${rulePath}.action`, errors);
      const actions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
      if (!actions.includes(action)) errors.push(fieldErrors.notSupported(`${rulePath}.action`, action, actions));
      const hasExitCodes = item.onExitCodes !== undefined && item.onExitCodes !== null;
      const hasConditions = Array.isArray(item.onPodConditions) && item.onPodConditions.length > 0;
      if (hasExitCodes && hasConditions) errors.push(invalid(rulePath, item, 'specifying both OnExitCodes and OnPodConditions is not supported'));
      if (!hasExitCodes && !hasConditions) errors.push(invalid(rulePath, item, 'specifying one of OnExitCodes and OnPodConditions is required'));
    }
  }
  const replacement = optionalStringAt(spec.podReplacementPolicy, `${path}.podReplacementPolicy`, errors);
  if (replacement !== undefined) {
    if (replacement !== 'TerminatingOrFailed' && replacement !== 'Failed') errors.push(fieldErrors.notSupported(`${path}.podReplacementPolicy`, replacement, ['TerminatingOrFailed', 'Failed']));
    else if (podFailurePolicy && replacement !== 'Failed') errors.push(fieldErrors.notSupported(`${path}.podReplacementPolicy`, replacement, ['Failed']));
  }
  errors.push(...validatePodTemplateSpec(spec.template, `${path}.template`));
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    errors.push(fieldErrors.notSupported(`${path}.template.spec.restartPolicy`, restartPolicy, ['OnFailure', 'Never']));
  }
}

function hasLabel(labels: Record<string, string>, key: string, expected: string, errors: FieldError[], template: unknown): void {
  const path = `spec.template.metadata.labels[${key}]`;
  if (!(key in labels)) errors.push(fieldErrors.required(path, `must be '${expected}'`));
  else if (labels[key] !== expected) errors.push(invalid(path, recordOf(recordOf(template).metadata).labels, `must be '${expected}'`));
}

export function validateJob(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const spec = objectAt(obj.spec, 'spec', errors) ?? {};
  const metadata = recordOf(obj.metadata);
  const uid = typeof metadata.uid === 'string' ? metadata.uid : '';
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  // ValidateGeneratedSelector
  if (spec.manualSelector !== true && spec.selector !== undefined && spec.selector !== null) {
    if (uid === '') errors.push(fieldErrors.required('metadata.uid', ''));
    const labels = labelsOf(recordOf(spec.template).metadata);
    hasLabel(labels, legacyJobControllerUidLabel, uid, errors, spec.template);
    hasLabel(labels, jobControllerUidLabel, uid, errors, spec.template);
    hasLabel(labels, legacyJobNameLabel, name, errors, spec.template);
    hasLabel(labels, jobNameLabel, name, errors, spec.template);
    const generatedSelector = validateLabelSelector(spec.selector, 'spec.selector', []);
    if (generatedSelector && !selectorMatches(generatedSelector, { [jobControllerUidLabel]: uid })) {
      errors.push(invalid('spec.selector', spec.selector, '`selector` not auto-generated'));
    }
  }
  validateJobSpec(spec, errors);
  return errors;
}

/** ValidateJobSpec: the common rules plus a required selector matching the template. */
function validateJobSpec(spec: FieldRecord, errors: FieldError[]): void {
  validateJobSpecCommon(spec, 'spec', errors);
  if (spec.selector === undefined || spec.selector === null) {
    errors.push(fieldErrors.required('spec.selector', ''));
    return;
  }
  const selector = validateLabelSelector(spec.selector, 'spec.selector', errors);
  const templateMetadata = recordOf(recordOf(spec.template).metadata);
  if (selector && !selectorMatches(selector, labelsOf(templateMetadata))) {
    errors.push(invalid('spec.template.metadata.labels', templateMetadata.labels ?? null, '`selector` does not match template `labels`'));
  }
}

/** Template fields a suspended Job that never started may still change (scheduling directives). */
const mutableSchedulingDirectives = ['nodeSelector', 'affinity', 'tolerations', 'schedulingGates'];

export function validateJobUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  const spec = recordOf(obj.spec);
  const oldSpec = recordOf(old.spec);
  validateJobSpec(spec, errors);
  const elasticIndexed = spec.completionMode === 'Indexed' && oldSpec.completionMode === 'Indexed' && spec.completions === spec.parallelism && oldSpec.completions === oldSpec.parallelism;
  if (!elasticIndexed && !jsonEqual(spec.completions ?? null, oldSpec.completions ?? null)) errors.push(immutable('spec.completions', spec.completions ?? null));
  if (!jsonEqual(spec.selector ?? null, oldSpec.selector ?? null)) errors.push(immutable('spec.selector', spec.selector ?? null));
  const neverStarted = oldSpec.suspend === true && !recordOf(old.status).startTime;
  let template: unknown = spec.template;
  if (neverStarted) {
    const newTemplate = recordOf(spec.template);
    const oldTemplate = recordOf(oldSpec.template);
    const podSpec: FieldRecord = { ...recordOf(newTemplate.spec) };
    for (const key of mutableSchedulingDirectives) podSpec[key] = recordOf(oldTemplate.spec)[key];
    for (const key of Object.keys(podSpec)) if (podSpec[key] === undefined) delete podSpec[key];
    const metadata = { ...recordOf(newTemplate.metadata), labels: recordOf(oldTemplate.metadata).labels, annotations: recordOf(oldTemplate.metadata).annotations };
    template = { ...newTemplate, metadata, spec: podSpec };
  }
  if (!jsonEqual(template ?? null, oldSpec.template ?? null)) errors.push(immutable('spec.template', spec.template ?? null));
  for (const key of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy']) {
    if (!jsonEqual(spec[key] ?? null, oldSpec[key] ?? null)) errors.push(immutable(`spec.${key}`, spec[key] ?? null));
  }
  return errors;
}

// ---------------------------------------------------------------- cronjobs

const timeZoneCharacters = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateTimeZone(value: unknown, errors: FieldError[]): void {
  const timeZone = optionalStringAt(value, 'spec.timeZone', errors);
  if (timeZone === undefined) return;
  if (timeZone.length === 0) {
    errors.push(fieldErrors.invalid('spec.timeZone', timeZone, 'timeZone must be nil or non-empty string'));
    return;
  }
  for (const part of timeZone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !timeZoneCharacters.test(part)) {
      errors.push(fieldErrors.invalid('spec.timeZone', timeZone, `unknown time zone ${timeZone}`));
      return;
    }
  }
  if (timeZone.toLowerCase() === 'local') {
    errors.push(fieldErrors.invalid('spec.timeZone', timeZone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  }
  if (!isKnownTimeZone(timeZone)) errors.push(fieldErrors.invalid('spec.timeZone', timeZone, `unknown time zone ${timeZone}`));
}

function validateCronJobSpec(spec: FieldRecord, errors: FieldError[]): void {
  const schedule = stringAt(spec.schedule, 'spec.schedule', errors);
  if (schedule.length === 0) {
    errors.push(fieldErrors.required('spec.schedule', ''));
  } else {
    const error = cronScheduleError(schedule);
    if (error !== undefined) errors.push(fieldErrors.invalid('spec.schedule', schedule, error));
    if (schedule.includes('TZ')) errors.push(fieldErrors.invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  nonNegative(integerAt(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds', errors), 'spec.startingDeadlineSeconds', errors);
  const policy = stringAt(spec.concurrencyPolicy, 'spec.concurrencyPolicy', errors);
  if (policy.length === 0) errors.push(fieldErrors.required('spec.concurrencyPolicy', ''));
  else if (!['Allow', 'Forbid', 'Replace'].includes(policy)) errors.push(fieldErrors.notSupported('spec.concurrencyPolicy', policy, ['Allow', 'Forbid', 'Replace']));
  validateTimeZone(spec.timeZone, errors);
  booleanAt(spec.suspend, 'spec.suspend', errors);
  const jobTemplate = objectAt(spec.jobTemplate, 'spec.jobTemplate', errors) ?? {};
  const templateMetadata = objectAt(jobTemplate.metadata, 'spec.jobTemplate.metadata', errors) ?? {};
  errors.push(...validateLabels(templateMetadata.labels, 'spec.jobTemplate.metadata.labels'));
  errors.push(...validateAnnotations(templateMetadata.annotations, 'spec.jobTemplate.metadata.annotations'));
  const jobSpec = objectAt(jobTemplate.spec, 'spec.jobTemplate.spec', errors) ?? {};
  validateJobSpecCommon(jobSpec, 'spec.jobTemplate.spec', errors);
  if (jobSpec.selector !== undefined && jobSpec.selector !== null) errors.push(invalid('spec.jobTemplate.spec.selector', jobSpec.selector, '`selector` will be auto-generated'));
  if (jobSpec.manualSelector === true) errors.push(fieldErrors.notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  nonNegative(integerAt(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit', errors), 'spec.successfulJobsHistoryLimit', errors);
  nonNegative(integerAt(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit', errors), 'spec.failedJobsHistoryLimit', errors);
}

export function validateCronJob(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const name = recordOf(obj.metadata).name;
  // Job names get an 11-character suffix, and must stay valid label values.
  if (typeof name === 'string' && name.length > 52) errors.push(fieldErrors.invalid('metadata.name', name, 'must be no more than 52 characters'));
  validateCronJobSpec(objectAt(obj.spec, 'spec', errors) ?? {}, errors);
  return errors;
}

export function validateCronJobUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  validateCronJobSpec(recordOf(obj.spec), errors);
  return errors;
}
