import { useState, type FormEvent } from 'react';
import { useI18n } from '../i18n.js';

/** The sign-in form: one token field. */
export function Login({
  onSignIn,
  initialError,
}: {
  onSignIn: (token: string) => Promise<void>;
  initialError: string | null;
}) {
  const { t } = useI18n();
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(initialError);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (!token.trim()) return;
    setBusy(true);
    setError(null);
    onSignIn(token.trim()).catch((failure: unknown) => {
      setBusy(false);
      setError(t('badToken', { message: failure instanceof Error ? failure.message : String(failure) }));
    });
  };
  return (
    <section className="card login" aria-labelledby="login-title">
      <h1 id="login-title">{t('loginTitle')}</h1>
      <p id="login-help">{t('loginHelp')}</p>
      <form onSubmit={submit}>
        <label htmlFor="token">{t('tokenLabel')}</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          required
          aria-describedby="login-help"
          value={token}
          onChange={(e) => setToken(e.target.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? t('signingIn') : t('signIn')}
        </button>
      </form>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}
