// The diagnosis engine's entry point: which kinds it diagnoses, which lists each needs (so the CLI
// fetches and the UI watches only those), the dispatch by kind, and the plain-text form that
// `kubedesk why` prints (first line the reason, then the details, the last log lines and hints).
import type { KubeObject } from '../kubernetes/types';
import type { Diagnosis, DiagnosisContext, DiagnosisInput } from './diagnosis';
import { diagnoseIngress, diagnoseService } from './network';
import { diagnosePod } from './pod';
import { diagnosePersistentVolumeClaim } from './storage';
import { diagnoseCronJob, diagnoseDaemonSet, diagnoseDeployment, diagnoseJob, diagnoseReplicaSet, diagnoseStatefulSet } from './workloads';

export type { Diagnosis, DiagnosisCode, DiagnosisContext, DiagnosisInput, LogRequest, Severity } from './diagnosis';
export { logKey } from './diagnosis';
export { exitCodeMeaning } from './exitCodes';

interface DiagnosedKind {
  group: string;
  diagnose(object: KubeObject, context: DiagnosisContext): Diagnosis;
  /** the lists the rules read, besides the object */
  inputs: readonly DiagnosisInput[];
}

// A pod's reason may rest on its events, its node candidates, its claims and the ConfigMaps it names.
const POD_INPUTS: readonly DiagnosisInput[] = ['events', 'nodes', 'pods', 'persistentVolumeClaims', 'storageClasses', 'configMaps'];

/** Every kind the engine diagnoses, by kind name. */
export const DIAGNOSED_KINDS: Readonly<Record<string, DiagnosedKind>> = {
  Pod: { group: '', diagnose: diagnosePod, inputs: POD_INPUTS },
  Deployment: { group: 'apps', diagnose: diagnoseDeployment, inputs: [...POD_INPUTS, 'replicaSets'] },
  ReplicaSet: { group: 'apps', diagnose: (object, context) => diagnoseReplicaSet(object, context), inputs: POD_INPUTS },
  ReplicationController: { group: '', diagnose: (object, context) => diagnoseReplicaSet(object, context, 'ReplicationController'), inputs: POD_INPUTS },
  StatefulSet: { group: 'apps', diagnose: diagnoseStatefulSet, inputs: POD_INPUTS },
  DaemonSet: { group: 'apps', diagnose: diagnoseDaemonSet, inputs: POD_INPUTS },
  Job: { group: 'batch', diagnose: diagnoseJob, inputs: POD_INPUTS },
  CronJob: { group: 'batch', diagnose: diagnoseCronJob, inputs: [...POD_INPUTS, 'jobs'] },
  Service: { group: '', diagnose: diagnoseService, inputs: ['pods', 'events', 'nodes', 'persistentVolumeClaims', 'storageClasses', 'configMaps', 'endpointSlices'] },
  Ingress: { group: 'networking.k8s.io', diagnose: diagnoseIngress, inputs: ['services', 'pods', 'events', 'nodes', 'persistentVolumeClaims', 'storageClasses', 'configMaps', 'endpointSlices'] },
  PersistentVolumeClaim: { group: '', diagnose: diagnosePersistentVolumeClaim, inputs: ['events', 'storageClasses', 'pods'] },
};

/** The diagnosis of an object of a diagnosed kind; undefined for any other kind. */
export function diagnose(kind: string, object: KubeObject, context: DiagnosisContext): Diagnosis | undefined {
  return DIAGNOSED_KINDS[kind]?.diagnose(object, context);
}

/** The lists `diagnose` reads for a kind (none for kinds it does not diagnose). */
export function diagnosisInputs(kind: string): readonly DiagnosisInput[] {
  return DIAGNOSED_KINDS[kind]?.inputs ?? [];
}

/** The diagnosis as `kubedesk why` prints it: the reason, then indented details, log lines and hints. */
export function formatDiagnosis(diagnosis: Diagnosis): string {
  const lines = [diagnosis.reason];
  for (const detail of diagnosis.details) lines.push(`  ${detail}`);
  // an empty log says something about a crashed run, nothing about a running one
  if (diagnosis.logRequest && diagnosis.logLines && (diagnosis.logLines.length > 0 || diagnosis.logRequest.previous)) {
    const request = diagnosis.logRequest;
    lines.push(`  Last log lines of container "${request.container}" in pod ${request.pod}${request.previous ? ' (previous instance)' : ''}:`);
    if (diagnosis.logLines.length === 0) lines.push('    (no output)');
    for (const line of diagnosis.logLines) lines.push(`    | ${line}`);
  }
  for (const hint of diagnosis.hints) lines.push(`hint: ${hint}`);
  return `${lines.join('\n')}\n`;
}
