// Sign-in: the page was opened without a session, or its session ended (the cluster restarted, or
// signed out elsewhere — then it says so). A one-time login link (printed by `kubedesk serve`, or
// opened by the desktop app) signs in by itself; otherwise paste a token here — the one-time token
// or the token of the kubedesk user in your kubeconfig.
import { useState } from 'react';
import { useAppState } from '../context';

export function SignIn() {
  const setSession = useAppState((state) => state.setSession);
  const reason = useAppState((state) => state.signedOutReason);
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const submit = async () => {
    setError('');
    const response = await fetch('/ui/session', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: token.trim() }), credentials: 'same-origin' });
    if (response.ok) setSession('signed-in');
    else setError(response.status === 401 ? 'That token is not valid (one-time tokens work once).' : `Sign-in failed (${response.status}).`);
  };
  return (
    <main className="sign-in">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <h1>kubedesk</h1>
        {reason && (
          <p className="banner warn" role="status" data-testid="signed-out-reason">
            {reason}
          </p>
        )}
        <p>Open the link that <code>kubedesk serve</code> printed, or paste a token:</p>
        <input type="password" autoFocus value={token} onChange={(event) => setToken(event.target.value)} placeholder="token" aria-label="Token" />
        <button className="primary" type="submit" disabled={!token.trim()}>
          Sign in
        </button>
        {error && <p className="error-text">{error}</p>}
        <p className="hint">
          The kubeconfig token: <code>kubectl config view --raw -o jsonpath='{'{'}.users[?(@.name=="kubedesk")].user.token{'}'}'</code>
        </p>
      </form>
    </main>
  );
}
