import { LOCALES, useI18n, type Locale } from '../i18n.js';
import type { Session } from '../session.js';
import { Link } from './link.js';

const LOCALE_NAMES: Record<Locale, string> = { 'zh-CN': '中文', en: 'English' };

/** The top bar: title, language switch, who is signed in. */
export function Header({ session }: { session: Session | null }) {
  const { t, locale, setLocale } = useI18n();
  return (
    <header className="top">
      <Link href="/" className="brand">
        {t('appTitle')}
      </Link>
      <div className="top-tools">
        <label className="inline-label">
          {t('language')}{' '}
          <select value={locale} onChange={(e) => setLocale(e.target.value as Locale)}>
            {LOCALES.map((l) => (
              <option key={l} value={l} lang={l}>
                {LOCALE_NAMES[l]}
              </option>
            ))}
          </select>
        </label>
        {session && (
          <>
            <span className="who" data-testid="who">
              {t('signedInAs', { name: session.me.name, role: session.roleKnown ? session.me.role : '?' })}
              {session.me.tenant ? ` · ${t('tenant', { tenant: session.me.tenant })}` : ''}
            </span>
            <button type="button" className="secondary" onClick={session.signOut}>
              {t('signOut')}
            </button>
          </>
        )}
      </div>
    </header>
  );
}
