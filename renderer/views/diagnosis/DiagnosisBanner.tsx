// "Why isn't it ready?" on an object's detail page: a banner with the one-line reason, the signals
// it rests on, the last log lines of the container it points at and what to try — the same
// diagnosis `kubedesk why` prints, from the watch caches (shared/diagnosis). Nothing is shown for a
// healthy object.
import { useMemo } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { KindConfig } from '../../kinds/kindConfig';
import { diagnosisKeys, diagnosisOf, diagnosisTone, isDiagnosed } from './diagnosisModel';
import { useDiagnosisContext, useLogLines } from './useDiagnosis';

export function DiagnosisBanner({ config, object }: { config: KindConfig; object: KubeObject }) {
  if (!isDiagnosed(config.kind, config.group)) return null;
  return <Banner config={config} object={object} />;
}

function Banner({ config, object }: { config: KindConfig; object: KubeObject }) {
  const keys = useMemo(() => diagnosisKeys(config.kind), [config.kind]);
  const context = useDiagnosisContext(config.kind, keys);
  const first = diagnosisOf(config.kind, object, context);
  const logs = useLogLines(first);
  const diagnosis = useMemo(() => (logs && first ? (diagnosisOf(config.kind, object, { ...context, logs }) ?? first) : first), [logs, first, config.kind, object, context]);
  if (!diagnosis || diagnosis.healthy) return null;
  const tone = diagnosisTone(diagnosis);
  const request = diagnosis.logRequest;
  const showLogs = request && diagnosis.logLines && (diagnosis.logLines.length > 0 || request.previous);
  return (
    <section className={`diagnosis-banner banner ${tone}`} role="status" aria-label="Why it is not ready" data-testid="diagnosis-banner" data-code={diagnosis.code}>
      <div className="diagnosis-title">
        <span className="diagnosis-label">Why isn’t it ready?</span>
        <span className="diagnosis-reason" data-testid="diagnosis-reason">
          {diagnosis.reason}
        </span>
      </div>
      {diagnosis.details.length > 0 && (
        <ul className="diagnosis-details" data-testid="diagnosis-details">
          {diagnosis.details.map((detail, index) => (
            <li key={index} className={detail.startsWith('  ') ? 'nested' : undefined}>
              {detail.trim()}
            </li>
          ))}
        </ul>
      )}
      {showLogs && request && (
        <div className="diagnosis-logs">
          <div className="diagnosis-logs-title">
            Last log lines of container <code>{request.container}</code> in pod <code>{request.pod}</code>
            {request.previous ? ' (previous instance)' : ''}
          </div>
          <pre data-testid="diagnosis-logs">{diagnosis.logLines?.length ? diagnosis.logLines.join('\n') : '(no output)'}</pre>
        </div>
      )}
      {diagnosis.hints.length > 0 && (
        <ul className="diagnosis-hints" data-testid="diagnosis-hints">
          {diagnosis.hints.map((hint, index) => (
            <li key={index}>{hint}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
