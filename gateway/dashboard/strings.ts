import { LANGUAGES as CHECKOUT_LANGUAGES, stringsFor as checkoutStringsFor } from '../checkout/strings';
import { EN } from './i18n/en';
import { ES } from './i18n/es';
import { RU } from './i18n/ru';
import type { DashboardStrings } from './i18n/types';

export type { DashboardStrings } from './i18n/types';

export const DASHBOARD_LANGUAGES: Readonly<Record<string, DashboardStrings>> = { en: EN, es: ES, ru: RU };

/** The checkout's rule (`?lang=`, then Accept-Language, then English), so both speak the same language. */
export function dashboardStrings(acceptLanguage: string | undefined, chosen?: string | null): DashboardStrings {
  const picked = checkoutStringsFor(acceptLanguage, chosen);
  const tag = Object.keys(CHECKOUT_LANGUAGES).find((k) => CHECKOUT_LANGUAGES[k] === picked) ?? 'en';
  return DASHBOARD_LANGUAGES[tag] ?? EN;
}

/** `{name}` placeholders filled in. */
export function fill(text: string, values: Readonly<Record<string, string | number>>): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => (Object.hasOwn(values, k) ? String(values[k]) : m));
}
