// Notices (results of actions, errors) in the corner; each fades a few seconds after it appeared
// (errors stay longer), however many others arrive meanwhile. Clicking one dismisses it.
import { useEffect, useRef } from 'react';
import { useAppState } from '../context';

const SHOWN_MS = { info: 4_000, ok: 4_000, error: 10_000 };

export function Notices() {
  const notices = useAppState((state) => state.notices);
  const dismiss = useAppState((state) => state.dismissNotice);
  const firstSeen = useRef(new Map<number, number>());
  useEffect(() => {
    const now = Date.now();
    const seen = firstSeen.current;
    for (const notice of notices) if (!seen.has(notice.id)) seen.set(notice.id, now);
    for (const id of seen.keys()) if (!notices.some((notice) => notice.id === id)) seen.delete(id);
    const timers = notices.map((notice) => setTimeout(() => dismiss(notice.id), Math.max(0, (seen.get(notice.id) ?? now) + SHOWN_MS[notice.tone] - now)));
    return () => timers.forEach((timer) => clearTimeout(timer));
  }, [notices, dismiss]);
  return (
    <div className="notices" role="status" aria-live="polite">
      {notices.map((notice) => (
        <div key={notice.id} className={`notice ${notice.tone}`} onClick={() => dismiss(notice.id)}>
          {notice.text}
        </div>
      ))}
    </div>
  );
}
