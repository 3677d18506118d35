// Create from YAML (#/create): a Monaco editor with a starter Deployment + Service; every `---`
// document is applied in order with server-side apply (as `kubectl apply --server-side
// --field-manager=kubedesk-ui`), or dry-run; each gets a result line (created / configured, or
// the API server's error with its field causes). Documents without a namespace go to the single
// selected namespace, else `default`.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { KubeApiError } from '../../api/kubeClient';
import { useAppState, useKinds, useServices } from '../../context';
import { YamlEditor } from '../../editor/YamlEditor';
import { YamlProblems } from '../../editor/YamlProblems';
import type { YamlProblem } from '../../editor/yamlModel';
import { formatRoute } from '../../store/routes';
import { FIELD_MANAGER, resultOfError } from '../detail/operationResult';
import { applyAsUi } from '../../editor/uiApply';
import { defaultNamespaceOf, planApply, planLabel, splitDocuments, STARTER_YAML } from './createModel';
import { kindByKey } from '../../kinds';
import { templateFor } from './templates';
import { useCurrentCluster } from '../permissions/usePermissions';
import { readOnlyReason } from '../permissions/permissionsModel';

interface DocumentResult {
  index: number;
  line: number;
  tone: 'ok' | 'error';
  text: string;
  details: string[];
  href?: string;
}

const DRAFT_KEY = 'kubedesk.createDraft';

/** `kindKey`: start from that kind's template (a list's Create button) instead of the last draft. */
export function CreateFromYaml({ kindKey }: { kindKey?: string }) {
  const { client } = useServices();
  const kinds = useKinds();
  const kindsRef = useRef(kinds);
  kindsRef.current = kinds;
  const selected = useAppState((state) => state.selectedNamespaces);
  const [text, setText] = useState(() => (kindKey ? '' : (sessionStorage.getItem(DRAFT_KEY) ?? STARTER_YAML)));
  // the template once the kind is known (a custom kind appears when its CRD is listed)
  const templateKind = kindKey ? kindByKey(kinds, kindKey) : undefined;
  const seeded = useRef(false);
  useEffect(() => {
    if (!templateKind || seeded.current) return;
    seeded.current = true;
    setText(templateFor(templateKind, defaultNamespaceOf(selected)));
  }, [templateKind, selected]);
  const [busy, setBusy] = useState(false);
  const [results, setResults] = useState<DocumentResult[] | undefined>(undefined);
  const [ranDryRun, setRanDryRun] = useState(false);
  const defaultNamespace = defaultNamespaceOf(selected);
  const documents = useMemo(() => splitDocuments(text), [text]);
  const problems = useMemo<YamlProblem[]>(() => documents.flatMap((document) => document.problems), [documents]);

  const change = (next: string) => {
    setText(next);
    sessionStorage.setItem(DRAFT_KEY, next);
  };

  const run = async (dryRun: boolean) => {
    setBusy(true);
    setRanDryRun(dryRun);
    const collected: DocumentResult[] = [];
    setResults([]);
    for (const document of splitDocuments(text)) {
      const base = { index: document.index, line: document.line };
      if (!document.object) {
        collected.push({ ...base, tone: 'error', text: `document ${document.index} (line ${document.line}) does not parse`, details: document.problems.map((problem) => `line ${problem.line}: ${problem.message}`) });
        setResults([...collected]);
        continue;
      }
      // the kinds are read now, not when the button was pressed, so a CRD applied by an earlier document counts
      const plan = planApply(document.object, kindsRef.current, defaultNamespace);
      if (!plan.ok) {
        collected.push({ ...base, tone: 'error', text: `document ${document.index} (line ${document.line}): ${plan.message}`, details: [] });
        setResults([...collected]);
        continue;
      }
      const label = planLabel(plan.plan);
      try {
        const live = await existing(plan.plan.path);
        const applied = await applyAsUi(client, plan.plan.path, plan.plan.body, { manager: FIELD_MANAGER, dryRun, live });
        const verb = live ? 'configured' : 'created';
        collected.push({
          ...base,
          tone: 'ok',
          text: `${label}${plan.plan.namespace ? ` (namespace ${plan.plan.namespace})` : ''} ${verb}${dryRun ? ' (server dry run)' : ''}`,
          details: [],
          href: dryRun ? undefined : formatRoute({ view: 'detail', kindKey: plan.plan.config.key, namespace: applied.metadata.namespace, name: applied.metadata.name ?? plan.plan.name }),
        });
      } catch (error) {
        const result = resultOfError(error);
        collected.push({ ...base, tone: 'error', text: `document ${document.index} (line ${document.line}) ${label}: ${result.title}`, details: result.lines });
      }
      setResults([...collected]);
    }
    if (collected.length === 0) setResults([{ index: 0, line: 0, tone: 'error', text: 'Nothing to apply: the editor has no YAML documents.', details: [] }]);
    setBusy(false);
  };

  const existing = async (path: string): Promise<KubeObject | null> => {
    try {
      return await client.get<KubeObject>(path);
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) return null;
      throw error;
    }
  };

  const failures = results?.filter((result) => result.tone === 'error').length ?? 0;
  // each object's permission is its own (the documents name their kinds and namespaces): a refused one is reported in its line
  const cluster = useCurrentCluster();
  const readOnly = cluster.readOnly ? readOnlyReason(cluster.name) : undefined;
  return (
    <section className="create-view" aria-label="Create from YAML">
      <header className="view-header">
        <h1>{templateKind ? `Create ${templateKind.kind}` : 'Create from YAML'}</h1>
        <span className="hint">
          {documents.length} document{documents.length === 1 ? '' : 's'} · objects without a namespace go to <b>{defaultNamespace}</b> · server-side apply as <code>{FIELD_MANAGER}</code>
        </span>
        <div className="detail-actions">
          <button onClick={() => change(STARTER_YAML)} disabled={busy} data-testid="create-reset">
            Example
          </button>
          <button onClick={() => void run(true)} disabled={busy || problems.length > 0 || readOnly !== undefined} data-testid="create-dry-run" title={readOnly ?? 'Server-side dry run: validation and admission, nothing is stored'}>
            Dry run
          </button>
          <button className="primary" onClick={() => void run(false)} disabled={busy || problems.length > 0 || readOnly !== undefined} title={readOnly} data-testid="create-apply">
            Apply
          </button>
        </div>
      </header>
      <YamlProblems problems={problems} testId="create-problems" />
      {results && (
        <div className={`banner result ${failures > 0 ? 'error' : 'ok'}`} data-testid="create-result" data-failures={failures}>
          <div className="result-title">{busy ? `Applying… (${results.length} of ${documents.length})` : `${ranDryRun ? 'Dry run' : 'Applied'}: ${results.length - failures} succeeded, ${failures} failed`}</div>
          <ul className="result-lines marked">
            {results.map((result) => (
              <li key={`${result.index}-${result.line}`} className={`result-line ${result.tone}`} data-testid="create-result-line" data-tone={result.tone}>
                {result.href ? <a href={result.href}>{result.text}</a> : result.text}
                {result.details.map((detail, index) => (
                  <div key={index} className="mono detail-line">
                    {detail}
                  </div>
                ))}
              </li>
            ))}
          </ul>
        </div>
      )}
      <YamlEditor value={text} onChange={change} problems={problems} label="create-editor" />
    </section>
  );
}
