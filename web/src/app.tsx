/**
 * The console shell: language, sign-in, header and the two pages (runs, run).
 */
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError } from './api.js';
import { Header } from './components/header.js';
import { Login } from './components/login.js';
import { EvidencePage } from './components/evidence-page.js';
import { RunPage } from './components/run-page.js';
import { RunsPage } from './components/runs-page.js';
import { ThreadPage, ThreadsPage } from './components/thread-page.js';
import { applyLocale, I18nContext, initialLocale, translator, type I18n, type Locale } from './i18n.js';
import { useRoute } from './router.js';
import { savedToken, saveToken, SessionContext, sessionOf, whoAmI, type Session } from './session.js';

type AuthState =
  { state: 'checking' } | { state: 'out'; error: string | null } | { state: 'in'; session: Session };

/** The whole console. */
export function App() {
  const [locale, setLocale] = useState<Locale>(initialLocale);
  const i18n = useMemo<I18n>(() => ({ locale, t: translator(locale), setLocale }), [locale]);
  useEffect(() => applyLocale(locale), [locale]);
  const { auth, signIn } = useAuth();
  return (
    <I18nContext.Provider value={i18n}>
      <a className="skip-link" href="#main">
        {i18n.t('skipToContent')}
      </a>
      <Header session={auth.state === 'in' ? auth.session : null} />
      <main id="main" tabIndex={-1}>
        {auth.state === 'checking' && <p role="status">{i18n.t('loading')}</p>}
        {auth.state === 'out' && <Login onSignIn={signIn} initialError={auth.error} />}
        {auth.state === 'in' && (
          <SessionContext.Provider value={auth.session}>
            <Pages />
          </SessionContext.Provider>
        )}
      </main>
    </I18nContext.Provider>
  );
}

function Pages() {
  const route = useRoute();
  const { t } = useContext(I18nContext);
  const first = useRef(true);
  const where =
    route.page === 'runs' || route.page === 'threads'
      ? route.page
      : route.page === 'thread'
        ? `thread ${route.threadId}`
        : route.page === 'run'
          ? route.runId
          : `${route.runId}/${route.evidenceId}`;
  useEffect(() => {
    document.title =
      route.page === 'runs' || route.page === 'threads'
        ? t('appTitle')
        : route.page === 'thread'
          ? `${route.threadId} · ${t('appTitle')}`
          : `${route.page === 'evidence' ? `${route.evidenceId} · ` : ''}${route.runId} · ${t('appTitle')}`;
  });
  useEffect(() => {
    // After an in-app navigation, start reading at the new page (as a page load would).
    if (!first.current) document.getElementById('main')?.focus();
    first.current = false;
  }, [where]);
  if (route.page === 'run') return <RunPage key={route.runId} runId={route.runId} />;
  if (route.page === 'evidence') return <EvidencePage key={where} route={route} />;
  if (route.page === 'thread') return <ThreadPage key={where} threadId={route.threadId} />;
  if (route.page === 'threads') return <ThreadsPage />;
  return <RunsPage status={route.status} />;
}

/** Checks the saved token (or a server without tokens) once, and signs in with a typed token. */
function useAuth(): { auth: AuthState; signIn: (token: string) => Promise<void> } {
  const [auth, setAuth] = useState<AuthState>({ state: 'checking' });
  const signOut = useCallback(() => {
    saveToken(null);
    setAuth({ state: 'out', error: null });
  }, []);
  const signIn = useCallback(
    async (token: string) => {
      const { me, roleKnown } = await whoAmI(token);
      saveToken(token);
      setAuth({ state: 'in', session: sessionOf(token, me, roleKnown, signOut) });
    },
    [signOut],
  );
  useEffect(() => {
    const token = savedToken();
    whoAmI(token).then(
      ({ me, roleKnown }) => setAuth({ state: 'in', session: sessionOf(token, me, roleKnown, signOut) }),
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 401) {
          saveToken(null);
          setAuth({ state: 'out', error: null });
        } else {
          setAuth({ state: 'out', error: error instanceof Error ? error.message : String(error) });
        }
      },
    );
  }, [signOut]);
  return { auth, signIn };
}
