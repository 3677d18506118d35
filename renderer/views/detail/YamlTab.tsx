// The detail page's YAML tab: the live object in Monaco (managedFields hidden unless asked),
// Validate (a server-side dry-run PUT, ?dryRun=All), Apply (server-side apply as field manager
// kubedesk-ui, after taking the fields the UI's own actions wrote into its Apply entry — uiApply.ts —
// so Scale… and then an edit of the replicas never conflict; a 409 lists the other managers and
// fields from the Status causes and offers force=true, as `kubectl apply --server-side
// --force-conflicts`), and Revert. A server-side change
// never overwrites unsaved edits: a banner offers to load it instead.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { useServices } from '../../context';
import { resourcePath, type KindConfig } from '../../kinds/kindConfig';
import { YamlEditor } from '../../editor/YamlEditor';
import { YamlProblems } from '../../editor/YamlProblems';
import { applyAsUi } from '../../editor/uiApply';
import { applyConfiguration, hasUnsavedEdits, objectToYaml, parseYamlObject, validationBody, type YamlProblem } from '../../editor/yamlModel';
import { usePermissions } from '../permissions/usePermissions';
import { refusal } from '../permissions/permissionsModel';
import { FIELD_MANAGER, resultOfError, type OperationResult } from './operationResult';

export function YamlTab({ config, object, deleted }: { config: KindConfig; object: KubeObject; deleted: boolean }) {
  const { client } = useServices();
  const [showManagedFields, setShowManagedFields] = useState(false);
  const [baseline, setBaseline] = useState(() => objectToYaml(object, false));
  const [text, setText] = useState(baseline);
  const [loadedVersion, setLoadedVersion] = useState(object.metadata.resourceVersion);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<OperationResult | undefined>(undefined);
  const dirty = hasUnsavedEdits(text, baseline);
  const serverChanged = object.metadata.resourceVersion !== loadedVersion;
  const problems = useMemo<YamlProblem[]>(() => {
    const parsed = parseYamlObject(text);
    return parsed.ok ? [] : parsed.problems;
  }, [text]);

  const load = (source: KubeObject, managedFields = showManagedFields) => {
    const yaml = objectToYaml(source, managedFields);
    setBaseline(yaml);
    setText(yaml);
    setLoadedVersion(source.metadata.resourceVersion);
  };

  // follow the server while there is nothing to lose; with unsaved edits the banner asks instead
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;
  useEffect(() => {
    if (serverChanged && !dirtyRef.current && !deleted) load(object);
    // load only on a new server version
  }, [object.metadata.resourceVersion]);

  const path = resourcePath(config, object.metadata.namespace, object.metadata.name);
  const can = usePermissions();
  const target = { group: config.group, resource: config.plural, namespace: object.metadata.namespace, name: object.metadata.name };
  const applyRefused = refusal(can, [{ verb: 'patch', ...target }]);
  const validateRefused = refusal(can, [{ verb: 'update', ...target }]);

  const parsedOrReport = (): Record<string, unknown> | undefined => {
    const parsed = parseYamlObject(text);
    if (parsed.ok) return parsed.object;
    setResult({ tone: 'error', title: 'The YAML does not parse', lines: parsed.problems.map((problem) => `line ${problem.line}: ${problem.message}`) });
    return undefined;
  };

  const validate = async () => {
    const parsed = parsedOrReport();
    if (!parsed) return;
    setBusy(true);
    try {
      await client.replace(path, validationBody(parsed), { query: { dryRun: 'All', fieldManager: FIELD_MANAGER } });
      setResult({ tone: 'ok', title: 'Valid: the API server accepts this object (dry run, nothing changed).', lines: [] });
    } catch (error) {
      setResult(resultOfError(error));
    } finally {
      setBusy(false);
    }
  };

  const apply = async (force: boolean) => {
    const parsed = parsedOrReport();
    if (!parsed) return;
    setBusy(true);
    try {
      const applied = await applyAsUi(client, path, applyConfiguration(parsed), { manager: FIELD_MANAGER, force });
      load(applied);
      setResult({ tone: 'ok', title: `Applied${force ? ' (forced)' : ''}: ${config.kind.toLowerCase()}/${object.metadata.name ?? ''} configured, resourceVersion ${applied.metadata.resourceVersion ?? ''}.`, lines: [] });
    } catch (error) {
      setResult(resultOfError(error));
    } finally {
      setBusy(false);
    }
  };

  const toggleManagedFields = (show: boolean) => {
    setShowManagedFields(show);
    if (!dirty) load(object, show);
  };

  return (
    <div className="yaml-tab">
      <div className="yaml-toolbar">
        <button className="primary" disabled={busy || deleted || applyRefused !== undefined} onClick={() => void apply(false)} data-testid="yaml-apply" title={applyRefused ?? 'Server-side apply as field manager kubedesk-ui'}>
          Apply
        </button>
        <button disabled={busy || deleted || validateRefused !== undefined} onClick={() => void validate()} data-testid="yaml-validate" title={validateRefused ?? 'Server-side dry run: validation and admission, nothing is stored'}>
          Validate
        </button>
        <button disabled={!dirty || busy} onClick={() => { load(object); setResult(undefined); }} data-testid="yaml-revert">
          Revert
        </button>
        <label className="toggle">
          <input type="checkbox" checked={showManagedFields} onChange={(event) => toggleManagedFields(event.target.checked)} data-testid="yaml-managed-fields" /> managedFields
        </label>
        <span className="hint">{busy ? 'Working…' : dirty ? 'Unsaved edits' : `resourceVersion ${loadedVersion ?? ''}`}</span>
      </div>
      {serverChanged && dirty && !deleted && (
        <div className="banner warn" data-testid="yaml-server-changed">
          The object changed on the server since you started editing (resourceVersion {object.metadata.resourceVersion}).{' '}
          <button onClick={() => load(object)} data-testid="yaml-load-server">
            Load the server version (discard my edits)
          </button>
        </div>
      )}
      {deleted && <div className="banner error">This object was deleted; there is nothing to apply to.</div>}
      {result && <ResultPanel result={result} onForce={() => void apply(true)} busy={busy} testId="yaml-result" />}
      <YamlProblems problems={problems} testId="yaml-problems" />
      <YamlEditor value={text} onChange={setText} problems={problems} label="yaml-editor" />
    </div>
  );
}

export function ResultPanel({ result, onForce, busy, testId }: { result: OperationResult; onForce?(): void; busy?: boolean; testId: string }) {
  return (
    <div className={`banner result ${result.tone === 'ok' ? 'ok' : 'error'}`} data-testid={testId} data-tone={result.tone}>
      <div className="result-title">{result.title}</div>
      {result.lines.length > 0 && (
        <ul className="result-lines">
          {result.lines.map((line, index) => (
            <li key={index} className="mono">
              {line}
            </li>
          ))}
        </ul>
      )}
      {result.conflict && onForce && (
        <button className="danger" disabled={busy} onClick={onForce} data-testid="yaml-force">
          Apply with force
        </button>
      )}
    </div>
  );
}
