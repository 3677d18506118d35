// The building blocks of the detail page's cards: a titled card, a compact table, a label/value
// row, links to other objects, copying to the clipboard, and a secret value that stays hidden
// until revealed (copying does not reveal it).
import { useState, type ReactNode } from 'react';
import type { ObjectLink, Tone } from '../../kinds/kindConfig';
import { formatRoute, type Route } from '../../store/routes';

export function linkHref(link: ObjectLink): string {
  return formatRoute({ view: 'detail', kindKey: link.kindKey, namespace: link.namespace, name: link.name } satisfies Route);
}

export function Card({ title, children, wide, testId }: { title: string; children: ReactNode; wide?: boolean; testId?: string }) {
  return (
    <section className={`card${wide ? ' wide' : ''}`} aria-label={title} data-testid={testId}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** A compact table in a card: a header cell per column, the rows as children. */
export function MiniTable({ testId, className, columns, children }: { testId: string; className?: string; columns: string[]; children: ReactNode }) {
  return (
    <table className={`mini-table${className ? ` ${className}` : ''}`} data-testid={testId}>
      <thead>
        <tr>
          {columns.map((column, index) => (
            <th key={index}>{column || <span className="visually-hidden">Actions</span>}</th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

export function FieldRow({ label, tone, hint, children }: { label: string; tone?: Tone; hint?: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd className={[tone ? `tone-${tone}` : '', hint ? 'has-hint' : ''].filter(Boolean).join(' ')} title={hint}>
        {children}
      </dd>
    </>
  );
}

/** Copies text: the async Clipboard API, else a hidden textarea and execCommand (older shells). */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    // fall through: no permission or no Clipboard API
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  if (!copied) throw new Error('the clipboard is not available');
}

/** A button that copies `text` and says so for a moment. */
export function CopyButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      className="ghost small"
      aria-label={label}
      title={label}
      data-testid={testId}
      onClick={() => {
        const settle = (next: 'copied' | 'failed') => {
          setState(next);
          setTimeout(() => setState('idle'), 1500);
        };
        copyText(text).then(
          () => settle('copied'),
          () => settle('failed'),
        );
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
    </button>
  );
}

/** A secret value: dots until Reveal; Copy copies it without showing it. */
export function SecretValue({ value, name, testId }: { value: string; name: string; testId: string }) {
  const [shown, setShown] = useState(false);
  return (
    <span className="secret-value">
      <span className="mono" data-testid={`${testId}-text`}>
        {shown ? value : '••••••••'}
      </span>
      <button className="ghost small" aria-pressed={shown} aria-label={`${shown ? 'Hide' : 'Reveal'} ${name}`} onClick={() => setShown(!shown)} data-testid={`${testId}-reveal`}>
        {shown ? 'Hide' : 'Reveal'}
      </button>
      <CopyButton text={value} label={`Copy ${name}`} testId={`${testId}-copy`} />
    </span>
  );
}
