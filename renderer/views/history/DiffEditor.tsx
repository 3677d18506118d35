// A read-only Monaco diff editor of two YAML texts, side by side (as VS Code compares files),
// unchanged regions folded, following the app theme. It exposes window.__kubedeskDiff {original, modified} for browser
// tests. When Monaco cannot load, a unified diff (shared/history) shows the same change.
import { useEffect, useRef, useState } from 'react';
import type * as MonacoApi from 'monaco-editor';
import { unifiedDiff } from '../../../shared/history/historyFormat';
import { loadMonaco } from '../../editor/monacoLoader';

function pageTheme(): 'vs' | 'vs-dark' {
  return document.documentElement.dataset.theme === 'dark' ? 'vs-dark' : 'vs';
}

export function DiffEditor({ original, modified, originalName, modifiedName, label }: { original: string; modified: string; originalName: string; modifiedName: string; label: string }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const editorRef = useRef<MonacoApi.editor.IStandaloneDiffEditor | undefined>(undefined);
  const modelsRef = useRef<{ original: MonacoApi.editor.ITextModel; modified: MonacoApi.editor.ITextModel } | undefined>(undefined);
  const latest = useRef({ original, modified });
  // the names label the two sides when the editor is made (a new pair of names: a new editor, keyed by the owner)
  const originalNameRef = useRef(originalName);
  const modifiedNameRef = useRef(modifiedName);
  latest.current = { original, modified };
  const [failed, setFailed] = useState<string | undefined>(undefined);

  useEffect(() => {
    let disposed = false;
    const cleanups: (() => void)[] = [];
    loadMonaco().then(
      (monaco) => {
        if (disposed || !hostRef.current) return;
        const editor = monaco.editor.createDiffEditor(hostRef.current, {
          readOnly: true,
          originalAriaLabel: `${originalNameRef.current} (read-only)`,
          modifiedAriaLabel: `${modifiedNameRef.current} (read-only)`,
          automaticLayout: true,
          renderSideBySide: true,
          // the changed lines with a little context; the rest folds away (expandable), as in VS Code
          hideUnchangedRegions: { enabled: true, contextLineCount: 3, minimumLineCount: 3, revealLineCount: 20 },
          minimap: { enabled: false },
          scrollBeyondLastLine: false,
          fontSize: 12,
          renderFinalNewline: 'on',
          theme: pageTheme(),
        });
        const models = { original: monaco.editor.createModel(latest.current.original, 'yaml'), modified: monaco.editor.createModel(latest.current.modified, 'yaml') };
        editor.setModel(models);
        // the diff editor's own label options do not reach its two text areas: label each side
        editor.getOriginalEditor().updateOptions({ ariaLabel: `${originalNameRef.current} (read-only)` });
        editor.getModifiedEditor().updateOptions({ ariaLabel: `${modifiedNameRef.current} (read-only)` });
        editorRef.current = editor;
        modelsRef.current = models;
        const observer = new MutationObserver(() => monaco.editor.setTheme(pageTheme()));
        observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
        const handle = { original: () => models.original.getValue(), modified: () => models.modified.getValue() };
        Reflect.set(window, '__kubedeskDiff', handle);
        cleanups.push(
          () => {
            if (Reflect.get(window, '__kubedeskDiff') === handle) Reflect.deleteProperty(window, '__kubedeskDiff');
          },
          () => observer.disconnect(),
          () => editor.dispose(),
          () => models.original.dispose(),
          () => models.modified.dispose(),
        );
      },
      (error: unknown) => {
        if (!disposed) setFailed(error instanceof Error ? error.message : String(error));
      },
    );
    return () => {
      disposed = true;
      for (const cleanup of cleanups.reverse()) cleanup();
      editorRef.current = undefined;
      modelsRef.current = undefined;
    };
  }, []);

  useEffect(() => {
    const models = modelsRef.current;
    if (!models) return;
    if (models.original.getValue() !== original) models.original.setValue(original);
    if (models.modified.getValue() !== modified) models.modified.setValue(modified);
  }, [original, modified]);

  if (failed) {
    return (
      <div className="yaml-editor-fallback">
        <div className="hint">The diff editor could not load ({failed}); showing a unified diff.</div>
        <pre className="unified-diff mono" aria-label={label} data-testid={label}>
          {unifiedDiff(original, modified, originalName, modifiedName) || 'No differences.'}
        </pre>
      </div>
    );
  }
  return <div className="diff-editor" role="group" ref={hostRef} aria-label={label} data-testid={label} />;
}
