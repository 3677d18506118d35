// The read-only switch of one cluster, for Settings → Clusters: PUT /ui/clusters/<name>/-/settings
// {readOnly}. While it is on, kubedesk refuses writes to that cluster (the relay, or for the serving
// cluster the server itself) and the UI disables them with the reason "read-only".
import { useState } from 'react';
import { setReadOnly } from './clusters';

export function ReadOnlySwitch({ name, readOnly }: { name: string; readOnly: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const change = async (value: boolean) => {
    setBusy(true);
    setError('');
    try {
      await setReadOnly(name, value);
    } catch (failure) {
      setError(`Could not turn read-only ${value ? 'on' : 'off'} for ${name}: ${failure instanceof Error ? failure.message : String(failure)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="read-only-switch">
      <label className="settings-choice">
        <input type="checkbox" role="switch" aria-checked={readOnly} checked={readOnly} disabled={busy || !name} onChange={(event) => void change(event.target.checked)} data-testid={`read-only-switch-${name}`} /> Read-only: kubedesk refuses every write to {name || 'this cluster'} (kubectl with its own credentials is not affected)
      </label>
      {error && (
        <span className="error-text" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
