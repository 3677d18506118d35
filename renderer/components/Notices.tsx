// Notices (results of actions, errors) in the corner; they fade after a few seconds.
import { useEffect } from 'react';
import { useAppState } from '../context';

export function Notices() {
  const notices = useAppState((state) => state.notices);
  const dismiss = useAppState((state) => state.dismissNotice);
  useEffect(() => {
    if (notices.length === 0) return;
    const oldest = notices[0];
    const timer = setTimeout(() => dismiss(oldest.id), oldest.tone === 'error' ? 10_000 : 4_000);
    return () => clearTimeout(timer);
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
