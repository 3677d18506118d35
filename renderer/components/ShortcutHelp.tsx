// The `?` help: every keyboard shortcut, by where it works, in a modal dialog.
import { Modal } from './Modal';
import { SHORTCUTS } from './shortcuts';

export function ShortcutHelp({ onClose }: { onClose(): void }) {
  return (
    <Modal
      title="Keyboard shortcuts"
      onClose={onClose}
      wide
      footer={
        <button className="primary" onClick={onClose} autoFocus data-testid="shortcuts-close">
          Close
        </button>
      }
    >
      <div className="shortcut-groups" data-testid="shortcuts">
        {SHORTCUTS.map((group) => (
          <section key={group.title} aria-label={group.title}>
            <h3>{group.title}</h3>
            <dl className="shortcuts">
              {group.shortcuts.map((shortcut) => (
                <div key={shortcut.does} className="shortcut">
                  <dt>
                    {shortcut.keys.map((key, index) => (
                      <span key={key}>
                        {index > 0 && <span className="hint"> or </span>}
                        <kbd>{key}</kbd>
                      </span>
                    ))}
                  </dt>
                  <dd>{shortcut.does}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
    </Modal>
  );
}
