// Why a Service or an Ingress serves nothing. A Service's endpoints are the ready pods its
// selector matches (upstream pkg/controller/endpointslice: terminal pods left out, a named
// targetPort resolved per pod against its containers' ports, a pod without that named port left
// out), so the rules check the same things in the same order: a selector that matches no pod (with
// the labels the namespace's pods do carry, to spot a typo), a targetPort no selected container
// exposes, no selected pod ready (that pod's own reason). An Ingress serves through its backend
// Services (networking/v1 IngressBackend): one that does not exist, lacks the port, or has no
// ready endpoint is named.
import { isRecord, type KubeObject } from '../kubernetes/types';
import { arrayAt, numberAt, stringAt, valueAt } from '../printers/fields';
import { findNamed, fromFinding, healthy, inNamespace, labelsText, nameOf, namespaceOf, plural, stringMap, worstFinding, type Diagnosis, type DiagnosisContext, type Finding } from './diagnosis';
import { podsVerdict } from './workloads';

interface ContainerPort {
  name: string;
  containerPort: number;
  protocol: string;
}

function containerPorts(pod: KubeObject): ContainerPort[] {
  const ports: ContainerPort[] = [];
  for (const container of arrayAt(pod, 'spec', 'containers')) {
    for (const port of arrayAt(container, 'ports')) {
      if (!isRecord(port)) continue;
      ports.push({ name: stringAt(port, 'name'), containerPort: numberAt(port, 'containerPort'), protocol: stringAt(port, 'protocol') || 'TCP' });
    }
  }
  return ports;
}

function portsText(ports: ContainerPort[]): string {
  const unique = [...new Set(ports.map((port) => `${port.containerPort}/${port.protocol}${port.name ? ` "${port.name}"` : ''}`))];
  return unique.join(', ');
}

