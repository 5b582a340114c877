import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';
import type { StoredSession } from '../session.ts';

/** Sign in, or register then sign in. After an expired session, back to the page the person was on. */
export function SignIn({ expired, next, onSignedIn }: { expired: boolean; next: string | undefined; onSignedIn: (s: StoredSession, next: string | undefined) => void }) {
  const [mode, setMode] = useState<'sign-in' | 'register'>('sign-in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const c = api();
      if (mode === 'register') await c.auth.register(email, password);
      const r = await c.auth.login(email, password);
      onSignedIn({ token: r.token, email: r.user.email }, next);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>qrail console</h1>
      {expired && (
        <p class="notice" role="status">
          Your session has ended. Sign in again to go back to where you were.
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} aria-labelledby="sign-in-title">
        <h2 id="sign-in-title">{mode === 'sign-in' ? 'Sign in' : 'Create an account'}</h2>
        <label>
          Email
          <input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete={mode === 'sign-in' ? 'current-password' : 'new-password'}
            required
            minLength={8}
            maxLength={128}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {mode === 'register' && <p class="hint">At least 8 characters.</p>}
        <ErrorBanner error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Please wait…' : mode === 'sign-in' ? 'Sign in' : 'Create account'}
        </button>
        <button type="button" class="link-button" onClick={() => setMode(mode === 'sign-in' ? 'register' : 'sign-in')}>
          {mode === 'sign-in' ? 'New here? Create an account' : 'Have an account? Sign in'}
        </button>
      </form>
    </main>
  );
}
