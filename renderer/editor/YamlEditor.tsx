// A Monaco YAML editor: loads Monaco on demand, follows the app theme (vs / vs-dark from <html
// data-theme>), shows YAML problems as markers, and exposes window.__kubedeskEditor {getValue,
// setValue} for the mounted editor so browser tests can type whole documents. When Monaco cannot
// load, a plain textarea does the same job.
import { useEffect, useRef, useState } from 'react';
import type * as MonacoApi from 'monaco-editor';
import { loadMonaco, type Monaco } from './monacoLoader';
import type { YamlProblem } from './yamlModel';

export interface YamlEditorProps {
  /** the text; when it changes from outside (load, revert) the editor takes it */
  value: string;
  onChange(text: string): void;
  problems?: YamlProblem[];
  readOnly?: boolean;
  /** accessible name and test id of the editor area */
  label: string;
}

interface TestHandle {
  getValue(): string;
  setValue(text: string): void;
}

function pageTheme(): 'vs' | 'vs-dark' {
  return document.documentElement.dataset.theme === 'dark' ? 'vs-dark' : 'vs';
}

function exposeForTests(handle: TestHandle): () => void {
  Reflect.set(window, '__kubedeskEditor', handle);
  return () => {
    if (Reflect.get(window, '__kubedeskEditor') === handle) Reflect.deleteProperty(window, '__kubedeskEditor');
  };
}

export function YamlEditor({ value, onChange, problems = [], readOnly = false, label }: YamlEditorProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const editorRef = useRef<MonacoApi.editor.IStandaloneCodeEditor | undefined>(undefined);
  const monacoRef = useRef<Monaco | undefined>(undefined);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  // the latest prop (the editor is created with it) and the last prop pushed into the editor: a
  // prop is pushed only when it changed, so an effect that runs late with an older prop cannot
  // overwrite what the user (or a test) typed since
  const latestValue = useRef(value);
  latestValue.current = value;
  const pushedValue = useRef(value);
  const [failed, setFailed] = useState<string | undefined>(undefined);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let disposed = false;
    const cleanups: (() => void)[] = [];
    loadMonaco().then(
      (monaco) => {
        if (disposed || !hostRef.current) return;
        monacoRef.current = monaco;
        const editor = monaco.editor.create(hostRef.current, {
          value: latestValue.current,
          language: 'yaml',
          theme: pageTheme(),
          automaticLayout: true,
          minimap: { enabled: false },
          scrollBeyondLastLine: false,
          tabSize: 2,
          insertSpaces: true,
          fontSize: 12,
          renderWhitespace: 'selection',
          // the number of the empty line after the final newline in full colour: Monaco's dimmed
          // default is far below readable contrast (1.8:1)
          renderFinalNewline: 'on',
          overviewRulerBorder: false,
          hideCursorInOverviewRuler: true,
          readOnly,
        });
        editorRef.current = editor;
        pushedValue.current = latestValue.current;
        const subscription = editor.onDidChangeModelContent(() => onChangeRef.current(editor.getValue()));
        const observer = new MutationObserver(() => monaco.editor.setTheme(pageTheme()));
        observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
        cleanups.push(
          // a test's setValue also reports the text at once, so the owner's state cannot lag behind it
          exposeForTests({
            getValue: () => editor.getValue(),
            setValue: (text) => {
              editor.setValue(text);
              onChangeRef.current(text);
            },
          }),
          () => observer.disconnect(),
          () => subscription.dispose(),
          () => editor.dispose(),
        );
        setReady(true);
      },
      (error: unknown) => {
        if (!disposed) setFailed(error instanceof Error ? error.message : String(error));
      },
    );
    return () => {
      disposed = true;
      for (const cleanup of cleanups.reverse()) cleanup();
      editorRef.current = undefined;
    };
    // the editor is created once; value and readOnly changes are pushed by the effects below
  }, []);

  useEffect(() => {
    const editor = editorRef.current;
    if (!editor || value === pushedValue.current) return;
    pushedValue.current = value;
    if (editor.getValue() !== value) editor.setValue(value);
  }, [value, ready]);

  useEffect(() => {
    editorRef.current?.updateOptions({ readOnly });
  }, [readOnly, ready]);

  useEffect(() => {
    const editor = editorRef.current;
    const monaco = monacoRef.current;
    const model = editor?.getModel();
    if (!monaco || !model) return;
    monaco.editor.setModelMarkers(
      model,
      'kubedesk',
      problems
        .filter((problem) => problem.line > 0)
        .map((problem) => ({ severity: monaco.MarkerSeverity.Error, message: problem.message, startLineNumber: problem.line, startColumn: Math.max(1, problem.column), endLineNumber: problem.line, endColumn: model.getLineMaxColumn(Math.min(problem.line, model.getLineCount())) })),
    );
  }, [problems, ready]);

  if (failed) return <TextareaEditor value={value} onChange={onChange} readOnly={readOnly} label={label} note={`The code editor could not load (${failed}); editing as plain text.`} />;
  return <div className="yaml-editor" ref={hostRef} aria-label={label} data-testid={label} />;
}

function TextareaEditor({ value, onChange, readOnly, label, note }: { value: string; onChange(text: string): void; readOnly: boolean; label: string; note: string }) {
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const valueRef = useRef(value);
  valueRef.current = value;
  useEffect(() => exposeForTests({ getValue: () => valueRef.current, setValue: (text) => onChangeRef.current(text) }), []);
  return (
    <div className="yaml-editor-fallback">
      <div className="hint">{note}</div>
      <textarea className="yaml-textarea" spellCheck={false} value={value} readOnly={readOnly} aria-label={label} data-testid={label} onChange={(event) => onChange(event.target.value)} />
    </div>
  );
}
