// An in-page modal dialog, and the confirm/prompt pair actions ask through: the desktop app's
// native message box when the bridge is there, else this modal (window.confirm/prompt are blocked
// in some shells, and would freeze the page while watches keep delivering events).
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { desktopBridge } from '../../shared/desktopBridge';

export function Modal({ title, children, onClose, footer, wide }: { title: string; children?: ReactNode; onClose(): void; footer: ReactNode; wide?: boolean }) {
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div className="modal-backdrop" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div className={`modal${wide ? ' wide' : ''}`} role="dialog" aria-modal="true" aria-label={title}>
        <h2>{title}</h2>
        {children}
        <div className="modal-footer">{footer}</div>
      </div>
    </div>
  );
}

type Pending = { type: 'confirm'; message: string; detail?: string; danger: boolean; resolve(value: boolean): void } | { type: 'prompt'; message: string; initial: string; resolve(value: string | undefined): void };

export interface Dialogs {
  confirm(message: string, detail?: string): Promise<boolean>;
  prompt(message: string, initial: string): Promise<string | undefined>;
  /** render this where the component renders (the modal, while one is open) */
  element: ReactNode;
}

/** confirm()/prompt() backed by one modal owned by the calling component. */
export function useDialogs(): Dialogs {
  const [pending, setPending] = useState<Pending | undefined>(undefined);
  const confirm = useCallback((message: string, detail?: string): Promise<boolean> => {
    const bridge = desktopBridge();
    if (bridge) return bridge.confirm(message, detail);
    return new Promise((resolve) => setPending({ type: 'confirm', message, detail, danger: /delete|drain|evict/i.test(message), resolve }));
  }, []);
  const prompt = useCallback((message: string, initial: string): Promise<string | undefined> => new Promise((resolve) => setPending({ type: 'prompt', message, initial, resolve })), []);
  const element = pending ? <PendingDialog pending={pending} done={() => setPending(undefined)} /> : null;
  return useMemo(() => ({ confirm, prompt, element }), [confirm, prompt, element]);
}

function PendingDialog({ pending, done }: { pending: Pending; done(): void }) {
  const [value, setValue] = useState(pending.type === 'prompt' ? pending.initial : '');
  const inputRef = useRef<HTMLInputElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (inputRef.current) {
      inputRef.current.focus();
      inputRef.current.select();
    } else confirmRef.current?.focus();
  }, []);
  const finish = (accepted: boolean) => {
    if (pending.type === 'confirm') pending.resolve(accepted);
    else pending.resolve(accepted ? value : undefined);
    done();
  };
  return (
    <Modal
      title={pending.type === 'confirm' ? 'Confirm' : pending.message}
      onClose={() => finish(false)}
      footer={
        <>
          <button onClick={() => finish(false)} data-testid="modal-cancel">
            Cancel
          </button>
          <button ref={confirmRef} className={pending.type === 'confirm' && pending.danger ? 'danger' : 'primary'} onClick={() => finish(true)} data-testid="modal-confirm">
            OK
          </button>
        </>
      }
    >
      {pending.type === 'confirm' ? (
        <>
          <p className="modal-message">{pending.message}</p>
          {pending.detail && <p className="hint">{pending.detail}</p>}
        </>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            finish(true);
          }}
        >
          <input ref={inputRef} value={value} onChange={(event) => setValue(event.target.value)} data-testid="scale-input" aria-label={pending.message} className="modal-input" />
        </form>
      )}
    </Modal>
  );
}
