/** The languages of every text the runtime shows to a model. A flow picks one; zh-CN is the default. */
export type Locale = 'zh-CN' | 'en';

export const LOCALES: readonly Locale[] = ['zh-CN', 'en'];

export const DEFAULT_LOCALE: Locale = 'zh-CN';

/** A text in every locale. */
export type Localized<T> = Record<Locale, T>;
