/**
 * The console's texts in zh-CN and en. The language follows the browser until the person picks one
 * (kept in localStorage); `<html lang>` follows it so screen readers pronounce the texts correctly.
 */
import { createContext, useContext } from 'react';
import { en, zh, type MessageKey } from './i18n-messages.js';

export type { MessageKey } from './i18n-messages.js';

export const LOCALES = ['zh-CN', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

const TABLES: Record<Locale, Record<MessageKey, string>> = { en, 'zh-CN': zh };

/** A translate function: the text of `key` in the locale with `{name}` placeholders filled. */
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

/** Builds the translate function of a locale. */
export function translator(locale: Locale): Translate {
  const table = TABLES[locale];
  return (key, params = {}) =>
    table[key].replace(/\{(\w+)\}/g, (whole, name: string) =>
      name in params ? String(params[name]) : whole,
    );
}

/** The locale to start with: the saved choice, else the browser's language. */
export function initialLocale(): Locale {
  const saved = localStorage.getItem('g2rain.locale');
  if (saved === 'en' || saved === 'zh-CN') return saved;
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

/** Saves the choice and updates `<html lang>`. */
export function applyLocale(locale: Locale): void {
  localStorage.setItem('g2rain.locale', locale);
  document.documentElement.lang = locale;
}

/** Formats an ISO time as local `YYYY-MM-DD HH:mm:ss` (unambiguous in both languages). */
export function formatTime(_locale: Locale, iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/** What components need of the language. */
export interface I18n {
  locale: Locale;
  t: Translate;
  setLocale: (locale: Locale) => void;
}

export const I18nContext = createContext<I18n>({
  locale: 'en',
  t: translator('en'),
  setLocale: () => undefined,
});

/** The current language. */
export function useI18n(): I18n {
  return useContext(I18nContext);
}