/** Levenshtein distance, to suggest the label value a selector probably meant. */
function distance(left: string, right: string): number {
  const previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    let diagonal = previous[0];
    previous[0] = i;
    for (let j = 1; j <= right.length; j++) {
      const above = previous[j];
      previous[j] = Math.min(previous[j] + 1, previous[j - 1] + 1, diagonal + (left[i - 1] === right[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[right.length];
}

/** A selector that matches nothing: the closest labels the namespace's pods carry. */
function selectorSuggestions(selector: Record<string, string>, pods: KubeObject[]): { suggestion?: string; carried: string[] } {
  const counts = new Map<string, number>();
  for (const pod of pods) for (const [key, value] of Object.entries(pod.metadata.labels ?? {})) counts.set(`${key}=${value}`, (counts.get(`${key}=${value}`) ?? 0) + 1);
  let best: { text: string; score: number } | undefined;
  for (const [key, value] of Object.entries(selector)) {
    const wanted = `${key}=${value}`;
    if (counts.has(wanted)) continue;
    for (const candidate of counts.keys()) {
      const [candidateKey, candidateValue] = [candidate.slice(0, candidate.indexOf('=')), candidate.slice(candidate.indexOf('=') + 1)];
      // the same value under a near key, or a near value under the same key
      const score = candidateKey === key ? distance(value, candidateValue) : candidateValue === value ? distance(key, candidateKey) : Number.POSITIVE_INFINITY;
      const limit = Math.max(2, Math.floor(Math.max(value.length, key.length) / 3));
      if (score <= limit && (!best || score < best.score)) best = { text: candidate, score };
    }
  }
  const carried = [...counts.entries()]
    .filter(([text]) => !text.startsWith('pod-template-hash=') && !text.startsWith('controller-revision-hash=') && !text.startsWith('statefulset.kubernetes.io/') && !text.startsWith('batch.kubernetes.io/') && !text.startsWith('controller-uid=') && !text.startsWith('job-name='))
    .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
    .slice(0, 8)
    .map(([text, count]) => `${text} (${plural(count, 'pod')})`);
  return { ...(best ? { suggestion: best.text } : {}), carried };
}

function active(pod: KubeObject): boolean {
  const phase = stringAt(pod, 'status', 'phase');
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

/** Ready endpoint addresses from EndpointSlices or Endpoints (when pods are not known, or the Service has no selector). */
function readyEndpointCount(service: KubeObject, context: DiagnosisContext): number | undefined {
  const namespace = namespaceOf(service);
  if (context.endpointSlices) {
    let count = 0;
    for (const slice of inNamespace(context.endpointSlices, namespace)) {
      if (slice.metadata.labels?.['kubernetes.io/service-name'] !== nameOf(service)) continue;
      for (const endpoint of arrayAt(slice, 'endpoints')) if (valueAt(endpoint, 'conditions', 'ready') !== false) count += arrayAt(endpoint, 'addresses').length;
    }
    return count;
  }
  if (context.endpoints) {
    const endpoints = findNamed(context.endpoints, namespace, nameOf(service));
    if (!endpoints) return 0;
    return arrayAt(endpoints, 'subsets').reduce<number>((sum, subset) => sum + arrayAt(subset, 'addresses').length, 0);
  }
  return undefined;
}

/** The Service ports whose targetPort no selected container exposes. */
function targetPortFindings(service: KubeObject, pods: KubeObject[]): Finding[] {
  const ports = pods.flatMap(containerPorts);
  const findings: Finding[] = [];
  for (const servicePort of arrayAt(service, 'spec', 'ports')) {
    const port = numberAt(servicePort, 'port');
    const protocol = stringAt(servicePort, 'protocol') || 'TCP';
    const target = valueAt(servicePort, 'targetPort') ?? port;
    const portName = stringAt(servicePort, 'name');
    const which = `port ${port}${portName ? ` "${portName}"` : ''}`;
    if (typeof target === 'string' && !/^\d+$/.test(target)) {
      if (ports.some((candidate) => candidate.name === target && candidate.protocol === protocol)) continue;
      findings.push({
        severity: 'error',
        code: 'TargetPortNotExposed',
        reason: `targetPort "${target}" (${which}) is not the name of any port of the selected pods' containers${ports.length > 0 ? ` (they expose ${portsText(ports)})` : ''}`,
        hints: [ports.length > 0 ? `set targetPort to one of the containers' ports, or name a container port "${target}"` : `name a container port "${target}" (containers[].ports[].name), or set a numeric targetPort`],
      });
      continue;
    }
    const number = Number(target);
    // containerPort is informational upstream: with no ports declared at all a numeric targetPort may still work
    if (ports.length === 0 || ports.some((candidate) => candidate.containerPort === number && candidate.protocol === protocol)) continue;
    findings.push({
      severity: 'error',
      code: 'TargetPortNotExposed',
      reason: `targetPort ${number} (${which}) is not a port the selected pods' containers expose (they expose ${portsText(ports)})`,
      hints: [`set targetPort to the port the container listens on (${ports.map((candidate) => candidate.name || String(candidate.containerPort)).filter((text, index, all) => all.indexOf(text) === index).join(' or ')})`],
    });
  }
  return findings;
}

export function diagnoseService(service: KubeObject, context: DiagnosisContext): Diagnosis {
  const type = stringAt(service, 'spec', 'type') || 'ClusterIP';
  if (type === 'ExternalName') return healthy('Healthy', `healthy: ExternalName for ${stringAt(service, 'spec', 'externalName')} (no endpoints needed)`);
  const namespace = namespaceOf(service);
  const selector = stringMap(valueAt(service, 'spec', 'selector'));
  const details: string[] = [];
  if (Object.keys(selector).length === 0) {
    // the API server's own Service (its endpoints are the API server, kept by the API server), and
    // Services kubedesk answers in its own process (cluster DNS) have no pods behind them
    if (namespace === 'default' && nameOf(service) === 'kubernetes' && service.metadata.labels?.provider === 'kubernetes') return healthy('Healthy', "healthy: the API server's own Service");
    const servedBy = service.metadata.annotations?.['kubedesk.dev/served-by'];
    if (servedBy) return healthy('Healthy', `healthy: served by ${servedBy}`);
    const ready = readyEndpointCount(service, context);
    if (ready === undefined || ready > 0) return healthy('Healthy', `healthy: no selector; ${ready === undefined ? 'its endpoints are managed by hand' : `${plural(ready, 'endpoint address', 'endpoint addresses')} set by hand`}`);
    return fromFinding({ severity: 'error', code: 'NoEndpoints', reason: 'no selector and no endpoints: nothing receives its traffic', hints: ['add a selector for the pods that should serve it, or create an EndpointSlice for it'] });
  }
  details.push(`Selector: ${labelsText(selector)}`);
  if (!context.pods) {
    const ready = readyEndpointCount(service, context);
    if (ready === undefined) return healthy('Healthy', 'healthy as far as known (its pods and endpoints were not read)', details);
    if (ready > 0) return healthy('Healthy', `healthy: ${plural(ready, 'ready endpoint')}`, details);
    return fromFinding({ severity: 'error', code: 'NoEndpoints', reason: `no ready endpoints for selector ${labelsText(selector)}` }, details);
  }
  const namespacePods = inNamespace(context.pods, namespace).filter(active);
  const selected = namespacePods.filter((pod) => Object.entries(selector).every(([key, value]) => pod.metadata.labels?.[key] === value));
  if (selected.length === 0) {
    const { suggestion, carried } = selectorSuggestions(selector, namespacePods);
    if (carried.length > 0) details.push(`Pods in ${namespace} carry: ${carried.join(', ')}`);
    else details.push(`There are no running pods in namespace ${namespace}.`);
    return fromFinding(
      {
        severity: 'error',
        code: 'SelectorMatchesNothing',
        reason: `selector ${labelsText(selector)} matches no pod in namespace ${namespace}${suggestion ? ` — did you mean ${suggestion}?` : ''}`,
        hints: [`fix the selector (kubectl edit service ${nameOf(service)} -n ${namespace}) or the pods' labels`],
      },
      details,
    );
  }
  details.push(`Selects ${plural(selected.length, 'pod')}: ${selected.slice(0, 5).map(nameOf).join(', ')}${selected.length > 5 ? ', …' : ''}`);
  const portProblems = targetPortFindings(service, selected);
  const port = worstFinding(portProblems);
  if (port) return fromFinding(port, details, portProblems.filter((other) => other !== port).map((other) => `Also: ${other.reason}`));
  const verdict = podsVerdict(selected, context);
  if (verdict.healthy === 0) {
    const worst = verdict.worst;
    return fromFinding(
      {
        severity: 'error',
        code: 'NoEndpoints',
        reason: `none of the ${plural(selected.length, 'pod')} it selects is ready${worst ? `: ${worst.diagnosis.reason} (pod ${nameOf(worst.pod)})` : ''}`,
        details: worst ? worst.diagnosis.details.map((line) => `  ${line}`) : [],
        hints: worst?.diagnosis.hints ?? [],
        ...(worst?.diagnosis.logRequest ? { logRequest: worst.diagnosis.logRequest } : {}),
        ...(worst?.diagnosis.logLines ? { logLines: worst.diagnosis.logLines } : {}),
      },
      details,
    );
  }
  if (verdict.healthy < selected.length) details.push(`${selected.length - verdict.healthy} of the selected pods are not ready and get no traffic`);
  return healthy('Healthy', `healthy: ${plural(verdict.healthy, 'ready endpoint')}`, details);
}

interface Backend {
  service: string;
  port: string | number | undefined;
  where: string;
}

function backendsOf(ingress: KubeObject): { services: Backend[]; resources: string[] } {
  const services: Backend[] = [];
  const resources: string[] = [];
  const add = (backend: unknown, where: string) => {
    if (!isRecord(backend)) return;
    if (isRecord(backend.service)) {
      const number = valueAt(backend.service, 'port', 'number');
      const name = stringAt(backend.service, 'port', 'name');
      services.push({ service: stringAt(backend.service, 'name'), port: typeof number === 'number' ? number : name || undefined, where });
    } else if (isRecord(backend.resource)) resources.push(`${stringAt(backend.resource, 'kind')}/${stringAt(backend.resource, 'name')} (${where})`);
  };
  add(valueAt(ingress, 'spec', 'defaultBackend'), 'default backend');
  for (const rule of arrayAt(ingress, 'spec', 'rules')) {
    const host = stringAt(rule, 'host');
    for (const path of arrayAt(rule, 'http', 'paths')) add(valueAt(path, 'backend'), host ? `${host}${stringAt(path, 'path') || '/'}` : `path ${stringAt(path, 'path') || '/'}`);
  }
  return { services, resources };
}

export function diagnoseIngress(ingress: KubeObject, context: DiagnosisContext): Diagnosis {
  const namespace = namespaceOf(ingress);
  const { services, resources } = backendsOf(ingress);
  const details = resources.map((resource) => `Resource backend ${resource} (not checked)`);
  if (services.length === 0) {
    if (resources.length > 0) return healthy('Healthy', 'healthy: only resource backends, which kubedesk does not check', details);
    return fromFinding({ severity: 'error', code: 'BackendMissing', reason: 'no rules and no default backend: it routes nothing' }, details);
  }
  if (!context.services) return healthy('Healthy', 'healthy as far as known (its Services were not read)', details);
  const findings: Finding[] = [];
  const checked = new Map<string, Diagnosis>();
  for (const backend of services) {
    details.push(`${backend.where} → Service ${backend.service}:${backend.port ?? '?'}`);
    const service = findNamed(context.services, namespace, backend.service);
    if (!service) {
      findings.push({ severity: 'error', code: 'BackendMissing', reason: `backend Service "${backend.service}" does not exist (${backend.where})`, hints: [`create Service ${backend.service} in ${namespace}, or point the rule at an existing one (kubectl get services -n ${namespace})`] });
      continue;
    }
    const ports = arrayAt(service, 'spec', 'ports');
    const hasPort = ports.some((port) => (typeof backend.port === 'number' ? numberAt(port, 'port') === backend.port : stringAt(port, 'name') === backend.port));
    if (backend.port !== undefined && !hasPort) {
      findings.push({
        severity: 'error',
        code: 'BackendPortMissing',
        reason: `backend Service "${backend.service}" has no port ${typeof backend.port === 'number' ? backend.port : `named "${backend.port}"`} (${backend.where})`,
        hints: [`its ports: ${ports.map((port) => `${numberAt(port, 'port')}${stringAt(port, 'name') ? ` "${stringAt(port, 'name')}"` : ''}`).join(', ') || 'none'}`],
      });
      continue;
    }
    let diagnosis = checked.get(backend.service);
    if (!diagnosis) checked.set(backend.service, (diagnosis = diagnoseService(service, context)));
    if (!diagnosis.healthy) {
      findings.push({ severity: diagnosis.severity === 'ok' ? 'warning' : diagnosis.severity, code: 'BackendUnhealthy', reason: `backend Service "${backend.service}": ${diagnosis.reason}`, details: diagnosis.details.map((line) => `  ${line}`), hints: diagnosis.hints, ...(diagnosis.logRequest ? { logRequest: diagnosis.logRequest } : {}), ...(diagnosis.logLines ? { logLines: diagnosis.logLines } : {}) });
    }
  }
  const worst = worstFinding(findings);
  if (worst) return fromFinding(worst, details, findings.filter((other) => other !== worst).map((other) => `Also: ${other.reason}`));
  const names = [...new Set(services.map((backend) => backend.service))];
  return healthy('Healthy', `healthy: ${names.length === 1 ? `backend Service ${names[0]} has` : `all ${names.length} backend Services have`} ready endpoints`, details);
}
